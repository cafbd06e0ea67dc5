"""The generated workbook: verified cell for cell by `formulas`, portable, protected, deterministic."""

from __future__ import annotations

import re
import shutil

import openpyxl
import pytest

from kalkulator.build import build, verification_passes
from kalkulator.catalog import load_catalog
from kalkulator.workbook.verify import verify

# Functions present without an _xlfn. prefix in Excel, LibreOffice Calc and Google Sheets, and evaluated
# correctly by `formulas` 1.3 (shared/notes/formulas-probe.md §1.3, §7.4).
PORTABLE = {
    "IF",
    "IFERROR",
    "AND",
    "OR",
    "NOT",
    "MIN",
    "MAX",
    "SUM",
    "SUMPRODUCT",
    "ROUND",
    "ROUNDUP",
    "ROUNDDOWN",
    "ABS",
    "INDEX",
    "MATCH",
    "ISBLANK",
}
FUNC = re.compile(r"(?<![A-Za-z0-9_.])([A-Za-z_][A-Za-z0-9_.]*)\s*\(")
WHOLE_COLUMN = re.compile(r"(?<![A-Za-z_])\$?[A-Z]{1,3}:\$?[A-Z]{1,3}(?![0-9])")


@pytest.fixture(scope="module")
def report(built_id, workbook_path, catalog):
    passes = verification_passes(catalog, built_id.layout)
    return verify(workbook_path, built_id.layout, built_id.graph, catalog, passes)


@pytest.fixture(scope="module")
def book(workbook_path):
    return openpyxl.load_workbook(workbook_path)


def _formulas(book):
    for ws in book.worksheets:
        for row in ws.iter_rows():
            for cell in row:
                if cell.data_type == "f":
                    yield ws, cell


def test_every_formula_cell_matches_the_engine_under_every_input_set(report, built_id):
    assert report.unexpected_formulas == []
    assert report.mismatches == []
    assert len(report.passes) >= 5
    assert report.cells_checked == len(built_id.layout.formulas) * len(report.passes)
    assert len(built_id.layout.formulas) > 1000


def test_verify_catches_a_tampered_cell(built_id, workbook_path, catalog, tmp_path):
    wb = openpyxl.load_workbook(workbook_path)
    target = next(f for f in built_id.layout.formulas if f.key == ("q", "kv_cache_gb"))
    wb[target.sheet][target.coord] = "=kv_cache_gb_per_user*concurrent_users*2"
    wb["VRAM"]["Z1"] = "=1+1"
    path = tmp_path / "tampered.xlsx"
    wb.save(path)
    result = verify(path, built_id.layout, built_id.graph, catalog, verification_passes(catalog, built_id.layout)[:1])
    assert any(m.label == "kv_cache_gb" and m.where == f"VRAM!{target.coord}" for m in result.mismatches)
    assert result.unexpected_formulas == ["'[tampered.xlsx]VRAM'!Z1"]
    from click.testing import CliRunner

    from kalkulator.cli import main

    cli = CliRunner().invoke(main, ["verify", str(path), "--shipped-only"])
    assert cli.exit_code == 1
    assert f"MISMATCH [shipped inputs] VRAM!{target.coord} kv_cache_gb: engine=" in cli.output
    assert "UNEXPECTED formula cell" in cli.output


def test_only_portable_functions_and_patterns(book):
    used = set()
    for _, cell in _formulas(book):
        body = re.sub(r'"[^"]*"', '""', cell.value)
        used |= {name.upper() for name in FUNC.findall(body)}
        assert "--" not in body and "%%" not in body and "_xlfn" not in body.lower()
        assert not WHOLE_COLUMN.search(body), cell.value
    assert used <= PORTABLE, used - PORTABLE


def test_defined_names_point_at_each_quantity(book, graph):
    for name, q in graph.quantities.items():
        target = book.defined_names[name].attr_text
        sheet, coord = target.split("!")
        ws = book[sheet.strip("'")]
        cell = ws[coord.replace("$", "")]
        assert ws.cell(row=cell.row, column=5).value == name
        if q.is_input:
            assert cell.data_type != "f" and cell.protection.locked is False
        else:
            assert cell.data_type == "f" and cell.protection.locked is True


def test_inputs_yellow_and_unlocked_formulas_locked_sheets_protected(book):
    for ws in book.worksheets:
        assert ws.protection.sheet is True
        assert ws.freeze_panes == "A4"
    for _, cell in _formulas(book):
        assert cell.protection.locked is True
    asumsi = book["Asumsi"]
    gpu_cell = asumsi[book.defined_names["gpu_name"].attr_text.split("!")[1].replace("$", "")]
    assert gpu_cell.fill.fgColor.rgb.endswith("FFF2CC") and gpu_cell.protection.locked is False
    lists = [dv for dv in asumsi.data_validations.dataValidation if dv.type == "list"]
    assert any(dv.formula1 == "tbl_gpu_name" and gpu_cell.coordinate in str(dv.sqref) for dv in lists)


def test_english_workbook_has_english_sheets(catalog):
    assert [t for _, t in build("en", catalog).layout.sheets][:3] == ["Guide", "Assumptions", "GPU Catalog"]


def test_two_builds_are_byte_identical(catalog):
    assert build("id", catalog).data == build("id", catalog).data


def test_catalog_text_is_never_a_formula(catalog_copy, tmp_path):
    path = catalog_copy / "gpus.csv"
    lines = path.read_text(encoding="utf-8").splitlines()
    fields = lines[1].split(",")
    fields[-2] = '=HYPERLINK("http://evil")'  # source column
    lines[1] = ",".join(f'"{f.replace(chr(34), chr(34) * 2)}"' for f in fields)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "x.xlsx"
    out.write_bytes(build("id", load_catalog(catalog_copy)).data)
    ws = openpyxl.load_workbook(out)["Katalog GPU"]
    cells = [c for row in ws.iter_rows() for c in row if c.value == '=HYPERLINK("http://evil")']
    assert cells and all(c.data_type == "s" for c in cells)


def test_committed_dist_is_current():
    from click.testing import CliRunner

    from kalkulator.cli import main

    result = CliRunner().invoke(main, ["build", "--check"])
    assert result.exit_code == 0, result.output


def test_failed_build_leaves_previous_file(tmp_path, catalog_copy):
    from click.testing import CliRunner

    from kalkulator.cli import main
    from kalkulator.paths import default_out_dir

    out = tmp_path / "dist"
    out.mkdir()
    shutil.copy(default_out_dir() / "kalkulator.xlsx", out / "kalkulator.xlsx")
    before = (out / "kalkulator.xlsx").read_bytes()
    (catalog_copy / "models.csv").write_text("name,oops\nx,1\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["build", "--out", str(out), "--catalog", str(catalog_copy)])
    assert result.exit_code == 2
    assert "models.csv:1: header must be" in result.output
    assert (out / "kalkulator.xlsx").read_bytes() == before
    assert sorted(p.name for p in out.iterdir()) == ["kalkulator.xlsx"]


def test_interrupted_write_keeps_previous_file(tmp_path, monkeypatch):
    import os

    from kalkulator.workbook.writer import write_atomic

    target = tmp_path / "kalkulator.xlsx"
    target.write_bytes(b"previous")

    def crash(*_args):
        raise KeyboardInterrupt  # the user presses Ctrl-C just before the rename

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(KeyboardInterrupt):
        write_atomic(target, b"new contents")
    assert target.read_bytes() == b"previous"
    assert [p.name for p in tmp_path.iterdir()] == ["kalkulator.xlsx"]
