"""The speed model's calibration: parameter recovery, agreement with the engine, held-out accuracy, CLI."""

from __future__ import annotations

import csv
import json
import re
import shutil
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from kalkulator.calibration import fit as cal
from kalkulator.catalog import SPEED, load_table
from kalkulator.cli import main
from kalkulator.io.paths import CATALOG_DIR

# Known parameters for synthetic data; the generator below writes the model out by hand.
TRUE = {"eta": 0.9, "eta_hbm": 0.65, "layer_ms": 0.08, "attn_ns": 10.0}
# Llama 3 shapes (32 layers, 8 KV heads of 128 at F16 = 131,072 bytes per token; 80 layers = 327,680 bytes).
MODELS = {"Llama-3.1-8B": (8.03, 32, 131072), "Llama-3.1-70B": (70.6, 80, 327680)}


def framed(rows: list[dict]) -> pd.DataFrame:
    """Synthetic measurement rows as the calibration reads them (catalog models, devices by their figures)."""
    from kalkulator.catalog import load_catalog

    defaults = {
        "backend": "cuda",
        "era": "2025",
        "memory_type": "gddr",
        "mem_bandwidth_gbs": 1e5,
        "fp16_tflops": 1000.0,
        "fp32_tflops": 1000.0,
        "depth": 0,
        "prompt_tokens": 0,
        "gen_tokens": 0,
        "metric": "tg",
    }
    data = pd.DataFrame([defaults | r for r in rows])
    return cal.frame(data, load_catalog())


def synthetic() -> pd.DataFrame:
    rows = []
    devices = [("gddr-a", "gddr", 1000), ("gddr-b", "gddr", 450), ("hbm-a", "hbm", 2000), ("hbm-b", "hbm", 3350)]
    models = [("Llama-3.1-8B", "Q4_0", 4.9e9), ("Llama-3.1-8B", "F16", 16e9), ("Llama-3.1-70B", "Q4_0", 42e9)]
    for device, memory, bandwidth in devices:
        for model, quant, weights in models:
            params_b, layers, kv = MODELS[model]
            for ctx in (64, 512, 4096):
                eta = TRUE["eta_hbm"] if memory == "hbm" else TRUE["eta"]
                seconds = (weights + kv * ctx) / (bandwidth * 1e9 * eta)
                seconds += layers * TRUE["layer_ms"] / 1e3 + layers * ctx * TRUE["attn_ns"] / 1e9
                rows.append(
                    {
                        "device": device,
                        "model": model,
                        "quant": quant,
                        "memory_type": memory,
                        "mem_bandwidth_gbs": bandwidth,  # FP16 1000 TFLOPS: cores enough, the cap never binds
                        "params_b": params_b,
                        "weights_bytes": weights,
                        "gen_tokens": 2 * ctx,
                        "tok_s": 1 / seconds,
                    }
                )
    return framed(rows)


@pytest.mark.slow  # a least-squares fit over a synthetic fleet
def test_fit_recovers_known_parameters():
    p = cal.fit_decode(synthetic())
    assert p.efficiency == pytest.approx(TRUE["eta"], rel=1e-4)
    assert p.efficiency_hbm == pytest.approx(TRUE["eta_hbm"], rel=1e-4)
    assert p.layer_overhead_ms == pytest.approx(TRUE["layer_ms"], rel=1e-3)
    assert p.attention_ns == pytest.approx(TRUE["attn_ns"], rel=1e-3)


