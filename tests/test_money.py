"""The money chain against the book's worked examples (recomputed by hand) and written-out arithmetic.

Book: *Kalkulasi Token Generation*; L = line of its text (tests/README.md says where maintainers find it).
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from kalkulator.cli import main

# L1106–1110: a 600 W system running 24 h at Rp 1,699/kWh, no idle phase, no facility overhead.
BOOK_POWER = {"system_power_w": 600, "idle_power_frac": 1, "pue": 1, "electricity_idr_per_kwh": 1699}
# L1100–1123: RTX 4090 workstation, Rp 50 juta over 3 years (1,095 days), Rp 500,000/year maintenance, 151 tok/s
# for one user at a 70 % duty cycle; straight-line without residual value, the whole workstation (GPU and the
# rest) over the same 3 years, as the book does.
BOOK_4090 = {
    **BOOK_POWER,
    "hardware_capex_idr": 50_000_000,
    "residual_pct": 0,
    "lifetime_years": 3,
    "server_residual_pct": 0,
    "server_lifetime_years": 3,
    "year_days": 365,
    "maintenance_idr_per_year": 500_000,
    "staff_idr_per_month": 0,
    "decode_tok_s": 151,
    "concurrent_users": 1,
    "duty_cycle_frac": 0.7,
}


def test_electricity_per_day(calc):
    out = calc(**BOOK_POWER)
    assert out["energy_kwh_per_day"] == pytest.approx(600 * 24 / 1000, rel=1e-12)  # 14.4 kWh
    assert out["electricity_idr_per_day"] == pytest.approx(14.4 * 1699, rel=1e-12)
    assert round(out["electricity_idr_per_day"]) == 24_466


def test_power_with_duty_cycle_idle_and_pue(calc):
    # 1,000 W at load 50 % of the day, 30 % of that power while idle, PUE 1.5: 1000 × (0.5 + 0.5 × 0.3) × 1.5 W.
    out = calc(system_power_w=1000, duty_cycle_frac=0.5, idle_power_frac=0.3, pue=1.5, electricity_idr_per_kwh=1000)
    assert out["facility_power_w"] == pytest.approx(1000 * (0.5 + 0.5 * 0.3) * 1.5, rel=1e-12)
    assert out["electricity_idr_per_month"] == pytest.approx(975 * 24 / 1000 * 365 / 12 * 1000, rel=1e-12)


def test_rtx_4090_cost_per_million_tokens(calc):
    # The book's tokens per day: 151 tok/s × 86,400 s × 0.7 duty cycle (kalkulator counts served tokens instead).
    out = calc(**BOOK_4090, tokens_per_day=151 * 86_400 * 0.7)
    assert out["depreciation_idr_per_day"] == pytest.approx(50_000_000 / 1095, rel=1e-12)  # Rp 45,662
    assert round(out["depreciation_idr_per_day"]) == 45_662
    assert round(out["maintenance_idr_per_day"]) == 1_370  # 500,000 / 365
    assert out["tokens_per_day"] == 9_132_480
    per_day = 50_000_000 / 1095 + 600 * 24 / 1000 * 1699 + 500_000 / 365
    assert out["cost_idr_per_1m_tokens"] == pytest.approx(per_day / 9_132_480 * 1e6, rel=1e-12)
    assert round(out["cost_idr_per_1m_tokens"]) == 7_829  # the book: Rp 7.83 per 1K tokens


def test_cloud_a100_per_token_erratum(calc):
    # L1143: Rp 19,500 per hour and 39,657,600 tokens per day. Per day the rent is 19,500 × 24:
    # Rp 11.80 per 1K tokens = Rp 11,801 per 1M (the book divided the hourly price by daily tokens: Rp 0.49).
    out = calc(cloud_idr_per_gpu_hour=19_500, n_gpus=1, cloud_hours_per_day=24, tokens_per_day=39_657_600)
    assert out["cloud_cost_idr_per_1m_tokens"] == pytest.approx(19_500 * 24 / 39_657_600 * 1e6, rel=1e-12)
    assert round(out["cloud_cost_idr_per_1m_tokens"] / 1000, 2) == 11.80


def test_cloud_dollar_price_gets_rate_and_vat(calc):
    out = calc(cloud_usd_per_hour=2.0, cloud_listed_idr_per_hour=0, cloud_offer_gpus=1, usd_idr=16_000, ppn_pct=11)
    assert out["cloud_idr_per_gpu_hour"] == pytest.approx(2.0 * 16_000 * 1.11, rel=1e-12)


@pytest.mark.parametrize(
    ("capex", "api", "opex", "months"),
    [
        (200e6, 137e6, 15e6, 200 / (137 - 15)),  # L2175: ≈ 1.6 months
        (115e9, 22e9, 2e9, 5.75),  # L2181 (its API figure is itself ×1000 too high; see the guide's errata)
    ],
)
def test_breakeven_months(calc, capex, api, opex, months):
    out = calc(hardware_capex_idr=capex, api_cost_idr_per_month=api, onprem_opex_idr_per_month=opex)
    assert out["breakeven_months"] == pytest.approx(months, rel=1e-12)


def test_no_breakeven_when_api_is_cheaper(calc):
    out = calc(hardware_capex_idr=200e6, api_cost_idr_per_month=10e6, onprem_opex_idr_per_month=15e6)
    assert out["breakeven_months"] == "no break-even: the API costs less than the opex"


def test_book_api_cost_per_month(calc):
    # L2175: Rp 137 juta = 500 M output tokens × $15 per 1M × Rp 16,500 × (1 + PPN 11 %).
    out = calc(
        tokens_per_month=500e6,
        api_output_share_frac=1,
        api_output_usd_per_1m=15,
        usd_idr=16_500,
        ppn_mode="on",
        ppn_pct=11,
        pph22_mode="off",
    )
    assert out["api_cost_idr_per_month"] == pytest.approx(500 * 15 * 16_500 * 1.11, rel=1e-12)  # 137,362,500


def test_api_blend_and_taxes(calc):
    # 1:3 input:output (L1173): $2.50 in, $10 out → 0.25 × 2.5 + 0.75 × 10 = $8.125 per 1M blended.
    out = calc(
        api_input_usd_per_1m=2.5,
        api_output_usd_per_1m=10,
        api_output_share_frac=0.75,
        usd_idr=16_000,
        ppn_mode="on",
        ppn_pct=11,
        pph22_mode="on",
        pph22_pct=15,
    )
    assert out["api_blended_usd_per_1m"] == pytest.approx(8.125, rel=1e-12)
    assert out["api_cost_idr_per_1m_tokens"] == pytest.approx(8.125 * 16_000 * 1.11 * 1.15, rel=1e-12)
    off = calc(
        api_input_usd_per_1m=2.5, api_output_usd_per_1m=10, api_output_share_frac=0.75, usd_idr=16_000, ppn_mode="off"
    )
    assert off["api_cost_idr_per_1m_tokens"] == pytest.approx(8.125 * 16_000, rel=1e-12)


def test_tco_straight_line_with_residual(calc):
    # Capex 100 M, all of it GPUs, 10 % residual after 3 years; over 5 years the book value stops at 10 M.
    base = {
        "hardware_capex_idr": 100e6,
        "gpu_capex_share_frac": 1,
        "residual_pct": 10,
        "lifetime_years": 3,
        "onprem_opex_idr_per_month": 2e6,
        "staff_idr_per_month": 0,
    }
    three = calc(**base, horizon_years=3)
    five = calc(**base, horizon_years=5)
    two = calc(**base, horizon_years=2)
    assert two["book_value_end_idr"] == pytest.approx(100e6 - 90e6 * 2 / 3, rel=1e-12)
    assert three["tco_book_idr"] == pytest.approx(90e6 + 2e6 * 36, rel=1e-12)
    assert five["tco_book_idr"] == pytest.approx(90e6 + 2e6 * 60, rel=1e-12)
    assert five["depreciation_idr_per_day"] == pytest.approx(90e6 / (3 * 365), rel=1e-12)


def test_tco_modes(calc):
    # Rp 100 juta of GPUs (10 % residual after 3 years: book value 100 − 90 × 3/3 = Rp 10 juta at year 5), Rp 1.2
    # juta maintenance a year, Rp 1 juta staff a month, over 5 years = 60 months.
    out = calc(
        horizon_years=5,
        hardware_capex_idr=100e6,
        gpu_capex_share_frac=1,
        residual_pct=10,
        lifetime_years=3,
        maintenance_idr_per_year=1.2e6,
        staff_idr_per_month=1e6,
        colocation_name="Book colocation 4x A100",
        system_power_w=2000,
        dedicated_idr_per_gpu_month=20e6,
        n_gpus=4,
        cloud_idr_per_month=30e6,
        resale_share_frac=0.1,  # a buy-back quote of 10 % of the price after 5 years: Rp 10 juta back
    )
    # Colocation: the book's 15 kW rack at Rp 50 juta a month (L1844) holds a 2 kW fleet with no power above the
    # plan; the rent replaces the office electricity bill.
    assert out["tco_colocation_idr"] == pytest.approx((100e6 - 10e6) + (50e6 + 1.2e6 / 12 + 1e6) * 60, rel=1e-12)
    assert out["tco_dedicated_idr"] == pytest.approx((20e6 * 4 + 1e6) * 60, rel=1e-12)
    assert out["tco_cloud_idr"] == pytest.approx((30e6 + 1e6) * 60, rel=1e-12)


def test_colocation_plans_cover_the_fleet_power(calc):
    # The book's 15 kW high-power rack at Rp 50 juta per month (L1844). A 20.4 kW fleet needs ROUNDUP(20.4 / 15)
    # = 2 racks; a 9 kW fleet one.
    big = calc(colocation_name="Book colocation 4x A100", system_power_w=20_400)
    assert big["colocation_plans_ratio"] == 2
    assert big["colocation_idr_per_month"] == pytest.approx(2 * 50_000_000, rel=1e-12)
    assert big["colocation_included_kw"] == pytest.approx(2 * 15, rel=1e-12)
    small = calc(colocation_name="Book colocation 4x A100", system_power_w=9_000)
    assert small["colocation_idr_per_month"] == pytest.approx(50_000_000, rel=1e-12)


def test_colocation_power_above_the_plan_is_billed_per_kwh(calc):
    # The book's DCI pack includes 4 kW; more is billed at Rp 2,500–3,500 per kWh. A 6 kW average draw on a
    # fixed 4 kW slot: 2 kW × 24 h × 30.42 days × Rp 2,500 = Rp 3,650,400 per month.
    out = calc(colocation_name="Book DCI full rack 4-6kW low", average_power_w=6000, month_days=30.42)
    assert out["colocation_included_kw"] == 4
    assert out["colocation_extra_kw"] == pytest.approx(2, rel=1e-12)
    assert out["colocation_power_idr_per_month"] == pytest.approx(2 * 24 * 30.42 * 2500, rel=1e-12)
    # Within the plan nothing extra is billed, and the office electricity bill is not part of colocation.
    # Rp 18 juta rent + Rp 2.4 juta maintenance a year ÷ 12 + Rp 3 juta staff a month.
    small = calc(
        colocation_name="Book DCI full rack 4-6kW low",
        average_power_w=3000,
        maintenance_idr_per_year=2.4e6,
        staff_idr_per_month=3e6,
    )
    assert small["colocation_power_idr_per_month"] == 0
    assert small["colocation_opex_idr_per_month"] == pytest.approx(18e6 + 2.4e6 / 12 + 3e6, rel=1e-12)


def test_dedicated_rent_follows_the_gpu(calc):
    # The book's dedicated 4× A100 at Rp 80 juta per month (the cheaper end) → Rp 20 juta per GPU.
    assert calc(gpu_name="A100 PCIe 80GB")["dedicated_idr_per_gpu_month"] == pytest.approx(20e6, rel=1e-12)
    other = calc(gpu_name="RTX 4090 24GB")
    assert other["dedicated_idr_per_gpu_month"] == 0
    assert other["answer_tco_dedicated_idr"] == "no dedicated rent"


def test_measured_speed_flows_into_money_chain_via_cli():
    # A measured serving capacity on a fixed fleet of one GPU whose demand exceeds it: twice the capacity serves
    # twice the tokens at half the cost per token; a measured decode speed sets TPOT.
    def cost(capacity: str) -> dict:
        sets = [f"sla_max_requests_per_s={capacity}", "gpus_needed=1", "tokens_per_month=1e12", "decode_tok_s=50"]
        result = CliRunner().invoke(main, ["hitung", "--json", *[a for s in sets for a in ("--set", s)]])
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)

    slow, fast = cost("0.2"), cost("0.4")
    assert slow["tpot_ms"] == pytest.approx(1000 / 50, rel=1e-12)
    # One GPU at 0.2 requests/s over the 12 active hours at a peak ÷ average ratio of 2 serves 0.2 × 12 × 3,600 ÷ 2 =
    # 4,320 requests a day of the chat workload's 1,000 + 500 tokens (the demand of 1e12 tokens a month is more).
    assert slow["tokens_per_day"] == pytest.approx(0.2 * 12 * 3600 / 2 * 1500, rel=1e-12)
    assert fast["tokens_per_day"] == pytest.approx(2 * slow["tokens_per_day"], rel=1e-12)
    assert fast["cost_idr_per_1m_tokens"] == pytest.approx(slow["cost_idr_per_1m_tokens"] / 2, rel=1e-12)


def test_buying_for_a_month_costs_the_used_market_loss_not_a_month_of_depreciation(calc):
    # Rp 124 juta of hardware, Rp 2 juta opex a month. Sold after one month (horizon 1/12 year) at the resale curve:
    # 0.9 of the price when nearly new × 0.7 kept per year ^ (1/12) ≈ 0.874, so buying costs 124 × (1 − 0.874) ≈
    # Rp 15.7 juta + one month's opex, where the book value (GPUs: 90 % over 3 years) charges 124 × 0.9 ÷ 36 =
    # Rp 3.1 juta.
    base = {"hardware_capex_idr": 124e6, "gpu_capex_share_frac": 1, "onprem_opex_idr_per_month": 2e6}
    month = calc(**base, horizon_years=1 / 12)
    share = 0.9 * 0.7 ** (1 / 12)
    assert month["resale_share_frac"] == pytest.approx(share, rel=1e-12)
    assert month["tco_idr"] == pytest.approx(124e6 * (1 - share) + 2e6 * 1, rel=1e-12)
    assert 15e6 < month["tco_idr"] - 2e6 < 16.5e6
    assert month["tco_book_idr"] == pytest.approx(124e6 * 0.9 / 36 + 2e6, rel=1e-12)
    # Three years follow the curve: 0.9 × 0.7³ = 0.3087 of the price back (used H100s: 25–35 % after 3 years).
    three = calc(**base, horizon_years=3)
    assert three["resale_share_frac"] == pytest.approx(0.9 * 0.343, rel=1e-12)
    assert three["tco_idr"] == pytest.approx(124e6 * (1 - 0.3087) + 2e6 * 36, rel=1e-12)
    # The colocation TCO sells the same hardware: capex − resale + its own opex.
    colo = calc(**base, horizon_years=1 / 12, colocation_opex_idr_per_month=5e6)
    assert colo["tco_colocation_idr"] == pytest.approx(124e6 * (1 - share) + 5e6, rel=1e-12)


def test_a_buy_back_quote_replaces_the_curve(calc):
    # A dealer offers 50 % back after a year: capex 100 juta − 50 juta + 12 months × 1 juta.
    out = calc(hardware_capex_idr=100e6, onprem_opex_idr_per_month=1e6, horizon_years=1, resale_share_frac=0.5)
    assert out["resale_value_end_idr"] == pytest.approx(50e6, rel=1e-12)
    assert out["tco_idr"] == pytest.approx(100e6 - 50e6 + 12e6, rel=1e-12)
