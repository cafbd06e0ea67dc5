"""The speed model for current builds: prefill after existing context, sliding windows, MoE chunks, FP8/FP4
kernels, the build era and the cores' bandwidth limit, each against arithmetic written out here."""

from __future__ import annotations

import csv

import pytest

from kalkulator.io.paths import CATALOG_DIR

# A fixed set of speed parameters, so the arithmetic below does not move when the fit is redone.
PARAMS = {
    "gpu_fp16_tflops": 330.3,
    "prefill_efficiency_frac": 0.5,
    "prefill_attention_efficiency_frac": 0.25,
    "prefill_layer_overhead_us": 1.0,
    "decode_efficiency_frac": 0.8,
    "prefill_alu_work_ratio": 0.0,  # the shader-ALU term has its own test below
}


def test_prefill_of_a_2048_token_prompt_after_32k_tokens_of_context(calc):
    # A follow-up turn: 32,768 tokens already in the KV cache, 2,048 new ones. Llama-3.1-8B (32 layers, 32 heads
    # of 128) on an RTX 4090 with Q4_K_M (an FP16-compute format), llama.cpp chunks of 512 tokens.
    out = calc(
        model_name="Llama-3.1-8B",
        gpu_name="RTX 4090 24GB",
        quant_name="Q4_K_M",
        prompt_tokens=32768 + 2048,
        prefix_cache_hit_frac=32768 / (32768 + 2048),
        **PARAMS,
    )
    matmul = 2 * 8.03e9 * 2048  # 32.9 TFLOP
    attention = 4 * 32 * 128 * 2048 * 32 * (32768 + 2048 / 2)  # 36.3 TFLOP: more than the weights
    seconds = matmul / (330.3e12 * 0.5) + attention / (330.3e12 * 0.25) + 2048 * 32 * 1e-6
    assert out["prefill_new_tokens"] == pytest.approx(2048, rel=1e-12)
    assert out["prefill_matmul_tflop"] == pytest.approx(matmul / 1e12, rel=1e-9)
    assert out["prefill_attention_tflop"] == pytest.approx(attention / 1e12, rel=1e-9)
    assert out["prefill_compute_s"] == pytest.approx(seconds, rel=1e-9)  # 0.199 + 0.440 + 0.066 = 0.705 s
    assert out["prefill_chunks_ratio"] == 4  # 2,048 ÷ 512
    assert out["prefill_s"] == pytest.approx(seconds, rel=1e-9)  # compute, not the 4 weight reads, sets the time
    # The same prompt without the context: attention over 1,024 keys on average instead of 33,792.
    fresh = calc(model_name="Llama-3.1-8B", gpu_name="RTX 4090 24GB", quant_name="Q4_K_M", prompt_tokens=2048, **PARAMS)
    fresh_s = matmul / (330.3e12 * 0.5) + 4 * 32 * 128 * 2048 * 32 * 1024 / (330.3e12 * 0.25) + 2048 * 32 * 1e-6
    assert fresh["prefill_s"] == pytest.approx(fresh_s, rel=1e-9)
    assert out["prefill_s"] / fresh["prefill_s"] == pytest.approx(seconds / fresh_s, rel=1e-9)  # ≈ 2.6× slower


def test_quantized_prefill_adds_its_alu_work_at_the_fp32_rate(calc):
    # Llama-2-7B (6.74 B params), a 512-token prompt on an H100 PCIe, FP32 rate of its CUDA cores 51.2 TFLOPS
    # (the FP16 peak is PARAMS' 330.3). With 0.3 ALU operations per weight FLOP, Q4_0 adds
    # 2 × 6.74e9 × 512 × 0.3 ÷ 51.2e12 = 40.44 ms; F16 weights (cuBLAS on the tensor units) add nothing.
    setup = {"model_name": "Llama-2-7B", "gpu_name": "H100 PCIe 80GB", "prompt_tokens": 512}
    alu = {"gpu_fp32_tflops": 51.2, "prefill_alu_work_ratio": 0.3}
    q4 = calc(quant_name="Q4_0", **setup, **(PARAMS | alu))
    q4_without = calc(quant_name="Q4_0", **setup, **PARAMS)
    expected = 2 * 6.74e9 * 512 * 0.3 / 51.2e12
    assert expected == pytest.approx(0.0404400, rel=1e-5)
    assert q4["prefill_compute_s"] - q4_without["prefill_compute_s"] == pytest.approx(expected, rel=1e-9)
    # The usable FLOPS for weight multiplies: 1 ÷ (1 ÷ (330.3 × 0.5) + 0.3 ÷ 51.2) = 83.93 TFLOPS (FP16 peak of
    # PARAMS), the rate batched decode steps also compute at.
    assert q4["matmul_tflops"] == pytest.approx(1 / (1 / (330.3 * 0.5) + 0.3 / 51.2), rel=1e-12)
    assert q4["decode_user_compute_ms"] > q4_without["decode_user_compute_ms"]
    f16 = calc(quant_name="F16", **setup, **(PARAMS | alu))
    assert f16["matmul_tflops"] == pytest.approx(330.3 * 0.5, rel=1e-12)


