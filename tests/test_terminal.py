"""The terminal a person meets (issue 36): numbers in the user's language that `--set` reads back, 100 columns,
one language per output, the defaults stated."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from kalkulator.catalog.numbers import NumberFormatError, number, read_number
from kalkulator.cli import main


def _run(*args: str, **env: str):
    result = CliRunner().invoke(main, list(args), env={"KALKULATOR_LANG": "", "LANG": "C.UTF-8", **env})
    assert result.exit_code == 0, result.output
    return result


def _row(text: str, name: str) -> str:
    """The value and unit the table shows for `name` (the columns between the label and the name)."""
    lines = text.splitlines()
    k = next(k for k, line in enumerate(lines) if line.endswith(f" {name}"))
    if lines[k].strip() == name:  # a long row: its name alone on the next line
        return lines[k - 1][2 + 42 :].strip()
    return lines[k][2 + 42 : -len(name)].strip()


@pytest.mark.parametrize(
    ("x", "decimals", "lang", "trim", "text"),
    [
        (1234.5, 1, "id", False, "1.234,5"),
        (1234.5, 1, "en", False, "1,234.5"),
        (2.0, 3, "id", True, "2"),  # two seconds, never 2,000 (two thousand to an Indonesian reader)
        (2.0, 3, "id", False, "2,000"),
        (0.1224, 3, "id", True, "0,122"),
        (100_000_000, 0, "id", True, "100.000.000"),
        (15761.789, 2, "id", True, "15.761,79"),
    ],
)
def test_number_in_each_language(x, decimals, lang, trim, text):
    assert number(x, decimals, lang, trim) == text


def test_an_indonesian_command_reads_16_500_the_indonesian_way():
    assert read_number("2.255", lang="id") == 2255.0
    assert read_number("16,500", lang="id") == 16.5
    with pytest.raises(NumberFormatError):  # no language declared: still refused with both readings
        read_number("2.255")


def test_hitung_in_indonesian_prints_indonesian_numbers_that_read_back():
    text = _run("hitung", "--lang", "id").stdout
    # The default chat scenario: a 2 s TTFT target, 1000 prompt tokens, an RTX 4090 at 2255 USD, 10^8 tokens a month.
    assert _row(text, "sla_ttft_s") == "2 detik"
    assert _row(text, "prompt_tokens") == "1.000 token"
    assert _row(text, "gpu_price_usd") == "2.255 USD"
    assert _row(text, "tokens_per_month") == "100.000.000 token/bulan"
    assert "(454 besaran lain: kalkulator hitung --full, atau --json)" in text or "atau --json)" in text
    for words in ("more quantities", "Published measurements", "measured ", " or --json"):
        assert words not in text
    expected = {"sla_ttft_s": 2.0, "prompt_tokens": 1000.0, "gpu_price_usd": 2255.0, "tokens_per_month": 1e8}
    for name, value in expected.items():
        printed = _row(text, name).split()[0]
        back = json.loads(_run("hitung", "--lang", "id", "--json", "--set", f"{name}={printed}").stdout)
        assert back[name] == value


def test_a_decimal_target_prints_with_a_comma_and_reads_back_under_id():
    text = _run("hitung", "--lang", "id", "--set", "sla_ttft_s=1,5").stdout
    assert _row(text, "sla_ttft_s") == "1,500 detik"  # three decimals, as the workbook shows a target
    back = json.loads(_run("hitung", "--lang", "id", "--json", "--set", "sla_ttft_s=1,500").stdout)
    assert back["sla_ttft_s"] == 1.5


def test_english_output_has_english_words_and_singulars():
    text = _run("hitung", "--lang", "en").stdout
    assert _row(text, "n_gpus") == "1 GPU" and _row(text, "answer_servers_needed") == "1 server"
    assert _row(text, "gpu_price_usd") == "2,255 USD"
    assert "kolom" not in text and "master column" in text
    assert "(454 more quantities" in text or "more quantities: kalkulator hitung --full, or --json)" in text


def test_what_if_table_in_indonesian():
    text = _run("hitung", "--lang", "id", "--what-if").stdout
    table = text[text.index("Bagaimana jika") :]
    assert "masukan" in table and "turun" in table and "naik" in table
    for words in ("What if", " input ", " down", "no break-even", "by effect on"):
        assert words not in table
    # A cost per 1M tokens with two decimals written the Indonesian way: 12.345,67.
    assert re.search(r"\d{1,3}(\.\d{3})*,\d\d ", table)


def test_no_arguments_states_the_defaults():
    assert "defaults: RTX 4090 24GB, Llama-3.1-8B" in _run("hitung", "--lang", "en").stderr
    assert "bawaan: RTX 4090 24GB, Llama-3.1-8B" in _run("hitung", "--lang", "id").stderr
    assert "defaults" not in _run("hitung", "--lang", "en", "--gpu", "RTX 3090 24GB").stderr


@pytest.mark.parametrize("lang", ["id", "en"])
def test_hitung_fits_100_columns(lang):
    for args, columns in ((["hitung"], 100), (["hitung", "--what-if"], 100), (["hitung", "--full", "--what-if"], 80)):
        result = _run(*args, "--lang", lang, COLUMNS=str(columns))
        for line in (result.stdout + result.stderr).splitlines():
            assert len(line) <= columns, line
    wide = _run("hitung", "--lang", lang, "--wide", COLUMNS="100").stdout
    assert max(len(line) for line in wide.splitlines()) > 100  # --wide: the whole table, whatever the width


def test_list_numbers_in_indonesian():
    text = _run("list", "gpus", "--lang", "id").stdout
    line = next(line for line in text.splitlines() if line.startswith("RTX 3060 12GB"))
    assert "360,0" in line.split()  # 360 GB/s of memory bandwidth, one decimal place as in the catalog list


def test_simulate_takes_the_same_default_language_as_hitung():
    args = ("simulate", "--no-wait", "--output-tokens", "20")
    plain = _run(*args, LANG="C.UTF-8").stdout
    assert plain == _run(*args, "--lang", "en").stdout != _run(*args, "--lang", "id").stdout
    assert _run(*args, KALKULATOR_LANG="id").stdout == _run(*args, "--lang", "id").stdout


@pytest.mark.parametrize(("lang", "reason"), [("en", "does not fit in VRAM"), ("id", "tidak muat di VRAM")])
def test_a_setup_that_does_not_fit_shows_no_speed_or_fleet(lang, reason):
    # 405B parameters at 8 bits are about 405 GB of weights: far more than one H100's 80 GB.
    text = _run("hitung", "--model", "Llama-3.1-405B", "--gpu", "H100 SXM 80GB", "--quant", "FP8", "--engine", "vllm",
                "--lang", lang).stdout  # fmt: skip
    for name in ("decode_tok_s", "ttft_s", "tpot_ms", "gpus_needed", "servers_needed", "sla_max_concurrent_users"):
        name = f"answer_{name}"  # the answer block shows the guarded answers
        assert _row(text, name).endswith(reason)  # (a label over 42 characters pushes the value right)


def test_the_readme_batch_example_runs_on_the_shipped_file():
    root = Path(__file__).resolve().parent.parent
    line = "kalkulator hitung --scenarios examples/scenarios.csv [--json] [--out rows.csv]"
    assert line in (root / "README.md").read_text(encoding="utf-8")
    assert line in (root / "docs" / "cli.md").read_text(encoding="utf-8")
    result = CliRunner().invoke(main, ["hitung", "--scenarios", str(root / "examples" / "scenarios.csv"), "--json"])
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    # The file's three rows, as typed: GPU, model, format, engine and users.
    assert [(r["gpu_name"], r["quant_name"], r["engine"], r["concurrent_users"]) for r in rows] == [
        ("RTX 4090 24GB", "Q4_K_M", "llama.cpp", 1),
        ("L40S 48GB", "FP8", "vllm", 16),
        ("H100 SXM 80GB", "FP8", "vllm", 8),
    ]


def test_simulate_says_its_ttft_is_an_idle_replica_in_the_users_language():
    args = ("simulate", "--no-wait", "--output-tokens", "10")
    english, indonesian = _run(*args, "--lang", "en").stderr, _run(*args, "--lang", "id").stderr
    flat = {text: " ".join(text.split()) for text in (english, indonesian)}  # the title wraps within 100 columns
    assert "idle replica, no queue" in flat[english] and "predicted" in english
    assert "replika menganggur, tanpa antrean" in flat[indonesian]
    for words in ("predicted", "measured", "per user", "nothing was timed", "idle"):
        assert words not in indonesian
    # Ten tokens under Indonesian: the prompt of 1000 tokens reads 1.000, the tokens row 10.
    assert "prompt 1.000 token" in indonesian and re.search(r"\ntoken\s+10\s", indonesian)
    for line in (english + indonesian).splitlines():
        assert len(line) <= 100, line


def test_the_engine_follows_a_format_only_one_engine_runs():
    # EXL2 is ExLlamaV2's own format (engine_support.csv lists no other engine for it).
    result = _run("hitung", "--gpu", "RTX 4090 24GB", "--quant", "EXL2-4.0bpw", "--json")
    assert json.loads(result.stdout)["engine"] == "exllamav2" and "exllamav2" in result.stderr
    # FP8 runs on vLLM, SGLang and TensorRT-LLM: nothing is chosen, the note names them.
    result = _run("hitung", "--gpu", "L40S 48GB", "--quant", "FP8", "--lang", "en")
    note = " ".join(result.stderr.split())
    assert "llama.cpp does not run FP8; engines that do on this GPU: vllm" in note and "--engine vllm" in note
    typed = _run("hitung", "--gpu", "L40S 48GB", "--quant", "FP8", "--engine", "vllm", "--json")
    assert "engines that do" not in typed.stderr


@pytest.mark.parametrize("what", ["gpus", "models"])
@pytest.mark.parametrize("lang", ["id", "en"])
def test_list_fits_100_columns(what, lang):
    lines = _run("list", what, "--lang", lang, COLUMNS="100").stdout.splitlines()
    assert all(len(line) <= 100 for line in lines), max(lines, key=len)
    assert any(line.startswith("RTX 4090 24GB ") or line.startswith("Llama-3.1-8B ") for line in lines)
    wide = _run("list", what, "--lang", lang, "--wide", COLUMNS="100").stdout.splitlines()
    assert max(len(line) for line in wide) > 100  # one header line, as wide as the headers make it


def test_list_json_gives_the_names_set_takes():
    """`list gpus --json` keys are the CSV's; under "set" the same numbers carry the names `--set` and `hitung --json`
    use (mem_bandwidth_gbs → gpu_mem_bandwidth_gbs), so a row can be typed back as settings."""
    rows = [json.loads(line) for line in _run("list", "gpus", "--json").stdout.splitlines()]
    row = next(r for r in rows if r["name"] == "RTX 4090 24GB")
    assert row["set"]["gpu_mem_bandwidth_gbs"] == row["mem_bandwidth_gbs"] == 1008  # NVIDIA's 4090 spec: 1,008 GB/s
    answer = json.loads(_run("hitung", "--gpu", "RTX 4090 24GB", "--json").stdout)
    assert {k: answer[k] for k in row["set"]} == row["set"]
