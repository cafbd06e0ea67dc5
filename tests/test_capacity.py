"""The capacity model: token accounting, queueing, latency targets, the fleet and money on the same tokens.

Expected values are arithmetic written out here, the book's worked examples (recomputed by hand) and the published
TensorRT-LLM max-load runs in assumptions/calibration/measured_2025_builds.csv.
"""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner

from kalkulator.calibration.serving import calibrate_serving
from kalkulator.cli import main

H100_8B = {
    "gpu_name": "H100 SXM 80GB",
    "model_name": "Llama-3.1-8B",
    "quant_name": "FP8",
    "kv_cache_type": "FP8",
    "engine": "tensorrt-llm",
}


def test_blended_api_price_follows_the_workload(calc):
    # 1,000 prompt and 500 output tokens at $2.50 / $10 per 1M: (1000 × 2.5 + 500 × 10) ÷ 1500 = $5.00 per 1M.
    out = calc(prompt_tokens=1000, output_tokens=500, api_input_usd_per_1m=2.5, api_output_usd_per_1m=10)
    assert out["api_output_share_frac"] == pytest.approx(500 / 1500, rel=1e-12)
    assert out["api_blended_usd_per_1m"] == pytest.approx(5.0, rel=1e-12)


def test_cached_prompt_tokens_billed_at_the_cached_price(calc):
    # Half of each prompt from the cache at $1.25: (1000 × (0.5 × 1.25 + 0.5 × 2.5) + 500 × 10) ÷ 1500.
    out = calc(
        prompt_tokens=1000,
        output_tokens=500,
        prefix_cache_hit_frac=0.5,
        api_input_usd_per_1m=2.5,
        api_cached_input_usd_per_1m=1.25,
        api_output_usd_per_1m=10,
    )
    assert out["api_blended_usd_per_1m"] == pytest.approx((1000 * (0.625 + 1.25) + 5000) / 1500, rel=1e-12)


def test_api_bill_per_month_counts_input_and_output(calc):
    # 150 M tokens a month at 1,000 in / 500 out = 100 M input + 50 M output: 100 × $2.5 + 50 × $10 = $750,
    # × Rp 16,000 × 1.11 PPN.
    out = calc(
        tokens_per_month=150e6,
        prompt_tokens=1000,
        output_tokens=500,
        api_input_usd_per_1m=2.5,
        api_output_usd_per_1m=10,
        usd_idr=16_000,
        ppn_mode="on",
        ppn_pct=11,
        pph22_mode="off",
    )
    assert out["input_tokens_per_month"] == pytest.approx(100e6, rel=1e-12)
    assert out["output_tokens_per_month"] == pytest.approx(50e6, rel=1e-12)
    assert out["api_cost_idr_per_month"] == pytest.approx(750 * 16_000 * 1.11, rel=1e-12)


def test_requests_and_peak_rate_from_the_demand(calc):
    # 100 M tokens ÷ (365/12 days) ÷ 1,500 tokens per request; over 12 active hours, peak twice the average.
    out = calc(tokens_per_month=100e6, prompt_tokens=1000, output_tokens=500, active_hours_per_day=12)
    per_day = 100e6 / (365 / 12) / 1500
    assert out["requests_per_day"] == pytest.approx(per_day, rel=1e-12)
    assert out["peak_requests_per_s"] == pytest.approx(per_day / (12 * 3600) * 2, rel=1e-12)


@pytest.mark.parametrize(
    ("prefill", "capacity", "load", "ttft"),
    [
        # d = 0 (all service is prefill): the textbook M/D/1, service 1 s at ρ = 0.5 waits ρ ÷ (2μ(1 − ρ)) = 0.5 s.
        (1.0, 1.0, 0.5, 1.0 + 0.5 / (2 * 1 * 0.5)),
        # D = 0.5 s prefill in a 1 s service: decode takes λd = 0.25 of the time, so the prefill runs at 0.75:
        # D_eff = 0.5 ÷ 0.75; ρ_p = λ D_eff = 1/3; TTFT = D_eff + ρ_p D_eff ÷ (2(1 − ρ_p)).
        (0.5, 1.0, 0.5, 0.5 / 0.75 + (1 / 3) * (0.5 / 0.75) / (2 * (2 / 3))),
        (0.5, 1.0, 0.0, 0.5),  # no load: the prefill time itself
    ],
)
def test_queueing_ttft_at_a_load(calc, prefill, capacity, load, ttft):
    out = calc(prefill_s=prefill, max_requests_per_s=capacity, load_requests_per_s=load)
    assert out["ttft_s"] == pytest.approx(ttft, rel=1e-12)