def test_sliding_window_layers_attend_to_their_window_only(calc):
    # gpt-oss-20b: 24 layers, 12 of them with a 128-token window; 64 heads of 64.
    out = calc(
        model_name="gpt-oss-20b",
        quant_name="MXFP4",
        prompt_tokens=32768 + 2048,
        prefix_cache_hit_frac=32768 / (32768 + 2048),
        **PARAMS,
    )
    keys = 32768 + 2048 / 2
    attention = 4 * 64 * 64 * 2048 * (12 * keys + 12 * 128)
    assert out["prefill_attention_tflop"] == pytest.approx(attention / 1e12, rel=1e-9)
    # Decode: the attention cost per user counts the full layers' context and the sliding layers' window.
    decode = calc(model_name="gpt-oss-20b", quant_name="MXFP4", context_tokens=8192, decode_attention_ns=10)
    assert decode["decode_user_overhead_ms"] == pytest.approx((12 * 8192 + 12 * 128) * 10 / 1e6, rel=1e-9)


def test_moe_chunks_read_the_experts_their_tokens_touch(calc):
    # Qwen3-30B-A3B: 3.3 B of 30.5 B parameters active. 8 prompt tokens touch 1 − (1 − 3.3/30.5)^8 of the
    # weights; a 512-token chunk touches all of them, and a 2,048-token prompt reads them 4 times.
    short = calc(model_name="Qwen3-30B-A3B", quant_name="Q4_K_M", prompt_tokens=8, prefill_chunk_tokens=512)
    assert short["prefill_weights_touched_frac"] == pytest.approx(1 - (1 - 3.3 / 30.5) ** 8, rel=1e-9)
    long = calc(
        model_name="Qwen3-30B-A3B",
        quant_name="Q4_K_M",
        prompt_tokens=2048,
        prefill_chunk_tokens=512,
        decode_efficiency_frac=0.8,
    )
    assert long["prefill_weights_touched_frac"] == pytest.approx(1 - (1 - 3.3 / 30.5) ** 512, rel=1e-12)
    weights = long["gpu_weights_gb"]
    expected = 4 * (1 - (1 - 3.3 / 30.5) ** 512) * weights / (long["gpu_mem_bandwidth_gbs"] * 0.8)
    assert long["prefill_memory_s"] == pytest.approx(expected, rel=1e-9)
    dense = calc(model_name="Llama-3.1-8B", prompt_tokens=100)
    assert dense["prefill_weights_touched_frac"] == 1


def test_fp4_and_fp8_units_only_where_the_engine_uses_them(calc):
    # NVIDIA B200: 2,250 FP16, 9,000 FP4 dense TFLOPS. llama.cpp computes MXFP4 with its integer kernels (FP16
    # peak); vLLM runs MXFP4 on the FP4 tensor cores.
    llama = calc(gpu_name="B200 180GB", quant_name="MXFP4", engine="llama.cpp")
    vllm = calc(gpu_name="B200 180GB", quant_name="MXFP4", engine="vllm")
    assert llama["engine_fp8_fp4_units_flag"] == 0 and llama["gpu_compute_tflops"] == 2250
    assert vllm["engine_fp8_fp4_units_flag"] == 1 and vllm["gpu_compute_tflops"] == 9000


def test_build_era_picks_the_speed_parameters(calc):
    assert calc()["build_era_text"] == "2025"
    assert calc(gpu_name="RTX 4090 24GB")["speed_params_name"] == "llama.cpp/cuda@2025"
    assert calc(gpu_name="RTX 4090 24GB", build_era_text="2024")["speed_params_name"] == "llama.cpp/cuda@2024"
    assert calc(gpu_name="Arc A770 16GB", build_era_text="2024")["speed_params_name"] == "llama.cpp/any@2024"
    assert calc(engine="vllm", gpu_name="H100 SXM 80GB")["speed_params_name"] == "vllm/any"
    # Current CUDA builds pay less per layer than the 2024 ones (CUDA graphs): Llama-2-7B Q4_0 on an RTX 4090.
    now = calc(model_name="Llama-2-7B", quant_name="Q4_0", prompt_tokens=1, output_tokens=128)
    then = calc(model_name="Llama-2-7B", quant_name="Q4_0", prompt_tokens=1, output_tokens=128, build_era_text="2024")
    assert now["decode_layer_overhead_ms"] < then["decode_layer_overhead_ms"]


