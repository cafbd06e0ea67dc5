"""`kalkulator plan`: the options a workload can be served with, each reproducible with `hitung`."""

from __future__ import annotations

import csv
import json
import math
import re
import shlex

import pytest
from click.testing import CliRunner

from kalkulator.cli import main
from kalkulator.io.paths import CATALOG_DIR
from kalkulator.scenario import compute
from kalkulator.scenario.planner import MODE_TCO


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
    # By default the options with a measured speed come first (those whose family no measurement calibrates after
    # the calibrated ones), each group by TCO.
    groups = [
        (not o["speed_measured"], o["speed_band_floor_frac"] > 0 or o["prefill_band_floor_frac"] > 0) for o in options
    ]
    assert groups == sorted(groups)
    for group in set(groups):
        tcos = [o["tco_idr"] for o, g in zip(options, groups, strict=True) if g == group]
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
    values = json.loads(result.stdout)
    months = 12 * values["horizon_years"] if first["mode"] == "api" else 1  # an API's figure is per month
    assert values[MODE_TCO[first["mode"]]] * months == pytest.approx(first["tco_idr"], rel=1e-12)


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
    # Little's law by hand: each user asks 10 times an hour (the chat preset, the book's L2161), so the think time is
    # 3,600 ÷ 10 − (1 s TTFT + 300 tokens × 0.05 s) = 344 s and 500 users ÷ (344 + 1 + 15) s = 1.39 requests/s at the
    # peak; the fleet is the replicas that rate needs at one replica's rate within the targets, never more than the
    # replicas that hold all 500 users sending at once, × GPUs per replica.
    h100 = next(o for o in options if o.get("gpu_name") == "H100 SXM 80GB" and o["mode"] == "buy")
    values = compute(h100["hitung_settings"])
    assert values["think_time_s"] == pytest.approx(3600 / 10 - (1 + 300 * 0.05), rel=1e-12)
    rate = 500 / (344 + 1 + 300 * 0.05)
    assert values["peak_requests_per_s"] == pytest.approx(rate, rel=1e-12)
    open_queue = math.ceil(rate / values["sla_max_requests_per_s"])
    all_at_once = math.ceil(500 / values["closed_replica_users"]) if values["closed_replica_users"] >= 1 else open_queue
    assert h100["gpus_needed"] == max(1, min(open_queue, all_at_once)) * h100["n_gpus"]
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
    # vLLM on an Intel Arc runs, but no measurement checks its speed: dropped, the reason is named and counted.
    result = run("plan", "--gpus", "Arc A770", "--engines", "vllm", "--unmeasured", "drop")
    assert result.exit_code == 2 and "no GPU option serves this workload" in result.stderr
    assert re.search(r"\d+ speed not measured for this engine, format and GPU architecture", result.stderr), (
        result.stderr
    )


def test_the_table_names_each_api_where_a_gpu_goes_and_shows_no_fleet_for_it():
    done = run("plan", "--model", "Llama-3.3-70B", "--gpus", "A100 SXM 80GB", "--top", "40", "--wide")
    assert done.exit_code == 0, done.output
    api_rows = [line.split() for line in done.output.splitlines() if line.startswith("api ")]
    assert api_rows and all(row[1] != "–" for row in api_rows)
    # mode, the API's name (3 words: provider, model, variant), then –, –, –, – for n, format, engine, GPUs
    assert any(row[1:4] == ["DeepInfra", "Llama-3.3-70B", "Turbo"] and row[4:8] == ["–"] * 4 for row in api_rows)


RAG_8B = ("--model", "Llama-3.1-8B", "--workload", "RAG", "--set", "tokens_per_month=2e9")


def _key(o: dict) -> tuple[str, str]:
    """An option by its mode and the hitung command reproducing it (the settings; modes share them)."""
    return o["mode"], o["hitung"]


def _configuration(o: dict) -> tuple:
    return o["gpu_name"], o["n_gpus"], o["quant_name"], o["engine"]


def test_unmeasured_speeds_rank_after_measured_ones_unless_asked_to_rank_them_together():
    last = plan_json(*RAG_8B)["options"]
    together = plan_json(*RAG_8B, "--unmeasured", "with")["options"]
    # The case the default guards against: ranked by TCO alone, an unmeasured option comes before a measured one.
    assert any(not a["speed_measured"] and b["speed_measured"] for i, a in enumerate(together) for b in together[i:])
    first_unmeasured = next(i for i, o in enumerate(last) if not o["speed_measured"])
    assert all(o["speed_measured"] for o in last[:first_unmeasured])
    assert not any(o["speed_measured"] for o in last[first_unmeasured:])
    assert sorted(map(_key, last)) == sorted(map(_key, together)) and len(last) == len(together)
    tcos = [o["tco_idr"] for o in together]
    assert tcos == sorted(tcos)
    # The table's "measured" column says no for those (yes for a measured GPU option, – for an API).
    table = run("plan", *RAG_8B, "--unmeasured", "with", "--top", "12", "--wide").output.splitlines()
    header = next(line for line in table if line.startswith("mode "))
    at = header.index("measured")
    rows = [line for line in table if line.split()[0] in ("buy", "colocation", "cloud", "hybrid", "api")]
    cells = [line[at:].split()[0] for line in rows]
    assert cells == [("–" if o["mode"] == "api" else "yes" if o["speed_measured"] else "no") for o in together[:12]]
    assert "no" in cells


