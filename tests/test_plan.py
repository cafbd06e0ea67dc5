"""`kalkulator plan`: the options a workload can be served with, each reproducible with `hitung`."""

from __future__ import annotations

import csv
import json
import math
import shlex

import pytest
from click.testing import CliRunner

from kalkulator.cli import main
from kalkulator.paths import CATALOG_DIR
from kalkulator.plan import MODE_TCO
from kalkulator.scenario import compute


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def plan_json(*args: str) -> dict:
    result = run("plan", *args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _check_reproduces(options: list[dict]) -> None:
    """Each option's settings through `hitung` (the library call behind it) give its TCO and status OK."""
    for o in options:
        settings = {k: v for k, v in o["hitung_settings"].items()}
        values = compute(settings)
        # OK, or a notice that leaves the numbers standing (catalog prices to check), which the option carries
        assert values["run_check_text"] == "OK", (o["hitung"], values["status_text"])
        assert values["status_text"] == (o["note"] or "OK")
        assert values["caveats_text"] == o["caveats"]
        got = values[MODE_TCO[o["mode"]]]
        if o["mode"] == "api":
            got *= 12 * values["horizon_years"]
        assert got == pytest.approx(o["tco_idr"], rel=1e-12), o["hitung"]
        assert o["idr_per_month"] == pytest.approx(o["tco_idr"] / (12 * values["horizon_years"]), rel=1e-12)


@pytest.mark.parametrize(
    "args",
    [
        ("--model", "Llama-3.1-8B", "--workload", "RAG", "--set", "tokens_per_month=2e9"),
        ("--model", "Qwen2.5-7B", "--workload", "chat", "--set", "tokens_per_month=5e8"),
    ],
)
def test_options_are_ranked_by_tco_and_each_reproduces_in_hitung(args):
    out = plan_json(*args)
    options = out["options"]
    assert len(options) >= 10
    assert len({o["gpu_name"] for o in options if "gpu_name" in o}) >= 5
    tcos = [o["tco_idr"] for o in options]
    assert tcos == sorted(tcos)
    _check_reproduces(options[:15])
    # Every API serving the model (the API catalog's `model` column) is an option, and the premium API the book
    # compares a model of up to 30B parameters with (GPT-4o mini) too; Qwen2.5-7B has no API of its own.
    model = args[1]
    with open(CATALOG_DIR / "api_prices.csv", encoding="utf-8", newline="") as fh:
        serving = {r["name"] for r in csv.DictReader(fh) if r["model"] == model}
    apis = {o["offer"] for o in options if o["mode"] == "api"}
    assert serving | {"OpenAI GPT-4o mini"} <= apis
    _check_reproduces([o for o in options if o["mode"] == "api"])
    # The printed command is a real command line: parsed and run, it gives the first option's TCO.
    first = options[0]
    argv = shlex.split(first["hitung"])[1:]
    result = run(*argv, "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)[MODE_TCO[first["mode"]]] == pytest.approx(first["tco_idr"], rel=1e-12)


def test_500_users_on_70b_prices_datacentre_gpus_cloud_and_the_api():
    args = (
        "--model", "Llama-3.3-70B",
        "--set", "peak_concurrent_users=500", "--set", "prompt_tokens=1500", "--set", "output_tokens=300",
        "--set", "sla_ttft_s=1", "--set", "sla_tpot_ms=50",
        "--gpus", "H100 SXM,H200,L40S,RTX PRO 6000",
    )  # fmt: skip
    options = plan_json(*args)["options"]
    gpus = {o.get("gpu_name", "") for o in options}
    for family in ("H100", "H200", "L40S", "RTX PRO 6000"):
        assert any(family in g for g in gpus), family
    assert {"buy", "cloud", "api"} <= {o["mode"] for o in options}
    # Little's law by hand: 500 users ÷ (0 s think + 1 s TTFT + 300 tokens × 0.05 s) = 31.25 requests/s at the
    # peak; the fleet is the replicas that rate needs at one replica's rate within the targets, × GPUs per replica.
    h100 = next(o for o in options if o.get("gpu_name") == "H100 SXM 80GB" and o["mode"] == "buy")
    values = compute(h100["hitung_settings"])
    assert values["peak_requests_per_s"] == pytest.approx(500 / (0 + 1 + 300 * 0.05), rel=1e-12)
    replicas = math.ceil(31.25 / values["sla_max_requests_per_s"])
    assert h100["gpus_needed"] == replicas * h100["n_gpus"]
    assert h100["tco_idr"] == pytest.approx(values["tco_idr"], rel=1e-12)
    _check_reproduces([o for o in options if o["mode"] in ("buy", "cloud")][:5])


def test_bad_filters_name_the_option_and_the_closest_names():
    result = run("plan", "--gpus", "H900")
    assert result.exit_code == 2 and "--gpus: 'H900' matches no GPU; closest:" in result.stderr
    result = run("plan", "--formats", "Q9_K")
    assert result.exit_code == 2 and "--formats: 'Q9_K' matches no weight format" in result.stderr
    result = run("plan", "--sizes", "two")
    assert result.exit_code == 2 and "--sizes" in result.stderr


def test_an_empty_search_says_which_filter_removed_everything():
    result = run("plan", "--gpus", "H100 SXM", "--formats", "Q4_K_M", "--engines", "tensorrt-llm")
    assert result.exit_code == 2
    assert "no GPU option serves this workload" in result.stderr and "engine cannot run it" in result.stderr
    assert "the APIs: DeepInfra Llama-3.1-8B Turbo Rp" in result.stderr  # the same-model API is still an answer
    assert "Traceback" not in result.output


def test_the_table_names_each_api_where_a_gpu_goes_and_shows_no_fleet_for_it():
    done = run("plan", "--model", "Llama-3.3-70B", "--gpus", "A100 SXM 80GB", "--top", "40")
    assert done.exit_code == 0, done.output
    api_rows = [line.split() for line in done.output.splitlines() if line.startswith("api ")]
    assert api_rows and all(row[1] != "–" for row in api_rows)
    # mode, the API's name (3 words: provider, model, variant), then –, –, –, – for n, format, engine, GPUs
    assert any(row[1:4] == ["DeepInfra", "Llama-3.3-70B", "Turbo"] and row[4:8] == ["–"] * 4 for row in api_rows)
