"""The answer block: money that cannot be trusted shows its reason, the fleet's capex includes its GPUs,
the cloud offer follows the GPU, staff counts the same in every cloud figure.

Expected values are arithmetic written out here over catalog facts (prices) and the scenario's inputs.
"""

from __future__ import annotations

import math

import pytest

H100_70B = {
    "gpu_name": "H100 SXM 80GB",
    "n_gpus": 2,
    "model_name": "Llama-3.1-70B",
    "quant_name": "FP8",
    "tokens_per_month": 2_000_000_000,
}


def test_every_gpu_has_a_price_with_a_source(catalog):
    for row in catalog["gpu"].rows:
        assert row["price_usd"] and row["price_usd"] > 0, row["name"]
        assert row["source"].strip(), row["name"]


def test_fleet_capex_includes_the_gpus(calc, catalog):
    out = calc(**H100_70B)
    # H100 SXM is sold on 8-GPU HGX boards: the price per GPU is the board's ÷ 8, and whole boards are bought.
    board = next(r for r in catalog["board"].rows if r["gpu"] == "H100 SXM 80GB")
    price = board["price_usd"] / board["gpus"]
    assert out["deployment_name"] == "HGX/DGX" and out["gpus_per_server"] == board["gpus"] == 8
    assert out["gpus_needed"] == 2 * out["replicas_needed"] and out["gpus_needed"] >= 2
    vat = 1 + out["ppn_pct"] / 100 if out["ppn_mode"] == "on" else 1
    servers = math.ceil(out["gpus_needed"] / 8)
    gpus = price * servers * 8 * out["usd_idr"] * vat
    other = out["network_capex_idr"] + out["storage_capex_idr"] + out["cooling_capex_idr"] + out["setup_capex_idr"]
    assert out["servers_needed"] == servers
    assert out["hardware_capex_idr"] == pytest.approx(gpus + out["server_capex_idr"] * servers + other, rel=1e-12)
    assert out["hardware_capex_idr"] > gpus  # the GPUs are in it, not only the server


def test_answers_are_the_numbers_when_nothing_is_wrong(calc):
    out = calc()
    assert out["status_text"] == "OK"
    for name in ("cost_idr_per_1m_tokens", "cloud_cost_idr_per_1m_tokens", "tco_idr", "tco_cloud_idr"):
        assert out[f"answer_{name}"] == out[name]


def test_a_setup_that_does_not_fit_has_no_cost_answer(calc):
    out = calc(gpu_name="RTX 4090 24GB", model_name="Llama-3.1-70B", quant_name="F16", n_gpus=1)
    assert out["fits_in_vram"] is False
    assert isinstance(out["cost_idr_per_1m_tokens"], float)  # the sheets keep the number
    for name in ("cost_idr_per_1m_tokens", "tco_idr", "tco_colocation_idr", "tco_cloud_idr", "breakeven_months"):
        assert out[f"answer_{name}"] == "does not fit in VRAM"


def test_a_fleet_below_demand_has_no_cost_answer(calc):
    # One GPU typed as the fleet for ten times the demand it can serve.
    base = calc()
    demand = base["capacity_tokens_per_month"] * 10
    out = calc(gpus_needed=1, tokens_per_month=demand)
    assert out["demand_capacity_frac"] > 1
    assert out["answer_cost_idr_per_1m_tokens"] == "above the fleet's capacity"
    assert out["answer_breakeven_months"] == "above the fleet's capacity"


def test_breakeven_past_the_useful_life_stays_a_message(calc):
    # A Rp 10 billion quote against a small API bill cannot pay back within 3 years.
    out = calc(hardware_capex_idr=10e9, api_name="OpenAI GPT-4o")
    assert out["answer_breakeven_months"] == "no break-even within the hardware's useful life"


def test_cloud_offer_follows_the_gpu_cheapest_per_gpu_hour(calc, catalog):
    offers: dict[str, list[tuple[float, str]]] = {}
    for row in catalog["cloud"].rows:
        offers.setdefault(row["gpu"], []).append((row["usd_per_hour"] / row["gpus"], row["name"]))
    assert min(offers["H100 SXM 80GB"])[1] == "Vast.ai H100 SXM median"  # $2.40 vs RunPod $3.99, AWS $6.88 …
    for gpu, priced in offers.items():
        if catalog["gpu"].find(gpu) is None:
            continue
        assert calc(gpu_name=gpu)["cloud_offer_name"] == min(priced)[1], gpu


