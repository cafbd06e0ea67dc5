"""The preview a buyer feels (issue 38): one request on an idle replica, validation equal to the CLI's, the page's
own status, why a setup is this fast, money beside speed, and the stream boxes in view (headless Chromium)."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from urllib.parse import quote

import pytest
from click.testing import CliRunner
from js_engine import chromium_args

from kalkulator.cli import main
from kalkulator.cli.simulate_commands import preview
from kalkulator.scenario import compute

VALUE = re.compile(r'data-name="([a-z0-9_]+)" data-value="([^"]*)"')
PANEL = re.compile(r'<section class="panel" data-panel="([a-d])">(.*?)</section>', re.S)
CPU = {"model": "Llama-3.1-8B", "gpu": "CPU DDR5-5600 dual-channel", "quant": "Q4_K_M", "engine": "llama.cpp"}
CPU_ARGS = ["--model", CPU["model"], "--gpu", CPU["gpu"], "--quant", CPU["quant"], "--engine", CPU["engine"]]

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def page(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("feel") / "preview.html"
    result = CliRunner().invoke(preview, ["--out", str(path)])
    assert result.exit_code == 0, result.output
    return path


def _dom(page: Path, fragment: str, tmp: Path, size: str = "1280,900", budget_ms: int = 2000) -> str:
    args = [*chromium_args(tmp / "profile"), f"--window-size={size}", f"--virtual-time-budget={budget_ms}"]
    done = subprocess.run([*args, "--dump-dom", page.as_uri() + fragment], capture_output=True, text=True, timeout=120)
    assert re.search(r'<body[^>]*data-ready="1"', done.stdout), done.stdout[-2000:] + done.stderr[-2000:]
    return done.stdout


def _fragment(setups: list[dict], **params: str) -> str:
    parts = [f"{k}={quote(str(v))}" for s in setups for k, v in s.items()]
    return "#" + "&".join([*parts, *(f"{k}={v}" for k, v in params.items())])


def _panels(dom: str) -> list[str]:
    return [body for _, body in PANEL.findall(dom)]


def _hitung(*args: str) -> dict:
    result = CliRunner().invoke(main, ["hitung", "--json", *args])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _cli_refusal(setting: str) -> str:
    """The CLI's words for a refused --set (after its "--set name: " prefix)."""
    result = CliRunner().invoke(main, ["hitung", "--set", setting])
    assert result.exit_code != 0
    line = next(x for x in result.output.splitlines() if "--set" in x)
    return line.split(": ", 2)[2]


def test_a_one_user_cpu_box_streams_with_the_idle_request_ttft(page, tmp_path):
    expected = _hitung(*CPU_ARGS, "--set", "concurrent_users=1")
    assert isinstance(expected["ttft_s"], str)  # at the preset's load the queue is unbounded …
    idle = expected["network_overhead_ms"] / 1000 + expected["prefill_s"]  # … on an idle replica: network + prefill
    assert expected["ttft_idle_s"] == pytest.approx(idle, rel=1e-12)
    setup = {**CPU, "users": 1}
    stream = idle + 499 * expected["tpot_ms"] / 1000  # 500 output tokens: the first at TTFT, then 499 gaps
    dom = _dom(page, _fragment([setup], lang="en", autostart="1", speedup="50"), tmp_path, budget_ms=4000)
    panel = _panels(dom)[0]
    shown = dict(VALUE.findall(panel))
    assert shown["page_status_text"] == "OK" and shown["streams_flag"] == "TRUE"
    assert float(shown["ttft_idle_s"]) == pytest.approx(expected["ttft_idle_s"], rel=1e-9)
    assert float(shown["decode_tok_s"]) == pytest.approx(expected["decode_tok_s"], rel=1e-9)
    assert float(shown["stream_s"]) == pytest.approx(stream, rel=1e-9)
    done = re.search(r"done: 500 tokens in [\d.]+ s \(predicted ([\d.]+) s\) · first token after ([\d.]+) s", panel)
    assert done, panel[-1500:]  # it streamed, at ×50
    assert float(done.group(1)) == pytest.approx(stream, abs=0.05)