def test_unmeasured_drop_removes_exactly_the_unmeasured_options_and_counts_their_configurations():
    together = plan_json(*RAG_8B, "--unmeasured", "with")
    dropped = plan_json(*RAG_8B, "--unmeasured", "drop")
    unmeasured = [o for o in together["options"] if not o["speed_measured"]]
    assert unmeasured and all(o["mode"] != "api" for o in unmeasured)
    kept = [o for o in together["options"] if o["speed_measured"]]
    assert sorted(map(_key, dropped["options"])) == sorted(map(_key, kept))
    assert len(dropped["options"]) == len(together["options"]) - len(unmeasured)
    # The reason counts configurations (GPU × GPUs per replica × format × engine), not their deployment modes.
    configurations = {_configuration(o) for o in unmeasured}
    reason = "speed not measured for this engine, format and GPU architecture"
    # (at least those behind a listed option: a configuration may serve yet have every mode left out, e.g. Apple
    # boxes beyond one office box, or GeForce cards bought for a server room)
    count = dropped["excluded_configurations"][reason]
    assert count >= len(configurations) and dropped["excluded"][reason] == count
    assert reason not in together["excluded"]
    assert dropped["serving"] == together["serving"] - count
    assert dropped["configurations"] == together["configurations"]


def _count(text: str) -> int:
    return int(text.replace(",", ""))


def _reason_counts(text: str) -> list[int]:
    """ "2,268 engine cannot run it; 292 misses TTFT" → [2268, 292]."""
    return [_count(part.split(" ", 1)[0]) for part in text.split("; ")]


def test_the_header_counts_add_up_in_stated_units():
    lines = run("plan", *RAG_8B, "--wide").output.splitlines()
    first = re.fullmatch(
        r"([\d,]+) configurations \(GPU × GPUs per replica × format × engine\): ([\d,]+) serve this workload, "
        r"([\d,]+) cannot \((.+)\)\.",
        lines[0],
    )
    assert first, lines[0]
    configurations, serving, cannot = (_count(first[i]) for i in (1, 2, 3))
    assert configurations == serving + cannot
    assert sum(_reason_counts(first[4])) == cannot
    second = re.fullmatch(
        r"The ([\d,]+) priced in 5 ways \(buy, colocation, cloud, spot, hybrid\) give ([\d,]+) options "
        r"\(([\d,]+) less (.+?)\) \+ (\d+) APIs = ([\d,]+) options; ([\d,]+) options have a speed not measured.*",
        lines[1],
    )
    assert second, lines[1]
    priced, gpu_options, every, apis, total, unmeasured = (_count(second[i]) for i in (1, 2, 3, 5, 6, 7))
    less = second[4]
    assert priced == serving and every == serving * 5
    assert gpu_options == serving * 5 - sum(_reason_counts(less))
    assert total == gpu_options + apis
    # The same counts in the JSON, and the options it lists.
    out = plan_json(*RAG_8B)
    assert (out["configurations"], out["serving"], out["apis_priced"]) == (configurations, serving, apis)
    assert sum(out["excluded_configurations"].values()) == cannot
    # The buyer's limits (here the default one: no GeForce card bought for a server room) leave some out, counted.
    limited = sum(out["excluded_constraints"].values())
    third = re.fullmatch(r"([\d,]+) options outside your limits \((.+)\): ([\d,]+) left\.", lines[2])
    assert third and _count(third[1]) == limited and sum(_reason_counts(third[2])) == limited, lines[2]
    assert len(out["options"]) == total - limited == _count(third[3])
    assert sum(o["mode"] == "api" for o in out["options"]) == out["apis"] <= apis
    assert sum(not o["speed_measured"] for o in out["options"]) == unmeasured
    # Configurations by hand from the catalogs: every priced GPU × 4 sizes × the default formats its units take
    # (NVFP4 only with FP4 units) × 3 engines (llama.cpp, vLLM, TensorRT-LLM; each configuration an engine cannot run
    # is counted under "engine cannot run it").
    with open(CATALOG_DIR / "gpus.csv", encoding="utf-8", newline="") as fh:
        priced_gpus = [r for r in csv.DictReader(fh) if float(r["price_usd"] or 0) > 0]
    formats = sum(4 + (float(r["fp4_tflops"] or 0) > 0) for r in priced_gpus)  # Q4_K_M, Q8_0, FP8, AWQ (+ NVFP4)
    assert configurations == formats * 4 * 3


def test_the_first_option_is_measured_and_hitung_shows_no_missing_measurement():
    first = plan_json(*RAG_8B)["options"][0]
    assert first["speed_measured"] is True
    result = run(*shlex.split(first["hitung"])[1:], "--json")
    assert result.exit_code == 0, result.output
    values = json.loads(result.stdout)
    assert "No measurement" not in values["status_text"]
    if first["mode"] != "api":
        assert values["speed_measured_flag"] is True


