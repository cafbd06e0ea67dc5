"""Money that scales with the fleet: deployment profiles, opex, the same-model API and the hybrid, by hand.

Expected values are arithmetic written out here over the shipped profile figures (assumptions/deployments.csv,
boards.csv, hosting.csv, api_prices.csv), each quoted where it is used.
"""

from __future__ import annotations

import csv

import pytest
from click.testing import CliRunner

from kalkulator.catalog import CatalogError, load_catalog
from kalkulator.cli import main

USD_IDR, VAT = 16_500, 1.11


def test_fourteen_h100_sxm_in_the_hgx_profile(calc):
    out = calc(model_name="Llama-3.3-70B", gpu_name="H100 SXM 80GB", quant_name="FP8", engine="vllm", gpus_needed=14)
    assert out["deployment_name"] == "HGX/DGX"  # SXM GPUs are sold only on boards
    # HGX H100 8-GPU board $240,000 → $30,000 per GPU; 14 GPUs need 2 boards of 8 = 16 GPUs.
    assert out["servers_needed"] == 2 and out["bought_gpus"] == 16
    gpus = 16 * 240_000 / 8 * USD_IDR * VAT  # Rp 8,791,200,000
    # HGX/DGX profile per node: platform Rp 1,000 juta, network Rp 150 juta, storage Rp 20 juta, setup Rp 15 juta.
    per_node = 1_000_000_000 + 150_000_000 + 20_000_000 + 15_000_000
    capex = gpus + 2 * per_node
    assert out["network_capex_idr"] == pytest.approx(2 * 150_000_000, rel=1e-12)
    assert out["hardware_capex_idr"] == pytest.approx(capex, rel=1e-12)  # Rp 11,161,200,000
    # Maintenance 8 % of the capex per year; staff 0.25 FTE per node × 2 nodes × Rp 40 juta (book L509).
    assert out["maintenance_idr_per_year"] == pytest.approx(0.08 * capex, rel=1e-12)
    assert out["staff_idr_per_month"] == pytest.approx(2 * 0.25 * 40_000_000, rel=1e-12)
    # Power at load 16 × 700 W + 2 × 4,600 W host (DGX H100 ~10.2 kW max) = 20.4 kW → two 15 kW racks of Rp 50 juta.
    assert out["system_power_w"] == pytest.approx(16 * 700 + 2 * 4_600, rel=1e-12)
    assert out["colocation_plans_ratio"] == 2
    assert out["colocation_idr_per_month"] == pytest.approx(2 * 50_000_000, rel=1e-12)
    # The old workstation defaults (Rp 500,000 maintenance per year, no staff) are gone.
    assert out["maintenance_idr_per_year"] > 800_000_000 and out["staff_idr_per_month"] > 0


def test_gb200_is_bought_as_a_whole_nvl72_rack(calc):
    out = calc(
        model_name="Llama-3.3-70B", gpu_name="GB200 per GPU 186GB", quant_name="FP8", engine="vllm", gpus_needed=3
    )
    assert out["deployment_name"] == "HGX/DGX"
    # boards.csv: GB200 comes in NVL72 racks of 72 GPUs at ~$3.0 million; 3 GPUs needed buy one rack.
    assert out["servers_needed"] == 1 and out["bought_gpus"] == 72
    per_node = 1_000_000_000 + 150_000_000 + 20_000_000 + 15_000_000  # the HGX/DGX profile's platform, once per rack
    capex = 3_000_000 * USD_IDR * VAT + per_node  # Rp 54,945,000,000 + Rp 1,185,000,000
    assert out["hardware_capex_idr"] == pytest.approx(capex, rel=1e-12)


@pytest.mark.parametrize(
    ("gpu", "gpus", "profile"),
    [
        ("RTX 4090 24GB", 2, "workstation"),  # GeForce: a desk-side PC while one office box holds the fleet
        ("RTX 4090 24GB", 4, "server rak"),  # more than two x16 slots: a rack server (its licence caveat applies)
        ("L40S 48GB", 2, "workstation"),  # 1–2 PCIe cards fit a workstation
        ("L40S 48GB", 6, "server rak"),  # more go into a 4U server
        ("H100 SXM 80GB", 1, "HGX/DGX"),  # SXM only on boards
    ],
)
def test_default_profile_follows_form_factor_and_fleet(calc, gpu, gpus, profile):
    assert calc(gpu_name=gpu, gpus_needed=gpus)["deployment_name"] == profile