def test_the_load_control_adds_the_queue_and_shows_it(page, catalog, tmp_path):
    setup = {"model": "Llama-3.1-8B", "gpu": "Apple M3 Max 128GB", "quant": "Q4_K_M"}
    expected = compute({"model_name": setup["model"], "gpu_name": setup["gpu"], "quant_name": setup["quant"]}, catalog)
    network = expected["network_overhead_ms"] / 1000
    idle = _panels(_dom(page, _fragment([setup], lang="en"), tmp_path))
    loaded = _panels(_dom(page, _fragment([setup], lang="en", queue="1"), tmp_path))
    idle_values, loaded_values = dict(VALUE.findall(idle[0])), dict(VALUE.findall(loaded[0]))
    assert "queue_wait_s" not in idle_values
    assert float(idle_values["ttft_idle_s"]) == pytest.approx(network + expected["prefill_s"], rel=1e-9)
    assert float(loaded_values["ttft_load_s"]) == pytest.approx(expected["ttft_s"] + network, rel=1e-9)
    wait = expected["ttft_s"] - expected["prefill_s"]
    assert wait > 0 and float(loaded_values["queue_wait_s"]) == pytest.approx(wait, rel=1e-9)
    stream = expected["ttft_s"] + network + 499 * expected["tpot_at_load_ms"] / 1000
    assert float(loaded_values["stream_s"]) == pytest.approx(stream, rel=1e-9)


@pytest.mark.parametrize(("key", "raw", "setting"), [("users", "-5", "concurrent_users=-5"),
                                                      ("users", "0", "concurrent_users=0"),
                                                      ("n_gpus", "1.5", "n_gpus=1.5")])  # fmt: skip
def test_numbers_the_cli_refuses_are_refused(page, tmp_path, key, raw, setting):
    words = _cli_refusal(setting)
    assert "must be" in words
    panel = _panels(_dom(page, _fragment([{**CPU, key: raw}], lang="en"), tmp_path))[0]
    status = re.search(r'<p class="status bad" data-refused="1">([^<]*)</p>', panel)
    assert status and status.group(1) == f"{key}: {words}", panel[:800]
    assert "not streamed" in panel and 'data-name="decode_tok_s"' not in panel


@pytest.mark.parametrize("lang", ["toString", "__proto__", "constructor", "hasOwnProperty"])
def test_a_bad_language_renders_the_page(page, tmp_path, lang):
    dom = _dom(page, f"#lang={lang}&{lang}=1", tmp_path)
    panels = _panels(dom)
    assert len(panels) == 2 and all('data-name="page_status_text" data-value="OK"' in p for p in panels)
    assert 'lang="id"' in dom[:300]  # the page's own language instead


def test_an_unknown_name_is_shown_as_such(page, tmp_path):
    panel = _panels(_dom(page, _fragment([{**CPU, "model": "Llama-9-Nope"}], lang="en"), tmp_path))[0]
    assert re.search(r'<option value="Llama-9-Nope" data-unknown="1"[^>]*>Llama-9-Nope \(unknown\)</option>', panel)
    assert "Llama-9-Nope is not in the model catalog" in panel


def test_why_and_money_equal_the_engine(page, catalog, tmp_path):
    """Each setup's shares of the decode step and the prefill, from compute()'s parts; its Rp per 1M tokens and
    the API's equal hitung's."""
    setups = [
        (CPU | {"users": 1}, [*CPU_ARGS, "--set", "concurrent_users=1"]),
        (
            {"model": "Llama-3.3-70B", "gpu": "L40S 48GB", "quant": "FP8", "engine": "vllm", "n_gpus": 2, "users": 16},
            ["--model", "Llama-3.3-70B", "--gpu", "L40S 48GB", "--quant", "FP8", "--engine", "vllm"]
            + ["--set", "n_gpus=2", "--set", "concurrent_users=16"],
        ),
    ]
    dom = _dom(page, _fragment([s for s, _ in setups], lang="en"), tmp_path)
    for (setup, args), panel in zip(setups, _panels(dom), strict=True):
        e = _hitung(*args)
        shown = dict(VALUE.findall(panel))
        for name in ("answer_cost_idr_per_1m_tokens", "api_cost_idr_per_1m_tokens", "api_name"):
            value = e[name]
            assert (
                (float(shown[name]) == pytest.approx(value, rel=1e-9))
                if isinstance(value, float)
                else (shown[name] == value)
            ), (setup, name)
        why = dict(re.findall(r'data-((?:decode|prefill)-[a-z-]+-frac)="([^"]*)"', panel))
        share = {k.replace("-", "_"): float(v) for k, v in why.items()}
        step = e["decode_step_ms"]
        assert share["decode_engine_frac"] == pytest.approx(e["decode_overhead_ms"] / step, rel=1e-9)
        link = e["multi_gpu_step_ms"] + e["concurrent_users"] * e["multi_gpu_per_user_ms"]
        assert share["decode_link_frac"] == pytest.approx(link / step, rel=1e-9, abs=1e-15)
        decode = [share[f"decode_{k}_frac"] for k in ("memory", "compute", "host", "engine", "link")]
        assert sum(decode) == pytest.approx(1, rel=1e-9)
        busy = max(e["prefill_compute_s"], e["prefill_memory_s"]) * e["prefill_pipeline_ratio"]
        assert share["prefill_link_frac"] == pytest.approx(
            e["prefill_exchange_s"] / (busy + e["prefill_exchange_s"]), rel=1e-9, abs=1e-15
        )
        bound = "compute" if e["prefill_compute_s"] >= e["prefill_memory_s"] else "memory"
        assert share[f"prefill_{bound}_frac"] + share["prefill_link_frac"] == pytest.approx(1, rel=1e-9)
        assert re.search(r"Why this fast: decode step = (memory bandwidth|compute) \d+ %", panel), panel[:2000]
    assert "interconnect" in _panels(dom)[1]  # two L40S over PCIe: the exchanges show


