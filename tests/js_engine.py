"""Run a JavaScript program in headless Chromium (what CI installs) or in node, and return what it printed.

The program calls `emit(text)` once; Chromium writes the text into the page and `--dump-dom` returns it.
"""

from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

OUT = re.compile(r'<pre id="out">(.*?)</pre>', re.S)


def chromium() -> str:
    """Chromium's path; skip without it (fail in CI, which installs it)."""
    found = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
    if found is None:
        message = "chromium not installed (Debian: apt-get install -y chromium)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return found


def chromium_args(profile: Path) -> list[str]:
    return [
        chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--no-first-run", "--disable-sync", f"--user-data-dir={profile}",
    ]  # fmt: skip


def dump_dom(url: str, profile: Path, budget_ms: int = 5000, timeout: float = 120) -> str:
    """The DOM of `url` once its scripts ran (virtual time lets timers finish at once)."""
    args = [*chromium_args(profile), f"--virtual-time-budget={budget_ms}", "--dump-dom", url]
    result = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


def run_in_chromium(program: str) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "run.html"
        body = "function emit(t){const p=document.createElement('pre');p.id='out';p.textContent=t;"
        body += "document.body.appendChild(p);}"
        page.write_text(f'<!doctype html><meta charset="utf-8"><body><script>{body}\n{program}</script>', "utf-8")
        dom = dump_dom(page.as_uri(), Path(tmp) / "profile")
    found = OUT.search(dom)
    assert found, dom[-2000:]
    return html.unescape(found.group(1))


def run_in_node(program: str) -> str:
    node = shutil.which("node")
    assert node is not None
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "run.js"
        script.write_text("function emit(t){process.stdout.write(t);}\n" + program, "utf-8")
        result = subprocess.run([node, str(script)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


ENGINES = ["chromium", "node"]


def run_js(program: str, engine: str) -> str:
    """Run in `engine`; node is optional (skipped when absent), Chromium is what CI has."""
    if engine == "node":
        if shutil.which("node") is None:
            pytest.skip("node not installed")
        return run_in_node(program)
    return run_in_chromium(program)
