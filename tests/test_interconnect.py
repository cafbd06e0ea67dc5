"""Multi-GPU speed: all-reduce over PCIe without peer-to-peer vs NVLink/NVSwitch, layer split, prefill exchanges,
FP32-accumulate rates, and bad interconnect input. Expected values are arithmetic written out here, or the
published llama-bench rows shipped in assumptions/calibration/measured_tps.csv."""

from __future__ import annotations

import csv

import pytest
from click.testing import CliRunner

from kalkulator.catalog import CatalogError, load_catalog
from kalkulator.cli import main

# Llama-3.3-70B: 80 layers, hidden 8192 (models.csv); vLLM: 2 all-reduces per layer (engines.csv).
LAYERS, HIDDEN = 80, 8192
VLLM_70B = {"model_name": "Llama-3.3-70B", "quant_name": "BF16", "engine": "vllm", "split_mode": "tensor"}
MESSAGE_BYTES = HIDDEN * 2  # one sequence's FP16 activations


def ring_volume(n: int) -> float:
    """Bytes one GPU sends per sequence in a ring all-reduce: 2(n − 1)/n × message."""
    return 2 * (n - 1) / n * MESSAGE_BYTES


# RTX 4090 (gpus.csv): PCIe 4.0 x16 = 31.5 GB/s per direction, 5 µs per hop, no P2P on GeForce, so every copy
# is staged through host memory: 10 µs per hop and 31.5 ÷ 2 = 15.75 GB/s. Ring: 2(n − 1) hops.
# H100 SXM (gpus.csv): NVSwitch, 450 GB/s per direction, 3 µs per hop, P2P: 2 hops whatever n.
@pytest.mark.parametrize(
    ("gpu", "n", "latency_us", "per_seq_us"),
    [
        ("RTX 4090 24GB", 2, 2 * 10, ring_volume(2) / 15.75e3),  # 20 µs + 16,384 B ÷ 15,750 B/µs = 1.040 µs
        ("RTX 4090 24GB", 4, 6 * 10, ring_volume(4) / 15.75e3),  # 60 µs + 24,576 B ÷ 15,750 B/µs = 1.560 µs
        ("H100 SXM 80GB", 2, 2 * 3, ring_volume(2) / 450e3),  # 6 µs + 16,384 B ÷ 450,000 B/µs = 0.0364 µs
        ("H100 SXM 80GB", 4, 2 * 3, ring_volume(4) / 450e3),  # 6 µs + 24,576 B ÷ 450,000 B/µs = 0.0546 µs
    ],
)
@pytest.mark.parametrize("batch", [1, 64])
def test_allreduce_pcie_without_p2p_vs_nvswitch(calc, gpu, n, latency_us, per_seq_us, batch):
    out = calc(gpu_name=gpu, n_gpus=n, concurrent_users=batch, **VLLM_70B)
    assert out["allreduce_us"] == pytest.approx(latency_us, rel=1e-9)
    assert out["allreduce_user_us"] == pytest.approx(per_seq_us, rel=1e-9)
    # Two all-reduces per layer and step; the bytes grow with the batch.
    per_step_ms = LAYERS * 2 * (latency_us + batch * per_seq_us) / 1000
    got = out["tensor_parallel_ms"] + batch * out["tensor_parallel_per_user_ms"]
    assert got == pytest.approx(per_step_ms, rel=1e-9)
    # e.g. 2× RTX 4090 at batch 64: 160 × (20 + 64 × 1.040) µs = 13.85 ms a step; 2× H100: 160 × 8.33 µs = 1.33 ms.
    assert out["memory_bound_step_per_user_ms"] > out["tensor_parallel_per_user_ms"]


