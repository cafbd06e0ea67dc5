"""MoE decode at batch: a step of B sequences reads the experts those B tokens touch, E × (1 − (1 − k/E)^B),
not the active share of one token. Expected values are arithmetic written out here."""

from __future__ import annotations

import pytest

from kalkulator.scenario import compute

# Qwen3-30B-A3B (models.csv, from its config.json): 128 routed experts, top-8, 48 layers × 128 experts ×
# 3 × 2048 × 768 = 28.99 B routed-expert parameters of 30.5 B; 3.3 B active per token.
E, K, EXPERT_B, TOTAL_B, ACTIVE_B = 128, 8, 28.99, 30.5, 3.3
SETUP = {"model_name": "Qwen3-30B-A3B", "gpu_name": "H100 SXM 80GB", "quant_name": "BF16", "engine": "vllm"}


@pytest.mark.parametrize(
    ("batch", "touched"),
    [
        (1, 8.0),  # one token: its own top-8
        (8, 128 * (1 - (120 / 128) ** 8)),  # 128 × (1 − 0.9375^8) = 128 × 0.4033 = 51.6
        (64, 128 * (1 - (120 / 128) ** 64)),  # 128 × (1 − 0.0161) = 125.9: nearly every expert
    ],
)
def test_experts_touched_and_weights_read_grow_with_the_batch(calc, batch, touched):
    out = calc(concurrent_users=batch, context_tokens=1024, prompt_tokens=512, **SETUP)
    assert out["decode_touched_experts"] == pytest.approx(touched, rel=1e-9)
    weights = out["weights_gb"]  # 30.5 B × 2 bytes = 61 GB
    assert weights == pytest.approx(TOTAL_B * 2, rel=1e-9)
    extra = weights * EXPERT_B / TOTAL_B * (touched - K) / E  # B = 64: 61 × 0.9505 × 117.9 ÷ 128 = 53.4 GB
    assert out["moe_batch_extra_gb_per_step"] == pytest.approx(extra, rel=1e-9)
    # One sequence's reads (active share) + the extra experts, at the bandwidth efficiency: the memory-bound line.
    memory_line = (
        out["memory_bound_step_base_ms"]
        + batch * out["memory_bound_step_per_user_ms"]
        + extra * 1000 / (3350 * out["decode_efficiency_frac"])
    )
    compute_line = out["compute_bound_step_base_ms"] + batch * out["compute_bound_step_per_user_ms"]
    assert out["decode_step_ms"] == pytest.approx(max(memory_line, compute_line), rel=1e-9)
    assert out["weights_read_gb_per_token"] == pytest.approx(weights * ACTIVE_B / TOTAL_B, rel=1e-9)


def test_a_dense_model_reads_its_weights_once_whatever_the_batch(calc):
    out = calc(
        model_name="Llama-3.1-8B", gpu_name="H100 SXM 80GB", quant_name="BF16", engine="vllm", concurrent_users=64
    )
    assert out["decode_touched_experts"] == 0
    assert out["moe_batch_extra_gb_per_step"] == 0


def test_serving_capacity_reads_the_experts_of_the_largest_batch(calc):
    # Per request the replica reads (one sequence's weights + the batch's extra experts) ÷ batch per output token.
    out = calc(output_tokens=100, prompt_tokens=1000, **SETUP)
    b = out["serving_batch_users"]
    touched = E * (1 - (1 - K / E) ** b)
    extra_gb = out["weights_gb"] * EXPERT_B / TOTAL_B * (touched - K) / E
    per_token_ms = (out["decode_fixed_memory_ms"] + extra_gb * 1000 / 3350) / b + out["decode_user_memory_ms"] * out[
        "mean_context_ratio"
    ]
    expected = 100 * per_token_ms / out["decode_efficiency_frac"] / 1000
    assert out["request_memory_s"] == pytest.approx(expected, rel=1e-9)


# ---- the engine's MoE kernel efficiency m: every touched expert's bytes read at m × the dense kernels' rate -----


