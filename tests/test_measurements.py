"""Published measurements beside the estimate: `hitung` lists the nearest ones, the TPS sheet a reference table."""

from __future__ import annotations

import csv
import json
import random

import pytest
from click.testing import CliRunner

from kalkulator.calibration.measurements import Measurement, load_published, match_model, nearest
from kalkulator.calibration.serving import RUN_SETTINGS
from kalkulator.cli import main
from kalkulator.io.paths import CALIBRATION_DIR
from kalkulator.scenario import compute

SCOREBOARD = "https://github.com/ggml-org/llama.cpp/discussions/15013"
DONE_WHEN = ("--model", "Llama-2-7B", "--gpu", "RTX 4090 24GB", "--quant", "Q4_0")


def _published(hardware: str, metric: str, file: str = "measured_2025_builds.csv") -> dict:
    """The row of a calibration file, read with csv: the figure as its source printed it."""
    with open(CALIBRATION_DIR / file, newline="", encoding="utf-8") as fh:
        return next(r for r in csv.DictReader(fh) if r["hardware"] == hardware and r["metric"] == metric)


@pytest.fixture(scope="module")
def done_when():
    runner = CliRunner()
    return runner.invoke(main, ["hitung", *DONE_WHEN]), runner.invoke(main, ["hitung", *DONE_WHEN, "--json"])


def test_hitung_shows_a_published_measurement_with_its_source(done_when):
    table, _ = done_when
    assert table.exit_code == 0, table.output
    text = table.stdout
    section = text[text.index("Published measurements") :]
    # llama.cpp CUDA scoreboard (SCOREBOARD above): RTX 4090, llama-2-7b.Q4_0.gguf, tg128 = 186.21 tok/s.
    assert "decode tg128 · RTX 4090 24GB · Llama-2-7B Q4_0 · llama.cpp" in section
    assert "measured 186.2 tok/s" in section and SCOREBOARD in section
    assert text.index("SUMMARY: answers") < text.index("Published measurements")
    assert text.splitlines()[-1].startswith("(") and "--full" in text.splitlines()[-1]


def test_json_lists_measurements_beside_the_flat_names(done_when):
    _, as_json = done_when
    assert as_json.exit_code == 0, as_json.output
    out = json.loads(as_json.stdout)
    found = out.pop("measurements")
    assert all(not isinstance(v, dict | list) for v in out.values())  # every other key stays a flat value
    assert 1 <= len(found) <= 3
    first = found[0]
    assert (first["gpu_name"], first["model_name"], first["quant_name"], first["test"]) == (
        "RTX 4090 24GB",
        "Llama-2-7B",
        "Q4_0",
        "tg128",
    )
    assert first["measured_tok_s"] == 186.21 and first["source"] == SCOREBOARD
    assert set(first["match"].values()) == {"same GPU", "same model", "same quantization", "same engine"}


