"""The `kalkulator` command line: JSON contract, --set, CSV batches and clear errors."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from click.testing import CliRunner

from kalkulator.cli import main


@pytest.fixture()
def run():
    def invoke(*args: str):
        return CliRunner().invoke(main, list(args))

    return invoke


def test_hitung_json_has_contract_names_and_hand_checked_values(run):
    result = run(
        "hitung",
        "--model",
        "Llama-3.1-8B",
        "--gpu",
        "RTX 4090 24GB",
        "--quant",
        "Q4_K_M",
        "--json",
        "--set",
        "context_tokens=8192",
        "--set",
        "concurrent_users=2",
    )
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["weights_gb"] == pytest.approx(8.03 * 4.8944 / 8, rel=1e-12)
    # Llama-3.1-8B: 32 layers × 8 KV heads × 128 × K and V × 2 bytes (F16) × 8192 tokens.
    assert out["kv_cache_gb_per_user"] == pytest.approx(2 * 32 * 8 * 128 * 2 * 8192 / 1e9, rel=1e-12)
    assert out["kv_cache_gb"] == pytest.approx(2 * out["kv_cache_gb_per_user"], rel=1e-12)
    assert out["fits_in_vram"] is True
    assert out["gpu_name"] == "RTX 4090 24GB"
    assert "gpu_row" not in out


def test_hitung_table_is_readable(run):
    result = run("hitung", "--model", "Qwen2.5-7B", "--gpu", "L4 24GB", "--quant", "Q8_0")
    assert result.exit_code == 0, result.output
    assert "Tok/s per user (realistic)" in result.stdout and "decode_tok_s" in result.stdout


@pytest.mark.parametrize(
    ("model", "gpu", "quant", "lang", "word", "json_value"),
    [
        # 1.24 B parameters × 4.8944 bits / 8 = 0.76 GB of weights on a 141 GB H200: fits.
        ("Llama-3.2-1B", "H200 SXM 141GB", "Q4_K_M", "id", "ya", True),
        ("Llama-3.2-1B", "H200 SXM 141GB", "Q4_K_M", "en", "yes", True),
        # 405.85 B parameters × 16 bits / 8 = 811.7 GB of weights on a 12 GB RTX 3060: does not fit.
        ("Llama-3.1-405B", "RTX 3060 12GB", "F16", "id", "tidak", False),
        ("Llama-3.1-405B", "RTX 3060 12GB", "F16", "en", "no", False),
    ],
)
def test_hitung_table_says_yes_or_no_in_its_language_and_json_keeps_booleans(
    run, model, gpu, quant, lang, word, json_value
):
    choice = ("--model", model, "--gpu", gpu, "--quant", quant)
    table = run("hitung", *choice, "--lang", lang).stdout
    line = next(line for line in table.splitlines() if line.endswith(" fits_in_vram"))
    assert line.split()[-2] == word
    assert "True" not in table and "False" not in table
    assert json.loads(run("hitung", *choice, "--json").stdout)["fits_in_vram"] is json_value


def test_hitung_prints_the_answer_block_first_and_everything_with_full(run):
    short = run("hitung").stdout
    lines = short.splitlines()
    assert lines[0] == "DECISION" and "verdict_text" in lines[1]  # the verdict first, then money, status, speed
    choices = lines.index("SUMMARY: main choices")
    assert lines.index("SUMMARY: answers") > choices
    assert "gpu_price_usd" in lines[choices + 2] and "gpu_name" in lines[choices + 1]  # the price under the GPU
    assert any("answer_breakeven_months" in line for line in lines[:choices])
    verdict = " ".join(" ".join(lines[1:choices]).split())
    assert "For this workload (100.0 million tokens/month), the API" in verdict
    assert "ridge_flop_per_byte" not in short and "--full" in lines[-1]
    full = run("hitung", "--full").stdout
    assert full.startswith(short.rsplit("\n(", 1)[0])  # the same block first
    assert "ridge_flop_per_byte" in full and full.count("answer_breakeven_months") == 1


def test_names_are_matched_case_insensitively(run):
    result = run("hitung", "--gpu", "rtx 4090 24gb", "--json")
    assert json.loads(result.stdout)["gpu_name"] == "RTX 4090 24GB"


def test_unknown_gpu_lists_closest_matches(run):
    result = run("hitung", "--gpu", "RTX 4090")
    assert result.exit_code == 2
    assert "gpu_name: 'RTX 4090' is not in the gpu catalog" in result.stderr
    assert "RTX 4090 24GB" in result.stderr
    assert "gpu_mem_bandwidth_gbs" in result.stderr  # how to describe it by numbers instead
    assert result.stdout == ""


def test_custom_gpu_by_numbers(run):
    result = run(
        "hitung",
        "--gpu",
        "My Accelerator",
        "--json",
        "--set",
        "gpu_mem_bandwidth_gbs=2000",
        "--set",
        "gpu_vram_gib=64",
        "--set",
        "gpu_fp16_tflops=400",
        "--set",
        "gpu_fp32_tflops=100",
        "--set",
        "gpu_tdp_w=500",
        "--set",
        "gpu_backend=cuda",
        "--set",
        "gpu_memory_type=gddr",
        "--set",
        "context_tokens=0",
        "--set",
        "decode_efficiency_frac=1",
        "--set",
        "decode_layer_overhead_ms=0",
    )
    assert result.exit_code == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["gpu_name"] == "My Accelerator"
    assert out["decode_tok_s"] == pytest.approx(2000 / (8.03 * 4.8944 / 8), rel=1e-9)


def test_unknown_set_name_suggests(run):
    result = run("hitung", "--set", "context_token=100")
    assert result.exit_code == 2
    assert "unknown name 'context_token'" in result.stderr and "context_tokens" in result.stderr


@pytest.mark.parametrize(
    ("item", "message"),
    [
        ("context_tokens=lots", "--set context_tokens: context_tokens needs a number"),
        ("n_gpus=-1", "n_gpus must be a whole number from 1 to 1,024, got"),
        ("split_mode=diagonal", "split_mode must be one of auto, layer, tensor"),
        ("context_tokens", "expected NAME=VALUE"),
    ],
)
def test_bad_set_values(run, item, message):
    result = run("hitung", "--set", item)
    assert result.exit_code == 2
    assert message in result.stderr


def test_scenarios_csv(run, tmp_path):
    path = tmp_path / "in.csv"
    path.write_text(
        "gpu_name,model_name,quant_name,context_tokens\n"
        "H100 SXM 80GB,Llama-3.1-70B,FP8,\n"
        "RTX 4090 24GB,Llama-3.1-8B,Q4_K_M,2048\n",
        encoding="utf-8",
    )
    result = run("hitung", "--scenarios", str(path), "--json")
    assert result.exit_code == 0, result.stderr
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["gpu_name"] for r in rows] == ["H100 SXM 80GB", "RTX 4090 24GB"]
    assert rows[0]["context_tokens"] == 1000 + 500  # blank → default: prompt + output tokens
    assert rows[1]["kv_cache_gb_per_user"] == pytest.approx(2 * 32 * 8 * 128 * 2 * 2048 / 1e9, rel=1e-12)
    csv_result = run("hitung", "--scenarios", str(path))
    header, *lines = csv_result.stdout.splitlines()
    assert "decode_tok_s" in header.split(",") and len(lines) == 2


def test_scenarios_csv_errors_name_row_and_column(run, tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("gpu_name,context_tokens\nRTX 4090 24GB,8k\n", encoding="utf-8")
    result = run("hitung", "--scenarios", str(path))
    assert result.exit_code == 2
    assert f"{path}:2:context_tokens: context_tokens needs a number" in result.stderr
    path.write_text("gpu_nam\nRTX 4090 24GB\n", encoding="utf-8")
    result = run("hitung", "--scenarios", str(path))
    assert f"{path}:1:gpu_nam: unknown name 'gpu_nam'" in result.stderr


def test_list_commands(run):
    gpus = [line.split("  ")[0] for line in run("list", "gpus").stdout.splitlines()]
    assert "H200 SXM 141GB" in gpus and len(gpus) >= 60
    names = run("list", "names").stdout
    assert "decode_tok_s" in names and "formula, settable" in names


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--engine", "vlm"], "engine: 'vlm' is not in the engine catalog. Closest: vllm"),
        (["--engine", "vlm", "--set", "engine_max_batch_users=4"], "serving_serial_frac"),  # speeds too
        (["--set", "gpu_backend=quantum"], "gpu_backend must be one of cuda, rocm, metal, vulkan, sycl, hpu, cpu"),
        (["--set", "gpu_row=50"], "gpu_row is computed and cannot be set"),
        (["--set", "n_gpus=2.5"], "n_gpus must be a whole number from 1 to 1,024"),
        (["--set", "model_params_b=1e308"], "model_params_b must be from 0 (exclusive) to 100,000"),
        (["--set", "cpu_offload_frac=2"], "cpu_offload_frac must be from 0 to 1 (a share: 0.7 or 70% means 70 %)"),
        (["--set", "residual_pct=150"], "residual_pct must be from 0 to 100"),
        (["--set", "lifetime_years=0"], "lifetime_years must be from 0 (exclusive) to 50"),
        (["--set", "pue=0.5"], "pue must be from 1 to 5"),
        (["--set", "idle_power_frac=5"], "idle_power_frac must be from 0 to 1"),
        (["--set", "concurrent_users=0"], "concurrent_users must be from 1 to"),
        (["--set", "context_tokens=1000000"], "exceeds the model's maximum context (model_max_context_tokens)"),
        (["--set", "prompt_tokens=100000", "--set", "context_tokens=100"], "is shorter than the prompt + output"),
    ],
)
def test_inputs_that_cannot_lie(run, args, message):
    result = run("hitung", *args)
    assert result.exit_code == 2, result.stdout
    assert result.stderr.startswith("error: ") and message in result.stderr
    assert result.stdout == ""


def test_list_prices_gives_each_price_its_age_and_stale_lists_what_to_refresh(run):
    rows = [json.loads(line) for line in run("list", "prices", "--json", "--on", "2026-12-03").stdout.splitlines()]
    h20 = next(r for r in rows if r["catalog"] == "gpu" and r["name"] == "H20 96GB")
    # as_of 2024-01-09 to 2026-12-03 in months of 30.42 days (DESIGN.md)
    days = (dt.date(2026, 12, 3) - dt.date(2024, 1, 9)).days
    assert h20["age_months"] == round(days / 30.42, 1) and h20["price"] == 13500 and h20["unit"] == "USD"
    ages = [r["age_months"] for r in rows]
    assert ages == sorted(ages, reverse=True)  # oldest first
    stale = [
        json.loads(line)
        for line in run("list", "prices", "--json", "--stale", "--on", "2026-12-03").stdout.splitlines()
    ]
    assert stale and all(r["age_months"] > 12 for r in stale)
    assert {"gpu", "api", "cloud", "hosting", "board"} >= {r["catalog"] for r in rows}
    names = {(r["catalog"], r["name"]) for r in stale}
    assert ("gpu", "B300 288GB") not in names and ("gpu", "H20 96GB") in names  # as_of 2026-01-15 vs 2024-01-09
    # a GPU with a street price is listed at it, dated by street_as_of: the RTX 5090 at $3,200 from 2026-06-22
    rtx5090 = next(r for r in rows if r["catalog"] == "gpu" and r["name"] == "RTX 5090 32GB")
    assert (rtx5090["price"], rtx5090["as_of"]) == (3200, "2026-06-22") and ("gpu", "RTX 5090 32GB") not in names
    table = run("list", "prices", "--stale", "--on", "2026-12-03", "--wide").stdout.splitlines()
    assert table[0].split() == ["Catalog", "Name", "Price", "Unit", "As", "of", "Age", "(months)"]
    assert len(table) == len(stale) + 1
