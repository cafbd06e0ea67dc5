"""`kalkulator preview`: an offline page that computes every shown quantity in the browser from the compiled
formula trees; headless Chromium reads them (data-name / data-value) and they equal the engine's."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from urllib.parse import quote

import pytest
from click.testing import CliRunner
from js_engine import dump_dom

from kalkulator.cli import main
from kalkulator.cli.simulate_commands import preview
from kalkulator.engine.graph import Graph
from kalkulator.quantities import QUANTITIES
from kalkulator.scenario import compute, resolve

DATA_BLOCK = re.compile(r'<script type="application/json" id="kalkulator-data">(.*?)</script>', re.S)
VALUE = re.compile(r'data-name="([a-z0-9_]+)" data-value="([^"]*)"')
PANEL = re.compile(r'<section class="panel" data-panel="([a-d])">(.*?)</section>', re.S)
# The quantities every panel shows, written out here (not read from the code under test).
SHOWN = (
    "api_name", "ttft_s", "e2e_latency_s", "prefill_s", "prefill_tok_s", "throughput_tok_s",
    "concurrent_users", "prompt_tokens", "output_tokens", "context_tokens", "weights_gb", "kv_cache_gb_per_user",
    "vram_total_gb", "gpu_vram_gb", "fits_in_vram", "max_concurrent_users",
)  # fmt: skip
# The card's key figures, shown only for a setup that runs (a refused one has its reason instead).
KEY_SHOWN = ("ttft_idle_s", "decode_tok_s", "tpot_ms", "answer_cost_idr_per_1m_tokens", "api_cost_idr_per_1m_tokens")
# URL-fragment key → the engine's setting
KEYS = {
    "model": "model_name", "gpu": "gpu_name", "quant": "quant_name", "engine": "engine", "n_gpus": "n_gpus",
    "split": "split_mode", "workload": "workload_name", "users": "concurrent_users", "prompt": "prompt_tokens",
    "output": "output_tokens",
}  # fmt: skip
NUMBERS = ("n_gpus", "users", "prompt", "output")


@pytest.fixture(scope="module")
def page(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("preview") / "preview.html"
    result = CliRunner().invoke(preview, ["--out", str(path)])
    assert result.exit_code == 0, result.output
    assert f"wrote {path}" in result.stdout
    return path


@pytest.fixture(scope="module")
def data(page) -> dict:
    return json.loads(DATA_BLOCK.search(page.read_text(encoding="utf-8")).group(1))


def test_page_needs_no_network(page):
    html = page.read_text(encoding="utf-8")
    assert not re.search(r"https?://", html)  # no address at all, so nothing to fetch
    assert not re.search(
        r"<(script|img|iframe|link|audio|video|source|object|embed)\b[^>]*\b(src|href)=\"(?!data:)", html
    )
    assert not re.search(r"\bfetch\(|XMLHttpRequest|@import|url\(|WebSocket|EventSource|import\(", html)
    assert "default-src 'none'" in html  # and the Content-Security-Policy forbids any request anyway


def test_page_is_small_and_deterministic(page, tmp_path):
    again = tmp_path / "again.html"
    assert CliRunner().invoke(preview, ["--out", str(again)]).exit_code == 0
    assert page.stat().st_size <= 2_000_000
    assert again.read_bytes() == page.read_bytes()


def test_every_catalog_choice_can_be_made(data, catalog):
    for key, table in (("model", "model"), ("gpu", "gpu"), ("quant", "quant"), ("engine", "engine")):
        assert data["options"][key] == list(catalog[table].names)
    assert data["options"]["workload"] == list(catalog["workload"].names)
    assert data["options"]["split"] == ["auto", "layer", "tensor"]


def test_a_catalog_without_a_default_choice_starts_with_its_first_row(tmp_path, catalog_copy):
    path = catalog_copy / "gpus.csv"
    lines = path.read_text(encoding="utf-8").splitlines()
    path.write_text("\n".join(x for x in lines if not x.startswith("RTX 4090 24GB,")) + "\n", encoding="utf-8")
    out = tmp_path / "p.html"
    result = CliRunner().invoke(preview, ["--out", str(out), "--catalog", str(catalog_copy)])
    assert result.exit_code == 0, result.output
    assert (
        "note: preview: the default gpu_name 'RTX 4090 24GB' is not in the catalog; the page starts with "
        "'RTX 3060 12GB'" in result.stderr
    )
    data = json.loads(DATA_BLOCK.search(out.read_text(encoding="utf-8")).group(1))
    assert data["base"]["gpu_name"] == "RTX 3060 12GB" and "RTX 4090 24GB" not in data["options"]["gpu"]
    assert all(d["gpu"] != "RTX 4090 24GB" for d in data["defaults"])  # the default panel on that GPU is gone


# --- headless Chromium --------------------------------------------------------------------------------------


def _fragment(setups: list[dict], **params: str) -> str:
    parts = [f"{k}={quote(str(v))}" for s in setups for k, v in s.items()]
    return "#" + "&".join([*parts, *(f"{k}={v}" for k, v in params.items())])


def _browse(page: Path, setups: list[dict], tmp: Path, budget_ms: int = 2000, **params: str) -> list[dict]:
    """The panels' shown values (name → data-value) after Chromium opened the page at this fragment."""
    dom = dump_dom(page.as_uri() + _fragment(setups, **params), tmp / "profile", budget_ms)
    assert re.search(r'<body[^>]*data-ready="1"', dom), dom[-2000:]
    panels = PANEL.findall(dom)
    assert [letter for letter, _ in panels] == list("abcd")[: len(setups)]
    return [dict(VALUE.findall(body)) | {"_html": body} for _, body in panels]