def test_every_profile_value_can_be_replaced(calc):
    out = calc(gpu_name="L40S 48GB", gpus_needed=6, server_capex_idr=1e8, staff_idr_per_month=0, host_power_w=500)
    assert out["deployment_name"] == "server rak" and out["servers_needed"] == 1  # 8 cards per server
    assert out["server_capex_idr"] == 1e8 and out["staff_idr_per_month"] == 0
    assert out["system_power_w"] == pytest.approx(6 * 350 + 500, rel=1e-12)


def test_fleet_busy_share_sets_the_duty_cycle(calc):
    # One replica serving at most 1 request/s within the targets, chat preset: 12 active hours, peak ÷ average 2.
    # Capacity per day = 1 × 12 × 3,600 ÷ 2 = 21,600 requests; 2,808 requests = 13 % of it.
    out = calc(gpus_needed=1, sla_max_requests_per_s=1, requests_per_day=2_808)
    assert out["capacity_requests_per_day"] == pytest.approx(21_600, rel=1e-12)
    assert out["demand_capacity_frac"] == pytest.approx(0.13, rel=1e-12)
    # Busy share of the whole day: 0.13 × 12 ÷ 24 ÷ 2 = 0.0325.
    assert out["fleet_busy_frac"] == pytest.approx(0.13 * 12 / 24 / 2, rel=1e-12)
    assert out["duty_cycle_frac"] == out["fleet_busy_frac"]


def test_electricity_at_13_percent_busy_is_below_70(calc):
    # 1,000 W at load, idle 30 % of it, PUE 1, Rp 1,000/kWh, 365 ÷ 12 days: W × (d + (1 − d) × 0.3) × 24 h.
    base = {"system_power_w": 1000, "idle_power_frac": 0.3, "pue": 1, "electricity_idr_per_kwh": 1000}
    month = 24 / 1000 * 365 / 12 * 1000
    busy = calc(**base, duty_cycle_frac=0.13)
    book = calc(**base, duty_cycle_frac=0.70)
    assert busy["electricity_idr_per_month"] == pytest.approx(1000 * (0.13 + 0.87 * 0.3) * month, rel=1e-12)
    assert book["electricity_idr_per_month"] == pytest.approx(1000 * (0.70 + 0.30 * 0.3) * month, rel=1e-12)
    assert busy["electricity_idr_per_month"] < book["electricity_idr_per_month"]  # 391 W vs 790 W on average


HYBRID = {
    "gpus_needed": 8,
    "n_gpus": 1,
    "active_hours_per_day": 12,
    "peak_hours_per_day": 1,
    "hardware_capex_idr": 800e6,
    "gpu_capex_share_frac": 1,
    "residual_pct": 0,
    "lifetime_years": 3,
    "year_days": 360,
    "system_power_w": 8_000,
    "pue": 1,
    "electricity_idr_per_kwh": 1_000,
    "duty_cycle_frac": 0.5,
    "idle_power_frac": 0.3,
    "onprem_opex_idr_per_month": 20e6,
    "api_cost_idr_per_month": 30e6,
    "cloud_idr_per_gpu_hour": 0,  # no cloud offer: the peaks go to the API
}


def test_hybrid_with_rare_peaks_is_cheaper_than_all_on_premise(calc):
    out = calc(**HYBRID, peak_to_average_ratio=4)
    # Base share = average ÷ peak = 1/4 → ROUNDUP(8 × 0.25) = 2 GPUs.
    assert out["hybrid_base_frac"] == 0.25 and out["hybrid_base_gpus"] == 2
    # Load: 4 × average for 1 hour, (12 − 4) ÷ 11 of it for the other 11 hours; the base covers 1 × average,
    # so the peak hour's 3 averages out of 12 go to the API: 1 × (4 − 1) ÷ 12 = 25 % of the tokens.
    assert out["offpeak_to_average_ratio"] == pytest.approx(8 / 11, rel=1e-12)
    assert out["hybrid_overflow_frac"] == pytest.approx(0.25, rel=1e-12)
    electricity = 8 * (0.5 + 0.5 * 0.3) * 24 * 30 * 1000  # 5.2 kW × 720 h × Rp 1,000 = Rp 3,744,000
    assert out["electricity_idr_per_month"] == pytest.approx(electricity, rel=1e-12)
    energy = (0.5 * 0.75 * 0.7 + 0.25 * 0.3) / (0.5 * 0.7 + 0.3)  # base fleet works 75 %, idles less
    opex = (20e6 - electricity) * 0.25 + electricity * energy + 0.25 * 30e6
    depreciation = 800e6 / 3 / 360 * 30  # Rp 22.2 juta per month for the whole fleet
    assert out["hybrid_cost_idr_per_month"] == pytest.approx(depreciation * 0.25 + opex, rel=1e-12)
    assert out["onprem_cost_idr_per_month"] == pytest.approx(depreciation + 20e6, rel=1e-12)
    assert out["hybrid_cost_idr_per_month"] < out["onprem_cost_idr_per_month"]  # Rp 19.1 vs 42.2 juta
    assert out["hybrid_capex_idr"] == pytest.approx(200e6, rel=1e-12)
    # Break-even of the base fleet: 200 juta ÷ (30 juta − hybrid opex).
    assert out["hybrid_breakeven_months"] == pytest.approx(200e6 / (30e6 - opex), rel=1e-12)


