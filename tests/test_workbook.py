"""The generated workbook: verified cell for cell from its Excel text, cached values, portable, protected, printable,
deterministic."""

from __future__ import annotations

import csv
import io
import re
import shutil
import zipfile

import openpyxl
import pandas as pd
import pytest
from openpyxl.utils import column_index_from_string

from kalkulator.catalog import load_catalog
from kalkulator.workbook.build import build, verification_passes
from kalkulator.workbook.cells import NAME_COL
from kalkulator.workbook.layout import Cell, Conditional, FormulaCell, Layout
from kalkulator.workbook.verify import verify
from kalkulator.workbook.writer import render

# Functions present without an _xlfn. prefix in Excel, LibreOffice Calc and Google Sheets, and evaluated
# correctly by `formulas` 1.3 (the formulas probe notes §1.3, §7.4; tests/README.md says where they are).
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
    "LN",
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


@pytest.mark.slow
def test_every_formula_cell_matches_the_engine_under_every_input_set(report, built_id):
    assert report.unexpected_formulas == []
    assert report.mismatches == []
    assert len(report.passes) >= 4 and any("manual values" in name for name in report.passes)
    assert report.cells_checked == len(built_id.layout.formulas) * len(report.passes)
    assert len(built_id.layout.formulas) > 1000
    assert report.cached_checked == len(built_id.layout.formulas)  # every cached result equals the recalculation


def _set_cached(data: bytes, sheet_index: int, coord: str, value: str) -> bytes:
    """The workbook with the cached result of one formula cell replaced (the formula kept)."""
    out = io.BytesIO()
    part = f"xl/worksheets/sheet{sheet_index + 1}.xml"
    with zipfile.ZipFile(io.BytesIO(data)) as zin, zipfile.ZipFile(out, "w") as zout:
        for info in zin.infolist():
            body = zin.read(info.filename)
            if info.filename == part:
                pattern = rf'(<c r="{coord}"[^>]*><f>[^<]*</f><v>)[^<]*(</v>)'.encode()
                body, n = re.subn(pattern, rb"\g<1>" + value.encode() + rb"\g<2>", body)
                assert n == 1, f"{coord} is not a formula cell of {part}"
            zout.writestr(info, body)
    return out.getvalue()


@pytest.mark.slow
def test_verify_catches_a_stale_cached_value(built_id, catalog, tmp_path):
    target = next(f for f in built_id.layout.formulas if f.key == ("q", "weights_gb"))
    index = [title for _, title in built_id.layout.sheets].index(target.sheet)
    path = tmp_path / "stale.xlsx"
    path.write_bytes(_set_cached(built_id.data, index, target.coord, "12345"))
    result = verify(path, built_id.layout, built_id.graph, catalog, verification_passes(catalog, built_id.layout)[:1])
    stale = [m for m in result.mismatches if m.pass_name == "cached values"]
    assert [(m.where, m.label, m.got) for m in stale] == [(f"{target.sheet}!{target.coord}", "weights_gb", 12345)]
    assert [m for m in result.mismatches if m.pass_name != "cached values"] == []  # the formulas still agree


def test_pandas_shows_the_engine_values_without_recalculating(catalog, graph, built_id, workbook_path):
    """A preview that never recalculates (pandas, mail, Drive) reads the cached results."""
    built = built_id
    names = ("cost_idr_per_1m_tokens", "breakeven_months")
    sheets = sorted({built.layout.names[name].split("!")[0].strip("'") for name in names})
    frames = pd.read_excel(workbook_path, sheet_name=sheets, header=None)
    engine = graph.evaluate({}, catalog.columns(), "id")
    for name in names:
        sheet, coord = built.layout.names[name].split("!")
        row, col = openpyxl.utils.cell.coordinate_to_tuple(coord.replace("$", ""))
        shown = frames[sheet.strip("'")].iat[row - 1, col - 1]
        want = engine[name]
        assert shown == (pytest.approx(want, rel=1e-12) if isinstance(want, float) else want), name
    assert isinstance(engine["cost_idr_per_1m_tokens"], float) and engine["cost_idr_per_1m_tokens"] > 0


