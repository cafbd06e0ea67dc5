"""Prefill at full load: prompts packed into the engine's chunks, and the MoE grouped-GEMM share of the dense rate.

Expected values are arithmetic written out here from catalog facts (models.csv, gpus.csv, speed_params.csv)."""

from __future__ import annotations

import csv

import pytest

from kalkulator.io.paths import CATALOG_DIR

H100 = {"gpu_name": "H100 SXM 80GB", "engine": "vllm", "n_gpus": 1}  # 3,350 GB/s (gpus.csv)
DENSE = {"model_name": "Llama-3.1-8B", "quant_name": "BF16", **H100}  # 8.03 B parameters × 2 bytes
MOE = {"model_name": "gpt-oss-120b", "quant_name": "MXFP4", **H100}
CHUNK = 8192  # speed_params.csv vllm/any prefill_chunk_tokens (vLLM max_num_batched_tokens)
ETA = 0.8358  # speed_params.csv vllm/any decode efficiency on HBM


def test_a_short_prompt_at_full_load_pays_its_share_of_a_chunks_weight_read(calc):
    out = calc(prompt_tokens=128, output_tokens=128, **DENSE)
    read_s = 8.03 * 2 / (3350 * ETA)  # 16.06 GB ÷ 2,800 GB/s = 5.736 ms for one read of the weights
    assert out["weights_gb"] == pytest.approx(16.06, rel=1e-9)
    assert out["prefill_memory_s"] == pytest.approx(read_s, rel=1e-9)  # idle GPU: the prompt reads all weights
    assert out["serving_prefill_memory_s"] == pytest.approx(128 / CHUNK * read_s, rel=1e-9)  # 0.0896 ms
    # 128 tokens × 2 × 8.03 GFLOP = 2.06 TFLOP: compute now outlasts the packed read, so it sets the time
    assert out["serving_prefill_s"] == pytest.approx(out["prefill_compute_s"], rel=1e-9)
    assert out["prefill_s"] == pytest.approx(read_s, rel=1e-9)  # TTFT on an idle GPU still waits for the read
    assert out["request_compute_s"] == pytest.approx(
        out["prefill_compute_s"] + out["request_decode_tflop"] / out["matmul_tflops"], rel=1e-9
    )


def test_a_prompt_of_whole_chunks_costs_the_same_packed_or_alone(calc):
    out = calc(prompt_tokens=2 * CHUNK, output_tokens=100, **DENSE)
    assert out["serving_prefill_memory_s"] == pytest.approx(out["prefill_memory_s"], rel=1e-12)
    assert out["serving_prefill_s"] == pytest.approx(out["prefill_s"], rel=1e-12)


def test_an_moe_chunk_reads_nearly_every_expert_but_a_short_prompt_pays_a_sliver(calc):
    out = calc(prompt_tokens=128, output_tokens=4, **MOE)
    active, total = 5.1, 116.8  # models.csv gpt-oss-120b
    own = 1 - (1 - active / total) ** 128  # 0.99666: one 128-token prompt alone touches nearly every expert
    full = 1 - (1 - active / total) ** CHUNK  # 1 to 1e-150
    assert out["prefill_weights_touched_frac"] == pytest.approx(own, rel=1e-12)
    read_s = out["weights_gb"] / (3350 * ETA)
    assert out["serving_prefill_memory_s"] == pytest.approx(128 / CHUNK * full * read_s, rel=1e-9)
    assert out["serving_prefill_memory_s"] < out["prefill_memory_s"] / 60  # 1/64 of a read instead of 0.997


def test_the_moe_prefill_share_slows_the_routed_experts_multiplies_only(calc):
    shape = {"prompt_tokens": 2000, "output_tokens": 100}
    plain = calc(moe_prefill_efficiency_frac=1, **shape, **MOE)
    slow = calc(moe_prefill_efficiency_frac=0.5, **shape, **MOE)
    # 128 experts of 114.66 B routed parameters, top-4: 3.583 B routed parameters per token
    expert_tflop = 2 * 114.66 * 4 / 128 * 1e9 * 2000 / 1e12  # 14.33 TFLOP of the prompt's 20.4
    assert plain["prefill_expert_tflop"] == pytest.approx(expert_tflop, rel=1e-12)
    extra_s = expert_tflop * (1 - 0.5) / 0.5 / plain["matmul_tflops"]  # done again at half the rate
    assert slow["prefill_compute_s"] - plain["prefill_compute_s"] == pytest.approx(extra_s, rel=1e-9)


def test_the_moe_prefill_share_leaves_a_dense_model_unchanged(calc):
    plain = calc(moe_prefill_efficiency_frac=1, prompt_tokens=2000, **DENSE)
    slow = calc(moe_prefill_efficiency_frac=0.2, prompt_tokens=2000, **DENSE)
    assert plain["prefill_expert_tflop"] == 0
    assert slow["prefill_compute_s"] == plain["prefill_compute_s"]
    assert slow["max_throughput_tok_s"] == plain["max_throughput_tok_s"]


def test_a_typed_prefill_speed_is_scaled_by_the_packing_gain(calc):
    model = calc(prompt_tokens=128, **DENSE)
    typed = calc(prompt_tokens=128, prefill_tok_s=20_000, **DENSE)
    gain = max(model["prefill_compute_s"], model["serving_prefill_memory_s"]) / max(
        model["prefill_compute_s"], model["prefill_memory_s"]
    )  # one GPU: no pipeline share, no exchanges
    assert typed["serving_prefill_s"] == pytest.approx(128 / 20_000 * gain, rel=1e-9)


def test_the_fitted_moe_prefill_share_is_shipped_in_vllm_and_borrowed_by_sglang_only():
    """`kalkulator calibrate` fits the share on the vLLM MoE serving runs and writes it; held out by prompt shape it
    beats no MoE penalty at all."""
    from kalkulator.calibration.serving import calibrate_moe
    from kalkulator.catalog import load_catalog

    with open(CATALOG_DIR / "speed_params.csv", newline="", encoding="utf-8") as fh:
        rows = {r["name"]: float(r["moe_prefill_efficiency_frac"]) for r in csv.DictReader(fh)}
    fit = calibrate_moe(load_catalog())
    assert rows["vllm/any"] == rows["sglang/any"] == fit.fit.params["moe_prefill_efficiency_frac"]
    assert 0.1 < rows["vllm/any"] < 0.9  # a share, not a bound
    assert {v for k, v in rows.items() if k not in ("vllm/any", "sglang/any")} == {1.0}
    held_out = sorted(abs(r) for r in fit.fit.residuals)
    without = sorted(abs(r) for r in fit.today)
    assert held_out[len(held_out) // 2] < without[len(without) // 2] / 2