def test_pcie_tensor_parallel_barely_gains_from_more_gpus(calc):
    # At batch 1, 4 GPUs read a quarter of the weights each, but every all-reduce takes 6 hops instead of 2:
    # over PCIe without P2P the 160 all-reduces cost 160 × 60 µs = 9.6 ms against 3.2 ms on 2 GPUs.
    two = calc(gpu_name="RTX 4090 24GB", n_gpus=2, concurrent_users=1, **VLLM_70B)
    four = calc(gpu_name="RTX 4090 24GB", n_gpus=4, concurrent_users=1, **VLLM_70B)
    assert four["tensor_parallel_ms"] - two["tensor_parallel_ms"] == pytest.approx(160 * (60 - 20) / 1000, rel=1e-9)
    # The step: both the weight and the KV reads shrink with 4 GPUs; the exchange grows by 6.4 ms + the bytes.
    memory_saved = (
        two["decode_fixed_memory_ms"]
        - four["decode_fixed_memory_ms"]
        + two["decode_user_memory_ms"]
        - four["decode_user_memory_ms"]
    ) / two["decode_efficiency_frac"]
    exchange_added = 160 * (60 - 20) / 1000 + 160 * (ring_volume(4) - ring_volume(2)) / 15.75e3 / 1000
    assert four["decode_step_ms"] == pytest.approx(two["decode_step_ms"] - memory_saved + exchange_added, rel=1e-9)


def test_an_nvlink_bridge_on_a_3090_pair_is_a_set_away(calc):
    # The 3090 row is PCIe without P2P; an NVLink bridge (56.25 GB/s per direction, P2P, 3 µs) is four --set values.
    bridge = {"gpu_link_type": "nvlink-bridge", "gpu_link_bandwidth_gbs": 56.25, "gpu_p2p_mode": "yes"}
    out = calc(gpu_name="RTX 3090 24GB", n_gpus=2, concurrent_users=1, gpu_link_latency_us=3, **bridge, **VLLM_70B)
    assert out["allreduce_us"] == pytest.approx(2 * 3, rel=1e-12)
    assert out["allreduce_user_us"] == pytest.approx(16384 / 56.25e3, rel=1e-9)


def test_llama_cpp_row_split_exchanges_every_weight_matrix(calc):
    # llama.cpp --split-mode row gathers the result of each of the 7 split matrices per layer on the main GPU:
    # 2× RTX 3090 (PCIe, no P2P): 80 layers × 7 × (2 hops × 10 µs + llama.cpp's 26 µs per exchange, engines.csv)
    # = 25.76 ms per token.
    out = calc(
        model_name="Llama-3.3-70B",
        gpu_name="RTX 3090 24GB",
        quant_name="Q4_K_M",
        engine="llama.cpp",
        n_gpus=2,
        split_mode="tensor",
        concurrent_users=1,
    )
    assert out["tensor_parallel_ms"] == pytest.approx(80 * 7 * (20 + 26) / 1000, rel=1e-9)


def test_tensor_parallel_prefill_pays_for_the_prompt_bytes(calc):
    # 2,048 new prompt tokens in one vLLM chunk (8,192 tokens): 160 all-reduces × (20 µs + 2,048 × 1.0403 µs).
    out = calc(gpu_name="RTX 4090 24GB", n_gpus=2, prompt_tokens=2048, **VLLM_70B)
    expected = LAYERS * 2 * (1 * 20 + 2048 * ring_volume(2) / 15.75e3) / 1e6
    assert expected == pytest.approx(0.34408, rel=1e-4)
    assert out["prefill_exchange_s"] == pytest.approx(expected, rel=1e-9)
    slower = max(out["prefill_compute_s"], out["prefill_memory_s"])
    assert out["prefill_tok_s"] == pytest.approx(2048 / (slower + expected), rel=1e-9)


def test_one_gpu_pays_no_exchange(calc):
    out = calc(gpu_name="RTX 4090 24GB", model_name="Llama-3.1-8B", quant_name="Q4_K_M", prompt_tokens=512)
    assert out["multi_gpu_step_ms"] == 0
    assert out["multi_gpu_per_user_ms"] == 0
    assert out["prefill_exchange_s"] == 0