def test_fit_recovers_the_super_block_work_ratio():
    # Apple-like chips whose cores cap decode: effective share = min(0.85, FP16 TFLOPS × 1000 ÷ (35 FLOP/byte ×
    # work × GB/s)), work 1 for Q4_0 and F16, 1.5 for Q4_K_M; 8 B-class weights and their KV cache at 64 tokens
    # (131,072 bytes each), 32 layers at 0.1 ms, attention 32 layers × 64 tokens × 10 ns (held: contexts too close).
    rows = []
    for device, tflops, bandwidth in (("m-a", 7.8, 400), ("m-b", 10.4, 400), ("m-c", 27.2, 800), ("m-d", 3.6, 100)):
        for quant, work, weights in (("Q4_0", 1, 4.7e9), ("Q4_K_M", 1.5, 4.9e9), ("F16", 1, 16e9)):
            share = min(0.85, tflops * 1000 / (35 * work * bandwidth))
            seconds = (weights + 131072 * 64) / (bandwidth * 1e9 * share) + 32 * 0.1e-3 + 32 * 64 * 10e-9
            rows.append(
                {
                    "device": device,
                    "backend": "metal",
                    "era": "2024",
                    "model": "Llama-3.1-8B",
                    "quant": quant,
                    "memory_type": "lpddr",
                    "mem_bandwidth_gbs": bandwidth,
                    "fp16_tflops": tflops,
                    "fp32_tflops": tflops,
                    "weights_bytes": weights,
                    "params_b": 8.03,
                    "gen_tokens": 128,
                    "tok_s": 1 / seconds,
                }
            )
    fits = cal.fit_groups(framed(rows))
    p = fits[("metal", "2024")].decode
    assert p.superblock_work == pytest.approx(1.5, rel=1e-3)
    assert p.flop_per_byte == pytest.approx(35, rel=1e-3)
    assert p.efficiency == pytest.approx(0.85, rel=1e-3)


@pytest.mark.slow  # a least-squares fit over a synthetic fleet
def test_one_device_of_a_later_era_tests_the_earlier_decode_fit():
    # The synthetic CUDA 2025 fleet (η 0.9 GDDR, 0.08 ms per layer) plus one "2026" device whose two rows run
    # 20 % slower: one device cannot tell an era from itself, so 2026 decode keeps the 2025 fit, and its rows
    # come out 1 ÷ 1.25 − 1 = −20 % against it.
    base = synthetic()
    late = base[(base["device"] == "gddr-a") & (base["ctx"] == 64)].head(2).copy()
    late["era"] = "2026"
    late["tok_s"] = late["tok_s"] / 1.25
    data = pd.concat([base, late], ignore_index=True)
    fits = cal.fit_groups(data)
    assert fits[("cuda", "2026")].decode == fits[("cuda", "2025")].decode
    assert fits[("cuda", "2026")].donor == "cuda@2025"
    predicted = cal.predict_decode(fits[("cuda", "2026")].decode, late)
    assert late["tok_s"].to_numpy() / predicted - 1 == pytest.approx([-0.2, -0.2], abs=1e-3)


def test_fit_recovers_parameters_from_rows_the_engine_generated():
    # Rows whose speeds the engine itself computed with known parameters, over architectures the old vectorised
    # copy got wrong (sliding-window layers of Gemma 2, a MoE, long contexts): the fit finds them again.
    known = cal.DecodeParams(0.85, 0.7, 0.06, 20.0)
    rows = []
    for device, memory, bandwidth in (("g-a", "gddr", 900), ("g-b", "gddr", 450), ("h-a", "hbm", 2000)):
        for model, params_b, weights in (("Gemma-2-9B", 9.24, 5.8e9), ("Qwen3-30B-A3B", 30.5, 18.6e9)):
            for ctx in (64, 2048, 16384):
                rows.append(
                    {
                        "device": device,
                        "model": model,
                        "quant": "Q4_K_M",
                        "memory_type": memory,
                        "mem_bandwidth_gbs": bandwidth,
                        "params_b": params_b,
                        "weights_bytes": weights,
                        "gen_tokens": 2 * ctx,
                        "tok_s": 1.0,
                    }
                )
    data = framed(rows)
    data["tok_s"] = cal.predict_decode(known, data)
    p = cal.fit_decode(data)
    assert (p.efficiency, p.efficiency_hbm) == pytest.approx((0.85, 0.7), rel=1e-4)
    assert (p.layer_overhead_ms, p.attention_ns) == pytest.approx((0.06, 20.0), rel=1e-3)


