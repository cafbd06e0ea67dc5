"""Multi-GPU rows by split (the Dec-2023 llama.cpp runs are row split), the accuracy tables per split and per serving
engine, and the serving band that `kalkulator calibrate` writes into the engine's speed row. Expected values are
arithmetic written out here or what the published rows' notes say."""

from __future__ import annotations

import csv
import shutil

import numpy as np
import pandas as pd
import pytest

from kalkulator.calibration import fit as cal
from kalkulator.calibration.measurements import load_published
from kalkulator.calibration.serving import Run, ServingFit, engine_table, speed_row, tensor_parallel_table
from kalkulator.io.paths import CALIBRATION_DIR

ROW_NOTE = "pre split-mode-layer default; row/tensor split"  # the notes of the Dec-2023 multi-GPU runs


def _tps_rows() -> list[dict]:
    with open(CALIBRATION_DIR / "measured_tps.csv", newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_the_dec_2023_multi_gpu_runs_are_marked_row_split():
    # XiongjieDai's LLaMA/LLaMA 2 tables were run with llama.cpp builds ~1619-1691 (Dec 2023), before
    # `--split-mode layer` became the default (January 2024): their notes say row/tensor split.
    rows = [r for r in _tps_rows() if int(r["n_devices"]) > 1]
    row_split = [r for r in rows if ROW_NOTE in r["notes"]]
    assert all("Dec 2023" in r["notes"] for r in row_split)
    assert len([r for r in row_split if r["metric"] == "tg_tok_s"]) == 107
    assert {r["split_mode"] for r in row_split} == {"row"}
    assert {r["split_mode"] for r in rows if ROW_NOTE not in r["notes"]} == {"layer"}
    assert {r["split_mode"] for r in _tps_rows() if r["n_devices"] == "1"} == {""}


def _published(catalog, hardware: str, model: str):
    (m,) = [
        m
        for m in load_published(catalog)
        if (m.model, m.quant_name, m.hardware, m.n_gpus, m.metric) == (model, "Q4_0", hardware, 2, "tg")
    ]
    return m


def test_a_row_split_run_is_estimated_with_llama_cpps_exchanges_per_matrix(catalog, graph):
    # LLaMA-65B Q4_0 on 2× RTX 3090, Dec 2023 (row split): 14.41 tok/s. llama.cpp's row split gathers each of a
    # layer's 7 weight matrices' products (engines.csv): 80 layers × 7 exchanges, each costing llama.cpp's 26 µs
    # (engines.csv exchange_us) + the link's hops. RTX 3090 (gpus.csv): PCIe 4.0 x16, 5 µs per hop, no P2P on
    # GeForce, so 10 µs per host-staged hop and 31.5 ÷ 2 = 15.75 GB/s; ring of 2 GPUs: 2 hops.
    # Per step: 80 × 7 × (2 × 10 + 26) µs = 25.76 ms. Per user, the bytes of one token per layer: the inputs go
    # to the other GPU as q8_1 blocks (36 B per 32 values) — Q, K, V, gate, up take hidden 8192, O takes
    # heads × head_dim = 8192, down the FFN width f — and half of each output comes back in FP32: Q, O, down
    # 8192, K, V 64 × 128, gate, up f. LLaMA-65B (models.csv): 65.29B parameters, 80 layers, vocab 32,000, so
    # f = ((65.29e9 − 2 × 32,000 × 8192) ÷ 80 − 2 × 8192 × 128 × 128) ÷ (3 × 8192) = 22,019 (published 22,016).
    from kalkulator.scenario import resolve

    m = _published(catalog, "NVIDIA GeForce RTX 3090 24GB", "LLaMA-65B")
    assert m.split == "row" and m.tok_s == 14.41
    settings = m.settings()
    assert settings["split_mode"] == "tensor"
    out = graph.evaluate(resolve(graph, catalog, settings), catalog.columns())
    assert out["tensor_parallel_ms"] == pytest.approx(80 * 7 * (2 * 10 + 26) / 1000, rel=1e-9)
    f = ((65.29e9 - 2 * 32000 * 8192) / 80 - 2 * 8192 * 128 * 128) / (3 * 8192)
    assert f == pytest.approx(22016, rel=1e-3)
    per_token_layer = (6 * 8192 + f) * 36 / 32 + (3 * 8192 + 2 * 64 * 128 + 2 * f) / 2 * 4
    assert out["tensor_parallel_per_user_ms"] == pytest.approx(80 * per_token_layer / 15.75e6, rel=1e-9)
    assert out["layer_split_ms"] == 0


def test_row_split_over_two_rtx_4090s_matches_the_published_run(catalog, graph):
    # XiongjieDai/GPU-Benchmarks-on-LLM-Inference README @eafac9d, LLaMA table: LLaMA-65B Q4_0 on 2× RTX 4090,
    # Dec-2023 llama.cpp (row split): 17.54 tok/s.
    from kalkulator.scenario import resolve

    m = _published(catalog, "NVIDIA GeForce RTX 4090 24GB", "LLaMA-65B")
    assert m.tok_s == 17.54
    out = graph.evaluate(resolve(graph, catalog, m.settings()), catalog.columns())
    assert out["decode_tok_s"] == pytest.approx(17.54, rel=0.10)


def test_a_split_that_is_neither_layer_nor_row_names_the_file_line_and_field(catalog, tmp_path):
    folder = tmp_path / "calibration"
    shutil.copytree(CALIBRATION_DIR, folder)
    rows = _tps_rows()
    index = next(i for i, r in enumerate(rows) if int(r["n_devices"]) > 1)
    rows[index]["split_mode"] = "tensor"
    with open(folder / "measured_tps.csv", "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]), lineterminator="\r\n")
        writer.writeheader()
        writer.writerows(rows)
    with pytest.raises(cal.CalibrationError) as err:
        cal.load_shipped(catalog, folder)
    assert f"measured_tps.csv:{index + 2}:split_mode: 'tensor'" in str(err.value)
    assert "layer, row" in str(err.value)


def test_multi_gpu_table_counts_rows_devices_and_gpus_per_split():
    multi = pd.DataFrame(
        {
            "split": ["layer", "layer", "layer", "row", "row"],
            "metric": ["tg", "tg", "tg", "tg", "pp"],
            "device": ["RTX 3090 24GB", "RTX 3090 24GB", "A100 PCIe 80GB", "RTX 4090 24GB", "RTX 4090 24GB"],
            "n_devices": [2, 4, 2, 6, 6],
        }
    )
    # measured ÷ predicted − 1 → |predicted ÷ measured − 1|: 0.25 → 0.2, −0.2 → 0.25, 0 → 0, −0.5 → 1, 1 → 0.5
    residuals = np.array([0.25, -0.2, 0.0, -0.5, 1.0])
    rows = cal.multi_gpu_table(multi, residuals)
    assert [(r["split"], r["metric"], r["rows"], r["devices"], r["gpus"]) for r in rows] == [
        ("layer split", "decode", 3, 2, "2, 4"),
        ("row split", "decode", 1, 1, "6"),
        ("row split", "prefill", 1, 1, "6"),
    ]
    # errors 0, 0.2, 0.25: median 0.2; p90 by linear interpolation at 0.9 × 2 = 1.8: 0.2 + 0.8 × 0.05 = 0.24
    assert rows[0]["median"] == pytest.approx(0.2) and rows[0]["p90"] == pytest.approx(0.24)
    assert rows[1]["median"] == pytest.approx(1.0) and rows[2]["median"] == pytest.approx(0.5)


def _serving_fit(measured_over_predicted: list[float]) -> ServingFit:
    shapes = [(128, 128), (128, 2048), (500, 2000), (1000, 1000), (2048, 128)]
    runs = tuple(
        Run({"engine": "tensorrt-llm", "gpu_name": "H100 SXM 80GB", "n_gpus": n}, 1000.0, shape)
        for n in (1, 2)
        for shape in shapes[: len(measured_over_predicted) // 2]
    )
    predicted_over_measured = 1 / (np.array(measured_over_predicted) + 1) - 1
    return ServingFit({"prefill_efficiency_frac": 0.6, "serving_serial_frac": 0.75}, predicted_over_measured, runs)


def test_calibrate_writes_the_serving_fit_and_its_held_out_band_into_the_engine_row():
    # measured ÷ predicted − 1 with each shape held out: −0.2, −0.1, 0, 0.1, 0.3 (TP1) and 0.1, 0, 0, 0, 0 (TP2).
    # Sorted: −0.2, −0.1, 0, 0, 0, 0, 0, 0.1, 0.1, 0.3. 10th percentile at 0.9: −0.2 + 0.9 × 0.1 = −0.11;
    # 90th at 8.1: 0.1 + 0.1 × 0.2 = 0.12.
    fit = _serving_fit([-0.2, -0.1, 0.0, 0.1, 0.3, 0.1, 0.0, 0.0, 0.0, 0.0])
    old = {"name": "tensorrt-llm/any", "decode_efficiency_frac": "0.8358", "error_low_frac": "-0.157"}
    row = speed_row(old, fit, "2026-12-02")
    assert row["decode_efficiency_frac"] == "0.8358"  # decode parameters stay
    assert (row["prefill_efficiency_frac"], row["serial_frac"], row["fit_points"]) == (0.6, 0.75, 10)
    assert row["error_low_frac"] == pytest.approx(-0.11) and row["error_high_frac"] == pytest.approx(0.12)
    assert (row["prefill_error_low_frac"], row["prefill_error_high_frac"]) == (row["error_low_frac"], 0.12)
    assert "TP1 dan TP2, 5 kombinasi prompt/output" in row["source"] and row["as_of"] == "2026-12-02"


def test_serving_tables_per_engine_and_for_tensor_parallel():
    fit = _serving_fit([-0.2, 0.25, 0.0, 0.0, 1.0, -0.5])  # |predicted ÷ measured − 1|: 0.25, 0.2, 0, 0, 0.5, 1
    (engine,) = engine_table(fit)
    assert (engine["engine"], engine["rows"], engine["shapes"], engine["gpus"]) == ("tensorrt-llm", 6, 3, "1, 2")
    assert engine["median"] == pytest.approx((0.2 + 0.25) / 2)
    (tp,) = tensor_parallel_table(fit)  # the three 2-GPU runs: 0, 0.5, 1
    assert (tp["split"], tp["rows"], tp["gpus"], tp["median"]) == ("tensor parallel", 3, "2", pytest.approx(0.5))


def test_accuracy_exits_2_naming_the_bad_field(monkeypatch):
    from click.testing import CliRunner

    from kalkulator.cli import calibration_commands as cli_cal
    from kalkulator.cli import main

    def bad(_catalog):
        raise cal.CalibrationError("measured_tps.csv:80:split_mode: 'tensor' on a 2-GPU row; use one of layer, row")

    monkeypatch.setattr(cli_cal, "shipped_report", bad)
    result = CliRunner().invoke(main, ["accuracy"])
    assert result.exit_code == 2
    assert "measured_tps.csv:80:split_mode" in result.output and "|" not in result.output


@pytest.mark.slow
def test_the_shipped_row_split_parameters_are_the_fit_of_the_shipped_row_split_rows(catalog):
    """engines.csv's llama.cpp `exchange_us` and `exchange_bandwidth_frac` are what `kalkulator calibrate` fits
    (to the whole µs and the two digits it writes)."""
    report = cal.shipped_report(catalog)
    exchange_us, share, n_tg, n_pp = cal.fit_row_split(report, cal.load_shipped(catalog, multi_gpu=True))
    assert (n_tg, n_pp) == (105, 103)  # the steady Dec-2023 row-split decode and prompt rows
    row = catalog["engine"].find("llama.cpp")
    assert round(exchange_us) == row["exchange_us"]
    assert round(share, 2) == row["exchange_bandwidth_frac"]