def test_hybrid_equals_on_premise_at_a_flat_load(calc):
    out = calc(**HYBRID, peak_to_average_ratio=1)
    assert out["hybrid_base_frac"] == 1 and out["hybrid_base_gpus"] == 8 and out["hybrid_overflow_frac"] == 0
    assert out["hybrid_cost_idr_per_month"] == pytest.approx(out["onprem_cost_idr_per_month"], rel=1e-12)
    assert out["tco_hybrid_idr"] == pytest.approx(out["tco_idr"], rel=1e-12)


def test_hybrid_takes_cloud_gpus_when_cheaper_than_the_api(calc):
    # 6 GPUs beyond the base for the 1 peak hour, 30 days, at Rp 20,000 per GPU-hour = Rp 3.6 juta < API Rp 7.5 juta.
    settings = {**HYBRID, "cloud_idr_per_gpu_hour": 20_000, "cloud_gpu_match_flag": True}
    out = calc(**settings, peak_to_average_ratio=4)
    assert out["hybrid_cloud_idr_per_month"] == pytest.approx(20_000 * 6 * 1 * 30, rel=1e-12)
    assert out["hybrid_burst_idr_per_month"] == pytest.approx(3_600_000, rel=1e-12)


def test_rag_8b_is_compared_with_the_cheapest_8b_api(calc):
    # Llama-3.1-8B on an API: DeepInfra Turbo $0.02/$0.03, DeepInfra $0.03/$0.05, Groq $0.05/$0.08 per 1M.
    out = calc(model_name="Llama-3.1-8B", gpu_name="RTX 4090 24GB", workload_name="RAG", tokens_per_month=2e9)
    assert out["api_name"] == "DeepInfra Llama-3.1-8B Turbo" and out["api_same_model_flag"] is True
    # RAG: 4,000 prompt + 400 output tokens; no cached-input price listed, so the whole prompt at $0.02.
    blended = 4000 / 4400 * 0.02 + 400 / 4400 * 0.03
    assert out["api_cost_idr_per_1m_tokens"] == pytest.approx(blended * USD_IDR * VAT, rel=1e-12)  # Rp 382.95
    assert out["api_cost_idr_per_month"] == pytest.approx(2000 * blended * USD_IDR * VAT, rel=1e-9)
    # Second line: the book's premium API for a small model, GPT-4o mini ($0.15 in, $0.075 cached, $0.60 out) with
    # the RAG preset's 20 % of the prompt from the cache.
    assert out["premium_api_name"] == "OpenAI GPT-4o mini"
    premium = 4000 / 4400 * (0.2 * 0.075 + 0.8 * 0.15) + 400 / 4400 * 0.6
    assert out["premium_api_cost_idr_per_month"] == pytest.approx(2000 * premium * USD_IDR * VAT, rel=1e-9)
    # The workstation's monthly saving against the same model on an API does not repay it in 3 years.
    assert out["breakeven_months"] == "no break-even within the hardware's useful life"


def test_model_without_an_api_falls_back_to_the_nearest_open_model_of_its_class(calc):
    out = calc(model_name="Llama-2-70B")  # no API in the catalog serves Llama 2: 68.98 B parameters is "large"
    assert out["api_name"] == "DeepInfra Llama-3.3-70B" and out["api_same_model_flag"] is False
    assert out["api_comparator_text"] == "nearest: Llama-3.3-70B (a different model, not Llama-2-70B)"
    assert "API compared: another model" in out["caveats_text"]
    assert out["premium_api_name"] == "OpenAI GPT-4o"  # large: the book's premium for large models
    assert out["premium_api_label_text"] == "premium (closed model, class large): OpenAI GPT-4o"


