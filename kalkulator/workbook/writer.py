"""Write a Layout with openpyxl: styles, protection, dropdowns, frozen headers; byte-identical output."""

from __future__ import annotations

import datetime as dt
import io
import os
import re
import tempfile
import zipfile
from pathlib import Path

from openpyxl import Workbook
from openpyxl.chart import BarChart, LineChart, Reference
from openpyxl.chart.data_source import StrRef
from openpyxl.chart.series import SeriesLabel
from openpyxl.styles import Alignment, Font, PatternFill, Protection
from openpyxl.utils import get_column_letter
from openpyxl.workbook.defined_name import DefinedName
from openpyxl.worksheet.datavalidation import DataValidation
from openpyxl.worksheet.pagebreak import Break

from kalkulator.workbook.layout import Chart, Layout

YELLOW = PatternFill("solid", fgColor="FFF2CC")
HEADER = PatternFill("solid", fgColor="DDEBF7")
SECTION = PatternFill("solid", fgColor="EDEDED")
FIXED_STAMP = dt.datetime(2025, 1, 1)
ZIP_TIME = (2025, 1, 1, 0, 0, 0)

STYLES = {
    "title": {"font": Font(bold=True, size=14)},
    "intro": {"font": Font(italic=True, color="555555")},
    "section": {"font": Font(bold=True), "fill": SECTION},
    "header": {"font": Font(bold=True), "fill": HEADER, "alignment": Alignment(wrap_text=True, vertical="top")},
    "label": {},
    "input": {"fill": YELLOW, "protection": Protection(locked=False)},
    "unit": {"font": Font(color="555555")},
    "name": {"font": Font(color="808080", size=9)},
    "note": {"font": Font(color="555555", size=9)},
    "data": {},
}


def render(layout: Layout) -> Workbook:
    """Build the openpyxl workbook for a layout."""
    wb = Workbook()
    wb.remove(wb.active)
    sheets = {title: wb.create_sheet(title) for _, title in layout.sheets}
    for c in layout.cells:
        cell = sheets[c.sheet].cell(row=c.row, column=c.col)
        cell.value = c.value
        if isinstance(c.value, str):
            cell.data_type = "s"  # catalog text beginning with = + - @ stays text, never a formula
        for attr, value in STYLES[c.style].items():
            setattr(cell, attr, value)
        if c.number_format:
            cell.number_format = c.number_format
    for f in layout.formulas:
        cell = sheets[f.sheet].cell(row=f.row, column=f.col)
        cell.value = f.text
        cell.number_format = f.number_format
    for name, target in layout.names.items():
        wb.defined_names[name] = DefinedName(name, attr_text=target)
    for title, ws in sheets.items():
        ws.freeze_panes = "A4"
        for col, width in layout.widths.get(title, {}).items():
            ws.column_dimensions[get_column_letter(col)].width = width
        ws.page_setup.orientation = "landscape"
        ws.protection.sheet = True
        ws.protection.formatColumns = False
        ws.protection.formatRows = False
    _validations(layout, sheets)
    for chart in layout.charts:
        _add_chart(sheets[chart.sheet], chart)
    wb.properties.creator = "kalkulator"
    wb.properties.created = FIXED_STAMP
    wb.properties.modified = FIXED_STAMP
    return wb


def _add_chart(ws, spec: Chart) -> None:
    chart = BarChart() if spec.kind == "bar" else LineChart()
    if spec.kind == "bar":
        chart.type = "col"
        chart.legend = None
    chart.title = spec.title
    chart.y_axis.title = spec.y_title
    chart.y_axis.numFmt = "#,##0"
    for title_row, first, last, col in spec.series:
        data = Reference(ws, min_col=col, min_row=first, max_row=last)
        chart.add_data(data, titles_from_data=False)
        chart.series[-1].tx = None
        if spec.kind == "line":
            chart.series[-1].tx = SeriesLabel(strRef=StrRef(f"'{ws.title}'!${get_column_letter(col)}${title_row}"))
            chart.series[-1].smooth = False
    first, last, col = spec.categories
    chart.set_categories(Reference(ws, min_col=col, min_row=first, max_row=last))
    chart.x_axis.tickLblPos = "low"
    chart.x_axis.delete = False
    chart.y_axis.delete = False
    chart.height, chart.width = 9.5, 17
    ws.add_chart(chart, spec.anchor)
    ws.row_breaks.append(Break(id=int(spec.anchor[1:]) - 1))  # print the chart whole, on a page of its own


def _validations(layout: Layout, sheets: dict) -> None:
    by_list: dict[tuple[str, str], list[str]] = {}
    for sheet, coord, formula in layout.list_validations:
        by_list.setdefault((sheet, formula), []).append(coord)
    for (sheet, formula), coords in by_list.items():
        dv = DataValidation(type="list", formula1=formula, allow_blank=True, showErrorMessage=True)
        dv.error = "Pilih dari daftar / choose from the list"
        dv.errorTitle = "kalkulator"
        for coord in coords:
            dv.add(coord)
        sheets[sheet].add_data_validation(dv)
    by_sheet: dict[str, list[str]] = {}
    for sheet, coord in layout.number_validations:
        by_sheet.setdefault(sheet, []).append(coord)
    for sheet, coords in by_sheet.items():
        dv = DataValidation(
            type="decimal", operator="greaterThanOrEqual", formula1="0", allow_blank=True, showErrorMessage=True
        )
        dv.error = "Masukkan angka >= 0 / enter a number >= 0"
        dv.errorTitle = "kalkulator"
        for coord in coords:
            dv.add(coord)
        sheets[sheet].add_data_validation(dv)


def to_bytes(wb: Workbook) -> bytes:
    """Serialise with fixed timestamps so identical inputs give identical bytes."""
    buf = io.BytesIO()
    wb.save(buf)
    out = io.BytesIO()
    stamp = FIXED_STAMP.strftime("%Y-%m-%dT%H:%M:%SZ").encode()
    with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as zin, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename == "docProps/core.xml":
                data = re.sub(rb"(<dcterms:(?:created|modified)[^>]*>)[^<]*", rb"\g<1>" + stamp, data)
            entry = zipfile.ZipInfo(info.filename, date_time=ZIP_TIME)
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = 0o644 << 16
            zout.writestr(entry, data)
    return out.getvalue()


def write_atomic(path: Path, data: bytes) -> None:
    """Write to a temporary file beside `path`, then rename: readers never see half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
