"""README examples are tests: every `kalkulator hitung`/`list` line of the README runs and succeeds."""

from __future__ import annotations

import json
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


# What each README example must show, worked by hand from the catalogs' outside figures (config.json parameter
# counts, the GGUF Q4_K_M file's 4.8944 bits per weight, PLN's published tariff): keyed by model and quant.
HAND = {
    ("Llama-3.1-8B", "Q4_K_M"): {"weights_gb": 8.03 * 4.8944 / 8},
    # 70.55 B parameters at 8 bits; F16 KV of the 1,500-token chat context: K and V × 80 layers × 8 KV heads × 128
    # × 2 bytes × 1,500 tokens.
    ("Llama-3.1-70B", "FP8"): {"weights_gb": 70.55, "kv_cache_gb_per_user": 2 * 80 * 8 * 128 * 2 * 1500 / 1e9},
    # A measured 151 tok/s is 1000 / 151 ms per token; PLN I-3/TM costs Rp 1,114.74 per kWh (ESDM, Q1 2026).
    ("Qwen2.5-7B", "Q8_0"): {"tpot_ms": 1000 / 151, "electricity_idr_per_kwh": 1114.74},
}


def _option(args: list[str], name: str) -> str:
    return args[args.index(name) + 1]


@pytest.mark.parametrize("args", _examples(), ids=" ".join)
def test_readme_hitung_examples_run_and_show_the_hand_worked_values(args):
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    expected = HAND[(_option(args, "--model"), _option(args, "--quant"))]
    out = json.loads(
        CliRunner().invoke(main, [a for a in args if a != "--full"] + ["--json"] * ("--json" not in args)).stdout
    )
    assert {k: out[k] for k in expected} == pytest.approx(expected, rel=1e-12)
    assert out["run_check_text"] == "OK"  # the setup serves (a status may still warn, e.g. of an old price)


def test_readme_quick_start_is_what_ci_runs():
    block = README.split("```bash\n", 1)[1].split("```", 1)[0]
    quick_start = [line.split("#")[0].strip() for line in block.splitlines()]
    assert quick_start == ["pip install -e . && kalkulator build", "pip install -e '.[test]' && python -m pytest"]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert ci[-2:] == quick_start  # the CI script ends with the README's two commands, in order


def test_ruff_clean():
    result = subprocess.run([sys.executable, "-m", "ruff", "check", str(ROOT)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--check", str(ROOT)], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr
