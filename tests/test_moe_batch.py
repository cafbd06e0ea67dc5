"""MoE decode at batch: a step of B sequences reads the experts those B tokens touch, E × (1 − (1 − k/E)^B),
not the active share of one token. Expected values are arithmetic written out here."""

from __future__ import annotations

import pytest

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