def _boxes(dom: str) -> tuple[list[float], list[list[float]], list[float]]:
    start = [float(x) for x in re.search(r'id="start"[^>]*data-box="([^"]*)"', dom).group(1).split(",")]
    texts = [[float(x) for x in b.split(",")] for b in re.findall(r'class="text[^"]*" data-box="([^"]*)"', dom)]
    view = [float(x) for x in re.search(r'data-viewport="([^"]*)"', dom).group(1).split(",")]
    return start, texts, view


def test_the_stream_boxes_are_in_view_on_a_laptop(page, tmp_path):
    start, texts, _ = _boxes(_dom(page, "#lang=en&boxes=1", tmp_path, size="1280,900"))
    assert len(texts) == 2
    assert texts[0][1] < 900 and texts[0][1] - start[1] < 900  # setup A's stream box starts in the first 900 px


def test_two_stream_boxes_are_seen_at_once_on_a_phone(page, tmp_path):
    start, texts, (width, height) = _boxes(_dom(page, "#lang=en&boxes=1", tmp_path, size="390,844"))
    assert width <= 500  # headless Chromium's narrowest window
    assert len(texts) == 2
    for left, top, w, h in texts:  # both wholly inside the first screen
        assert left >= 0 and left + w <= width and top >= 0 and top + h <= height, (texts, width, height)


def test_the_offload_control_moves_layers_to_system_ram_as_hitung_does(page, tmp_path):
    """A 70B Q4_K_M does not fit a 24 GB card; with 70 % of its weights in system RAM it does, and runs at the speed
    hitung gives for the same share, slower than the same setup with less offloaded (RAM is the slower memory)."""
    setup = {"model": "Llama-3.1-70B", "gpu": "RTX 4090 24GB", "quant": "Q4_K_M", "engine": "llama.cpp", "users": 1}
    args = ["--model", setup["model"], "--gpu", setup["gpu"], "--quant", setup["quant"], "--engine", "llama.cpp"]
    panels = _panels(_dom(page, _fragment([setup | {"offload": 0.7}, setup | {"offload": 0.8}], lang="en"), tmp_path))
    speeds = []
    for share, panel in zip((0.7, 0.8), panels, strict=True):
        expected = _hitung(*args, "--set", "concurrent_users=1", "--set", f"cpu_offload_frac={share}")
        assert expected["fits_in_vram"] is True
        shown = dict(VALUE.findall(panel))
        assert float(shown["decode_tok_s"]) == pytest.approx(expected["decode_tok_s"], rel=1e-9)
        speeds.append(float(shown["decode_tok_s"]))
    assert speeds[1] < speeds[0]
    rule = "cpu_offload_frac must be from 0 to 1"  # a share: the CLI and the page refuse 1.5 by the same domain
    assert _cli_refusal("cpu_offload_frac=1.5").startswith(rule)
    refused = _panels(_dom(page, _fragment([setup | {"offload": "1.5"}], lang="en"), tmp_path))[0]
    assert f'data-refused="1">offload: {rule}' in refused
