"""Traffic growth: the month the fleet runs out of capacity, the API's cumulative bill and the break-even.

Book: *Kalkulasi Token Generation*; L = line of its text (tests/README.md). Expected values are arithmetic
written out here.
"""

from __future__ import annotations

import math

import pytest

# Demand half the fleet's capacity, priced at Rp 10 per month of API, with a long useful life.
HALF = {"demand_tokens_per_month": 1e9, "capacity_tokens_per_month": 2e9, "lifetime_years": 10}
TENTH = {"demand_tokens_per_month": 1e9, "capacity_tokens_per_month": 10e9, "lifetime_years": 10}


@pytest.mark.parametrize(
    ("growth", "capacity", "month"),
    [
        (10, 2e9, 8),  # ln 2 ÷ ln 1.1 = 7.27: month 7 needs 1.1^7 = 1.95× (fits), month 8 needs 2.14× (over)
        (20, 2e9, 4),  # ln 2 ÷ ln 1.2 = 3.80
        (100, 4e9, 3),  # ln 4 ÷ ln 2 = 2 exactly: month 2 fills the fleet, month 3 is the first one over
        (10, 1e9, 1),  # demand equals capacity today: the first month of growth is over
    ],
)
def test_capacity_runout_month(calc, growth, capacity, month):
    out = calc(traffic_growth_pct_per_month=growth, demand_tokens_per_month=1e9, capacity_tokens_per_month=capacity)
    assert out["capacity_runout_months"] == month


@pytest.mark.parametrize(
    ("growth", "demand", "text"),
    [
        (0, 1e9, "never (traffic does not grow)"),
        (-10, 1e9, "never (traffic does not grow)"),
        (10, 3e9, "already above the fleet's capacity"),
    ],
)
def test_capacity_runout_in_words(calc, growth, demand, text):
    out = calc(traffic_growth_pct_per_month=growth, demand_tokens_per_month=demand, capacity_tokens_per_month=2e9)
    assert out["capacity_runout_months"] == text


@pytest.mark.parametrize(
    ("growth", "total"),
    [
        # L2115: the Bandung startup's traffic "masih naik 10-20% per bulan"; L2127: "setelah 3 tahun, API total
        # hanya Rp 7,2 juta" = Rp 200.000 × 36, flat. Growing, the 36 bills are a geometric series:
        (0, 200_000 * 36),  # Rp 7.2 juta, the book's figure
        (10, 200_000 * (1.1**36 - 1) / 0.1),  # 1.1^36 = 30.91 → Rp 59.8 juta
        (20, 200_000 * (1.2**36 - 1) / 0.2),  # 1.2^36 = 708.8 → Rp 707.8 juta, above on-premise's Rp 106.2 juta
    ],
)
def test_api_cumulative_grows_geometrically(calc, growth, total):
    out = calc(traffic_growth_pct_per_month=growth, api_cost_idr_per_month=200_000, elapsed_months=36)
    assert out["api_cumulative_idr"] == pytest.approx(total, rel=1e-12)


def test_book_startup_totals(calc):
    assert round(200_000 * (1.1**36 - 1) / 0.1 / 1e5) == 598  # Rp 59,8 juta (guide erratum)
    assert round(200_000 * (1.2**36 - 1) / 0.2 / 1e5) == 7078  # Rp 707,8 juta
    out = calc(traffic_growth_pct_per_month=20, api_cost_idr_per_month=200_000, elapsed_months=12)
    # month by month: 200,000 × (1 + 1.2 + 1.44 + … + 1.2^11)
    assert out["api_cumulative_idr"] == pytest.approx(sum(200_000 * 1.2**k for k in range(12)), rel=1e-12)


def _bisect(f, lo, hi):
    """The root of an increasing f on [lo, hi], by halving (independent of the engine's Newton steps)."""
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if f(mid) >= 0 else (mid, hi)
    return hi


def test_breakeven_without_opex_in_closed_form(calc):
    # Capex 100 = 10 × (1.1^m − 1) ÷ 0.1 → 1.1^m = 2 → m = ln 2 ÷ ln 1.1 = 7.27 (flat traffic: 10 months).
    out = calc(
        **TENTH,
        traffic_growth_pct_per_month=10,
        hardware_capex_idr=100,
        api_cost_idr_per_month=10,
        onprem_opex_idr_per_month=0,
    )
    assert out["breakeven_months"] == pytest.approx(math.log(2) / math.log(1.1), rel=1e-9)