def test_ttft_rises_with_load_and_crosses_the_target_before_capacity(calc):
    # sla_percentile_pct = 0: the fleet sized on the mean TTFT alone (tests/test_ttft_percentiles.py: percentiles).
    base = calc(**H100_8B, prompt_tokens=2048, output_tokens=128, sla_ttft_s=0.5, sla_percentile_pct=0)
    capacity = base["max_requests_per_s"]
    loads = [capacity * f for f in (0.0, 0.2, 0.4, 0.6, 0.8, 0.9, 0.99)]
    ttfts = [calc(**H100_8B, prompt_tokens=2048, output_tokens=128, load_requests_per_s=x)["ttft_s"] for x in loads]
    assert all(b > a for a, b in zip(ttfts, ttfts[1:], strict=False))
    assert 0 < base["sla_ttft_requests_per_s"] < capacity
    at_target = calc(
        **H100_8B, prompt_tokens=2048, output_tokens=128, load_requests_per_s=base["sla_ttft_requests_per_s"]
    )
    # The fleet is sized for the slow end of the prefill band: there TTFT meets the target; the central one is below.
    assert at_target["ttft_slow_s"] == pytest.approx(0.5, rel=1e-9)
    assert at_target["ttft_s"] < 0.5
    over = calc(**H100_8B, prompt_tokens=2048, output_tokens=128, load_requests_per_s=capacity * 1.01)
    assert over["ttft_s"] == "unbounded queue: load above capacity"


def test_tpot_target_bounds_the_batch(calc):
    # Memory-bound line a + b × users and compute-bound line c + d × users (ms); a 100 ms target allows
    # min((100 − a) ÷ b, (100 − c) ÷ d) users, and Little's law gives the load: users × 1000 ÷ (output × step).
    # The whole prompt comes from the prefix cache, so no prefill chunk rides in the decode steps
    # (tests/test_tpot_at_load.py covers that term).
    out = calc(
        prefix_cache_hit_frac=1,
        memory_bound_step_base_ms=20,
        memory_bound_step_per_user_ms=0.5,
        compute_bound_step_base_ms=2,
        compute_bound_step_per_user_ms=0.7,
        serving_batch_users=1000,
        sla_tpot_ms=100,
        output_tokens=500,
    )
    users = min((100 - 20) / 0.5, (100 - 2) / 0.7)  # 140
    assert out["sla_tpot_batch_users"] == pytest.approx(users, rel=1e-12)
    assert out["sla_tpot_requests_per_s"] == pytest.approx(
        users * 1000 / (500 * max(20 + 0.5 * users, 2 + 0.7 * users))
    )


def test_gpus_and_capex_for_a_demand(calc):
    # Peak 10 requests/s, 3 per replica within the targets → 4 replicas of 2 GPUs = 8 GPUs, 2 servers of 4.
    out = calc(
        peak_requests_per_s=10,
        sla_max_requests_per_s=3,
        n_gpus=2,
        gpus_per_server=4,
        gpu_price_usd=1000,
        usd_idr=16_000,
        ppn_mode="on",
        ppn_pct=11,
        server_capex_idr=20e6,
        network_capex_idr=0,
        storage_capex_idr=0,
        cooling_capex_idr=0,
        setup_capex_idr=0,
    )
    assert out["replicas_needed"] == 4
    assert out["gpus_needed"] == 8
    assert out["servers_needed"] == 2
    assert out["hardware_capex_idr"] == pytest.approx(1000 * 8 * 16_000 * 1.11 + 2 * 20e6, rel=1e-12)


def test_capex_follows_the_fleet_when_demand_grows(calc):
    # In the rack profile GPUs are bought one by one (an HGX board of 8 would cover both fleets).
    small = calc(**H100_8B, tokens_per_month=100e6, deployment_name="server rak")
    large = calc(**H100_8B, tokens_per_month=100e9, deployment_name="server rak")
    assert small["gpus_needed"] == 1
    assert large["gpus_needed"] > 1
    assert large["hardware_capex_idr"] > small["hardware_capex_idr"]
    assert large["demand_capacity_frac"] <= 1