def test_cached_results_keep_their_type(built_id, workbook_path):
    """Booleans cache as booleans, text as text, numbers as numbers (openpyxl reads the cache with data_only)."""
    book = openpyxl.load_workbook(workbook_path, data_only=True)
    engine = built_id.graph.evaluate({}, built_id.catalog.columns(), "id")
    kinds = set()
    for f in built_id.layout.formulas:
        if f.key[0] != "q":
            continue
        got, want = book[f.sheet][f.coord].value, engine[f.key[1]]
        kinds.add(type(want).__name__)
        if isinstance(want, bool):
            assert got is want, f.label
        elif isinstance(want, str):
            assert got == (want or None), f.label
        else:
            assert got == pytest.approx(want, rel=1e-12), f.label
    assert {"bool", "str", "float"} <= kinds


@pytest.mark.slow
def test_verify_catches_a_tampered_cell(built_id, workbook_path, catalog, tmp_path):
    wb = openpyxl.load_workbook(workbook_path)
    target = next(f for f in built_id.layout.formulas if f.key == ("q", "kv_cache_gb"))
    wb[target.sheet][target.coord] = "=kv_cache_gb_per_user*concurrent_users*2"
    wb["VRAM"]["Z1"] = "=1+1"
    other = next(f for f in built_id.layout.formulas if f.key[0] == "row" and f.key[3] == "decode_tok_s")
    wb[other.sheet][other.coord] = "=0"
    path = tmp_path / "tampered.xlsx"
    wb.save(path)
    report = verify(path, built_id.layout, built_id.graph, catalog, verification_passes(catalog, built_id.layout)[:1])
    wrong = {(m.where, m.label) for m in report.mismatches if m.pass_name == "shipped inputs"}
    assert (f"{target.sheet}!{target.coord}", "kv_cache_gb") in wrong
    assert (f"{other.sheet}!{other.coord}", other.label) in wrong
    assert report.unexpected_formulas == ["VRAM!Z1"]


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
        assert ws.cell(row=cell.row, column=NAME_COL).value == name
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


def test_english_workbook_has_english_sheets(built_en):
    assert [t for _, t in built_en.layout.sheets][:3] == ["Guide", "Assumptions", "GPU Catalog"]


@pytest.mark.slow
def test_two_builds_are_byte_identical(catalog, built_id):
    assert build("id", catalog).data == built_id.data  # the session's build and a second one


