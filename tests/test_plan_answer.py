"""`kalkulator plan`'s first screen: the answer in words, in the user's language, within 100 columns; each option's
launch command carries the flags its numbers assume."""

from __future__ import annotations

import json
import re
import shlex

import pytest
from click.testing import CliRunner

from kalkulator.cli import main
from kalkulator.scenario import compute

CHAT_70B = ("--model", "Llama-3.3-70B", "--set", "peak_concurrent_users=500")


def run(*args: str, env: dict | None = None):
    return CliRunner().invoke(main, list(args), env={"COLUMNS": "", **(env or {})})


@pytest.mark.parametrize(
    ("lang", "demand", "cheapest", "api"),
    [
        ("en", "Demand sized: ", "Cheapest that meets the targets: ", "The same model by API ("),
        ("id", "Kebutuhan yang dipakai: ", "Termurah yang memenuhi target: ", "Model yang sama lewat API ("),
    ],
)
def test_the_first_lines_answer_in_the_users_language_within_100_columns(lang, demand, cheapest, api):
    result = run("plan", *CHAT_70B, "--lang", lang)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    first = "\n".join(lines[:15])
    assert first.startswith(demand) and cheapest in first and api in first
    assert "Rp " in first and ("/month" in first if lang == "en" else "/bulan" in first)
    assert max(map(len, lines)) <= 100, max(lines, key=len)
    # 500 users × 10 requests an hour × 12 active hours ÷ a peak 2× the average = 30,000 requests a day (the chat
    # preset's pace); printed in the language's digit grouping.
    assert ("30,000 requests a day" if lang == "en" else "30.000 permintaan per hari") in first
    # The same model's API, in the table too (the 70B's DeepInfra row).
    assert "DeepInfra Llama-3.3-70B" in first


def test_the_width_follows_the_terminal():
    result = run("plan", *CHAT_70B, env={"COLUMNS": "80"})
    assert result.exit_code == 0 and max(map(len, result.output.splitlines())) <= 80


def test_the_cheapest_option_a_limit_left_out_is_named():
    result = run("plan", *CHAT_70B, "--modes", "buy,colocation")
    assert result.exit_code == 0, result.output
    first = " ".join(result.output.splitlines()[:15])
    assert "Without your limits the cheapest would be the API DeepInfra Llama-3.3-70B Turbo" in first
    assert "(left out: mode not asked for (--modes))" in first


def _flag(argv: list[str], name: str) -> str:
    return argv[argv.index(name) + 1]


def test_each_launch_command_parses_and_carries_the_options_tp_context_and_batch():
    out = json.loads(run("plan", *CHAT_70B, "--json", "--unmeasured", "with").stdout)
    checked = set()
    for o in out["options"]:
        if o["mode"] == "api" or o["engine"] in checked or not o["launch"]:
            continue
        checked.add(o["engine"])
        argv = shlex.split(o["launch"])
        values = compute(o["hitung_settings"])
        context, batch = int(values["context_tokens"]), int(values["serving_batch_users"])
        if o["engine"] == "llama.cpp":
            assert argv[0] == "llama-server" and _flag(argv, "-ngl") == "99"
            slots = int(_flag(argv, "-np"))
            assert slots == min(batch, int(values["engine_max_batch_users"]))
            assert int(_flag(argv, "-c")) == context * slots  # llama-server shares -c among its slots
            assert re.fullmatch(r".+-" + re.escape(o["quant_name"]) + r"\.gguf", _flag(argv, "-m"))
        elif o["engine"] == "vllm":
            assert argv[:2] == ["vllm", "serve"]
            parallel = "--tensor-parallel-size" if o["split_mode"] == "tensor" else "--pipeline-parallel-size"
            assert int(_flag(argv, parallel)) == o["n_gpus"]
            assert int(_flag(argv, "--max-num-seqs")) == batch
            assert int(_flag(argv, "--max-model-len")) == context
            assert 0.5 <= float(_flag(argv, "--gpu-memory-utilization")) <= 0.95
    assert {"llama.cpp", "vllm"} <= checked


def test_the_caveats_are_in_the_answers_language():
    """plan evaluates in English; under --lang id each caveat shows its check's own Indonesian words."""
    from kalkulator.cli.plan_answer import caveat_words

    assert caveat_words("old prices", "id") == "harga lama"  # checks.py: Msg("harga lama", "old prices")
    assert caveat_words("old prices", "en") == "old prices"
    assert caveat_words("not a check's words", "id") == "not a check's words"


def test_the_details_notes_are_in_the_answers_language():
    """The full status sentence under each row of --details is evaluated again in the user's language: the old
    prices check says "Harga katalog lebih tua dari 12 bulan" (its Indonesian Msg in checks.py) under --lang id."""
    args = ("plan", "--model", "Llama-3.1-8B", "--details", "--top", "8")
    notes = [line.strip() for line in run(*args, "--lang", "en").output.splitlines() if "note: " in line]
    assert any("older than 12 months" in n for n in notes)
    catatan = [line.strip() for line in run(*args, "--lang", "id").output.splitlines() if "catatan: " in line]
    assert any("lebih tua dari 12 bulan" in n for n in catatan)
    assert not any("older than" in n or "check them" in n for n in catatan)