def test_few_gpu_cores_cap_the_bandwidth(calc):
    # Apple M1 Max 24-core: 7.8 TFLOPS for 400 GB/s. With 40 FLOP per byte the cores can feed
    # 7.8 × 1000 ÷ (40 × 400) = 48.75 % of the bandwidth; the 32-core chip (10.4 TFLOPS) 65 %.
    fixed = dict(decode_alu_flop_per_byte=40, engine_bandwidth_efficiency_frac=0.9, decode_superblock_work_ratio=1.5)
    small = calc(gpu_name="Apple M1 Max 24-core GPU 32GB", quant_name="Q4_0", **fixed)
    big = calc(gpu_name="Apple M1 Max 64GB", quant_name="Q4_0", **fixed)
    assert small["decode_alu_limit_frac"] == pytest.approx(7.8 * 1000 / (40 * 400), rel=1e-9)
    assert small["decode_efficiency_frac"] == pytest.approx(0.4875, rel=1e-9)
    assert big["decode_efficiency_frac"] == pytest.approx(0.65, rel=1e-9)
    # Float weights cost the cores as much per byte as Q4_0; K-quants 1.5 × as much (the ratio set above):
    # 7.8 × 1000 ÷ (40 × 1.5 × 400) = 32.5 % on the 24-core chip, 10.4 × 1000 ÷ (40 × 1.5 × 400) = 43.3 % (32-core).
    assert calc(gpu_name="Apple M1 Max 64GB", quant_name="F16", **fixed)["decode_efficiency_frac"] == pytest.approx(
        0.65
    )
    k_small = calc(gpu_name="Apple M1 Max 24-core GPU 32GB", quant_name="Q4_K_M", **fixed)
    assert k_small["decode_weight_work_ratio"] == 1.5
    assert k_small["decode_efficiency_frac"] == pytest.approx(0.325, rel=1e-9)
    k_big = calc(gpu_name="Apple M1 Max 64GB", quant_name="IQ4_XS", **fixed)
    assert k_big["decode_efficiency_frac"] == pytest.approx(10.4 * 1000 / (40 * 1.5 * 400), rel=1e-9)
    # A GPU with many cores per byte keeps the kernels' own efficiency.
    assert calc(gpu_name="RTX 4090 24GB", decode_alu_flop_per_byte=40)["decode_alu_limit_frac"] > 1


OLDER_CARDS = (
    "Tesla P40 24GB",
    "Tesla M40 24GB",
    "V100 PCIe 32GB",
    "Quadro RTX 6000 24GB",
    "Quadro RTX 8000 48GB",
    "RTX 4090 D 24GB",
    "RTX PRO 4000 Blackwell 24GB",
    "Radeon PRO V620 32GB",
    "Instinct MI60 32GB",
    "Arc Pro B60 24GB",
)


def test_catalog_has_the_older_cards_and_apple_core_counts():
    with open(CATALOG_DIR / "gpus.csv", newline="", encoding="utf-8") as fh:
        rows = {r["name"]: r for r in csv.DictReader(fh)}
    for name in OLDER_CARDS:
        row = rows[name]
        assert float(row["price_usd"]) > 0 and row["as_of"] and row["source"]
        assert "github.com" not in row["source"] and "assumptions/" not in row["source"]
    assert "estimasi" in rows["Tesla P40 24GB"]["source"]
    # Tesla P40 (NVIDIA datasheet): 3,840 CUDA cores × 2 × 1.531 GHz = 11.76 TFLOPS FP32; FP16 runs at 1/64.
    assert float(rows["Tesla P40 24GB"]["fp16_tflops"]) == pytest.approx(3840 * 2 * 1.531e9 / 1e12, rel=1e-3)
    # Apple M1 Max: 32 cores give 10.4 TFLOPS, so 24 cores 7.8; both 400 GB/s.
    assert float(rows["Apple M1 Max 24-core GPU 32GB"]["fp16_tflops"]) == pytest.approx(10.4 * 24 / 32, rel=1e-9)
    for cores in ("M1 7-core", "M2 Max 30-core", "M3 Max 30-core", "M4 Max 32-core", "M3 Ultra 60-core"):
        assert any(n.startswith(f"Apple {cores} GPU") for n in rows)


def test_prefill_time_band_from_the_prompt_speed_error(calc):
    # Prompt speed measured 20 % below to 25 % above the estimate on 8 in 10 held-out devices: the prefill time runs
    # from prefill_s ÷ 1.25 to prefill_s ÷ 0.8 (a 1.0 s estimate: 0.8 s to 1.25 s).
    out = calc(prefill_error_low_frac=-0.2, prefill_error_high_frac=0.25, **PARAMS)
    assert out["prefill_fast_s"] == pytest.approx(out["prefill_s"] / 1.25, rel=1e-12)
    assert out["prefill_slow_s"] == pytest.approx(out["prefill_s"] / 0.8, rel=1e-12)
    shipped = calc(model_name="Llama-2-7B", gpu_name="RTX 4090 24GB", quant_name="Q4_0")
    assert shipped["speed_params_name"] == "llama.cpp/cuda@2025"
    assert shipped["prefill_error_low_frac"] < 0 < shipped["prefill_error_high_frac"]
    assert shipped["prefill_fast_s"] < shipped["prefill_s"] < shipped["prefill_slow_s"]