def _settings(setup: dict) -> dict:
    return {KEYS[k]: (float(v) if k in NUMBERS else v) for k, v in setup.items()}


def _agrees(shown: str, expected) -> bool:
    if isinstance(expected, bool):
        return shown == ("TRUE" if expected else "FALSE")
    if isinstance(expected, int | float):
        return shown not in ("", "NaN") and float(shown) == pytest.approx(expected, rel=1e-9, abs=1e-300)
    return shown == str(expected)


def _draw(rng: random.Random, catalog) -> dict:
    """A setup over the whole catalogs: every choice drawn, numbers left to the preset about half the time."""
    setup = {k: rng.choice(catalog[t].names) for k, t in (("model", "model"), ("gpu", "gpu"), ("quant", "quant"))}
    setup["engine"] = rng.choice(catalog["engine"].names)
    if rng.random() < 0.5:
        setup["n_gpus"] = rng.choice([1, 2, 4, 8])
        setup["split"] = rng.choice(["auto", "layer", "tensor"])
    if rng.random() < 0.5:
        setup["workload"] = rng.choice(catalog["workload"].names)
    for key, choices in (("users", [1, 4, 16, 64]), ("prompt", [200, 4000, 32000]), ("output", [100, 1000])):
        if rng.random() < 0.5:
            setup[key] = rng.choice(choices)
    return setup


@pytest.mark.slow
def test_random_setups_show_the_engines_values(page, catalog, tmp_path):
    """60 random setups over the catalogs, four per page: every shown quantity equals compute()'s (rel 1e-9),
    and the stream's length is TTFT + (output − 1) × TPOT."""
    rng = random.Random(27)
    setups = [_draw(rng, catalog) for _ in range(60)]
    compared, statuses = 0, set()
    for i in range(0, len(setups), 4):
        group = setups[i : i + 4]
        for setup, shown in zip(group, _browse(page, group, tmp_path, lang="en"), strict=True):
            expected = compute(_settings(setup), catalog)
            runs = expected["usable_hardware_flag"] and expected["engine_backend_flag"]
            runs = runs and expected["engine_format_flag"] and expected["fits_in_vram"]
            page_ok = runs and expected["input_check_text"] == "OK"
            assert shown["page_status_text"] == ("OK" if page_ok else expected["status_text"]), setup
            for name in SHOWN + (KEY_SHOWN if page_ok else ()):
                assert _agrees(shown[name], expected[name]), (setup, name, shown[name], expected[name])
                compared += 1
            statuses.add(page_ok)  # runs (the page's status is OK) or is refused
            assert shown["streams_flag"] == ("TRUE" if runs else "FALSE"), setup
            if isinstance(expected["tpot_ms"], float) and isinstance(expected["prefill_s"], float):
                idle = expected["network_overhead_ms"] / 1000 + expected["prefill_s"]
                stream = idle + (expected["output_tokens"] - 1) * expected["tpot_ms"] / 1000
                assert float(shown["stream_s"]) == pytest.approx(stream, rel=1e-9)
    assert compared >= 60 * len(SHOWN) + 5 * len(KEY_SHOWN)
    assert statuses == {True, False}  # setups that run and setups the engine refuses, both compared


def _hitung(*args: str) -> dict:
    result = CliRunner().invoke(main, ["hitung", "--json", *args])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


BUYERS = [  # the three buyers, and each as `kalkulator hitung` is asked
    (
        {"model": "Llama-3.3-70B", "gpu": "L40S 48GB", "quant": "FP8", "engine": "vllm", "n_gpus": 2, "users": 16},
        ["--model", "Llama-3.3-70B", "--gpu", "L40S 48GB", "--quant", "FP8", "--engine", "vllm"]
        + ["--set", "n_gpus=2", "--set", "concurrent_users=16"],
    ),
    (
        {"model": "Qwen3-30B-A3B", "gpu": "Apple M2 Ultra 192GB", "quant": "Q4_K_M"},
        ["--model", "Qwen3-30B-A3B", "--gpu", "Apple M2 Ultra 192GB", "--quant", "Q4_K_M"],
    ),
    (
        {"model": "gpt-oss-20b", "gpu": "RTX 3090 24GB", "quant": "MXFP4", "users": 4},
        ["--model", "gpt-oss-20b", "--gpu", "RTX 3090 24GB", "--quant", "MXFP4", "--set", "concurrent_users=4"],
    ),
]


