"""README examples are tests: every `kalkulator hitung`/`list` line of the README runs and succeeds."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from kalkulator.cli import main

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _examples() -> list[list[str]]:
    joined = re.sub(r"\\\n\s*", " ", README)
    commands = []
    for line in joined.splitlines():
        line = line.split("#")[0].strip()
        if line.startswith("kalkulator hitung --model"):
            commands.append(shlex.split(line)[1:])
    return commands


@pytest.mark.parametrize("args", _examples(), ids=" ".join)
def test_readme_hitung_examples_run(args):
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output


def test_readme_has_examples_and_quick_start():
    assert len(_examples()) >= 2
    assert "pip install -e . && kalkulator build" in README
    assert "pip install -e '.[test]' && python -m pytest" in README
    assert "pip install -e '.[test]' && python -m pytest" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_ruff_clean():
    result = subprocess.run([sys.executable, "-m", "ruff", "check", str(ROOT)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--check", str(ROOT)], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr
