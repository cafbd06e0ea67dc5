"""`kalkulator preview`: an offline page whose numbers are the engine's, driven headless in Chromium."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from urllib.parse import quote

import pytest
from click.testing import CliRunner

from kalkulator.cli.simulate import preview
from kalkulator.scenario import compute
from kalkulator.simulate import sample_tokens

# The grid's fixed settings, written out here so the test does not read them from the code under test.
SETTINGS = {
    "engine": "llama.cpp",
    "prompt_tokens": 1000,
    "output_tokens": 300,
    "context_tokens": 4096,
    "load_requests_per_s": 0,  # N users decoding together on an otherwise idle GPU: no queue
}
CHECKED = [  # (model, GPU, quantization, users, fits in VRAM)
    ("Llama-3.1-8B", "RTX 4090 24GB", "Q4_K_M", 1, True),
    ("Qwen3-32B", "RTX 3090 24GB", "Q4_K_M", 4, True),
    ("Qwen3-30B-A3B", "H100 SXM 80GB", "F16", 16, True),
    ("Llama-3.3-70B", "Apple M4 Max 128GB", "Q8_0", 1, True),
    ("Gemma-3-12B", "CPU DDR5-5600 dual-channel", "Q8_0", 4, True),
    ("Llama-3.3-70B", "RTX 3060 12GB", "Q4_K_M", 1, False),
]
DATA_BLOCK = re.compile(r'<script type="application/json" id="kalkulator-data">(.*?)</script>', re.S)


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


def _engine(model: str, gpu: str, quant: str, users: int, catalog) -> dict:
    return compute(
        {**SETTINGS, "model_name": model, "gpu_name": gpu, "quant_name": quant, "concurrent_users": users}, catalog
    )


def _row(data: dict, model: str, gpu: str, quant: str, users: int) -> dict:
    return dict(zip(data["fields"], data["rows"][f"{model}|{gpu}|{quant}|{users}"], strict=True))


def js_fixed(x: float, digits: int) -> str:
    """JavaScript's Number.prototype.toFixed for positive x: the exact binary value, ties away from zero."""
    return str(Decimal(x).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP))


def test_page_needs_no_network(page):
    html = page.read_text(encoding="utf-8")
    assert not re.search(r"https?://", html)  # no address at all, so nothing to fetch
    assert not re.search(
        r"<(script|img|iframe|link|audio|video|source|object|embed)\b[^>]*\b(src|href)=\"(?!data:)", html
    )
    assert not re.search(r"\bfetch\(|XMLHttpRequest|@import|url\(|WebSocket|EventSource", html)
    assert "default-src 'none'" in html  # and the Content-Security-Policy forbids any request anyway


def test_embedded_numbers_are_the_engines(data, catalog):
    assert data["settings"] == SETTINGS
    assert len(data["rows"]) == 8 * 12 * 3 * 3
    for model, gpu, quant, users, fits in CHECKED:
        expected = _engine(model, gpu, quant, users, catalog)
        row = _row(data, model, gpu, quant, users)
        assert expected["fits_in_vram"] is fits
        for name in ("fits_in_vram", "ttft_s", "decode_tok_s", "tpot_ms", "throughput_tok_s", "vram_total_gb"):
            assert row[name] == expected[name], (model, gpu, quant, users, name)
        assert row["gpu_vram_gb"] == expected["gpu_vram_gb"]
        assert row["stream_s"] == pytest.approx(expected["ttft_s"] + 299 * expected["tpot_ms"] / 1000, rel=1e-12)


def test_embedded_pacing_data(data):
    assert len(data["jitter"]) == 299
    assert sum(data["jitter"]) / 299 == pytest.approx(1, rel=1e-9)  # mean delay = TPOT
    assert min(data["jitter"]) > 0
    for lang in ("id", "en"):
        assert data["samples"][lang] == sample_tokens(lang, 300)
    assert data["reading_tok_s"] == [7, 11] and data["chat_ok_tok_s"] == [20, 30]


def test_page_is_small_and_deterministic(page, tmp_path):
    again = tmp_path / "again.html"
    assert CliRunner().invoke(preview, ["--out", str(again)]).exit_code == 0
    assert page.stat().st_size < 1_500_000
    assert again.read_bytes() == page.read_bytes()


def _drop_rows(path: Path, *prefixes: str) -> None:
    lines = path.read_text(encoding="utf-8").splitlines()
    path.write_text("\n".join(line for line in lines if not line.startswith(prefixes)) + "\n", encoding="utf-8")