@pytest.mark.slow
def test_held_out_residuals_vanish_on_exact_data():
    report = cal.calibrate(synthetic())
    assert report.held_out.all()
    assert np.abs(report.residual).max() < 1e-3  # least squares with the cores-cap parameter free


def test_engine_uses_the_same_decode_model(calc):
    # One synthetic row through the workbook formulas: weights 16 GB, Llama-3-8B shape, 4096 tokens of context.
    data = synthetic()
    row = data[(data["device"] == "gddr-b") & (data["weights_bytes"] == 16e9) & (data["ctx"] == 4096)]
    out = calc(
        model_name="Llama-3-8B",
        weights_gb=16.0,
        gpu_mem_bandwidth_gbs=450,
        gpu_memory_type="gddr",
        decode_efficiency_frac=TRUE["eta"],
        decode_layer_overhead_ms=TRUE["layer_ms"],
        decode_attention_ns=TRUE["attn_ns"],
        context_tokens=4096,
        concurrent_users=1,
        kv_cache_type="F16",
        gpu_fp16_tflops=100,
    )
    assert out["decode_tok_s"] == pytest.approx(row["tok_s"].iloc[0], rel=1e-9)


@pytest.fixture(scope="module")
def shipped_report():
    from kalkulator.catalog import load_catalog

    catalog = load_catalog()
    return cal.shipped_report(catalog)  # the accuracy command's test below reuses it


def test_run_spread_from_the_notes():
    notes = pd.Series(["mean of 3 runs (runs: 4.09, 2.89, 2.67); build 1691", "llama-bench avg", None])
    spread = cal.run_spread(notes)
    # (4.09 − 2.67) ÷ ((4.09 + 2.89 + 2.67) ÷ 3) = 1.42 ÷ 3.21667
    assert spread.tolist() == pytest.approx([1.42 / 3.216666666666667, 0.0, 0.0])


def test_unsteady_measurements_are_left_out():
    from kalkulator.catalog import load_catalog

    catalog = load_catalog()
    data = cal.load_shipped(catalog)
    # The M3 CPU-only decode runs of a 12.55 GiB model on 16 GB (runs 4.09/2.89/2.67 and 4.03/4.08/2.73 tok/s:
    # spreads 44 % and 37 %) cannot score a model to 20 %; the M1 Max CPU-only runs (4.49/4.33/4.49) stay.
    cpu = data[(data["backend"] == "cpu") & (data["metric"] == "tg")]
    assert not cpu["device"].str.startswith("Apple M3 24GB").any() and not cpu.empty
    assert data.attrs["unsteady_rows"] >= 2