def test_moe_kernel_efficiency_slows_the_expert_reads_of_a_step_by_hand(calc):
    # gpt-oss-20b MXFP4 on one H100 SXM (3,350 GB/s), 8 sequences at 20,500 tokens of context, vLLM.
    # models.csv: 32 experts, top-4, 19.11 B routed-expert parameters of 20.9 B; the MXFP4 file is 11.103125 GB.
    setup = {"model_name": "gpt-oss-20b", "gpu_name": "H100 SXM 80GB", "quant_name": "MXFP4", "engine": "vllm"}
    shape = {"concurrent_users": 8, "prompt_tokens": 20000, "output_tokens": 500, "context_tokens": 20500}
    plain = calc(moe_kernel_efficiency_frac=1, **setup, **shape)
    slow = calc(moe_kernel_efficiency_frac=0.5, **setup, **shape)
    touched = 32 * (1 - (1 - 4 / 32) ** 8)  # 32 × (1 − 0.875^8) = 32 × 0.656391 = 21.0045 experts per layer
    expert_gb = 11.103125 * 19.11 / 20.9 * touched / 32  # 6.6637 GB of expert weights read per step
    eff = 0.8358  # speed_params.csv vllm/any on HBM
    # read again × (1 − m) ÷ m = × 1 at m = 0.5: 6.6637 GB ÷ (3,350 GB/s × 0.8358) = 2.380 ms more per step
    extra_ms = expert_gb * 1000 / (3350 * eff) * (1 - 0.5) / 0.5
    assert plain["decode_efficiency_frac"] == eff
    assert slow["decode_step_ms"] - plain["decode_step_ms"] == pytest.approx(extra_ms, rel=1e-9)
    assert extra_ms == pytest.approx(2.380, abs=1e-3)


def test_moe_kernel_efficiency_leaves_a_dense_models_step_unchanged(calc):
    setup = {"model_name": "Llama-3.1-8B", "gpu_name": "H100 SXM 80GB", "quant_name": "BF16", "engine": "vllm"}
    for users in (1, 8, 64):
        plain = calc(concurrent_users=users, moe_kernel_efficiency_frac=1, **setup)
        slow = calc(concurrent_users=users, moe_kernel_efficiency_frac=0.2, **setup)
        assert slow["decode_step_ms"] == plain["decode_step_ms"]
        assert slow["max_throughput_tok_s"] == plain["max_throughput_tok_s"]


def test_the_shipped_engines_charge_no_moe_kernel_penalty_the_data_cannot_identify():
    # docs/accuracy.md: the MoE max-load runs are mostly prefill: they identify the prefill share, not this one.
    import csv

    from kalkulator.io.paths import CATALOG_DIR

    with open(CATALOG_DIR / "speed_params.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert {float(r["moe_kernel_efficiency_frac"]) for r in rows} == {1.0}


def test_the_moe_serving_rows_carry_source_and_date_and_load_as_scenarios():
    import csv

    from kalkulator.calibration.serving import MOE_FILE, load_moe_runs, load_moe_tpot_runs
    from kalkulator.io.paths import CALIBRATION_DIR

    with open(CALIBRATION_DIR / MOE_FILE, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert all(r["source_repo_or_url"].startswith("https://github.com/") and r["as_of"] for r in rows)
    runs = load_moe_runs()
    # gpustack performance-lab, gpt-oss-20b, 4K shape: 1,999,249 input and 52,309 generated tokens over 500 requests
    (long,) = [r for r in runs if r.settings["model_name"] == "gpt-oss-20b" and r.shape[0] == 3998]
    assert long.settings["prompt_tokens"] == pytest.approx(1999249 / 500, abs=1e-3)
    assert long.settings["output_tokens"] == pytest.approx(52309 / 500, abs=1e-3)
    assert long.measured_tok_s == 847.43
    assert len(runs) == 8 and len(load_moe_tpot_runs()) == 8


def test_moe_at_batch_says_its_kernel_share_is_not_calibrated():
    # The shipped rows carry no fitted MoE kernel share (docs/accuracy.md: the published vLLM MoE runs were slower
    # than the estimate); the status says so for an MoE model at batch, and a typed measured share silences it.
    base = {"model_name": "gpt-oss-20b", "gpu_name": "H100 SXM 80GB", "engine": "vllm", "quant_name": "MXFP4"}
    at_batch = compute({**base, "concurrent_users": 8})
    assert at_batch["status_text"].startswith("MoE at batch: the decode kernels' efficiency on expert weights")
    assert at_batch["run_check_text"] == "OK"  # a warning: every answer stands
    assert compute({**base, "concurrent_users": 8, "moe_kernel_efficiency_frac": 0.5})["status_text"] == "OK"
    dense = {**base, "model_name": "Llama-3.1-8B", "quant_name": "FP8", "concurrent_users": 8}
    assert "MoE" not in compute(dense)["caveats_text"]  # (its own caveat: no vLLM FP8 run on an H100 ships)