def test_breakeven_beyond_the_hardware_life_is_a_message(calc):
    # Book 17.2: Rp 450 juta capex, Rp 20 juta API − Rp 10 juta opex a month → 45 months, past a 36-month life.
    out = calc(
        hardware_capex_idr=450e6,
        api_cost_idr_per_month=20e6,
        served_frac=1,
        onprem_opex_idr_per_month=10e6,
        lifetime_years=3,
    )
    assert out["breakeven_months"] == "no break-even within the hardware's useful life"
    within = calc(
        hardware_capex_idr=450e6,
        api_cost_idr_per_month=20e6,
        served_frac=1,
        onprem_opex_idr_per_month=10e6,
        lifetime_years=4,
    )
    assert within["breakeven_months"] == pytest.approx(450 / (20 - 10), rel=1e-12)


def test_unreachable_targets_say_so_in_words(calc):
    out = calc(**H100_8B, prompt_tokens=20_000, sla_ttft_s=0.001)
    assert out["replicas_needed"] == 0
    assert out["sla_text"].startswith("The TTFT target is below one request's prefill time")
    assert out["status_text"] == out["sla_text"]
    assert not any(isinstance(v, str) and v.startswith("#") for v in out.values())


def test_static_and_continuous_users_per_hour_book_11_3(calc):
    # L850–856: static batch of 8, 35 ms per token, 500 tokens → 17.5 s per batch: 8 × 3600 ÷ 17.5 = 1,646 users
    # per hour (the book's "37" is tok/s ÷ seconds); continuous is capacity × 3,600.
    out = calc(concurrent_users=8, tpot_ms=35, output_tokens=500, prefill_s=0)
    assert out["static_users_per_hour"] == pytest.approx(8 * 3600 / 17.5, rel=1e-12)
    assert round(out["static_users_per_hour"]) == 1646
    fixed = calc(max_requests_per_s=64 / 60)  # 64 in flight, 60 s each (L858–863)
    assert fixed["continuous_users_per_hour"] == pytest.approx(64 * 3600 / 60, rel=1e-12)  # 3,840


def test_prefill_after_existing_context(calc):
    # A 2,048-token prompt after 32,768 tokens already in the cache (a follow-up turn), Llama-3.1-8B:
    # 2 × 8.03e9 × 2048 + 4 × 32 layers × 32 heads × 128 × 2048 × (32768 + 1024) FLOPs.
    out = calc(model_name="Llama-3.1-8B", prompt_tokens=32768 + 2048, prefix_cache_hit_frac=32768 / (32768 + 2048))
    flops = 2 * 8.03e9 * 2048 + 4 * 32 * 32 * 128 * 2048 * (32768 + 2048 / 2)
    assert out["prefill_new_tokens"] == pytest.approx(2048, rel=1e-12)
    assert out["prefill_tflop"] == pytest.approx(flops / 1e12, rel=1e-9)


def test_fp8_weights_compute_at_the_fp8_peak(calc):
    fp8 = calc(gpu_name="H100 SXM 80GB", quant_name="FP8")
    fp16 = calc(gpu_name="H100 SXM 80GB", quant_name="BF16")
    w4 = calc(gpu_name="H100 SXM 80GB", quant_name="AWQ-4bit")
    assert fp8["gpu_compute_tflops"] == 1979  # NVIDIA H100 SXM datasheet, 3,958 with sparsity ÷ 2
    assert fp16["gpu_compute_tflops"] == fp16["gpu_fp16_tflops"] == 989
    assert w4["gpu_compute_tflops"] == 989  # W4A16: widened to FP16 before the matrix multiply


def test_serving_model_held_out_error_on_tensorrt_llm_runs(catalog):
    # Published trtllm-bench max-load runs on H100 SXM (20 runs, 10 shapes); goal: median ≤ 15 %, p90 ≤ 35 %.
    result = calibrate_serving(catalog)
    errors = np.abs(result.residuals)
    assert len(result.runs) == 20
    assert np.median(errors) <= 0.15
    assert np.quantile(errors, 0.9) <= 0.35


def test_shares_outside_zero_to_one_are_an_error():
    runner = CliRunner()
    result = runner.invoke(main, ["hitung", "--set", "prefix_cache_hit_frac=1.5"])
    assert result.exit_code == 2
    assert "prefix_cache_hit_frac" in result.output and "0 to 1" in result.output