@pytest.mark.slow
def test_catalog_text_is_never_a_formula(catalog_copy, tmp_path):
    path = catalog_copy / "gpus.csv"
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    rows[1][rows[0].index("source")] = '=HYPERLINK("http://evil")'
    with open(path, "w", newline="", encoding="utf-8") as fh:
        csv.writer(fh, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows(rows)
    out = tmp_path / "x.xlsx"
    out.write_bytes(build("id", load_catalog(catalog_copy)).data)
    ws = openpyxl.load_workbook(out)["Katalog GPU"]
    cells = [c for row in ws.iter_rows() for c in row if c.value == '=HYPERLINK("http://evil")']
    assert cells and all(c.data_type == "s" for c in cells)


@pytest.mark.slow  # both workbooks and the page, built and compared (CI also runs build --check)
def test_committed_dist_is_current():
    from click.testing import CliRunner

    from kalkulator.cli import main

    result = CliRunner().invoke(main, ["build", "--check"])
    assert result.exit_code == 0, result.output


def test_failed_build_leaves_previous_file(tmp_path, catalog_copy):
    from click.testing import CliRunner

    from kalkulator.cli import main
    from kalkulator.io.paths import default_out_dir

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

    from kalkulator.io.files import write_atomic

    target = tmp_path / "kalkulator.xlsx"
    target.write_bytes(b"previous")

    def crash(*_args):
        raise KeyboardInterrupt  # the user presses Ctrl-C just before the rename

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(KeyboardInterrupt):
        write_atomic(target, b"new contents")
    assert target.read_bytes() == b"previous"
    assert [p.name for p in tmp_path.iterdir()] == ["kalkulator.xlsx"]


def _tiny_layout(**extra) -> Layout:
    lay = Layout("en", sheets=[("s", "S")], widths={"S": {1: 30, 2: 18}})
    lay.cells += [
        Cell("S", 1, 1, "Title", "title"),
        Cell("S", 3, 1, "Quantity", "header"),
        Cell("S", 4, 1, "Answer", "label"),
        Cell("S", 4, 2, 1234.5, "answer", "#,##0.0"),
        Cell("S", 5, 2, "Does not fit: the model needs 140 GB and the GPU has 80 GB.", "status"),
    ]
    for key, value in extra.items():
        setattr(lay, key, value)
    return lay


def _load(data: bytes) -> openpyxl.Workbook:
    return openpyxl.load_workbook(io.BytesIO(data))


def test_answer_and_status_styles():
    ws = _load(render(_tiny_layout()))["S"]
    answer, status = ws["B4"], ws["B5"]
    assert answer.font.b and answer.font.sz == 12 and answer.alignment.horizontal == "left"
    assert answer.border.left.style == answer.border.bottom.style == "thin" and answer.number_format == "#,##0.0"
    assert status.font.b and status.alignment.wrap_text and status.alignment.vertical == "top"


def test_unknown_style_is_an_error():
    lay = _tiny_layout()
    lay.cells.append(Cell("S", 6, 1, "x", "shiny"))
    with pytest.raises(ValueError, match="unknown cell style 'shiny'"):
        render(lay)


@pytest.mark.parametrize(
    ("level", "fill", "font"), [("ok", "C6EFCE", "006100"), ("warn", "FFEB9C", "9C5700"), ("bad", "FFC7CE", "9C0006")]
)
def test_conditional_formats_colour_by_level(level, fill, font):
    ws = _load(render(_tiny_layout(conditionals=[Conditional("S", "B4:B5", "ISTEXT(B4)", level)])))["S"]
    [(cells, rules)] = [(str(cf.sqref), cf.rules) for cf in ws.conditional_formatting]
    [rule] = rules
    assert cells == "B4:B5" and rule.type == "expression" and rule.formula == ["ISTEXT(B4)"]
    assert rule.dxf.fill.bgColor.rgb.endswith(fill) and rule.dxf.font.color.rgb.endswith(font)


def test_unknown_conditional_level_is_an_error():
    with pytest.raises(ValueError, match="unknown level 'pink'"):
        render(_tiny_layout(conditionals=[Conditional("S", "B4", "TRUE", "pink")]))


def test_the_layouts_conditional_formats_are_written(built_id, book):
    assert built_id.layout.conditionals
    written = {
        (ws.title, str(cf.sqref), rule.formula[0])
        for ws in book.worksheets
        for cf in ws.conditional_formatting
        for rule in cf.rules
    }
    assert {(c.sheet, c.cells, c.formula) for c in built_id.layout.conditionals} <= written


def test_formula_cells_show_the_cached_value_and_number_format():
    lay = _tiny_layout()
    lay.formulas.append(FormulaCell("S", 6, 2, None, "B4*2", ("q", "twice"), "#,##0"))
    data = render(lay, {("q", "twice"): 2469.0})
    assert openpyxl.load_workbook(io.BytesIO(data), data_only=True)["S"]["B6"].value == 2469
    cell = _load(data)["S"]["B6"]
    assert cell.value == "=B4*2" and cell.number_format == "#,##0" and cell.protection.locked


def test_every_sheet_prints_on_a4_fitted_to_one_page_wide(built_id, book):
    """Fit to width (one page wide, any number tall), not a fixed scale: the scale then follows the font LibreOffice
    or Excel has (Calibri, Carlito or a wider fallback), so no sheet prints two pages wide (tests/test_print.py
    measures the PDF with and without Carlito). Portrait where the estimated scale keeps 10 pt notes at 8.2 pt or
    more, else landscape; the sheet's title (and its column headers where they head everything) on every page."""
    for ws in book.worksheets:
        setup = ws.page_setup
        assert setup.paperSize == 9 and setup.orientation in ("portrait", "landscape"), ws.title
        assert ws.sheet_properties.pageSetUpPr.fitToPage, ws.title
        assert setup.fitToWidth in (None, 1) and setup.fitToHeight == 0, ws.title  # 1 is the default, left out
    assert book.worksheets[0].page_setup.orientation == "portrait"  # the guide
    assert {ws.page_setup.orientation for ws in book.worksheets} == {"portrait", "landscape"}
    for ws in book.worksheets:
        assert "&P" in ws.oddFooter.right.text and ws.oddFooter.left.text == "&A"
        assert ws.print_area and ws.page_margins.left == 0.5
        # Rows 1–3 head every page only where row 3's header heads everything on the sheet (not above another table).
        repeats = ws.title in built_id.layout.repeat_header and any(
            c.sheet == ws.title and c.row == 3 and c.style == "header" for c in built_id.layout.cells
        )
        assert ws.print_title_rows == ("$1:$3" if repeats else "$1:$1"), ws.title
    for chart in built_id.layout.charts:
        breaks = [b.id for b in book[chart.sheet].row_breaks.brk]
        assert int(chart.anchor[1:]) - 1 in breaks  # the chart starts a page


def test_a_sheet_of_quantity_rows_prints_label_to_note_not_the_name(built_id, book):
    """The name column (F, right of the notes) stays on screen: a sheet of quantity rows prints A–E, so its notes
    get the width; a sheet with a wider table prints as far as the table."""
    assert book["Asumsi"]["E3"].value == "Keterangan dan sumber" and book["Asumsi"]["F3"].value == "Nama"
    for title in ("Asumsi", "Bandwidth", "Listrik", "TCO"):
        assert book[title].print_area.endswith(":$E$" + book[title].print_area.rsplit("$", 1)[-1]), title
    assert re.findall(r"\$([A-Z]+)\$", book["Break-even"].print_area)[-1] == "H"  # the shortlist's 8 columns


def test_catalogs_print_price_power_date_and_source(built_id, book):
    """A catalog's print area holds its name, price and power columns, date and source (they come first)."""
    for title in built_id.layout.catalog_sheets:
        last = re.findall(r"\$([A-Z]+)\$", book[title].print_area)[-1]
        headers = {c.value for c in built_id.layout.cells if c.sheet == title and c.style == "header"}
        printed = {
            c.value
            for c in built_id.layout.cells
            if c.sheet == title and c.style == "header" and c.col <= column_index_from_string(last)
        }
        for header in ("Harga (USD)", "Daya GPU (TDP, W)", "Sumber", "Per tanggal"):
            if header in headers:
                assert header in printed, (title, header)
    gpu_headers = {c.value for c in built_id.layout.cells if c.sheet == "Katalog GPU" and c.style == "header"}
    assert {"Harga (USD)", "Daya GPU (TDP, W)", "Sumber", "Per tanggal"} <= gpu_headers


def test_a_text_answer_is_never_cut(built_id, book):
    """Every answer that can show text wraps, in a row tall enough for the longest text it can hold (estimated from
    its formula: the longer branch of each IF, every part of a join), across the merged columns of a sentence."""
    from kalkulator.workbook.writer import MAX_LINES, STYLES, chars_per_line

    for f in built_id.layout.formulas:
        if not f.longest:
            continue
        ws = book[f.sheet]
        width = sum(_width(ws, col) for col in range(f.col, f.col + f.span))
        if f.longest <= chars_per_line(width, f.style):
            continue
        assert STYLES[f.style].get("text_wrap"), (f.coord, f.key)
        lines = min(MAX_LINES, -(-f.longest // chars_per_line(width, f.style)))
        assert ws.row_dimensions[f.row].height >= lines * 12 * 1.2, (f.coord, f.key, lines)
    verdict = next(f for f in built_id.layout.formulas if f.key == ("q", "verdict_text"))
    assert verdict.span == 3 and f"B{verdict.row}:D{verdict.row}" in {
        str(r) for r in book[verdict.sheet].merged_cells.ranges
    }


def _width(ws, col: int) -> float:
    """A column's width; XlsxWriter writes neighbours of equal width as one <col min max> range."""
    return next(d.width for d in ws.column_dimensions.values() if d.min <= col <= d.max)


def test_money_columns_fit_rp_999_billion(built_id, book):
    """A column holding rupiah is wide enough for Rp 999,999,999,999: no ### in print or on screen."""
    for f in built_id.layout.formulas:
        if "Rp" in f.number_format:
            assert _width(book[f.sheet], f.col) >= len("Rp 999,999,999,999") + 1, (f.sheet, f.coord)


def test_typed_numbers_are_validated_against_their_domain(built_id, book):
    """Each typed number keeps to its domain (whole numbers, bounds, an open lower bound by formula)."""
    rules = {
        (ws.title, cells): dv
        for ws in book.worksheets
        for dv in ws.data_validations.dataValidation
        for cells in str(dv.sqref).split()
    }
    assert built_id.layout.domains
    for (sheet, coord), domain in built_id.layout.domains.items():
        dv = rules[(sheet, coord)]
        if domain.above:
            assert dv.type == "custom" and f"{coord}>" in dv.formula1, (sheet, coord)
        else:
            assert dv.type == ("whole" if domain.integer else "decimal"), (sheet, coord)
            assert (float(dv.formula1), float(dv.formula2)) == (domain.low, domain.high), (sheet, coord)
    n_gpus = book.defined_names["n_gpus"].attr_text.split("!")
    assert rules[(n_gpus[0].strip("'"), n_gpus[1].replace("$", ""))].type == "whole"