def test_batch_mode_takes_the_batch_discount(calc):
    off = calc(api_name="OpenAI GPT-4o", api_output_share_frac=1)
    on = calc(api_name="OpenAI GPT-4o", api_output_share_frac=1, api_batch_mode="on")
    assert off["api_blended_usd_per_1m"] == 10 and on["api_blended_usd_per_1m"] == pytest.approx(5, rel=1e-12)


def _hitung(*sets: str):
    return CliRunner().invoke(main, ["hitung", "--json", *[a for s in sets for a in ("--set", s)]])


def test_unknown_profile_names_the_closest():
    result = _hitung("deployment_name=HGX")
    assert result.exit_code == 2
    assert "deployment_name: 'HGX' is not in the deployment catalog. Closest: HGX/DGX" in result.stderr


def test_hybrid_share_outside_0_1_names_the_field_and_its_range():
    result = _hitung("hybrid_base_frac=1.5")
    assert result.exit_code == 2
    assert "hybrid_base_frac must be from 0 to 1" in result.stderr


def test_api_row_without_a_model_is_a_catalog_error(catalog_copy):
    path = catalog_copy / "api_prices.csv"
    rows = list(csv.reader(path.open(encoding="utf-8", newline="")))
    rows[3][rows[0].index("model")] = ""
    with path.open("w", encoding="utf-8", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)
    with pytest.raises(CatalogError) as err:
        load_catalog(catalog_copy)
    assert f"{path}:4:model: required value is blank" in err.value.messages


def test_api_catalog_lists_each_models_cheapest_api_first(catalog_copy):
    path = catalog_copy / "api_prices.csv"
    rows = list(csv.reader(path.open(encoding="utf-8", newline="")))
    rows[1], rows[3] = rows[3], rows[1]  # Groq's 8B ($0.05 + $0.08) above DeepInfra Turbo ($0.02 + $0.03)
    with path.open("w", encoding="utf-8", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)
    with pytest.raises(CatalogError) as err:
        load_catalog(catalog_copy)
    assert any("api_prices.csv:4:name: 'DeepInfra Llama-3.1-8B Turbo' is cheaper" in m for m in err.value.messages)


def test_idle_power_weighs_the_gpu_class_and_the_host(calc):
    # RTX 4090 (GeForce: idles at 7 % of its 450 W TDP) in a workstation (150 W host idling at 30 %).
    out = calc(gpu_name="RTX 4090 24GB", gpus_needed=1)
    assert out["gpu_idle_power_frac"] == 0.07
    assert out["idle_power_frac"] == pytest.approx((450 * 0.07 + 150 * 0.3) / (450 + 150), rel=1e-12)
    # H100 SXM (data centre: stays at P0, 18 % of 700 W) on an HGX node of 8 with a 4,600 W host.
    hgx = calc(gpu_name="H100 SXM 80GB", gpus_needed=8)
    assert hgx["idle_power_frac"] == pytest.approx((8 * 700 * 0.18 + 4600 * 0.3) / (8 * 700 + 4600), rel=1e-12)


@pytest.mark.parametrize(
    ("model", "api"),
    [
        ("Gemma-3-1B", "DeepInfra Gemma-3-4B"),  # no API serves the 1B: the cheapest small Gemma 3
        ("Llama-2-13B", "DeepInfra Llama-3.1-8B"),  # no small Llama 2 API: the small class's nearest open model
        ("Qwen2.5-3B", "DeepInfra Qwen2.5-7B"),  # no API serves the 3B: the cheapest small Qwen2.5 ($0.04 + $0.10)
        ("Gemma-2-27B", "DeepInfra Qwen3-32B"),  # no medium Gemma 2 API: the medium class's nearest open model
        ("LLaMA-7B", "DeepInfra Llama-3.1-8B"),  # LLaMA-1 has no API: the small class's nearest open model
    ],
)
def test_without_the_same_model_the_api_follows_family_and_size(calc, model, api):
    out = calc(model_name=model)
    assert out["api_name"] == api and out["api_same_model_flag"] is False


def test_profile_naming_an_unknown_tariff_is_a_catalog_error(catalog_copy):
    path = catalog_copy / "deployments.csv"
    text = path.read_text(encoding="utf-8").replace("PLN B-2/TR 6600VA-200kVA", "PLN B-9", 1)
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CatalogError) as err:
        load_catalog(catalog_copy)
    assert f"{path}:2:tariff_name: 'PLN B-9' is not a name in tariffs.csv" in err.value.messages