def test_scenario_csv_output_has_no_measurements(tmp_path):
    path = tmp_path / "in.csv"
    path.write_text("gpu_name,model_name,quant_name\nRTX 4090 24GB,Llama-2-7B,Q4_0\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["hitung", "--scenarios", str(path), "--json"])
    assert result.exit_code == 0, result.output
    assert "measurements" not in json.loads(result.stdout)


def _independent(settings: dict, metric: str) -> float:
    """The engine's decode or prefill speed for a measured setup, via `compute` (not quantities/measured.py)."""
    return compute(settings)["decode_tok_s" if metric == "tg" else "prefill_tok_s"]


# The setup llama-bench reports (notes of each row): one RTX 4090, -ngl 99 (nothing offloaded), F16 KV cache,
# batch 1, a 2025 build; tg128 = 128 tokens generated from an empty context (mean context 64), pp512 = a 512-token
# prompt.
SETUP = {
    "build_era_text": "2025",
    "gpu_name": "RTX 4090 24GB",
    "model_name": "Llama-2-7B",
    "quant_name": "Q4_0",
    "engine": "llama.cpp",
    "kv_cache_type": "F16",
    "n_gpus": 1,
    "concurrent_users": 1,
    "cpu_offload_frac": 0,
    "prefix_cache_hit_frac": 0,
}


@pytest.mark.parametrize(
    ("metric", "test", "lengths"),
    [
        ("tg", "tg128", {"prompt_tokens": 0, "output_tokens": 128, "context_tokens": 0 + 128 / 2}),
        ("pp", "pp512", {"prompt_tokens": 512, "output_tokens": 0, "context_tokens": 512}),
    ],
)
def test_estimate_over_measured_equals_an_independent_computation(done_when, metric, test, lengths):
    _, as_json = done_when
    shown = next(f for f in json.loads(as_json.stdout)["measurements"] if f["test"] == test)
    measured = float(_published("NVIDIA GeForce RTX 4090 24GB", f"{metric}_tok_s")["value"])
    predicted = _independent({**SETUP, **lengths}, metric)
    assert shown["measured_tok_s"] == measured
    assert shown["estimate_tok_s"] == pytest.approx(predicted, rel=1e-12)
    assert shown["estimate_measured_ratio"] == pytest.approx(predicted / measured, rel=1e-12)


# ---- ranking ----------------------------------------------------------------------------------------------------


def _measurement(gpu: str, model: str, quant: str, metric: str = "tg", **kw) -> Measurement:
    fields = {
        "hardware": gpu,
        "gpu_name": gpu,
        "n_gpus": 1,
        "model": model,
        "model_name": model,
        "quant_name": quant,
        "engine": "llama.cpp",
        "metric": metric,
        "batch": 1,
        "prompt_tokens": 0 if metric == "tg" else 512,
        "gen_tokens": 128 if metric == "tg" else 0,
        "tok_s": 100.0,
        "build": "test",
        "era": 2025,
        "source": "test",
        "where": "test",
        "file": "test.csv",
    }
    return Measurement(**{**fields, **kw})


def test_ranking_prefers_the_same_gpu_then_model_then_quantization(calc, catalog):
    values = calc(gpu_name="RTX 4090 24GB", model_name="Llama-2-7B", quant_name="Q4_0")
    best = [
        _measurement("RTX 4090 24GB", "Llama-2-7B", "Q4_0"),  # everything the same
        _measurement("RTX 4090 24GB", "Llama-2-7B", "Q4_0", engine="vllm"),  # another engine
        _measurement("RTX 4090 24GB", "Llama-2-7B", "Q4_K_M"),  # same bits (4.89 vs 4.5)
        _measurement("RTX 4090 24GB", "Llama-2-7B", "F16"),  # other bits
        _measurement("RTX 4090 24GB", "LLaMA-7B", "Q4_0"),  # same architecture (32 × 4096, 32 heads)
        _measurement("RTX 4090 24GB", "Llama-3-8B", "Q4_0"),  # same family, 8.03 B vs 6.74 B
        _measurement("RTX 4090 24GB", "Mistral-7B-v0.1", "Q4_0"),  # other family, same size
        _measurement("RTX 3090 24GB", "Llama-2-7B", "Q4_0"),  # similar GPU: CUDA, GDDR, 936 vs 1,008 GB/s
    ]
    far = [
        _measurement("RTX 4090 24GB", "Llama-2-13B", "Q4_0"),  # another size class
        _measurement("RTX 4090 24GB", "Qwen3-30B-A3B", "Q4_0"),  # a mixture of experts
        _measurement("RTX 3090 24GB", "Mistral-7B-v0.1", "Q4_0"),  # similar GPU, other family
        _measurement("RTX 3090 24GB", "Llama-2-7B", "F16"),  # similar GPU, other bits
        _measurement("RTX 3060 12GB", "Llama-2-7B", "Q4_0"),  # 360 GB/s: not similar
        _measurement("Apple M2 Ultra 192GB", "Llama-2-7B", "Q4_0"),  # Metal
    ]
    shuffled = best + far
    random.Random(7).shuffle(shuffled)
    found = nearest(values, catalog, shuffled, limit=len(shuffled))
    assert [n.measurement for n in found] == best
    assert found[0].match == {
        "gpu": "same GPU",
        "model": "same model",
        "quant": "same quantization",
        "engine": "same engine",
    }


def test_one_row_per_setup_newer_builds_and_decode_first(calc, catalog):
    values = calc(gpu_name="RTX 4090 24GB", model_name="Llama-2-7B", quant_name="Q4_0")
    old_tg = _measurement("RTX 4090 24GB", "Llama-2-7B", "Q4_0", era=2024)
    new_pp = _measurement("RTX 4090 24GB", "Llama-2-7B", "Q4_0", metric="pp")
    new_tg = _measurement("RTX 4090 24GB", "Llama-2-7B", "Q4_0")
    longer = _measurement("RTX 4090 24GB", "Llama-2-7B", "Q4_0", gen_tokens=131072)  # far from 1,500 tokens
    found = nearest(values, catalog, [old_tg, longer, new_pp, new_tg])
    assert [n.measurement for n in found] == [new_tg, new_pp, old_tg]


def test_nothing_when_no_measurement_is_close(calc, catalog):
    values = calc(gpu_name="L4 24GB", model_name="Qwen2.5-7B", quant_name="Q8_0")
    result = CliRunner().invoke(main, ["hitung", "--gpu", "L4 24GB", "--model", "Qwen2.5-7B", "--quant", "Q8_0"])
    assert nearest(values, catalog, [_measurement("RTX 4090 24GB", "Llama-2-7B", "Q4_0")]) == []
    assert result.exit_code == 0 and "Published measurements" not in result.stdout


# ---- names as published → catalog ---------------------------------------------------------------------------------


def test_devices_map_to_catalog_gpus_as_the_calibration_maps_them(catalog):
    """Each measurement runs on the catalog GPU devices.csv names for its device; devices it leaves out give none."""
    with open(CALIBRATION_DIR / "devices.csv", newline="", encoding="utf-8") as fh:
        devices = {r["hardware"]: r["catalog_gpu"] for r in csv.DictReader(fh)}
    found = load_published(catalog)
    assert {m.gpu_name for m in found if m.hardware == "NVIDIA RTX 6000 Ada Generation 48GB"} == {"RTX 6000 Ada 48GB"}
    for m in found:  # the serving runs' H100 SXM is the serving fit's GPU (serving_calibration.RUN_SETTINGS)
        assert m.gpu_name == devices.get(m.hardware, RUN_SETTINGS["gpu_name"]), m.hardware
    assert not [m for m in found if not devices.get(m.hardware, "-")]
    assert {m.metric for m in found} == {"tg", "pp", "serve"}


def test_an_unstated_variant_is_not_the_same_gpu(calc, catalog):
    values = calc(gpu_name="H100 PCIe 80GB", model_name="Llama-2-7B", quant_name="Q4_0")
    named = _measurement("H100 PCIe 80GB", "Llama-2-7B", "Q4_0")
    unstated = _measurement(
        "H100 PCIe 80GB", "Llama-2-7B", "Q4_0", hardware="NVIDIA H100 80GB (PCIe/SXM not stated)", era=2024
    )
    assert [n.match["gpu"] for n in nearest(values, catalog, [unstated, named], limit=5)] == [
        "same GPU",
        "same GPU line",
    ]


@pytest.mark.parametrize(
    ("published", "name"),
    [
        ("Meta-Llama-3-8B", "Llama-3-8B"),
        ("Meta-Llama-3-70B", "Llama-3-70B"),
        ("LLaMA-7B", "LLaMA-7B"),
        ("Llama-3.1-8B-Instruct (nvidia/Llama-3.1-8B-Instruct-FP8)", "Llama-3.1-8B"),
        ("Llama-3.3-70B-Instruct (nvidia/Llama-3.3-70B-Instruct-FP8)", "Llama-3.3-70B"),
    ],
)
def test_published_model_names_map_to_catalog_models(catalog, published, name):
    assert match_model(published, catalog["model"])["name"] == name


# ---- the workbook's reference table ------------------------------------------------------------------------------


def test_reference_rows_are_published_figures_of_catalog_setups(catalog):
    table = catalog["measured"]
    assert 40 <= len(table.rows) <= 70
    files = {}
    for name in ("measured_2025_builds.csv", "measured_tps.csv"):
        with open(CALIBRATION_DIR / name, newline="", encoding="utf-8") as fh:
            files[name] = list(csv.DictReader(fh))
    for row in table.rows:
        for key, column in [
            ("gpu", "gpu_name"),
            ("model", "model_name"),
            ("quant", "quant_name"),
            ("engine", "engine"),
        ]:
            assert catalog[key].find(row[column]) is not None, (row["name"], column)
        assert catalog["kv_cache"].find(row["kv_cache_type"]) is not None
        metric = f"{row['measured_metric_type']}_tok_s"
        published = [
            r
            for rows in files.values()
            for r in rows
            if r["hardware"] == row["hardware"].replace("tidak disebut", "not stated")
            and r["metric"] == metric
            and int(r["prompt_tokens"]) == row["prompt_tokens"]
            and int(r["gen_tokens"]) == row["output_tokens"]
            and float(r["value"]) == row["measured_tok_s"]
        ]
        assert published, row["name"]
        expected_context = row["prompt_tokens"] + (row["output_tokens"] / 2 if metric == "tg_tok_s" else 0)
        assert row["context_tokens"] == expected_context
        assert row["source"].startswith(published[0]["source_repo_or_url"])
    scoreboard = {r["gpu_name"] for r in table.rows if SCOREBOARD in r["source"]}
    assert len(scoreboard) >= 20


def test_tps_sheet_has_the_reference_table(built_id):
    """Every published measurement on the TPS sheet beside kalkulator's estimate of its own setup (fixed values:
    the setups are catalog rows, not the yellow cells), the ratio being estimate ÷ measured."""
    layout = built_id.layout
    cells = {(c.row, c.col): c.value for c in layout.cells if c.sheet == "TPS"}
    names = ["measured_tok_s", "measured_setup_text", "measured_estimate_tok_s", "estimate_measured_ratio"]
    header = next(r for (r, col), v in cells.items() if col == 1 and [cells.get((r, j)) for j in (1, 2, 3, 4)] == names)
    rows = built_id.catalog["measured"].rows  # typed catalog rows of assumptions/measurements.csv
    for i, row in enumerate(rows):
        measured, text, estimate, ratio = (cells.get((header + 1 + i, j)) for j in (1, 2, 3, 4))
        assert measured == row["measured_tok_s"] and row["gpu_name"] in text
        assert ratio == pytest.approx(estimate / measured)
        if i in (0, len(rows) - 1):  # the same estimate as `hitung` gives for that setup
            settings = {k: v for k, v in row.items() if k in built_id.graph.quantities}
            tok_s = compute(settings)["prefill_tok_s" if row["measured_metric_type"] == "pp" else "decode_tok_s"]
            assert estimate == pytest.approx(tok_s)
    assert not any(f.sheet == "TPS" and f.row > header for f in layout.formulas)  # values, not formulas
    assert layout.names["tbl_measured_source"].startswith("'Katalog Model'!")  # builds and sources