@pytest.mark.parametrize(("growth", "capex", "opex"), [(10, 100, 2), (3, 200, 9), (50, 40, 12), (1, 500, 1)])
def test_breakeven_with_opex_matches_bisection(calc, growth, capex, opex):
    g = growth / 100
    runout = math.floor(math.log(10) / math.log(1 + g)) + 1  # TENTH: the fleet serves 10× today's demand
    root = _bisect(lambda m: 10 * ((1 + g) ** m - 1) / g - opex * m - capex, 0, runout)
    out = calc(
        **TENTH,
        traffic_growth_pct_per_month=growth,
        hardware_capex_idr=capex,
        api_cost_idr_per_month=10,
        onprem_opex_idr_per_month=opex,
    )
    assert out["breakeven_in_growth_flag"] is True
    assert out["breakeven_months"] == pytest.approx(root, abs=1e-3)


def test_breakeven_after_the_fleet_is_full(calc):
    # 10 %/month, demand half the capacity: full growth for months 0–7 (runs out in month 8), then the fleet
    # saves the API cost of its capacity, 2 × 10, less opex 2 = 18 a month.
    # Saving after 8 months: 10 × (1.1^8 − 1) ÷ 0.1 − 2 × 8 = 10 × 11.4358881 − 16 = 98.358881.
    # Capex 300: 8 + (300 − 98.358881) ÷ 18 = 8 + 11.2022844 = 19.2022844 months.
    out = calc(
        **HALF,
        traffic_growth_pct_per_month=10,
        hardware_capex_idr=300,
        api_cost_idr_per_month=10,
        onprem_opex_idr_per_month=2,
    )
    assert out["capacity_runout_months"] == 8
    assert out["growth_phase_saving_idr"] == pytest.approx(10 * (1.1**8 - 1) / 0.1 - 16, rel=1e-12)
    assert out["breakeven_months"] == pytest.approx(8 + (300 - (10 * (1.1**8 - 1) / 0.1 - 16)) / 18, rel=1e-12)


def test_shrinking_traffic(calc):
    # −10 %/month, no opex: 30 = 10 × (0.9^m − 1) ÷ (−0.1) → 0.9^m = 0.7 → m = ln 0.7 ÷ ln 0.9 = 3.385.
    out = calc(
        **TENTH,
        traffic_growth_pct_per_month=-10,
        hardware_capex_idr=30,
        api_cost_idr_per_month=10,
        onprem_opex_idr_per_month=0,
    )
    assert out["breakeven_months"] == pytest.approx(math.log(0.7) / math.log(0.9), rel=1e-9)
    # −20 %/month: all future API bills add up to 10 ÷ 0.2 = 50 < capex 100, so it never pays back.
    out = calc(
        **TENTH,
        traffic_growth_pct_per_month=-20,
        hardware_capex_idr=100,
        api_cost_idr_per_month=10,
        onprem_opex_idr_per_month=0,
    )
    assert out["breakeven_months"] == "no break-even within the hardware's useful life"


@pytest.mark.parametrize(
    "settings",
    [
        {},
        {"tokens_per_month": 5e9},
        {"tokens_per_month": 1e6, "lifetime_years": 1},
        {"gpus_needed": 1, "tokens_per_month": 2e10},
    ],
)
def test_no_growth_gives_todays_values(calc, settings):
    out = calc(**settings, traffic_growth_pct_per_month=0, elapsed_months=17)
    saving = out["api_cost_idr_per_month"] * out["served_frac"] - out["onprem_opex_idr_per_month"]
    assert out["saving_idr_per_month"] == saving
    capex = out["hardware_capex_idr"]
    if saving > 0 and capex / saving <= out["lifetime_years"] * 12:
        assert out["breakeven_months"] == capex / saving  # exactly today's capex ÷ monthly saving
    else:
        assert isinstance(out["breakeven_months"], str)
    assert out["api_cumulative_idr"] == out["api_cost_idr_per_month"] * 17
    assert out["onprem_cumulative_idr"] == capex + out["onprem_opex_idr_per_month"] * 17
    assert out["growth_phase_months"] == 0
    assert out["capacity_runout_months"] in ("never (traffic does not grow)", "already above the fleet's capacity")