@pytest.mark.slow
def test_three_buyers_see_what_hitung_says(page, tmp_path):
    shown = _browse(page, [setup for setup, _ in BUYERS], tmp_path, lang="en")  # hitung speaks English
    for (setup, args), panel in zip(BUYERS, shown, strict=True):
        expected = _hitung(*args)
        assert panel["page_status_text"] == "OK" and panel["streams_flag"] == "TRUE", setup
        for name in ("decode_tok_s", "ttft_idle_s", "ttft_s", "tpot_ms"):
            assert float(panel[name]) == pytest.approx(expected[name], rel=1e-9), (setup, name)


@pytest.mark.slow
def test_refusals_are_shown_in_indonesian_and_not_streamed(page, catalog, tmp_path):
    """vLLM on a Mac and a 70B model on a 12 GB card: the engine's status sentence (id), and no stream."""
    setups = [
        {"model": "Qwen3-30B-A3B", "gpu": "Apple M2 Ultra 192GB", "quant": "Q4_K_M", "engine": "vllm"},
        {"model": "Llama-3.3-70B", "gpu": "RTX 3060 12GB", "quant": "Q4_K_M"},
    ]
    graph = Graph(QUANTITIES)
    shown = _browse(page, setups, tmp_path, autostart="1", speedup="50")
    for setup, panel in zip(setups, shown, strict=True):
        expected = graph.evaluate(resolve(graph, catalog, _settings(setup)), catalog.columns(), lang="id")
        assert expected["status_text"] != "OK"
        assert panel["page_status_text"] == expected["status_text"]
        assert "tidak dialirkan" in panel["_html"]
    assert shown[1]["fits_in_vram"] == "FALSE"


@pytest.mark.slow
def test_the_clock_reads_elapsed_of_predicted_then_done(page, catalog, tmp_path):
    setup = {"model": "Llama-3.1-8B", "gpu": "RTX 4090 24GB", "quant": "Q4_K_M", "output": 300}
    expected = compute(_settings(setup), catalog)
    predicted = expected["network_overhead_ms"] / 1000 + expected["prefill_s"] + 299 * expected["tpot_ms"] / 1000
    mid = _browse(page, [setup], tmp_path, budget_ms=int(predicted * 500), autostart="1", lang="en")[0]["_html"]
    clock = re.search(r"elapsed (\d+\.\d) s of (\d+\.\d) s predicted · (\d+) of 300 tokens", mid)
    assert clock, mid[-1500:]
    assert clock.group(2) == f"{predicted:.1f}"
    assert float(clock.group(1)) == pytest.approx(predicted / 2, abs=0.2)
    done = _browse(page, [setup], tmp_path, budget_ms=int(predicted * 1000) + 2000, autostart="1", lang="en")[0]
    end = re.search(r"done: 300 tokens in (\d+\.\d) s \(predicted (\d+\.\d) s\)", done["_html"])
    assert end, done["_html"][-1500:]
    assert float(end.group(1)) == pytest.approx(predicted, rel=0.05)  # paced by the page's own TPOT


@pytest.mark.slow
def test_the_published_measurement_hitung_lists_first_is_beside_the_prediction(page, tmp_path):
    setup = {"model": "Llama-3.1-8B", "gpu": "RTX 4090 24GB", "quant": "Q4_K_M"}
    first = _hitung("--model", "Llama-3.1-8B", "--gpu", "RTX 4090 24GB", "--quant", "Q4_K_M")["measurements"][0]
    panel = _browse(page, [setup], tmp_path, lang="en")[0]
    assert float(panel["measured_tok_s"]) == first["measured_tok_s"]
    line = re.search(r'<p class="info measured"[^>]*>([^<]*)</p>', panel["_html"]).group(1)
    assert f"({first['test']} · {first['model_name']} · {first['engine']} · 1 GPU · {first['build_year']})" in line
    assert f"that setup {first['estimate_tok_s']:.1f} tok/s" in line
    assert first["source"].split("://")[1] in line


@pytest.mark.slow
def test_the_page_does_not_follow_the_hash_seed(tmp_path):
    """Two processes with other string-hash seeds write the same bytes (the compiled program follows the graph's
    order, which once followed set iteration)."""
    import os
    import subprocess
    import sys

    pages = []
    for seed in ("2", "3"):
        out = tmp_path / seed / "preview.html"
        code = "from kalkulator.cli import main; main()"
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run([sys.executable, "-c", code, "preview", "--out", str(out)], env=env, capture_output=True)
        assert done.returncode == 0, done.stderr
        pages.append(out.read_bytes())
    assert pages[0] == pages[1]
