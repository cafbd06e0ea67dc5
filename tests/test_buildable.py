"""`plan` offers only what can be built, hosted and run: fleets by scale, a replica inside one chassis, the GeForce
licence, engine support by GPU architecture with its evidence, and the buyer's limits (modes, residency, capex,
power, GPUs)."""

from __future__ import annotations

import csv
import json
import math

import pytest
from click.testing import CliRunner

from kalkulator.calibration.support_evidence import measured_keys
from kalkulator.catalog import load_catalog
from kalkulator.cli import main
from kalkulator.io.paths import CALIBRATION_DIR, CATALOG_DIR
from kalkulator.scenario import compute


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def plan_json(*args: str) -> dict:
    result = run("plan", *args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _rows(name: str) -> dict[str, dict]:
    with open(CATALOG_DIR / name, encoding="utf-8", newline="") as fh:
        return {r["name"]: r for r in csv.DictReader(fh)}


GPUS = _rows("gpus.csv")
PROFILES = _rows("deployments.csv")
GEFORCE = {n for n, r in GPUS.items() if (r["vendor"], r["segment"]) == ("NVIDIA", "consumer")}

# The book's BUMN case (data must stay in Indonesia): 1,000 concurrent users, each asking about 10 questions an hour,
# a 70B model (the book's own form: users × requests per hour).
BUMN = (
    "--model",
    "Llama-3.3-70B",
    "--workload",
    "chat",
    "--set",
    "peak_concurrent_users=1000",
    "--set",
    "requests_per_user_per_hour=10",
    "--residency",
    "indonesia",
)
WORKLOADS = (
    ("--model", "Llama-3.3-70B", "--set", "peak_concurrent_users=500", "--set", "think_time_s=300"),
    ("--model", "Llama-3.1-8B", "--workload", "RAG", "--set", "tokens_per_month=2e9"),
    ("--model", "Qwen2.5-7B", "--workload", "chat", "--set", "tokens_per_month=5e8"),
)


@pytest.fixture(scope="module")
def bumn() -> dict:
    return plan_json(*BUMN)


def test_the_bumn_case_keeps_only_domestic_options_on_servers_with_staff_and_pue(bumn):
    # One request every 3,600 / 10 = 360 s per user: 1,000 users send 1,000 / 360 requests a second at the peak.
    values = compute({"model_name": "Llama-3.3-70B", "peak_concurrent_users": 1000, "requests_per_user_per_hour": 10})
    assert values["users_requests_per_s"] == pytest.approx(1000 / 360, rel=1e-12)
    options = bumn["options"]
    assert options
    hosting = _rows("hosting.csv")
    clouds = _rows("cloud_gpus.csv")
    apis = _rows("api_prices.csv")
    for o in options:
        assert o["mode"] != "hybrid" or apis[o["offer"]]["data_region"] == "indonesia"
        if o["mode"] == "colocation":
            assert hosting[o["offer"]]["data_region"] == "indonesia"
        if o["mode"] == "cloud":
            assert clouds[o["cloud_offer_name"]]["data_region"] == "indonesia"
        if o["mode"] == "api":
            assert apis[o["offer"]]["data_region"] == "indonesia"
        if o["mode"] in ("buy", "colocation", "hybrid"):
            assert o["gpu_name"] not in GEFORCE  # bought for a server room or rack: outside the GeForce licence
            profile = PROFILES[o["deployment"]]
            if o["servers_needed"] > 1:  # a fleet: a server room with a PUE above 1 and a share of an engineer
                assert profile["cooling_type"] != "none" and float(profile["staff_fte_per_server"]) > 0
    assert bumn["excluded_constraints"]["data would leave Indonesia (--residency)"] > 0


def test_one_bumn_option_by_hand(bumn):
    """The first bought fleet: servers, facility power and staff worked out from the catalogs."""
    o = next(o for o in bumn["options"] if o["mode"] == "buy" and o["deployment"] == "server rak")
    gpu = GPUS[o["gpu_name"]]
    profile = PROFILES["server rak"]  # 4U PCIe servers: 8 GPUs, host 800 W, data-centre cooling, 0.1 FTE per server
    gpus, per_server = o["gpus_needed"], float(profile["gpus_per_server"])
    assert per_server == 8 and o["n_gpus"] <= per_server
    replicas_per_server = per_server // o["n_gpus"]
    assert o["servers_needed"] == math.ceil(gpus / o["n_gpus"] / replicas_per_server)
    pue = 1.3  # the profile's cooling type "data-centre" (docs/catalogs.md: PUE 1.3 for a data-centre room)
    assert profile["cooling_type"] == "data-centre"
    power_kw = (float(gpu["tdp_w"]) * gpus + float(profile["host_power_w"]) * o["servers_needed"]) * pue / 1000
    assert o["power_kw"] == pytest.approx(power_kw, rel=1e-9)
    values = compute(o["hitung_settings"])
    staff = o["servers_needed"] * float(profile["staff_fte_per_server"]) * float(profile["staff_salary_idr_per_month"])
    assert values["staff_idr_per_month"] == pytest.approx(staff, rel=1e-12)
    assert values["tco_idr"] == pytest.approx(o["tco_idr"], rel=1e-12)
    assert o["idr_per_month"] == pytest.approx(o["tco_idr"] / (12 * values["horizon_years"]), rel=1e-12)


@pytest.mark.parametrize("args", WORKLOADS)
def test_no_replica_spans_chassis_and_no_geforce_in_a_data_centre(args):
    out = plan_json(*args, "--top", "10000")
    for o in out["options"]:
        if o["mode"] == "api":
            continue
        assert o["n_gpus"] <= o["gpus_per_server"], o
        profile = PROFILES[o["deployment"]] if o["deployment"] else None
        if o["mode"] in ("buy", "hybrid") and o["gpu_name"] in GEFORCE:
            assert profile["datacenter"] == "0", o  # a GeForce card is bought only for an office box
        assert not (o["mode"] == "colocation" and o["gpu_name"] in GEFORCE), o
        if profile is not None and o["mode"] != "cloud" and o["servers_needed"] > 1:
            assert profile["cooling_type"] != "none" and float(profile["staff_fte_per_server"]) > 0, o


def test_geforce_in_a_server_room_only_when_asked_and_then_with_the_licence_caveat():
    args = ("--model", "Llama-3.3-70B", "--gpus", "RTX 5090", "--set", "peak_concurrent_users=200")
    default = plan_json(*args, "--set", "think_time_s=300")
    assert not [o for o in default["options"] if o["mode"] == "colocation"]
    assert default["excluded_constraints"]["GeForce licence: no data-centre deployment (--allow-geforce-datacenter)"]
    allowed = plan_json(*args, "--set", "think_time_s=300", "--allow-geforce-datacenter")
    rack = [o for o in allowed["options"] if o["mode"] == "buy" and o["deployment"] != "workstation"]
    assert rack and all("GeForce licence: no data centre" in o["caveats"] for o in rack)


def test_a_wide_geforce_replica_is_a_server_and_a_desktop_never_holds_more_than_one_box():
    # 4× RTX 3090 for a 70B: more than the office box's two cards, so a rack server with its licence caveat.
    values = compute({"model_name": "Llama-3.3-70B", "gpu_name": "RTX 3090 24GB", "quant_name": "Q4_K_M", "n_gpus": 4})
    assert values["deployment_name"] == "server rak"
    assert values["licence_datacenter_flag"] is True and "GeForce licence" in values["caveats_text"]
    # Typed back to the workstation profile, the replica no longer fits one desktop (two x16 slots): no price.
    values = compute(
        {
            "model_name": "Llama-3.3-70B",
            "gpu_name": "RTX 3090 24GB",
            "quant_name": "Q4_K_M",
            "n_gpus": 4,
            "deployment_name": "workstation",
        }
    )
    assert values["replica_spans_servers_flag"] is True
    assert values["answer_tco_idr"] == "replica spans servers"


def test_vllm_nvfp4_on_consumer_blackwell_and_mxfp4_on_volta_show_the_evidence():
    values = compute({"gpu_name": "RTX 5090 32GB", "engine": "vllm", "quant_name": "NVFP4"})
    assert values["gpu_arch_key_text"] == "sm120"  # compute capability 12.0
    assert values["engine_evidence_text"] == "reported-broken"
    assert "reported-broken" in values["status_text"] and values["run_check_text"] != "OK"
    values = compute(
        {"gpu_name": "V100 SXM2 32GB", "engine": "vllm", "quant_name": "MXFP4", "model_name": "gpt-oss-20b"}
    )
    assert values["engine_evidence_text"] == "unsupported" or values["engine_compute_capability_flag"] is False
    assert values["run_check_text"] != "OK"
    # On a B200 (sm100) NVFP4 in vLLM is documented, not measured: it runs, and its speed is not called measured.
    values = compute({"gpu_name": "B200 180GB", "engine": "vllm", "quant_name": "NVFP4"})
    assert values["engine_evidence_text"] == "documented" and values["speed_measured_flag"] is False


def _shipped_runs() -> set[tuple[str, str, str]]:
    """(engine, catalog GPU, quant) of every shipped run, read straight from the files."""
    with open(CALIBRATION_DIR / "devices.csv", encoding="utf-8", newline="") as fh:
        devices = {r["hardware"]: r["catalog_gpu"] for r in csv.DictReader(fh)}
    out = set()
    for name in ("measured_tps.csv", "measured_2025_builds.csv", "serving_moe.csv"):
        with open(CALIBRATION_DIR / name, encoding="utf-8", newline="") as fh:
            for r in csv.DictReader(fh):
                gpu = devices.get(r["hardware"]) or r["hardware"].removeprefix("NVIDIA ")
                out.add((r["engine"], gpu, r["quant"]))
    return out


def test_speed_is_called_measured_only_where_a_shipped_run_of_engine_format_and_architecture_exists():
    runs = _shipped_runs()
    # llama.cpp Q4_K_M on an RTX 3090 (Ampere, sm86) ran; vLLM FP8 on an H100 did not (no vLLM FP8 run ships).
    assert ("llama.cpp", "RTX 3090 24GB", "Q4_K_M") in runs
    assert not any(e == "vllm" and q == "FP8" for e, _, q in runs)
    measured = compute({"gpu_name": "RTX 3090 24GB", "quant_name": "Q4_K_M", "engine": "llama.cpp"})
    assert measured["speed_measured_flag"] is True
    unmeasured = compute({"gpu_name": "H100 SXM 80GB", "quant_name": "FP8", "engine": "vllm"})
    assert (
        unmeasured["speed_measured_flag"] is False
        and "No measurement of vllm" in unmeasured["caveats_text"] + (unmeasured["status_text"])
    )
    # The catalog's measured rows are exactly the shipped runs' engine/backend/format.arch sets.
    catalog = load_catalog()
    rows = {r["name"] for r in catalog["support"].rows if r["evidence"] == "measured"}
    assert rows == set(measured_keys(catalog))


def test_the_buyers_limits_filter_and_are_counted():
    base = ("--model", "Llama-3.1-8B", "--workload", "RAG", "--set", "tokens_per_month=2e9", "--top", "10000")
    out = plan_json(*base, "--modes", "cloud,api")
    assert {o["mode"] for o in out["options"]} == {"cloud", "api"}
    assert out["excluded_constraints"]["mode not asked for (--modes)"] > 0
    capped = plan_json(*base, "--max-capex", "100000000", "--max-power-kw", "2", "--max-gpus", "2")
    owned = [o for o in capped["options"] if o["mode"] in ("buy", "colocation", "hybrid")]
    assert owned and all(o["capex_idr"] <= 1e8 and o["power_kw"] <= 2 for o in owned)
    assert all(o["gpus_needed"] <= 2 for o in capped["options"] if o["mode"] != "api")
    assert capped["excluded_constraints"]["capex above --max-capex"] > 0  # the first limit broken is counted
    power = plan_json(*base, "--max-power-kw", "1")
    assert power["excluded_constraints"]["facility power above --max-power-kw"] > 0
    assert all(o["power_kw"] <= 1 for o in power["options"])
    every = len(plan_json(*base)["options"])
    assert len(capped["options"]) + sum(capped["excluded_constraints"].values()) >= every


def test_an_empty_answer_names_the_limit_and_bad_limits_name_the_option():
    # A 70B at its 4-bit format needs more than one 24 GB card (about 40 GB of weights), whichever room it is in.
    limits = ("--modes", "buy", "--max-gpus", "1", "--gpus", "RTX 4090", "--allow-geforce-datacenter")
    result = run("plan", "--model", "Llama-3.3-70B", *limits)
    assert result.exit_code == 2
    assert "your limits leave out every option" in result.stderr and "GPUs above --max-gpus" in result.stderr
    result = run("plan", "--modes", "buy,rent")
    assert result.exit_code == 2 and "--modes: rent is not a mode" in result.stderr
    result = run("plan", "--max-capex", "-5")
    assert result.exit_code == 2 and "--max-capex" in result.stderr
    result = run("plan", "--max-power-kw", "nan")
    assert result.exit_code == 2 and "--max-power-kw" in result.stderr


def test_spot_prices_are_options_of_their_own_labelled_as_such():
    out = plan_json("--model", "Llama-3.1-8B", "--top", "10000")
    spot = [o for o in out["options"] if o["mode"] == "spot"]
    clouds = _rows("cloud_gpus.csv")
    assert spot and all(float(clouds[o["offer"]]["spot_usd_per_hour"] or 0) > 0 for o in spot)
    # The same offer on demand costs more: spot is the interruptible price of the same instance.
    on_demand = {
        (o["offer"], o["n_gpus"], o["quant_name"], o["engine"]): o for o in out["options"] if o["mode"] == "cloud"
    }
    pairs = [(o, on_demand.get((o["offer"], o["n_gpus"], o["quant_name"], o["engine"]))) for o in spot]
    assert any(d for _, d in pairs) and all(s["tco_idr"] < d["tco_idr"] for s, d in pairs if d)
    result = run("plan", "--model", "Llama-3.1-8B", "--modes", "spot")
    assert result.exit_code == 0 and "spot price, interruptible" in " ".join(result.output.split())