def test_the_profile_is_a_dropdown_in_the_workbook(built_id):
    # The profile is a formula (it follows the GPU); its yellow manual cell offers the catalog's profiles.
    layout = built_id.layout
    sheet, coord = layout.inputs["deployment_name__set"]
    assert (sheet, coord, "tbl_deployment_name") in layout.list_validations


def test_prices_older_than_the_cutoff_are_named_in_the_status(calc):
    # RTX 5080 launch price dated 2025-01-30, before the 2025-12-01 cut-off (12 months before the catalog review).
    old = calc(gpu_name="RTX 5080 16GB")
    assert old["gpu_price_as_of_text"] == "2025-01-30"
    assert old["status_text"] == "Catalog prices older than 12 months, check them (see the Name column): gpu_price_usd"
    assert old["answer_cost_idr_per_1m_tokens"] == old["cost_idr_per_1m_tokens"]  # a warning, the money stands
    assert calc(gpu_name="RTX 5080 16GB", prices_stale_before_text="2025-01-01")["status_text"] == "OK"
    # the RTX 5090's street price, refreshed to 2026-06-22, is within the 12 months
    assert calc(gpu_name="RTX 5090 32GB")["gpu_price_as_of_text"] == "2026-06-22"


def test_a_street_price_is_used_before_the_list_price_with_its_own_date(calc, catalog):
    # RTX 5090: MSRP $1,999 (2025-01-30) in price_usd; partner cards at $2,900-3,500 in June 2026, $3,200 taken.
    row = catalog["gpu"].find("RTX 5090 32GB")
    assert (row["price_usd"], row["street_price_usd"], str(row["street_as_of"])) == (1999, 3200, "2026-06-22")
    out = calc(gpu_name="RTX 5090 32GB")
    assert (out["gpu_price_usd"], out["gpu_price_as_of_text"]) == (3200, "2026-06-22")
    # RTX PRO 6000: MSRP $8,565, retail $8,000-9,200 in April 2026 (the middle, $8,600, is the street price)
    assert calc(gpu_name="RTX PRO 6000 Blackwell 96GB")["gpu_price_usd"] == 8600
    # a card without a street price keeps its list price and the row's date (RTX 4090: $1,599 at launch)
    plain = catalog["gpu"].find("RTX 4090 24GB")
    assert plain["street_price_usd"] is None
    out = calc(gpu_name="RTX 4090 24GB")
    assert (out["gpu_price_usd"], out["gpu_price_as_of_text"]) == (plain["price_usd"], str(plain["as_of"]))
    # a typed price still wins over both
    assert calc(gpu_name="RTX 5090 32GB", gpu_price_usd=2500)["gpu_price_usd"] == 2500


def test_hitung_answer_block_names_the_profile_and_the_apis():
    args = ["hitung", "--model", "Llama-3.3-70B", "--gpu", "H100 SXM 80GB", "--quant", "FP8", "--set", "gpus_needed=14"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    lines = {line.split("  ")[1].strip(): line for line in result.stdout.splitlines() if line.startswith("  ")}
    assert "HGX/DGX" in lines["Deployment profile"]
    assert "DeepInfra Llama-3.3-70B Turbo" in lines["API to compare (same model)"]
    assert "OpenAI GPT-4o" in lines["Premium API to compare"]


def test_consumer_cards_carry_what_a_buyer_pays(calc):
    # RTX 4090 (book L1330–1336, corrected): $1,600 × Rp 16,200 + PPN + Rp 10–15 juta margin = Rp 38.8–43.8 juta.
    low, high = 1600 * 16_200 * 1.11 + 10e6, 1600 * 16_200 * 1.11 + 15e6
    assert (round(low / 1e6, 1), round(high / 1e6, 1)) == (38.8, 43.8)
    assert low <= calc(gpu_name="RTX 4090 24GB")["gpu_unit_idr"] <= high
    # A used RTX 3090 (book L1216): Rp 15 juta, within Rp 1,000 after the dollar rounding.
    assert calc(gpu_name="RTX 3090 24GB")["gpu_unit_idr"] == pytest.approx(15_000_000, abs=1_000)
    # An H100 SXM is priced as an eighth of its 8-GPU HGX board ($240,000).
    assert calc(gpu_name="H100 SXM 80GB")["gpu_price_usd"] == 240_000 / 8