def test_vendor_measurements_load_and_map_to_catalog_gpus():
    """measured_vendors.csv (AMD and Intel GPUs, and an RTX 3090 on Vulkan): every row cites its source and date,
    names its backend and GGUF size, and its device is a catalog GPU; the loader keeps each backend apart."""
    from kalkulator.catalog import load_catalog

    catalog = load_catalog()
    folder = cal.CALIBRATION_DIR
    assert ("measured_vendors.csv", "2025") in cal.SOURCES
    with open(folder / "devices.csv", encoding="utf-8") as f:
        to_catalog = {r["hardware"]: r["catalog_gpu"] for r in csv.DictReader(f)}
    with open(folder / "measured_vendors.csv", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        assert r["source_repo_or_url"].startswith("https://github.com/") and r["as_of"][:2] == "20", r
        assert re.search(r"backend=(ROCm|Vulkan|SYCL)\b", r["notes"]) and re.search(r"[\d.]+ GiB", r["notes"]), r
        assert catalog["gpu"].find(to_catalog[r["hardware"]]) is not None, r["hardware"]
    data = cal.load_shipped(catalog)
    vendors = data[data["backend"].isin(["rocm", "vulkan", "sycl"])]
    devices = vendors[vendors["metric"] == "tg"].groupby("group")["device"].unique().map(sorted).to_dict()
    assert devices == {
        "rocm": ["RX 7900 XTX 24GB", "RX 9070 XT 16GB"],
        "rocm.gcn-cdna": ["Instinct MI50 32GB"],
        "sycl": ["Arc B580 12GB"],
        "sycl.alchemist": ["Arc A770 16GB"],
        "vulkan": ["RTX 3090 24GB", "RX 9070 XT 16GB"],
        "vulkan.arc": ["Arc A770 16GB", "Arc B580 12GB"],
    }
    # Single-stream decode reads the weights once per token: the published figures imply a share of the catalog
    # bandwidth below 1 (RX 9070 XT, Qwen3-8B Q4_K_M 4.68 GiB at 91.1 tok/s on HIP: 458 GB/s of 640 = 0.72).
    tg = vendors[vendors["metric"] == "tg"]
    share = tg["tok_s"] * tg["weights_bytes"] / (tg["mem_bandwidth_gbs"] * 1e9)
    families = tg["group"].str.contains(".", regex=False)
    assert share[~families].between(0.45, 0.95).all()
    hip = tg[(tg["device"] == "RX 9070 XT 16GB") & (tg["backend"] == "rocm") & (tg["model"] == "Qwen3-8B")]
    assert float(share[hip.index].iloc[0]) == pytest.approx(91.1 * 4.68 * 2**30 / 640e9)
    # The families are why they have rows of their own: Arc A770 on Vulkan, Llama-2-7B Q4_0 (3.56 GiB) at 50.9 tok/s,
    # 3.56 × 2^30 × 50.9 ÷ 560e9 = 35 % of its bandwidth; on SYCL at 55 tok/s, 37 %; the MI50s 31–62 %. Arc on
    # Vulkan under Windows (llama.cpp PR #14001, Gemma-2-2B Q4_K_M, 1.59 GiB): the B580 at 126.69 tok/s,
    # 1.59 × 2^30 × 126.69 ÷ 456e9 = 47 %, where the RTX 3090 and RX 9070 XT reach 68–87 %.
    assert share[families].between(0.25, 0.65).all()
    a770 = tg[(tg["device"] == "Arc A770 16GB") & (tg["backend"] == "vulkan") & (tg["model"] == "Llama-2-7B")]
    assert float(share[a770.index].iloc[0]) == pytest.approx(3.56 * 2**30 * 50.9 / 560e9)
    b580 = tg[(tg["device"] == "Arc B580 12GB") & (tg["backend"] == "vulkan")]
    assert float(share[b580.index].iloc[0]) == pytest.approx(1.59 * 2**30 * 126.69 / 456e9)
    assert b580["group"].tolist() == ["vulkan.arc"]
    # The two Instinct MI50s (layer split, llama-bench's default over both cards) run one card at a time in decode:
    # their decode rows are the GCN5/CDNA family's; their prompt rows stay multi-GPU rows, never fitted.
    mi50 = tg[tg["device"] == "Instinct MI50 32GB"]
    assert len(mi50) == 5 and (mi50["n_devices"] == 2).all() and (mi50["split"] == "layer").all()
    multi = cal.load_shipped(catalog, multi_gpu=True)
    mi50_pp = multi[multi["device"] == "Instinct MI50 32GB"]
    assert len(mi50_pp) == 5 and (mi50_pp["metric"] == "pp").all()


@pytest.mark.slow
def test_held_out_accuracy_beats_the_book(shipped_report):
    # Published llama.cpp measurements (XiongjieDai/GPU-Benchmarks-on-LLM-Inference for 2024 builds, the llama.cpp
    # CUDA scoreboard for 2025 builds), devices held out of the fit.
    table = {r["backend"]: r for r in cal.accuracy_table(shipped_report)}
    for era in ("cuda 2024", "cuda 2025"):
        assert table[era]["decode_median"] < 0.08 and table[era]["decode_p90"] < 0.20
        assert table[era]["prefill_median"] < 0.20
        assert table[era]["held_out"]
    # Metal 2024 decode rows are the single-die chips' since the two-die Ultra chips have a family of their own
    # (issue 41): on those 48 rows the p90 was 22.3 % before the split and is 23.5 % after (the 30 M2 Ultra rows,
    # 3.8 % in the family's fit, no longer dilute it).
    metal = table["metal 2024"]
    assert metal["held_out"] and metal["decode_median"] < 0.08 and metal["decode_p90"] < 0.25
    assert metal["prefill_median"] < 0.20
    # CPU-only runs (Apple M1 Max and M3 Max, llama.cpp 2023 builds): decode only, each chip predicted from the other
    assert table["cpu 2024"]["held_out"] and table["cpu 2024"]["decode_p90"] < 0.20
    assert table["all held out"]["decode_median"] < table["all held out"]["book_median"] / 2
    assert table["cuda 2025"]["devices"] >= 25


@pytest.mark.slow
def test_held_out_accuracy_of_the_other_vendors(shipped_report):
    # measured_vendors.csv and the RX 7900 XTX pull-request rows, devices held out of the fit. What the public rows
    # reach, against the goal (median 8 %, p90 20 %): ROCm on two RDNA cards (RX 7900 XTX on Linux, RX 9070 XT with
    # the Windows HIP build) predicts each from the other within 13.7 % median, 18.8 % p90 (with the 7900 XTX held
    # out, the era's attention cost at depth, 0 beyond the KV read, leaves its 4K-deep row 14 % too fast);
    # Vulkan on an RTX 3090 and an RX 9070 XT within 2.1 % and 3.1 %. Their prompt speed is another matter (Vulkan:
    # 56 % median), and SYCL is one Arc B580, in-sample. The Instinct and SYCL Alchemist families rest on one device
    # each, in-sample (two MI50s in layer split for Instinct, the Arc A770 on SYCL).
    table = {r["backend"]: r for r in cal.accuracy_table(shipped_report)}
    rocm, vulkan, sycl = table["rocm 2025"], table["vulkan 2025"], table["sycl 2025"]
    assert rocm["held_out"] and rocm["devices"] == 2 and rocm["decode_points"] == 4
    assert rocm["decode_median"] < 0.15 and rocm["decode_p90"] < 0.20 and rocm["prefill_median"] < 0.10
    assert vulkan["held_out"] and vulkan["devices"] == 2 and vulkan["decode_points"] == 5
    assert vulkan["decode_median"] < 0.08 and vulkan["decode_p90"] < 0.20
    assert not sycl["held_out"] and sycl["devices"] == 1  # in-sample: its band is the era's pooled one
    instinct = table["rocm.gcn-cdna 2025"]
    assert not instinct["held_out"] and instinct["decode_points"] == 5 and instinct["decode_p90"] < 0.05
    alchemist = table["sycl.alchemist 2025"]
    assert not alchemist["held_out"] and alchemist["devices"] == 1
    # Arc on Vulkan (A770, B580; issue 41): one family of two cards, each predicted from the other's share (0.30–0.35
    # against 0.47 of the bandwidth): held out, and far from the goal, which is why its rows carry a band floor.
    arc = table["vulkan.arc 2025"]
    assert arc["held_out"] and arc["devices"] == 2 and arc["decode_points"] == 3
    assert arc["decode_median"] > 0.20


def test_band_comes_from_the_speed_parameters(calc):
    rows = {r["name"]: r for r in load_table(SPEED, CATALOG_DIR).rows}
    cuda = rows["llama.cpp/cuda@2025"]
    assert cuda["error_low_frac"] < 0 < cuda["error_high_frac"]
    out = calc(gpu_name="RTX 4090 24GB", engine="llama.cpp")
    assert out["speed_key_text"] == out["speed_params_name"] == "llama.cpp/cuda@2025"
    assert out["decode_tok_s_low"] == pytest.approx(out["decode_tok_s"] * (1 + cuda["error_low_frac"]), rel=1e-12)
    assert out["decode_tok_s_high"] == pytest.approx(out["decode_tok_s"] * (1 + cuda["error_high_frac"]), rel=1e-12)
    # An HBM part takes the HBM efficiency; a backend with a row of its own takes it (SYCL, fitted on the Arc B580);
    # a backend without a row for the era falls back to engine/any (CPUs: only 2024 builds were measured).
    assert calc(gpu_name="H100 SXM 80GB")["decode_efficiency_frac"] == cuda["decode_efficiency_hbm_frac"]
    arc = calc(gpu_name="Arc B580 12GB")
    assert arc["speed_key_text"] == arc["speed_params_name"] == "llama.cpp/sycl@2025"
    assert arc["engine_bandwidth_efficiency_frac"] == rows["llama.cpp/sycl@2025"]["decode_efficiency_frac"]
    cpu = calc(gpu_name="CPU DDR5-5600 dual-channel")
    assert cpu["speed_key_text"] == "llama.cpp/cpu@2025" and cpu["speed_params_name"] == "llama.cpp/any@2025"
    assert cpu["engine_bandwidth_efficiency_frac"] == rows["llama.cpp/any@2025"]["decode_efficiency_frac"]
    assert calc(build_era_text="2024")["speed_params_name"] == "llama.cpp/cuda@2024"


DEPTHS = (0, 1024, 4096, 8192, 16384, 32768)  # six decode rows: more than the parameters a decode fit frees


def _bench_rows(depths: tuple[int, ...] = DEPTHS):
    # llama-bench columns (tools/llama-bench/README.md): model_size in bytes, model_n_params, n_prompt, n_gen, avg_ts.
    rows = []
    for n_gen, depth in ((128, d) for d in depths):
        ctx = depth + n_gen / 2
        seconds = (4.9e9 + 131072 * ctx) / (1008e9 * 0.9) + 32 * 0.08e-3 + 32 * ctx * 10e-9
        rows.append(
            {
                "model_type": "llama 8B Q4_K_M",
                "model_size": 4.9e9,
                "model_n_params": 8.03e9,
                "n_prompt": 0,
                "n_gen": n_gen,
                "n_depth": depth,
                "avg_ts": 1 / seconds,
            }
        )
    rows.append(
        {
            "model_type": "llama 8B Q4_K_M",
            "model_size": 4.9e9,
            "model_n_params": 8.03e9,
            "n_prompt": 512,
            "n_gen": 0,
            "n_depth": 0,
            "avg_ts": 9000.0,
        }
    )
    return rows


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_calibrate_llama_bench_output(tmp_path, fmt):
    folder = tmp_path / "assumptions"
    shutil.copytree(CATALOG_DIR, folder)
    path = tmp_path / f"bench.{fmt}"
    if fmt == "json":
        path.write_text(json.dumps(_bench_rows()), encoding="utf-8")
    else:
        with open(path, "w", newline="", encoding="utf-8") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(_bench_rows()[0]))
            writer.writeheader()
            writer.writerows(_bench_rows())
    before = {r["name"] for r in load_table(SPEED, folder).rows}
    result = CliRunner().invoke(
        main, ["calibrate", str(path), "--gpu", "RTX 4090 24GB", "--model", "Llama-3.1-8B", "--catalog", str(folder)]
    )
    assert result.exit_code == 0, result.output
    rows = {r["name"]: r for r in load_table(SPEED, folder).rows}
    assert set(rows) == before
    assert rows["llama.cpp/cuda@2025"]["fit_points"] == len(DEPTHS) + 1  # the decode rows and one prompt row
    assert "bench." in rows["llama.cpp/cuda@2025"]["source"]
    assert rows["vllm/any"] == {r["name"]: r for r in load_table(SPEED, CATALOG_DIR).rows}["vllm/any"]