# Published llama-bench rows (shipped in assumptions/calibration/measured_tps.csv): Meta-Llama-3-70B Q4_K_M,
# tg512, layer split on RTX 3090s, build d46dbc76 (2833, May 2024),
# https://github.com/XiongjieDai/GPU-Benchmarks-on-LLM-Inference README.md @aa72e0e: 2 GPUs 16.57, 4 GPUs 17.07 tok/s.
@pytest.mark.parametrize(("n", "measured"), [(2, 16.57), (4, 17.07)])
def test_layer_split_70b_q4_over_rtx_3090s(calc, n, measured):
    setup = {
        "model_name": "Llama-3-70B",
        "gpu_name": "RTX 3090 24GB",
        "quant_name": "Q4_K_M",
        "engine": "llama.cpp",
        "build_era_text": "2024",
        "split_mode": "layer",
        "concurrent_users": 1,
        "prompt_tokens": 1,
        "output_tokens": 512,
        "context_tokens": 256,  # tg512 averages its run: 512 ÷ 2
    }
    out = calc(n_gpus=n, **setup)
    # Each boundary: llama.cpp's 200 µs hand-over + one host-staged hop of 10 µs + one token's FP32 activations,
    # 8192 × 4 B = 32,768 B ÷ 15,750 B/µs (ggml graphs carry FP32 activations: engines.csv activation_bytes).
    assert out["layer_split_ms"] == pytest.approx((n - 1) * (200 + 10) / 1000, rel=1e-9)
    assert out["layer_split_per_user_ms"] == pytest.approx((n - 1) * 32768 / 15.75e3 / 1000, rel=1e-9)
    assert out["decode_tok_s"] == pytest.approx(measured, rel=0.10)  # within 10 % of the published row


@pytest.mark.parametrize(
    ("gpu", "engine", "quant", "tflops"),
    [
        # NVIDIA Ada whitepaper, GeForce RTX 4090: FP16 tensor 330.3 (FP16 accumulate) / 165.2 (FP32 accumulate),
        # FP8 660.6 / 330.3. llama.cpp's cuBLAS path accumulates in FP16; vLLM in FP32.
        ("RTX 4090 24GB", "llama.cpp", "F16", 330.3),
        ("RTX 4090 24GB", "vllm", "BF16", 330.3 / 2),
        ("RTX 4090 24GB", "vllm", "FP8", 660.6 / 2),
        # Data-centre parts accumulate in FP32 at the full rate (A100 datasheet: 312 TFLOPS dense FP16/BF16).
        ("A100 SXM 80GB", "vllm", "BF16", 312),
    ],
)
def test_matrix_peak_follows_the_engines_accumulation(calc, gpu, engine, quant, tflops):
    out = calc(gpu_name=gpu, engine=engine, quant_name=quant, model_name="Llama-3.1-8B")
    assert out["gpu_compute_tflops"] == pytest.approx(tflops, rel=1e-3)


@pytest.mark.parametrize(
    ("setting", "field"),
    [("gpu_link_bandwidth_gbs=0", "gpu_link_bandwidth_gbs"), ("gpu_p2p_mode=maybe", "gpu_p2p_mode")],
)
def test_bad_interconnect_settings_name_the_field(setting, field):
    result = CliRunner().invoke(main, ["hitung", "--json", "--set", "n_gpus=2", "--set", setting])
    assert result.exit_code != 0
    assert field in result.stderr
    assert result.stdout == ""


@pytest.mark.parametrize(("column", "value"), [("link_bandwidth_gbs", "0"), ("p2p", "maybe")])
def test_bad_interconnect_catalog_values_name_the_column(catalog_copy, column, value):
    path = catalog_copy / "gpus.csv"
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    rows[0][column] = value
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    with pytest.raises(CatalogError) as err:
        load_catalog(catalog_copy)
    assert any(f"gpus.csv:2:{column}:" in m for m in err.value.messages)
