"""GPU and server depreciated on separate schedules, and the cooling type's PUE, against hand arithmetic.

Book: *Kalkulasi Token Generation*; L = line of its text (tests/README.md says where maintainers find it).
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from kalkulator.cli import main

# L1854: "depresiasi GPU 3 tahun residual 10%, depresiasi server 4 tahun residual 5%" (the kalkulator defaults).
# A 4× A100 server priced by hand: $30,000 per GPU × Rp 16,500 without PPN = Rp 495 juta each, 4 of them
# = Rp 1,980 juta; the server without GPUs Rp 495 juta; nothing else. Capex 2,475 juta, GPU share 1,980/2,475 = 0.8.
A100_SERVER = {
    "gpu_price_usd": 30_000,
    "usd_idr": 16_500,
    "ppn_mode": "off",
    "import_duty_pct": 0,
    "distributor_margin_pct": 0,
    "gpus_needed": 4,
    "gpus_per_server": 8,
    "server_capex_idr": 495_000_000,
    "network_capex_idr": 0,
    "storage_capex_idr": 0,
    "cooling_capex_idr": 0,
    "setup_capex_idr": 0,
    "year_days": 365,
}


def test_defaults_are_the_books_two_schedules(calc):
    out = calc()
    assert (out["lifetime_years"], out["residual_pct"]) == (3, 10)  # GPU
    assert (out["server_lifetime_years"], out["server_residual_pct"]) == (4, 5)  # server


def test_capex_splits_into_gpus_and_the_rest(calc):
    out = calc(**A100_SERVER)
    assert out["gpu_capex_idr"] == pytest.approx(4 * 30_000 * 16_500, rel=1e-12)  # 1,980,000,000
    assert out["other_capex_idr"] == pytest.approx(495_000_000, rel=1e-12)
    assert out["hardware_capex_idr"] == pytest.approx(2_475_000_000, rel=1e-12)
    assert out["gpu_capex_share_frac"] == pytest.approx(1_980 / 2_475, rel=1e-12)  # 0.8
    # GPUs: 1,980 juta × 0.90 ÷ 3 years; the rest: 495 juta × 0.95 ÷ 4 years; per day of a 365-day year.
    per_year = 1_980e6 * 0.90 / 3 + 495e6 * 0.95 / 4  # 594 juta + 117.5625 juta
    assert out["depreciation_idr_per_day"] == pytest.approx(per_year / 365, rel=1e-12)


def test_book_4x_a100_five_year_tco_with_both_residuals(calc):
    # L1850: 4× A100 on-premise, capex Rp 3 miliar, opex ~Rp 13 juta/bulan, TCO 5 years = 3 M + 780 juta = 3.78 M
    # (no residual value). The typed Rp 3 miliar quote is split like the items above: 0.8 GPUs, 0.2 the rest.
    out = calc(**A100_SERVER, hardware_capex_idr=3e9, onprem_opex_idr_per_month=13e6, horizon_years=5)
    gpu, rest = 3e9 * 0.8, 3e9 * 0.2  # 2,400 juta and 600 juta
    # After 5 years both schedules are at their residual value: 10 % of 2,400 juta + 5 % of 600 juta = 270 juta.
    assert out["book_value_end_idr"] == pytest.approx(gpu * 0.10 + rest * 0.05, rel=1e-12)
    assert out["book_value_end_idr"] == pytest.approx(270e6, rel=1e-12)
    # TCO = 3,000 − 270 + 13 × 60 = 3,510 juta (the book's 3.78 M ignores the residual value).
    assert out["tco_book_idr"] == pytest.approx(3e9 - 270e6 + 13e6 * 60, rel=1e-12)
    assert out["tco_book_idr"] == pytest.approx(3.51e9, rel=1e-12)
    # Depreciation per day while both run: (2,400 × 0.9 ÷ 3 + 600 × 0.95 ÷ 4) juta ÷ 365 = 862.5 juta ÷ 365.
    assert out["depreciation_idr_per_day"] == pytest.approx((720e6 + 142.5e6) / 365, rel=1e-12)


def test_book_value_inside_the_server_life(calc):
    # At 3 years the GPUs are at their 10 % residual; the server has 1 of 4 years left:
    # 600 juta × (1 − 0.95 × 3/4) = 600 juta × 0.2875 = 172.5 juta.
    out = calc(**A100_SERVER, hardware_capex_idr=3e9, horizon_years=3)
    assert out["book_value_end_idr"] == pytest.approx(2_400e6 * 0.10 + 600e6 * 0.2875, rel=1e-12)  # 412.5 juta
    two = calc(**A100_SERVER, hardware_capex_idr=3e9, horizon_years=2)
    # At 2 years: 2,400 × (1 − 0.9 × 2/3) + 600 × (1 − 0.95 × 2/4) = 960 + 315 juta.
    assert two["book_value_end_idr"] == pytest.approx(960e6 + 315e6, rel=1e-12)


def test_typed_share_replaces_the_items_proportion(calc):
    # A quote that says Rp 1 miliar of which 60 % is GPUs: 600 juta × 0.9 ÷ 3 + 400 juta × 0.95 ÷ 4 per year.
    out = calc(**A100_SERVER, hardware_capex_idr=1e9, gpu_capex_share_frac=0.6)
    assert out["depreciation_idr_per_day"] == pytest.approx((180e6 + 95e6) / 365, rel=1e-12)


def test_without_gpu_price_everything_follows_the_server_schedule(calc):
    # No GPU price (a GPU outside the catalog): share 0, so a typed quote is all on the 4-year, 5 % schedule.
    out = calc(**{**A100_SERVER, "gpu_price_usd": 0}, hardware_capex_idr=100e6)
    assert out["gpu_capex_share_frac"] == 0
    assert out["depreciation_idr_per_day"] == pytest.approx(100e6 * 0.95 / 4 / 365, rel=1e-12)


def test_cost_per_million_tokens_uses_both_schedules(calc):
    # Rp 50 juta workstation, 60 % GPU: (30 juta × 0.9 ÷ 3 + 20 juta × 0.95 ÷ 4) ÷ 365 = 13.75 juta ÷ 365 per day;
    # 600 W all day at PUE 1 and Rp 1,699/kWh = 14.4 kWh × 1,699; maintenance Rp 500,000 ÷ 365; 9,132,480 tokens.
    out = calc(
        hardware_capex_idr=50e6,
        gpu_capex_share_frac=0.6,
        year_days=365,
        system_power_w=600,
        idle_power_frac=1,
        pue=1,
        electricity_idr_per_kwh=1699,
        maintenance_idr_per_year=500_000,
        staff_idr_per_month=0,
        tokens_per_day=9_132_480,
    )
    per_day = 13.75e6 / 365 + 14.4 * 1699 + 500_000 / 365
    assert out["cost_idr_per_1m_tokens"] == pytest.approx(per_day / 9_132_480 * 1e6, rel=1e-12)


def test_gpu_share_out_of_range_is_refused():
    result = CliRunner().invoke(main, ["hitung", "--set", "gpu_capex_share_frac=1.5"])
    assert result.exit_code != 0
    assert "gpu_capex_share_frac" in result.output


# L149: "PUE data center anda mungkin 1,3 atau 2,0"; L2071: liquid cooling "PUE bisa turun dari 1,6 ke 1,2";
# L2083: immersion "PUE sangat rendah (1,05-1,1)" (kalkulator takes the upper end, 1.1).
@pytest.mark.parametrize(
    ("cooling", "pue"),
    [("data-centre", 1.3), ("precision-ac", 1.6), ("liquid", 1.2), ("immersion", 1.1), ("office-ac", 2.0)],
)
def test_cooling_type_sets_the_pue_and_the_bill(calc, cooling, pue):
    # 15 kW of IT load all day (the book's L2052 example), Rp 1,500/kWh, 365 ÷ 12 days a month.
    out = calc(cooling_type=cooling, system_power_w=15_000, idle_power_frac=1, electricity_idr_per_kwh=1500)
    assert out["pue"] == pue
    assert out["electricity_idr_per_month"] == pytest.approx(15 * pue * 24 * 365 / 12 * 1500, rel=1e-12)


def test_cooling_saving_liquid_against_precision_ac(calc):
    # 15 kW IT: precision AC 15 × 1.6 = 24 kW, liquid 15 × 1.2 = 18 kW → 6 kW less, 6 × 24 × 30.4167 × 1,500
    # = Rp 6.57 juta a month (the book's L2055 puts the AC alone at ~6 kW, Rp 6.5 juta/bulan).
    settings = {"system_power_w": 15_000, "idle_power_frac": 1, "electricity_idr_per_kwh": 1500}
    ac = calc(cooling_type="precision-ac", **settings)["electricity_idr_per_month"]
    liquid = calc(cooling_type="liquid", **settings)["electricity_idr_per_month"]
    assert ac - liquid == pytest.approx(6 * 24 * 365 / 12 * 1500, rel=1e-12)
    assert round((ac - liquid) / 1e6, 2) == 6.57


def test_typed_pue_wins_over_the_cooling_type(calc):
    out = calc(cooling_type="immersion", pue=1.45, system_power_w=1000, idle_power_frac=1)
    assert out["pue"] == 1.45
    assert out["facility_power_w"] == pytest.approx(1450, rel=1e-12)


def test_unknown_cooling_type_is_refused():
    result = CliRunner().invoke(main, ["hitung", "--set", "cooling_type=fan"])
    assert result.exit_code != 0
    assert "cooling_type must be one of data-centre, precision-ac, liquid, immersion, office-ac" in result.output
