"""Scenario batches: checked whole before anything is written, evaluated as arrays in chunks, each row equal to
`hitung --json` of the same scenario, the --out file only ever complete."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from kalkulator.cli import main
from kalkulator.scenario import batch

ROWS = (
    "gpu_name,model_name,quant_name,concurrent_users,context_tokens,decode_tok_s\n"
    "H100 SXM 80GB,Llama-3.1-70B,FP8,16,,\n"
    "RTX 4090 24GB,Llama-3.1-8B,Q4_K_M,,2048,151\n"
    "L40S 48GB,Qwen2.5-7B,Q8_0,4,8192,\n"
)


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def test_each_row_equals_hitung_of_that_scenario(tmp_path, monkeypatch):
    monkeypatch.setattr(batch, "CHUNK_ROWS", 2)  # two chunks: 2 rows, then 1
    path = tmp_path / "in.csv"
    path.write_text(ROWS, encoding="utf-8")
    result = run("hitung", "--scenarios", str(path), "--json")
    assert result.exit_code == 0, result.stderr
    got = [json.loads(line) for line in result.stdout.splitlines()]
    singles = [
        ["--gpu", "H100 SXM 80GB", "--model", "Llama-3.1-70B", "--quant", "FP8", "--set", "concurrent_users=16"],
        ["--gpu", "RTX 4090 24GB", "--model", "Llama-3.1-8B", "--set", "context_tokens=2048"]
        + ["--set", "decode_tok_s=151"],
        ["--gpu", "L40S 48GB", "--model", "Qwen2.5-7B", "--quant", "Q8_0", "--set", "concurrent_users=4"]
        + ["--set", "context_tokens=8192"],
    ]
    for row, args in zip(got, singles, strict=True):
        one = json.loads(run("hitung", *args, "--json").stdout)
        one.pop("measurements")
        assert row.keys() == one.keys()
        assert {k: v for k, v in row.items() if v != one[k]} == {}
    assert got[1]["tpot_ms"] == pytest.approx(1000 / 151, rel=1e-12)  # the measured speed drives TPOT


def test_a_bad_row_far_down_stops_before_any_output(tmp_path):
    path = tmp_path / "long.csv"
    lines = ["gpu_name,context_tokens"] + ["RTX 4090 24GB,4096"] * 5000 + ["RTX 4090 24GB,4k"]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "out.csv"
    result = run("hitung", "--scenarios", str(path), "--out", str(out))
    assert result.exit_code == 2
    assert f"{path}:5002:context_tokens: context_tokens needs a number" in result.stderr
    assert result.stdout == "" and not out.exists() and list(tmp_path.iterdir()) == [path]
    printed = run("hitung", "--scenarios", str(path))
    assert printed.exit_code == 2 and printed.stdout == ""


def test_out_file_is_written_whole(tmp_path, monkeypatch):
    path = tmp_path / "in.csv"
    path.write_text(ROWS, encoding="utf-8")
    out = tmp_path / "out.csv"
    out.write_text("previous", encoding="utf-8")

    def crash(*_args, **_kwargs):
        raise KeyboardInterrupt  # Ctrl-C while the rows are being written

    monkeypatch.setattr(batch, "_public", crash)
    interrupted = run("hitung", "--scenarios", str(path), "--out", str(out))
    assert interrupted.exit_code == 1 and "Aborted" in interrupted.output  # click's answer to Ctrl-C
    assert out.read_text(encoding="utf-8") == "previous"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.csv", "out.csv"]
    monkeypatch.undo()
    result = run("hitung", "--scenarios", str(path), "--out", str(out))
    assert result.exit_code == 0 and result.stdout == ""
    header, *rows = out.read_text(encoding="utf-8").splitlines()
    assert len(rows) == 3 and header.split(",")[:3] == ["gpu_name", "model_name", "quant_name"]


def test_out_needs_scenarios():
    result = run("hitung", "--out", "x.csv")
    assert result.exit_code == 2 and "--out: only with --scenarios" in result.stderr