def test_calibrate_refuses_too_few_rows_for_an_error_band(tmp_path):
    """Three decode rows fit three or four parameters exactly: their residuals, and so the band, would be 0 %."""
    folder = tmp_path / "assumptions"
    shutil.copytree(CATALOG_DIR, folder)
    before = (folder / "speed_params.csv").read_bytes()
    path = tmp_path / "bench.json"
    path.write_text(json.dumps(_bench_rows((0, 4096, 16384))), encoding="utf-8")
    args = ["calibrate", str(path), "--gpu", "RTX 4090 24GB", "--model", "Llama-3.1-8B", "--catalog", str(folder)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2
    assert "3 decode measurement(s) cannot fit the speed parameters and an error band" in result.stderr
    assert (folder / "speed_params.csv").read_bytes() == before


def test_calibrate_errors_write_nothing(tmp_path):
    folder = tmp_path / "assumptions"
    shutil.copytree(CATALOG_DIR, folder)
    before = (folder / "speed_params.csv").read_bytes()
    bad = tmp_path / "bench.csv"
    bad.write_text("model_size,n_gen\n1,2\n", encoding="utf-8")
    result = CliRunner().invoke(
        main, ["calibrate", str(bad), "--gpu", "RTX 4090 24GB", "--model", "Llama-3.1-8B", "--catalog", str(folder)]
    )
    assert result.exit_code == 2
    assert "missing llama-bench field(s) model_n_params, n_prompt, avg_ts" in result.output
    result = CliRunner().invoke(main, ["calibrate", str(bad), "--catalog", str(folder)])
    assert result.exit_code == 2 and "--gpu and --model are required" in result.output
    assert (folder / "speed_params.csv").read_bytes() == before


@pytest.mark.slow
def test_accuracy_command_prints_the_tables_per_backend_split_and_engine():
    result = CliRunner().invoke(main, ["accuracy"])  # one run: it refits once per device (about a minute)
    assert result.exit_code == 0
    assert "| cuda 2025 |" in result.output and "book rule median" in result.output
    assert "Summary (leave one device out, " in result.output
    assert "Left out: " in result.output and "repeated runs differ by more than 25 %" in result.output
    assert (
        "| layer split | llama.cpp | decode |" in result.output
        and "| row split | llama.cpp | decode |" in result.output
    )
    assert "| tensor parallel | tensorrt-llm | serving | 10 |" in result.output
    assert "| tensorrt-llm | 20 | 10 |" in result.output  # serving runs per engine: runs, prompt/output shapes


def prefill_row(device, fp16, quant, params_b, model, prompt, seconds) -> dict:
    """A synthetic prompt measurement (dense Llama 3 shape, empty cache, memory never the limit) taking `seconds`
    per token."""
    return {
        "device": device,
        "fp16_tflops": fp16,
        "fp32_tflops": fp16,
        "model": model,
        "quant": quant,
        "params_b": params_b,
        "weights_bytes": params_b * 1e9,
        "prompt_tokens": prompt,
        "metric": "pp",
        "tok_s": 1 / seconds,
    }


def test_prefill_fit_recovers_known_parameters():
    # rate = 1 / (2P ÷ (FLOPS × η) + attention ÷ (FLOPS × η_attn) + layers × c), η 0.5 for F16 and 0.4 for Q4_0,
    # η_attn 0.25, c = 3 µs; causal attention over n new tokens = 4 × layers × width × n/2 per token.
    # Llama-3.1-8B: 32 layers × (32 heads × 128) = width 4096; 70B: 80 layers, width 8192.
    rows = []
    for tflops in (80.0, 160.0, 300.0):
        for quant, eta in (("F16", 0.5), ("Q4_0", 0.4)):
            for model, layers, attn_dim in (("Llama-3.1-8B", 32, 4096), ("Llama-3.1-70B", 80, 8192)):
                params_b = MODELS[model][0]
                for prompt in (128, 512, 4096):
                    seconds = 2 * params_b * 1e9 / (tflops * 1e12 * eta)
                    seconds += 4 * layers * attn_dim * prompt / 2 / (tflops * 1e12 * 0.25) + layers * 3e-6
                    rows.append(prefill_row(f"gpu-{tflops}", tflops, quant, params_b, model, prompt, seconds))
    p = cal.fit_prefill(framed(rows))
    assert p.efficiency == pytest.approx(0.5, rel=1e-4)
    assert p.efficiency_quant == pytest.approx(0.4, rel=1e-4)
    assert p.attention_efficiency == pytest.approx(0.25, rel=1e-4)
    assert p.layer_overhead_us == pytest.approx(3.0, rel=1e-3)


def test_prefill_fit_recovers_the_alu_work_of_quantized_weights():
    # Quantized prompts also cost shader-ALU work at the FP32 rate: rate = 1 / (2P ÷ (FP16 × η) + [quantized]
    # 2P × 0.28 ÷ FP32 + layers × c). The four cards' FP16 ÷ FP32 ratios (4, 4, 14.8, 16: GeForce Ada and
    # Ampere, H100 PCIe, A30) differ, so the two terms can be told apart.
    rows = []
    for fp16, fp32 in ((330.3, 82.6), (142.0, 35.6), (756.0, 51.2), (165.0, 10.3)):
        for quant, eta, alu in (("F16", 0.6, 0.0), ("Q4_0", 0.5, 0.28)):
            for model, layers, attn_dim in (("Llama-3.1-8B", 32, 4096), ("Llama-3.1-70B", 80, 8192)):
                params_b = MODELS[model][0]
                seconds = 2 * params_b * 1e9 / (fp16 * 1e12 * eta) + 2 * params_b * 1e9 * alu / (fp32 * 1e12)
                seconds += layers * 2e-6 + 4 * attn_dim * layers * 256 / (fp16 * 1e12)  # attention at η_attn = 1
                row = prefill_row(f"gpu-{fp16}", fp16, quant, params_b, model, 512, seconds)
                rows.append(row | {"fp32_tflops": fp32})
    p = cal.fit_prefill(framed(rows), replace(cal.DEFAULT_PREFILL, attention_efficiency=1.0))
    assert p.alu_work == pytest.approx(0.28, rel=1e-3)
    assert p.efficiency_quant == pytest.approx(0.5, rel=1e-3) and p.efficiency == pytest.approx(0.6, rel=1e-3)
    # Equal FP16 and FP32 rates everywhere (Apple GPUs): the ALU work cannot be told from the efficiency.
    apple = framed([r | {"fp32_tflops": r["fp16_tflops"]} for r in rows])
    assert cal.fit_prefill(apple).alu_work == 0.0


def test_engines_without_measurements_take_the_current_cuda_fit():
    # exllamav2 and MLC have no rows in the shipped data: `kalkulator calibrate` writes them from the current
    # CUDA fit, so they cannot go stale when it is refitted (only the prefill chunk is their own).
    rows = {r["name"]: r for r in load_table(SPEED, CATALOG_DIR).rows}
    cuda = rows[f"llama.cpp/cuda@{cal.CURRENT_ERA}"]
    fitted = ("decode_efficiency_frac", "layer_overhead_ms", "prefill_efficiency_quant_frac", "decode_flop_per_byte")
    for engine, chunk in cal.UNMEASURED_ENGINES.items():
        row = rows[f"{engine}/any"]
        assert all(row[f] == cuda[f] for f in fitted) and row["prefill_chunk_tokens"] == chunk
        assert row["fit_points"] == 0 and f"belum ada pengukuran {engine}" in row["source"]


def test_the_serving_rows_that_borrow_the_serial_share_carry_the_fitted_one():
    """vLLM and SGLang have no serving fit of their own; their source says they take TensorRT-LLM's serial share, and
    `kalkulator calibrate` writes it into them, so the three rows state one fitted value."""
    from kalkulator.cli.calibration_commands import SERIAL_BORROWERS

    rows = {r["name"]: r for r in load_table(SPEED, CATALOG_DIR).rows}
    fitted = float(rows["tensorrt-llm/any"]["serial_frac"])
    for name in SERIAL_BORROWERS:
        assert float(rows[name]["serial_frac"]) == fitted, name
        assert "serial_frac: fit tensorrt-llm" in rows[name]["source"], name