def test_page_names_missing_from_the_catalog_are_left_out_with_a_note(tmp_path, catalog_copy):
    _drop_rows(catalog_copy / "gpus.csv", "RTX 4090 24GB,")
    out = tmp_path / "p.html"
    result = CliRunner().invoke(preview, ["--out", str(out), "--catalog", str(catalog_copy)])
    assert result.exit_code == 0, result.output
    assert "note: preview: GPUs not in the gpu catalog, left out of the page: RTX 4090 24GB" in result.stderr
    data = json.loads(DATA_BLOCK.search(out.read_text(encoding="utf-8")).group(1))
    assert "RTX 4090 24GB" not in data["gpus"] and len(data["gpus"]) == 11
    assert len(data["rows"]) == 8 * 11 * 3 * 3
    assert data["defaults"] == ["Llama-3.3-70B|Apple M4 Max 128GB|Q4_K_M|1"]  # the other default panel is gone


def test_a_catalog_without_the_pages_engine_is_an_error(tmp_path, catalog_copy):
    _drop_rows(catalog_copy / "engines.csv", "llama.cpp,")
    _drop_rows(catalog_copy / "speed_params.csv", "llama.cpp/")
    result = CliRunner().invoke(preview, ["--out", str(tmp_path / "p.html"), "--catalog", str(catalog_copy)])
    assert result.exit_code == 2, result.output
    assert result.stderr == "error: preview: the page's engine 'llama.cpp' is not in the engine catalog\n"
    assert list(tmp_path.iterdir()) == [catalog_copy]


# --- headless Chromium --------------------------------------------------------------------------------------


def _chromium() -> str:
    found = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
    if found is None:
        message = "chromium not installed (Debian: apt-get install -y chromium)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return found


def _hash(configs, **params: str) -> str:
    keys = [quote(f"{m}|{g}|{q}|{u}", safe="|") for m, g, q, u, _ in configs]
    letters = [f"{letter}={k}" for letter, k in zip("abcd", keys, strict=False)]
    return "#" + "&".join([*letters, *(f"{k}={v}" for k, v in params.items())])


BROWSED = [CHECKED[0], CHECKED[1], CHECKED[5]]  # two that fit, one that does not


@pytest.fixture(scope="module")
def browsed(page, tmp_path_factory) -> tuple[str, Path]:
    """One headless Chromium run driven by the URL hash: the DOM after streaming, and a screenshot."""
    tmp = tmp_path_factory.mktemp("chromium")
    shot = tmp / "preview.png"
    args = [
        _chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--no-first-run", "--disable-sync", f"--user-data-dir={tmp / 'profile'}",
        "--virtual-time-budget=20000", "--dump-dom", f"--screenshot={shot}", "--window-size=1280,900",
        page.as_uri() + _hash(BROWSED, autostart="1", speedup="50", lang="en"),
    ]  # fmt: skip
    result = subprocess.run(args, capture_output=True, text=True, timeout=90)
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout, shot


def test_chromium_streams_the_engine_numbers(browsed, data, catalog):
    dom, _ = browsed
    assert re.search(r'<body[^>]*data-done="1"', dom), "streaming did not finish"
    for letter, (model, gpu, quant, users, fits) in zip("abc", BROWSED, strict=True):
        expected = _engine(model, gpu, quant, users, catalog)
        shown = re.search(rf'id="pred-tps-{letter}">([^<]*)<', dom).group(1)
        assert shown == js_fixed(_row(data, model, gpu, quant, users)["decode_tok_s"], 1)
        assert shown == js_fixed(expected["decode_tok_s"], 1)
        assert re.search(rf'id="pred-ttft-{letter}">([^<]*)<', dom).group(1) == js_fixed(expected["ttft_s"], 2)
        measured = re.search(rf'id="meas-tps-{letter}">([^<]*)<', dom).group(1)
        if fits:  # paced by the embedded TPOT; browser timers are coarse at ×50, so allow 20 %
            assert float(measured) == pytest.approx(expected["decode_tok_s"], rel=0.20)
        else:
            assert measured == "–"
    assert "does not fit in GPU memory" in dom
    text = "".join(sample_tokens("en", 300))
    assert dom.count(text[-60:]) == 2  # both fitting panels streamed all 300 tokens


def test_chromium_screenshot(browsed):
    _, shot = browsed
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert shot.stat().st_size > 10_000
