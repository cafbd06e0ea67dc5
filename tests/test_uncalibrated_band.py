"""Families no measurement calibrates (issue 41, item 3): their band is widened to a floor and the status says so.

The floors come from public llama-bench tables (llama.cpp PR #14001): the same Arc cards with the same build ran on
Ubuntu 24.04 (Mesa 24.2.8) at 41.80 (B580) and 39.00 (A770) tok/s against 126.69 and 96.83 on Windows 11, and at
583.28 and 328.25 prompt tok/s against 1,631.44 and 977.81. The floor is 1 − the worst ratio, written out below.
"""

from __future__ import annotations

import pytest

from kalkulator.calibration.fit import (
    BandFloor,
    CalibrationError,
    apply_band_floors,
    load_band_floors,
    uncalibrated_line,
)
from kalkulator.cli.plan_answer import option_caveats
from kalkulator.engine.graph import Graph
from kalkulator.quantities import QUANTITIES
from kalkulator.scenario import resolve
from kalkulator.scenario.planner import Option

# 1 − 41.80 ÷ 126.69 = 0.670 (B580 decode, the worse of the two cards); 1 − 328.25 ÷ 977.81 = 0.664 (A770 prompt)
ARC_DECODE_FLOOR = round(1 - 41.80 / 126.69, 2)
ARC_PREFILL_FLOOR = round(1 - 328.25 / 977.81, 2)
# Loose latency targets: a slow end of the widened band still meets them, so the status's first word is the band's.
ARC = {
    "model_name": "Llama-3.1-8B",
    "engine": "llama.cpp",
    "quant_name": "Q4_K_M",
    "sla_ttft_s": 60,
    "sla_tpot_ms": 1000,
}


def test_the_floors_are_the_driver_spread_of_pr_14001():
    assert (ARC_DECODE_FLOOR, ARC_PREFILL_FLOOR) == (0.67, 0.66)
    floors = {f.family: f for f in load_band_floors()}
    for family in ("sycl", "sycl.Alchemist", "vulkan.Alchemist", "vulkan.Battlemage"):
        assert (floors[family].decode, floors[family].prefill) == (ARC_DECODE_FLOOR, ARC_PREFILL_FLOOR)


@pytest.mark.parametrize(
    ("gpu", "row"),
    [("Arc A770 16GB", "llama.cpp/sycl.Alchemist@2025"), ("Arc B580 12GB", "llama.cpp/sycl@2025")],
)
def test_an_arc_card_says_its_speed_is_not_calibrated(calc, gpu, row):
    out = calc(gpu_name=gpu, **ARC)
    assert out["speed_params_name"] == row
    assert out["speed_band_floor_frac"] == ARC_DECODE_FLOOR
    assert out["prefill_band_floor_frac"] == ARC_PREFILL_FLOOR
    # the band is at least ± the floor: 9 in 10 Arc setups are not promised within less than 67 %
    assert out["decode_tok_s_low"] <= out["decode_tok_s"] * (1 - 0.67) + 1e-9
    assert out["speed_error_high_frac"] >= 0.67
    assert out["prefill_error_low_frac"] <= -0.66 and out["prefill_error_high_frac"] >= 0.66
    assert "is not calibrated against measurements" in out["status_text"]
    assert "±67 % for decode and ±66 % for the prompt" in out["status_text"]
    caveats = out["caveats_text"].split("; ")
    assert "speed not calibrated" in caveats and "speed not measured" not in caveats
    assert out["run_check_text"] == "OK"  # a warning: the estimate still stands, with its band


def test_rdna2_has_no_measurement_and_half_its_speed_either_way(calc):
    # No RDNA2 card in the calibration data: the V620 takes a copy of the ROCm row (fit_points 0) with ±50 % bands.
    out = calc(gpu_name="Radeon PRO V620 32GB", **ARC)
    assert out["speed_params_name"] == "llama.cpp/rocm.RDNA2@2025"
    assert out["speed_measured_flag"] is False
    assert (out["speed_band_floor_frac"], out["prefill_band_floor_frac"]) == (0.5, 0.5)
    assert "±50 % for decode and ±50 % for the prompt" in out["status_text"]
    caveats = out["caveats_text"].split("; ")
    assert "speed not calibrated" in caveats and "speed not measured" not in caveats  # one caveat, with the band


