"""Energy beside money: joules per output token at full load and at the planned load, Wh per 1M tokens, CO₂ per month
at the grid's emission factor, and `plan --by energy`."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from kalkulator.cli import main
from kalkulator.scenario import compute

H100_8B = {"model_name": "Llama-3.1-8B", "gpu_name": "H100 SXM 80GB", "quant_name": "FP8", "engine": "vllm"}


def test_an_8b_fp8_on_one_h100_at_full_load_lands_in_the_published_range():
    # ML.ENERGY Leaderboard (ml.energy blog "LLM Inference Energy: A Longitudinal Analysis", December 2025): Llama
    # 3.1 8B on H100 with vLLM 0.11.1 uses 0.12 J per token at batch 64 (0.20 J with vLLM 0.5.4), less at larger
    # batches, where the GPU is better used. Full load is the largest batch: between a few hundredths of a joule and
    # the batch-64 figure of the older software.
    values = compute(H100_8B)
    j = values["full_load_gpu_j_per_output_token"]
    assert 0.03 <= j <= 0.20
    # By hand: the GPU at its 700 W TDP ÷ the replica's maximum output throughput.
    assert j == pytest.approx(700 / values["max_throughput_tok_s"], rel=1e-12)


def test_energy_at_the_planned_load_and_co2_follow_from_the_months_kwh():
    values = compute({**H100_8B, "tokens_per_month": 5e9, "grid_emission_kg_per_kwh": 0.758})
    kwh = values["energy_kwh_per_month"]
    # 1 kWh = 3.6 MJ; per generated token, and per million tokens of demand (input + output) in Wh.
    assert values["energy_j_per_output_token"] == pytest.approx(kwh * 3.6e6 / values["output_tokens_per_month"])
    assert values["energy_wh_per_1m_tokens"] == pytest.approx(kwh * 1000 / (values["demand_tokens_per_month"] / 1e6))
    # RUPTL PLN 2015-2024: Indonesia's average grid factor projected at 0.758 kg CO2/kWh for 2024.
    assert values["co2_kg_per_month"] == pytest.approx(kwh * 0.758)
    # A renewable contract (0 kg/kWh) emits nothing; the same energy.
    green = compute({**H100_8B, "tokens_per_month": 5e9, "grid_emission_kg_per_kwh": 0})
    assert green["co2_kg_per_month"] == 0 and green["energy_kwh_per_month"] == pytest.approx(kwh)


def test_plan_ranks_by_energy_and_reports_it():
    result = CliRunner().invoke(main, ["plan", "--model", "Llama-3.1-8B", "--by", "energy", "--json"])
    assert result.exit_code == 0, result.output
    options = json.loads(result.stdout)["options"]
    owned = [o for o in options if o["mode"] in ("buy", "colocation", "hybrid")]
    assert owned and all(o["energy_j_per_output_token"] > 0 and o["co2_kg_per_month"] > 0 for o in owned)
    # Measured speeds first (an uncalibrated family's after the calibrated ones), each group by energy; rented and
    # API (not ours) last.
    groups = [
        (not o["speed_measured"], o["speed_band_floor_frac"] > 0 or o["prefill_band_floor_frac"] > 0) for o in options
    ]
    for group in set(groups):
        energy = [o["energy_j_per_output_token"] for o, g in zip(options, groups, strict=True) if g == group]
        energy = [float("inf") if e is None else e for e in energy]
        assert energy == sorted(energy)
