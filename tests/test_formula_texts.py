"""verify reads the formulas too: a cell whose values are right under every input set but whose text is not the
engine's rendering of its tree (a booby trap such as IF(gpu_price_usd=12345,0,…)) is a mismatch."""

from __future__ import annotations

import zipfile

import pytest

from kalkulator.workbook.verify import formula_text, text_mismatches, verify
from kalkulator.workbook.xltext import read_cells


def booby_trapped(workbook_path, built_id, tmp_path):
    """A copy of the workbook with one scenario formula wrapped in a condition no input set meets; the zip is
    rewritten part by part, so cached values and everything else stay as built."""
    target = next(f for f in built_id.layout.formulas if f.key == ("q", "gpu_capex_idr"))
    sheet_index = [title for _, title in built_id.layout.sheets].index(target.sheet)
    path = tmp_path / "trapped.xlsx"
    with zipfile.ZipFile(workbook_path) as zin, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename == f"xl/worksheets/sheet{sheet_index + 1}.xml":
                text = data.decode("utf-8")
                old = f'<c r="{target.coord}"'
                start = text.index(old)
                f_open = text.index("<f>", start) + 3
                f_close = text.index("</f>", f_open)
                formula = text[f_open:f_close]
                text = text[:f_open] + f"IF(gpu_price_usd=12345,0,{formula})" + text[f_close:]
                data = text.encode("utf-8")
            zout.writestr(info, data)
    return path, target


def test_formula_text_normalisation():
    assert formula_text('=_xlfn.ROUND( a ,2)&" x  y"') == 'ROUND(a,2)&" x  y"'  # spaces inside text stay


def test_a_booby_trapped_formula_is_a_text_mismatch(workbook_path, built_id, tmp_path):
    path, target = booby_trapped(workbook_path, built_id, tmp_path)
    by_cell = {(f.sheet, f.coord): f for f in built_id.layout.formulas}
    assert text_mismatches(by_cell, read_cells(workbook_path)[0]) == []  # the file as built: every text the engine's
    found = text_mismatches(by_cell, read_cells(path)[0])
    assert [m.where for m in found] == [f"{target.sheet}!{target.coord}"]
    assert "12345" in str(found[0].got)


@pytest.mark.slow
def test_verify_catches_it(workbook_path, built_id, catalog, tmp_path):
    from kalkulator.workbook.build import verification_passes

    path, target = booby_trapped(workbook_path, built_id, tmp_path)
    passes = verification_passes(catalog, built_id.layout)
    report = verify(path, built_id.layout, built_id.graph, catalog, passes)
    value_mismatches = [m for m in report.mismatches if m.pass_name != "formula text"]
    assert value_mismatches == []  # no input set sets a GPU price of 12,345: the values cannot tell
    assert [m.where for m in report.mismatches] == [f"{target.sheet}!{target.coord}"] and not report.ok
