"""TPOT at load with chunked prefill: decode steps carry the prefill chunks of the requests arriving meanwhile, so
the time per output token grows with the share of the replica's time spent on prefill, and the TPOT target limits
the batch and the fleet with that share. Expected values are arithmetic written out here."""

from __future__ import annotations

import pytest

BASE = {"model_name": "Llama-3.1-8B", "gpu_name": "RTX 4090 24GB", "quant_name": "Q4_K_M", "engine": "vllm"}


def test_tpot_at_80_percent_load_with_60_percent_prefill_share(calc):
    # Service 1 s per request (capacity 1 request/s), of which 0.6 s prefill (600 tokens at 1,000 tok/s);
    # 0.8 requests/s: utilization 0.8, prefill share of the service 0.6, so the replica spends 0.8 × 0.6 = 48 % of
    # its time on prefill. Decode alone at 50 tok/s = 20 ms per token; with the prefill chunks 20 ÷ (1 − 0.48).
    out = calc(
        prompt_tokens=600,
        output_tokens=500,
        prefill_tok_s=1000,
        max_requests_per_s=1,
        load_requests_per_s=0.8,
        decode_tok_s=50,
        **BASE,
    )
    assert out["prefill_s"] == pytest.approx(0.6, rel=1e-12)
    assert out["utilization_frac"] == pytest.approx(0.8, rel=1e-12)
    assert out["prefill_share_frac"] == pytest.approx(0.6, rel=1e-12)
    assert out["prefill_time_frac"] == pytest.approx(0.48, rel=1e-12)
    assert out["tpot_ms"] == pytest.approx(20, rel=1e-12)
    assert out["tpot_at_load_ms"] == pytest.approx(20 / 0.52, rel=1e-12)  # 38.5 ms: 1.92× the decode-only TPOT
    # Each decoding user's request brought 0.6 s of prefill spread over its 500 output tokens: 1.2 ms per step.
    assert out["prefill_per_user_ms"] == pytest.approx(1000 * 0.6 / 500, rel=1e-12)
    # End to end: output tokens at the TPOT at load.
    assert out["e2e_latency_s"] == pytest.approx(out["ttft_s"] + 500 * 20 / 0.52 / 1000 + 0.1, rel=1e-12)


def test_littles_law_holds_with_the_stretched_tpot(calc):
    # users = load × output × TPOT at load ÷ 1000: the users solved from the decode-step lines plus the prefill
    # per user are exactly those Little's law gives for the TPOT that includes the prefill chunks.
    out = calc(prompt_tokens=2000, output_tokens=200, load_requests_per_s=2.0, **BASE)
    assert 1 < out["concurrent_users"] < out["serving_batch_users"]
    assert out["concurrent_users"] == pytest.approx(2.0 * 200 * out["tpot_at_load_ms"] / 1000, rel=1e-9)
    assert out["tpot_at_load_ms"] > out["tpot_ms"]


def test_the_tpot_target_limits_the_batch_with_the_prefill_share(calc):
    # Largest batch B with step(B) + B × prefill per user ≤ target, on the memory-bound line (this setup's larger).
    out = calc(prompt_tokens=4000, output_tokens=100, sla_tpot_ms=60, **BASE)
    per_user = out["memory_bound_step_per_user_ms"] + out["prefill_per_user_ms"]
    batch = (60 - out["memory_bound_step_base_ms"]) / per_user
    assert out["prefill_per_user_ms"] == pytest.approx(1000 * out["prefill_s"] / 100, rel=1e-12)
    assert out["sla_tpot_batch_users"] == pytest.approx(min(out["serving_batch_users"], batch), rel=1e-9)
    without = (60 - out["memory_bound_step_base_ms"]) / out["memory_bound_step_per_user_ms"]
    assert out["sla_tpot_batch_users"] < without  # the prefill chunks take part of the step budget