def test_no_cloud_offer_is_said_not_priced(calc, catalog):
    assert not any(r["gpu"] == "V100 SXM2 16GB" for r in catalog["cloud"].rows)
    out = calc(gpu_name="V100 SXM2 16GB")
    assert out["cloud_offer_name"] == "no offer for this GPU"
    assert out["answer_cloud_cost_idr_per_1m_tokens"] == "no cloud offer"
    assert out["answer_tco_cloud_idr"] == "no cloud offer"
    assert out["answer_cost_idr_per_1m_tokens"] == out["cost_idr_per_1m_tokens"]  # on-premise still answers
    assert out["status_text"] == "OK"  # a missing comparator is not a problem of the scenario


def test_a_chosen_cloud_offer_for_another_gpu_is_flagged(calc):
    out = calc(gpu_name="H100 SXM 80GB", cloud_offer_name="RunPod RTX 4090")
    assert out["answer_cloud_cost_idr_per_1m_tokens"] == "another GPU in the cloud"


def test_staff_counts_the_same_in_cloud_tco_cumulative_and_cost_per_token(calc):
    staff = 30_000_000
    out = calc(staff_idr_per_month=staff, horizon_years=1, elapsed_months=12)
    # 12 months of (rent + staff) on both sheets.
    assert out["cloud_cumulative_idr"] == pytest.approx((out["cloud_idr_per_month"] + staff) * 12, rel=1e-12)
    assert out["tco_cloud_idr"] == pytest.approx(out["cloud_cumulative_idr"], rel=1e-12)
    per_day = out["cloud_idr_per_day"] + staff / out["month_days"]
    assert out["cloud_cost_idr_per_1m_tokens"] == pytest.approx(per_day * 1e6 / out["tokens_per_day"], rel=1e-12)


@pytest.mark.parametrize(
    ("settings", "names"),
    [
        ({"cpu_offload_frac": 70}, " cpu_offload_frac"),  # meant 0.70 (a typed duty cycle is checked where typed)
        ({"residual_pct": 150}, " residual_pct"),
        ({"host_idle_power_frac": -0.1}, " host_idle_power_frac"),  # prefix_cache_hit_frac is a preset value now
        # every offender, in order (a typed PUE replaces a formula: the CLI and data validation check it)
        (
            {"n_gpus": 2.5, "lifetime_years": 0, "server_residual_pct": 150},
            " n_gpus lifetime_years server_residual_pct",
        ),
    ],
)
def test_inputs_out_of_range_are_named_and_void_the_money(calc, settings, names):
    out = calc(**settings)
    assert out["out_of_range_text"] == names
    assert out["status_text"] == "Input out of range or not a number (see the message beside its cell):" + names
    assert out["input_check_text"] == out["status_text"]
    assert out["answer_cost_idr_per_1m_tokens"] == "input out of range"
    assert out["answer_decode_tok_s"] == "input out of range"  # a speed from an impossible input is no answer
    assert out["answer_breakeven_months"] == "input out of range"


def test_context_rules_across_fields(calc):
    # Llama-3.1-8B reads at most 131,072 tokens; a 1,000-token prompt and 500-token answer need 1,500.
    assert calc(context_tokens=1_000_000)["status_text"].startswith("The context (context_tokens) exceeds the model")
    assert calc(context_tokens=1_499)["status_text"].startswith("The context (context_tokens) is shorter than")
    assert calc(context_tokens=1_500)["status_text"] == "OK"


def test_every_default_is_inside_its_domain():
    from kalkulator.quantities import QUANTITIES
    from kalkulator.quantities.domains import DOMAINS, domain_of, settable_numbers

    names = {q.name for q in QUANTITIES}
    assert set(DOMAINS) <= names, set(DOMAINS) - names  # no stale entries
    for q in settable_numbers(QUANTITIES):
        if q.default is not None:
            assert domain_of(q).problem(q.default) is None, q.name


def test_the_answer_block_says_when_the_engines_batch_limit_sizes_the_fleet(calc):
    # llama.cpp serves 4 requests at once per replica (engines.csv); 2 billion tokens a month then need many
    # replicas, although each 2×H100 replica has room for far more users. vLLM batches up to 256.
    scenario = {
        "gpu_name": "H100 SXM 80GB",
        "model_name": "Llama-3.1-70B",
        "quant_name": "FP8",
        "n_gpus": 2,
        "tokens_per_month": 2e9,
    }
    small = calc(**scenario, engine="llama.cpp")
    assert small["serving_batch_users"] == 4 < small["max_concurrent_users"] and small["replicas_needed"] > 1
    assert small["fleet_hint_text"].startswith("The engine's batch limit (engine_max_batch_users) sets")
    large = calc(**scenario, engine="vllm")
    assert large["fleet_hint_text"] == "" and large["gpus_needed"] < small["gpus_needed"]
