"""Speculative decoding: expected tokens per step, the draft's memory and step, and the speed-up, by hand.

Book: *Kalkulasi Token Generation*, L350–352 (Bab 3, Skenario B: Llama 3 8B FP16 on an L40S,
"spekulasi 3 token per langkah", 14 s → 6 s, 2.3×). E = (1 − α^(k+1)) ÷ (1 − α): Leviathan et al. 2023, eq. 1.
"""

from __future__ import annotations

import pytest

from kalkulator.scenario import ScenarioError

# The book's 8B FP16 target by its own numbers; no fixed per-step costs and 100 % efficiency, so a step is
# exactly bytes ÷ bandwidth; context 0 keeps the KV cache out of the step.
PLAIN_8B_FP16 = {
    "model_params_b": 8,
    "model_active_params_b": 8,
    "model_layers": 32,
    "model_kv_heads": 8,
    "model_head_dim": 128,
    "model_heads": 32,
    "weight_bits_per_param": 16,
    "gpu_mem_bandwidth_gbs": 864,  # L40S
    "decode_efficiency_frac": 1,
    "decode_layer_overhead_ms": 0,
    "decode_attention_ns": 0,
    "context_tokens": 0,
    "concurrent_users": 1,
}
# Llama-3.2-1B (config.json): 1.24e9 parameters, 16 layers, 8 KV heads × 64.
DRAFT_1B = {"draft_model_name": "Llama-3.2-1B"}


@pytest.mark.parametrize(
    ("alpha", "k", "expected"),
    [
        (0.7, 3, 1 + 0.7 + 0.7**2 + 0.7**3),  # 2.533
        (0.8, 3, 1 + 0.8 + 0.64 + 0.512),  # 2.952
        (0.9, 3, 1 + 0.9 + 0.81 + 0.729),  # 3.439
        (0.5, 1, 1 + 0.5),
        (0.0, 5, 1),  # nothing accepted: the check still yields one token
        (1.0, 4, 5),  # everything accepted: k + 1
    ],
)
def test_expected_tokens_per_step(calc, alpha, k, expected):
    out = calc(spec_acceptance_frac=alpha, spec_draft_tokens=k)
    assert out["spec_tokens_per_step"] == pytest.approx(expected, rel=1e-12)


def test_off_by_default_leaves_every_answer_alone(calc):
    out = calc()
    assert out["draft_model_name"] == "none"
    assert out["draft_weights_gb"] == 0
    assert out["draft_kv_cache_gb"] == 0
    assert out["vram_with_draft_gb"] == out["vram_total_gb"]
    assert out["spec_speedup_ratio"] == 1
    assert out["spec_decode_tok_s"] == out["decode_tok_s"]


@pytest.mark.parametrize("off", ["none", "", "None"])
def test_blank_or_none_turns_it_off(calc, off):
    assert calc(draft_model_name=off)["spec_speedup_ratio"] == 1


def test_a_draft_outside_the_catalog_is_an_error(calc):
    with pytest.raises(ScenarioError, match="draft_model_name"):
        calc(draft_model_name="Llama-3.2-1B-typo-xyz")


def test_book_scenario_b_speed_up_by_hand(calc):
    # L350–352: k = 3; the book's 14 s → 6 s is a 2.3× speed-up. Target step = 16 GB ÷ 864 GB/s; the 1B FP16
    # draft reads 1.24 × 2 = 2.48 GB per step. At α = 0.9: E = 3.439, so tokens per second per user =
    # 3.439 ÷ ((16 + 3 × 2.48) ÷ 864) = 3.439 × 864 ÷ 23.44 = 126.8, and the speed-up over 864 ÷ 16 = 54 tok/s
    # is 3.439 × 16 ÷ 23.44 = 2.35 ≈ the book's 2.3×.
    out = calc(**PLAIN_8B_FP16, **DRAFT_1B, spec_draft_tokens=3, spec_acceptance_frac=0.9)
    e = 1 + 0.9 + 0.81 + 0.729
    assert out["draft_weights_gb"] == pytest.approx(1.24 * 16 / 8, rel=1e-12)
    assert out["draft_kv_cache_gb"] == 0
    assert out["draft_step_ms"] == pytest.approx(2.48 / 864 * 1000, rel=1e-9)
    assert out["spec_verify_step_ms"] == pytest.approx(16 / 864 * 1000, rel=1e-9)
    assert out["decode_tok_s"] == pytest.approx(864 / 16, rel=1e-9)
    assert out["spec_decode_tok_s"] == pytest.approx(e * 864 / (16 + 3 * 2.48), rel=1e-9)
    assert out["spec_speedup_ratio"] == pytest.approx(e * 16 / (16 + 3 * 2.48), rel=1e-9)
    assert out["spec_speedup_ratio"] == pytest.approx(14 / 6, abs=0.05)  # the book's arithmetic holds


