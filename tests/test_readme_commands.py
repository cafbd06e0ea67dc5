"""Every `kalkulator …` command line of README.md and docs/cli.md runs as written against shipped files (issue 36).

Optional parts in brackets are left out, `a | b | c` alternatives each run; the lines that need a file that cannot
ship (a user's GGUF or config.json) or that rewrite the shipped catalogs and dist/ are listed in SKIPPED with why,
and the long ones (plan, build, verify, accuracy) run in the slow tier.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from kalkulator.cli import main

ROOT = Path(__file__).resolve().parent.parent
DOCS = (ROOT / "README.md", ROOT / "docs" / "cli.md")
# Command lines that cannot run from a fresh clone as written, by their first words.
SKIPPED = {
    "hitung --config path/to/config.json": "a user's Hugging Face config.json (tests/test_import.py uses fixtures)",
    "hitung --gguf model.gguf": "a user's GGUF file (tests/test_import.py builds one)",
    "model add": "appends to the shipped assumptions/models.csv and needs a user's file",
    "calibrate": "rewrites the shipped speed_params.csv (tests/test_calibration.py runs it on a copy)",
    "build": "rewrites dist/ (tests/test_apps.py builds to a temporary folder)",
    "preview": "writes dist/preview.html (tests/test_preview.py writes to a temporary folder)",
}
SLOW = ("plan", "verify", "accuracy", "simulate")  # simulate streams in real time


def _lines() -> list[str]:
    """The distinct command lines of the two documents, comments and optional [brackets] removed."""
    found: list[str] = []
    for doc in DOCS:
        for line in doc.read_text(encoding="utf-8").splitlines():
            if not line.startswith("kalkulator "):
                continue
            command = re.sub(r"\s+#\s.*$", "", line)  # the comment after the command
            command = re.sub(r"\s*\[[^\]]*\]", "", command).strip()
            if command not in found:
                found.append(command)
    return found


def _runs(line: str) -> list[list[str]]:
    """The argument lists a line stands for: `list a | b` is one run per alternative."""
    words = shlex.split(line)[1:]
    if "|" not in words:
        return [words]
    first = words.index("|") - 1
    alternatives = [w for w in words[first:] if w != "|"]
    return [[*words[:first], alt] for alt in alternatives]


CASES = [
    pytest.param(
        args,
        id=" ".join(args)[:60],
        marks=[pytest.mark.slow] if args[0] in SLOW else [],
    )
    for line in _lines()
    if not any(line.startswith(f"kalkulator {skip}") for skip in SKIPPED)
    for args in _runs(line)
]


def test_the_documents_list_commands_and_the_skips_are_real():
    lines = _lines()
    assert len(CASES) >= 20  # hitung ×7, plan ×2, list ×11, simulate, verify, accuracy
    for skip in SKIPPED:
        assert any(line.startswith(f"kalkulator {skip}") for line in lines), skip


@pytest.mark.parametrize("args", CASES)
def test_every_documented_command_runs(args, monkeypatch):
    monkeypatch.chdir(ROOT)  # the documents name shipped files relative to the clone
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, f"kalkulator {shlex.join(args)}\n{result.output}"
    assert result.stdout.strip() or result.stderr.strip()
