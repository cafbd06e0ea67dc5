"""The TTFT range in the answer block and sizing for the slow end of the prefill error band: a TTFT target inside
the band is flagged instead of sizing a fleet on a knife edge. Expected values are arithmetic written out here."""

from __future__ import annotations

import pytest

# One request's prefill 1.0 s (1,000 tokens at 1,000 tok/s); held-out prompt-speed errors −20 % / +25 %:
# fast end 1.0 ÷ 1.25 = 0.8 s, slow end 1.0 ÷ 0.8 = 1.25 s. Capacity 0.5 requests/s: service 2.0 s.
BAND = {
    "model_name": "Llama-3.1-8B",
    "gpu_name": "RTX 4090 24GB",
    "quant_name": "Q4_K_M",
    "prompt_tokens": 1000,
    "prefill_tok_s": 1000,
    "prefill_error_low_frac": -0.2,
    "prefill_error_high_frac": 0.25,
    "max_requests_per_s": 0.5,
    "sla_percentile_pct": 0,  # the mean target alone; tests/test_ttft_percentiles.py sizes for a percentile
}


def ttft(load: float, prefill: float, service: float) -> float:
    """TTFT at `load` (requests/s): D(2 − λ(2S − D)) ÷ (2(1 − λ(S − D))(1 − λS)), the M/D/1 formula of docs/model.md."""
    return (
        prefill * (2 - load * (2 * service - prefill)) / (2 * (1 - load * (service - prefill)) * (1 - load * service))
    )


def test_ttft_range_at_no_load(calc):
    out = calc(load_requests_per_s=0, **BAND)
    assert out["ttft_s"] == pytest.approx(1.0, rel=1e-12)
    assert out["ttft_fast_s"] == pytest.approx(0.8, rel=1e-12)
    assert out["ttft_slow_s"] == pytest.approx(1.25, rel=1e-12)


@pytest.mark.parametrize("target", [0.8, 1.0, 1.1, 1.25])
def test_a_target_inside_the_band_is_flagged_not_sized(calc, target):
    out = calc(sla_ttft_s=target, **BAND)
    assert out["ttft_band_flag"] is True
    assert out["sla_ttft_requests_per_s"] == 0  # the slow end (1.25 s) already reaches the target
    assert out["sla_text"].startswith("TTFT target within the estimate's error band")
    assert out["replicas_needed"] == 0


def test_a_target_above_the_band_is_sized_for_the_slow_end(calc):
    # D = 1.25 s (slow end), S = 2.0 + 0.25 = 2.25 s, T = 2.0 s: the smaller root of TTFT(λ) = T is
    # 4(T − D) ÷ ((2T − D)(2S − D) + √(((2T − D)(2S − D))² − 16 T (S − D) S (T − D))) = 3 ÷ (8.9375 + √25.879).
    out = calc(sla_ttft_s=2.0, **BAND)
    assert out["ttft_band_flag"] is False
    assert out["sla_prefill_s"] == pytest.approx(1.25, rel=1e-12)
    assert out["sla_service_s"] == pytest.approx(2.25, rel=1e-12)
    load = out["sla_ttft_requests_per_s"]
    assert load == pytest.approx(3 / (2.75 * 3.25 + (((2.75 * 3.25) ** 2) - 54) ** 0.5), rel=1e-9)  # 0.21391
    assert ttft(load, 1.25, 2.25) == pytest.approx(2.0, rel=1e-9)
    # At that load the slow end meets the target and the central estimate is faster: the fleet has the band's margin.
    at = calc(load_requests_per_s=load, **BAND)
    assert at["ttft_slow_s"] == pytest.approx(2.0, rel=1e-9)
    assert at["ttft_s"] == pytest.approx(ttft(load, 1.0, 2.0), rel=1e-12)
    assert at["ttft_fast_s"] == pytest.approx(ttft(load, 0.8, 1.8), rel=1e-12)
    assert at["ttft_fast_s"] < at["ttft_s"] < 2.0


def test_a_target_just_above_the_band_says_the_queue_it_leaves_sizes_the_fleet(calc):
    # T = 1.3 s, D = 1.25 s, S = 2.25 s: load = 4 × 0.05 ÷ (1.35 × 3.25 + √((1.35 × 3.25)² − 16 × 1.3 × 1.0 × 2.25 ×
    # 0.05)) = 0.2 ÷ (4.3875 + √16.910) = 0.023530 requests/s, 4.7 % of the 0.5 a replica serves at full load.
    out = calc(sla_ttft_s=1.3, peak_requests_per_s=0.4, **BAND)
    load = 0.2 / (4.3875 + (4.3875**2 - 2.34) ** 0.5)
    assert out["sla_ttft_requests_per_s"] == pytest.approx(load, rel=1e-9)
    assert out["replicas_needed"] == 17  # ⌈0.4 ÷ 0.023530⌉ = ⌈17.0⌉
    assert out["tpot_target_replicas"] == 1 == -(-0.4 // out["sla_tpot_requests_per_s"])
    assert out["status_text"].startswith(
        "The TTFT target (1.3 s) leaves 50 ms for queueing above one request's prefill at the slow end (1.25 s): "
        "keeping the queue that short lets a replica be at most 5 % busy and takes 17 replicas, where the TPOT "
        "target alone needs 1."
    )
    # With room for a queue (3 s: a replica may be 62 % busy) two replicas are ordinary sizing, not a warning.
    roomy = calc(sla_ttft_s=3.0, peak_requests_per_s=0.4, **BAND)
    assert roomy["replicas_needed"] == 2 and roomy["status_text"] == "OK"
