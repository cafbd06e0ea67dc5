"""Second oracle: LibreOffice recalculates the workbook headless and must agree with the engine.

Skipped without LibreOffice, except in CI (CI=true), where its absence is a failure.
"""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest
from test_edges import EDGES

from kalkulator.engine.expr import XlError
from kalkulator.workbook.build import verification_passes
from kalkulator.workbook.libreoffice import recalculate, render_pdf, soffice
from kalkulator.workbook.verify import InputSet, check_with_libreoffice

if soffice() is None:
    if os.environ.get("CI") == "true":
        pytest.fail("LibreOffice is required in CI (install libreoffice-calc-nogui)", pytrace=False)
    pytest.skip("LibreOffice is not installed", allow_module_level=True)


@pytest.mark.slow
def test_libreoffice_agrees_on_every_cell_under_every_input_set(catalog, built_id, tmp_path):
    passes = [InputSet(p.name, p.settings) for p in verification_passes(catalog, built_id.layout)]
    report = check_with_libreoffice("id", catalog, passes, tmp_path)
    assert report.mismatches == []
    assert report.cells_checked == len(built_id.layout.formulas) * len(passes)


def _pages_with(pdf, text: str) -> list[int]:
    out = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    return [i + 1 for i, page in enumerate(out.split("\f")) if text in page]


def _colour_pixels(pdf, page: int, tmp_path) -> int:
    """Strongly coloured pixels (chart bars and lines; cell fills are pale) on one page at 60 dpi."""
    prefix = tmp_path / f"page{page}"
    subprocess.run(["pdftoppm", "-f", str(page), "-l", str(page), "-r", "60", str(pdf), str(prefix)], check=True)
    ppm = next(tmp_path.glob(f"page{page}*.ppm")).read_bytes()
    _, _, rgb = ppm.partition(b"\n255\n")  # binary PPM: "P6", size, max value, then RGB bytes
    return sum(1 for i in range(0, len(rgb) - 2, 3) if max(rgb[i : i + 3]) - min(rgb[i : i + 3]) > 80)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("pdftoppm") is None, reason="poppler-utils is not installed")
def test_charts_render_in_libreoffice(built_id, workbook_path, tmp_path):
    pdf = render_pdf(workbook_path, tmp_path)
    assert len(built_id.layout.charts) >= 2
    for chart in built_id.layout.charts:
        pages = _pages_with(pdf, chart.title)
        assert pages, f"chart {chart.title!r} not found in the PDF"
        assert max(_colour_pixels(pdf, p, tmp_path) for p in pages) > 200, chart.title


@pytest.mark.slow
@pytest.mark.parametrize("edge", list(EDGES), ids=str)
def test_libreoffice_edge_inputs_no_error_values(catalog, tmp_path, edge):
    inputs = InputSet(edge, EDGES[edge])
    report = check_with_libreoffice("id", catalog, [inputs], tmp_path)
    assert report.mismatches == []
    values = recalculate(tmp_path / "kalkulator.xlsx")
    errors = [(k, v) for k, v in values.items() if isinstance(v, XlError)]
    assert errors == []


@pytest.mark.slow
def test_libreoffice_agrees_on_the_english_workbook(catalog, tmp_path):
    from kalkulator.workbook.build import build

    report = check_with_libreoffice("en", catalog, [InputSet("shipped inputs", {})], tmp_path)
    assert report.mismatches == []
    assert report.cells_checked == len(build("en", catalog).layout.formulas)