def test_book_scenario_b_at_a_common_acceptance_rate(calc):
    # Guide note: at α = 0.7 the same setup gains 2.533 × 16 ÷ 23.44 = 1.73×, not 2.3×.
    out = calc(**PLAIN_8B_FP16, **DRAFT_1B, spec_draft_tokens=3, spec_acceptance_frac=0.7)
    assert out["spec_speedup_ratio"] == pytest.approx((1 + 0.7 + 0.49 + 0.343) * 16 / 23.44, rel=1e-9)


def test_draft_kv_cache_and_total_vram_by_hand(calc):
    # Draft KV = 2 (K, V) × 16 layers × 8 KV heads × 64 × 2 bytes (F16) × 4,096 tokens × 3 users.
    out = calc(**{**PLAIN_8B_FP16, "context_tokens": 4096, "concurrent_users": 3}, **DRAFT_1B, kv_cache_type="F16")
    draft_kv = 2 * 16 * 8 * 64 * 2 * 4096 * 3 / 1e9
    assert out["draft_kv_cache_gb"] == pytest.approx(draft_kv, rel=1e-12)
    assert out["vram_with_draft_gb"] == pytest.approx(out["vram_total_gb"] + 2.48 + draft_kv, rel=1e-12)
    # The draft step reads its weights and its KV cache: (2.48 + draft KV) ÷ 864 GB/s.
    assert out["draft_step_ms"] == pytest.approx((2.48 + draft_kv) / 864 * 1000, rel=1e-9)


def test_draft_follows_the_chosen_quantization(calc):
    # 1.24e9 parameters at 8 bits = 1.24 GB.
    out = calc(**{**PLAIN_8B_FP16, "weight_bits_per_param": 8}, **DRAFT_1B)
    assert out["draft_weights_gb"] == pytest.approx(1.24, rel=1e-12)


def test_a_measured_speed_is_scaled_by_the_same_speed_up(calc):
    out = calc(**PLAIN_8B_FP16, **DRAFT_1B, decode_tok_s=40)
    assert out["spec_decode_tok_s"] == pytest.approx(40 * out["spec_speedup_ratio"], rel=1e-12)


def test_large_batches_gain_less(calc):
    # The check runs k + 1 tokens per user: at a large batch the step turns compute-bound. Reading the 16 GB of F16
    # weights takes 16.06 / 864 s ≈ 18.6 ms whatever the batch; the check computes 2 × 8.03e9 FLOP × (4 + 1) tokens
    # per user, 80 GFLOP, so 512 users need 41 TFLOP per step: 41e12 / 362e12 ≈ 113 ms even at the L40S's full
    # FP16 peak, compute-bound, while one user's check (80 GFLOP, 0.2 ms) hides under the weight read.
    setup = {"model_name": "Llama-3.1-8B", "gpu_name": "L40S 48GB", "quant_name": "F16", "context_tokens": 1024}
    setup |= DRAFT_1B
    one, many = calc(**setup, concurrent_users=1), calc(**setup, concurrent_users=512)
    assert one["spec_verify_step_ms"] == pytest.approx(one["decode_step_ms"], rel=1e-12)
    assert many["spec_verify_step_ms"] > many["decode_step_ms"]
    assert many["spec_speedup_ratio"] < one["spec_speedup_ratio"]