def _dominated(o: dict, others: list[dict]) -> bool:
    keys = ("tco_idr", "ttft_s", "tpot_ms")
    return any(all(p[k] <= o[k] for k in keys) and any(p[k] < o[k] for k in keys) for p in others if p is not o)


@pytest.mark.parametrize("unmeasured", ["last", "with"])
def test_the_front_is_that_of_the_options_ranked_together(unmeasured):
    """By the definition, pair by pair: marked = no other option of the group is as good in TCO, TTFT and TPOT and
    better in one. With unmeasured speeds ranked last, the group is the measured options (an unmeasured one is never
    on the front); ranked with them, every GPU option."""
    out = plan_json(
        "--model", "Llama-3.1-8B", "--workload", "RAG", "--gpus", "Arc A770,RTX 4090", "--unmeasured", unmeasured
    )
    gpu = [o for o in out["options"] if o["mode"] != "api"]
    assert {o["speed_measured"] for o in gpu} == {True, False}  # vLLM on SYCL is not measured, on CUDA it is
    group = gpu if unmeasured == "with" else [o for o in gpu if o["speed_measured"]]
    for o in gpu:
        expected = o in group and not _dominated(o, group)
        assert o["pareto"] == expected, (o["gpu_name"], o["mode"], o["quant_name"], o["engine"])
    assert any(o["pareto"] for o in group)


def test_many_users_of_a_70b_are_served_by_a_batching_engine_measured_on_hopper_by_default():
    """200 users of Llama-3.3-70B (1,000 prompt + 1,000 output tokens, 30 s think time) on H100 SXM.

    Their output rate at the peak is at most 200 × 1,000 tokens / 30 s = 6,667 tok/s (each user asks again 30 s
    after an answer at the soonest). TensorRT-LLM's published H100 throughput for this model (FP8, TP2, 1,000/1,000
    tokens, max load; shared/calibration/measured_2025_builds.csv) is 4,205 output tok/s per pair of GPUs, so two
    pairs (4 GPUs) carry the peak. The default search includes that engine, so the first answer is a batching engine
    on at most 8 GPUs (one server), not two dozen GPUs each serving 4 llama.cpp slots."""
    pairs = math.ceil(200 * 1000 / 30 / 4205)
    assert pairs == 2
    out = plan_json(
        "--model", "Llama-3.3-70B", "--gpus", "H100 SXM", "--modes", "buy",
        "--set", "peak_concurrent_users=200", "--set", "think_time_s=30",
        "--set", "prompt_tokens=1000", "--set", "output_tokens=1000",
    )  # fmt: skip
    first = next(o for o in out["options"] if o["mode"] == "buy")
    assert first["speed_measured"] and first["engine"] != "llama.cpp"
    assert first["gpus_needed"] <= 8


def test_each_candidate_splits_as_its_engine_row_says():
    """The planner's split is the engine catalog's default_split (the rule split_type applies to `auto`), so an
    edited row moves it: vLLM told to split by layers is searched with layer split."""
    from dataclasses import replace

    from kalkulator.catalog import load_catalog
    from kalkulator.scenario.planner import candidates

    catalog = load_catalog()
    shipped = {(c["engine"], c["split_mode"]) for c in candidates(catalog, {}, gpus="RTX 4090", sizes=(2,))}
    # engines.csv: llama.cpp's default split is layer (its README), vLLM's and TensorRT-LLM's tensor (tp_size)
    assert shipped == {("llama.cpp", "layer"), ("vllm", "tensor"), ("tensorrt-llm", "tensor")}

    engines = catalog["engine"]
    edited = tuple({**r, "default_split": "layer"} if r["name"] == "vllm" else r for r in engines.rows)
    flipped = replace(catalog, tables={**catalog.tables, "engine": replace(engines, rows=edited)})
    assert {(c["engine"], c["split_mode"]) for c in candidates(flipped, {}, gpus="RTX 4090", sizes=(2,))} == {
        ("llama.cpp", "layer"),
        ("vllm", "layer"),
        ("tensorrt-llm", "tensor"),
    }


def test_speeds_no_measurement_calibrates_rank_after_the_calibrated_ones():
    """Arc cards carry a band floor (assumptions/calibration/uncalibrated.csv: the same card and build ran 2.5–3×
    slower on another driver), so among the measured options they come after every calibrated one, and the first
    answer is a calibrated option."""
    out = plan_json("--model", "Llama-3.1-8B")
    measured = [o for o in out["options"] if o["mode"] != "api" and o["speed_measured"]]
    floors = [o["speed_band_floor_frac"] > 0 or o["prefill_band_floor_frac"] > 0 for o in measured]
    assert any(floors) and not floors[0]
    assert floors == sorted(floors)  # every False before every True
    assert any(o["gpu_name"].startswith("Arc") for o, f in zip(measured, floors, strict=True) if f)