def test_a_calibrated_card_has_no_floor(calc):
    out = calc(gpu_name="RTX 4090 24GB", **ARC)
    assert out["speed_band_floor_frac"] == 0 and out["prefill_band_floor_frac"] == 0
    assert "not calibrated" not in out["status_text"]
    assert "speed not calibrated" not in out["caveats_text"]


def test_indonesian_status_names_the_band(catalog):
    graph = Graph(QUANTITIES)
    settings = resolve(graph, catalog, {"gpu_name": "Arc B580 12GB", **ARC})
    out = graph.evaluate(settings, catalog.columns(), lang="id", names=["status_text"])
    assert "belum terkalibrasi oleh pengukuran" in out["status_text"]
    assert "±67 % untuk decode dan ±66 % untuk prompt" in out["status_text"]


ROWS = [
    {
        "name": "llama.cpp/rocm@2025",
        "error_low_frac": -0.12,
        "error_high_frac": 0.18,
        "prefill_error_low_frac": -0.8,  # already wider than the floor below: kept
        "prefill_error_high_frac": 0.1,
        "band_floor_frac": 0.0,
        "prefill_band_floor_frac": 0.0,
        "fit_points": 8,
        "source": "fit",
    }
]


def test_a_family_without_a_row_gets_a_copy_of_its_backend_row_with_the_floor():
    out = {
        r["name"]: r for r in apply_band_floors(ROWS, [BandFloor("rocm.RDNA2", "2025", 0.5, 0.4, "none")], "llama.cpp")
    }
    copy = out["llama.cpp/rocm.RDNA2@2025"]
    assert copy["fit_points"] == 0  # no measurement of the family
    assert (copy["error_low_frac"], copy["error_high_frac"]) == (-0.5, 0.5)
    assert (copy["prefill_error_low_frac"], copy["prefill_error_high_frac"]) == (-0.8, 0.4)
    assert (copy["band_floor_frac"], copy["prefill_band_floor_frac"]) == (0.5, 0.4)
    assert out["llama.cpp/rocm@2025"]["error_low_frac"] == -0.12  # the backend's own row is untouched
    assert ROWS[0]["band_floor_frac"] == 0.0  # and so is the caller's list


def test_a_floor_on_an_existing_row_keeps_its_fit_points():
    out = apply_band_floors(ROWS, [BandFloor("rocm", "2025", 0.1, 0.1, "thin")], "llama.cpp")
    assert out[0]["fit_points"] == 8
    assert (out[0]["error_low_frac"], out[0]["error_high_frac"]) == (-0.12, 0.18)  # wider than 0.1 already
    assert out[0]["band_floor_frac"] == 0.1


def test_a_floor_without_a_backend_row_is_refused():
    with pytest.raises(CalibrationError, match="no speed row llama.cpp/hpu@2025"):
        apply_band_floors(ROWS, [BandFloor("hpu.Gaudi", "2025", 0.5, 0.5, "none")], "llama.cpp")


def test_a_bad_floor_names_file_line_and_field(tmp_path):
    (tmp_path / "uncalibrated.csv").write_text(
        "family,era,decode_band_frac,prefill_band_frac,reason,source,as_of\n"
        "sycl,2025,0.5,0.5,ok,https://example.org,2026-12-03\n"
        "rocm.RDNA2,2025,1.5,0.5,too wide,https://example.org,2026-12-03\n",
        encoding="utf-8",
    )
    with pytest.raises(CalibrationError, match=r"uncalibrated.csv:3: decode_band_frac: 1.5 is not in 0–1"):
        load_band_floors(tmp_path)
    assert load_band_floors(tmp_path / "none") == []


def test_accuracy_names_the_uncalibrated_families():
    line = uncalibrated_line([BandFloor("sycl.Alchemist", "2025", 0.67, 0.66, "x")])
    assert line.endswith("sycl Alchemist 2025 (±67 % decode, ±66 % prompt)")
    assert uncalibrated_line([]).startswith("Not calibrated: none")


def test_plan_caveats_name_the_band():
    option = Option("buy", {}, 1.0, 1.0, 1.0, caveats="speed not calibrated; old prices", band_floor=(0.67, 0.66))
    assert option_caveats(option, "en") == ["speed not calibrated (band ±67 % decode, ±66 % prompt)", "old prices"]
    assert option_caveats(option, "id")[0] == "kecepatan belum terkalibrasi (pita ±67 % decode, ±66 % prompt)"
    calibrated = Option("buy", {}, 1.0, 1.0, 1.0, caveats="old prices")
    assert option_caveats(calibrated, "en") == ["old prices"]
