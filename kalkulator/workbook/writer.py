"""Write a Layout with XlsxWriter: styles, cached results, protection, dropdowns, print setup; byte-identical output.

Every formula cell carries the engine's value as its cached result, so previews that never recalculate (mail,
Drive, pandas) show the numbers; Excel and LibreOffice recalculate on load.
"""

from __future__ import annotations

import datetime as dt
import io
import math
import re
import warnings
import zipfile
from collections.abc import Mapping
from dataclasses import replace

import xlsxwriter
from xlsxwriter.utility import xl_cell_to_rowcol

from kalkulator.engine.expr import Value, XlError
from kalkulator.quantities.domains import Domain
from kalkulator.workbook.cells import CHART_ROWS, NAME_COL, Cell, Chart, FormulaCell, Layout

FIXED_STAMP = dt.datetime(2025, 1, 1)
ZIP_TIME = (2025, 1, 1, 0, 0, 0)

TOP = {"valign": "top"}  # a row grows when its note wraps; every cell of it then reads from the top line
STYLES: dict[str, dict] = {
    "title": {"bold": True, "font_size": 14},
    "intro": {"italic": True, "font_color": "#555555", "text_wrap": True, **TOP},  # across the printed columns
    "section": {"bold": True, "bg_color": "#EDEDED"},
    "header": {"bold": True, "bg_color": "#DDEBF7", "text_wrap": True, "valign": "top"},
    "label": {"text_wrap": True, **TOP},  # a label longer than its column wraps instead of being cut
    "input": {"bg_color": "#FFF2CC", "locked": False, **TOP},
    "unit": {"font_color": "#555555", "text_wrap": True, **TOP},
    "name": {"font_color": "#808080", "font_size": 10, "text_wrap": True, **TOP},
    "note": {"font_color": "#555555", "font_size": 10, "text_wrap": True, **TOP},
    # a table's note, across the printed columns like the intro (in the first column it would widen it)
    "table_note": {"font_color": "#555555", "font_size": 10, "text_wrap": True, **TOP},
    "guide": {"font_color": "#555555", "font_size": 10, "text_wrap": True, **TOP},  # the guide's prose: wider
    "data": TOP,
    "data_wrap": {"text_wrap": True, **TOP},  # short text of a catalog or table ("data" up to LONG_TEXT): wraps
    "answer": {"bold": True, "font_size": 12, "border": 1, "align": "left", **TOP},
    "answer_wrap": {"bold": True, "font_size": 12, "border": 1, "align": "left", "text_wrap": True, **TOP},
    "status": {"bold": True, "text_wrap": True, "valign": "top"},
}
LEVELS = {  # conditional fills: Excel's own good / neutral / bad colours
    "ok": {"bg_color": "#C6EFCE", "font_color": "#006100"},
    "warn": {"bg_color": "#FFEB9C", "font_color": "#9C5700"},
    "bad": {"bg_color": "#FFC7CE", "font_color": "#9C0006"},
}
ERROR_CODES = ("#DIV/0!", "#N/A", "#NAME?", "#NULL!", "#NUM!", "#REF!", "#VALUE!")  # cached as t="e"

# Printing: A4, one page wide, so widths decide how small the print is. Widths come from the layout, except that a
# column of labels, notes, names or short table text (all wrapped) or of long catalog text (sources, cut at the
# cell edge) is at most CAP_WIDTH wide, yet never narrower than its longest word, and a column of numbers is wide enough
# for them (rupiah for Rp 999,999,999,999): the printout never shows ###.
CAP_WIDTH = {"label": 26, "note": 32, "name": 14, "data": 14, "data_wrap": 16, "guide": 56}
SPANNED = ("intro", "table_note")  # merged across the printed columns, wrapped within them
HYPHENS = re.compile(r"\s+|(?<=[-–/])")  # where a wrapped line may break
NAME_CHARS = 16  # a quantity's name wraps inside the identifier beyond this many characters
LONG_TEXT = 40  # catalog text longer than this is prose (a source, a note); shorter text (a name) is never cut
MONEY_WIDTH, NUMBER_WIDTH = 20, 12
DEFAULT_WIDTH = 8.43  # Excel's default column, in widths of the digit 0
PROSE_CHARS_PER_DIGIT, LINE_SPACING = 1.2, 1.22  # for the row heights of wrapped text (see row_heights)
HEADER_ROW = 3  # the column headers of quantity and catalog sheets: frozen, and repeated on every printed page
ROW_PX = 20  # a default row, in pixels
STATUS_LINES = 5  # a wrapped status sentence (formula text) gets a row this many lines high
WORD_SLACK = 1.15  # wrapping at word boundaries leaves lines short: a seventh more room
MAX_LINES = 7  # a sentence row is at most this high: only a status listing many bad inputs at once is longer
# (the whole text stays in the cell and in `kalkulator hitung`)
FOOTER = {"id": "&L&A&RHalaman &P dari &N", "en": "&L&A&RPage &P of &N"}
# Print size: a sheet prints one page wide, A4 portrait, unless that would print its smallest font below
# READABLE_PT; then landscape, and when even that is too small, only the columns that fit (the key columns on the
# left; the rest stays on screen). Widths are in Calibri digits; LibreOffice without Calibri (DejaVu Sans, as in CI)
# lays them out up to WIDE_FONT times wider, so the estimate assumes that.
PAGE_PT = {"portrait": 595 - 72, "landscape": 842 - 72}  # A4 less the 0.5" side margins, in points
READABLE_PT = 8.2  # the smallest printed text we aim for (8 pt with a margin; issue 35: readable at 100 %)
MIN_PT = 8.2  # a notes column narrows only where the sheet would otherwise print text below this
NOTES_MIN_WIDTH = 16  # a notes column gives way down to this width so that its sheet prints readably
WIDE_FONT = 1.36
CHART_PT = 11  # a chart's axis and legend text, printed at the sheet's scale like a cell's


def render(layout: Layout, cached: Mapping[tuple, Value] | None = None) -> bytes:
    """Write the workbook for a layout; a formula cell caches `cached[FormulaCell.key]` (0 when absent).

    XlsxWriter reports problems (an invalid defined name, an over-long validation message) as warnings and
    carries on; here they fail the build.
    """
    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        wb = xlsxwriter.Workbook(buf, {"in_memory": True})
        _Writer(wb, layout, cached or {}).write()
        wb.close()
    return buf.getvalue()


class _Writer:
    def __init__(self, wb: xlsxwriter.Workbook, layout: Layout, cached: Mapping[tuple, Value]):
        self.wb = wb
        self.layout = layout
        self.cached = cached
        self.formats: dict[tuple[str, str | None], object] = {}
        self.sheets = {title: wb.add_worksheet(title) for _, title in layout.sheets}
        self.cells: dict[str, list[Cell]] = {title: [] for title in self.sheets}
        self.formulas: dict[str, list[FormulaCell]] = {title: [] for title in self.sheets}
        for c in layout.cells:
            if c.style not in STYLES:
                raise ValueError(f"{c.sheet}!{c.coord}: unknown cell style {c.style!r} (known: {', '.join(STYLES)})")
            self.cells[c.sheet].append(_wrapping(c, layout))
        for f in layout.formulas:
            self.formulas[f.sheet].append(f)
        self.widths = {
            title: column_widths(self.cells[title], self.formulas[title], layout.widths.get(title, {}), cached)
            for title in self.sheets
        }
        self.used = {  # (last row, last column) with content
            title: (
                max(c.row for c in [*self.cells[title], *self.formulas[title]]),
                max(c.col for c in [*self.cells[title], *self.formulas[title]]),
            )
            for title in self.sheets
        }
        for title in self.sheets:
            self.widen_notes(title)

    def fmt(self, style: str, number_format: str | None = None):
        """One shared XlsxWriter format per (style, number format)."""
        if style not in STYLES:  # a formula cell's own style
            raise ValueError(f"unknown cell style {style!r} (known: {', '.join(STYLES)})")
        key = (style, number_format)
        if key not in self.formats:
            props = dict(STYLES[style])
            if number_format:
                props["num_format"] = number_format
            self.formats[key] = self.wb.add_format(props)
        return self.formats[key]

    def write(self) -> None:
        for title, ws in self.sheets.items():
            last = self.printed(title)[1][-1]
            for c in self.cells[title]:
                if c.style in SPANNED and last > c.col:  # the sheet's intro wraps within the printed width
                    ws.merge_range(c.row - 1, c.col - 1, c.row - 1, last - 1, c.value, self.fmt(c.style))
                else:
                    self.cell(ws, c)
            for f in self.formulas[title]:
                value = _cached(self.cached.get(f.key, 0))
                fmt = self.fmt(_style(f), f.number_format)
                if f.span > 1:  # a sentence across columns: merged, then the formula in its first cell
                    ws.merge_range(f.row - 1, f.col - 1, f.row - 1, f.col + f.span - 2, "", fmt)
                ws.write_formula(f.row - 1, f.col - 1, f.text, fmt, value)
            ws.freeze_panes(HEADER_ROW, 0)
            ws.protect("", {"format_columns": True, "format_rows": True})
        for name, target in self.layout.names.items():
            self.wb.define_name(name, f"={target}")
        self.validations()
        self.conditionals()
        for chart in self.layout.charts:
            self.chart(chart)
        for title in self.sheets:
            self.print_setup(title)
        self.wb.set_properties({"author": "kalkulator", "created": FIXED_STAMP})

    def cell(self, ws, c: Cell) -> None:
        fmt, row, col = self.fmt(c.style, c.number_format), c.row - 1, c.col - 1
        if c.value is None:
            ws.write_blank(row, col, None, fmt)
        elif isinstance(c.value, bool):
            ws.write_boolean(row, col, c.value, fmt)
        elif isinstance(c.value, int | float):
            ws.write_number(row, col, c.value, fmt)
        else:
            ws.write_string(row, col, str(c.value), fmt)  # catalog text beginning with = + - @ stays text

    def validations(self) -> None:
        """Dropdowns over catalog names, and each typed number kept inside its domain."""
        groups: dict[tuple[str, str | Domain, bool], list[str]] = {}  # (sheet, list or domain, in %) → cells
        shown = {(c.sheet, c.coord): c.number_format or "" for c in self.layout.cells}
        for sheet, coord, formula in self.layout.list_validations:
            groups.setdefault((sheet, formula, False), []).append(coord)
        for sheet, coord in self.layout.number_validations:
            domain = self.layout.domains.get((sheet, coord), Domain())
            percent = _is_percent_format(shown.get((sheet, coord), ""))
            groups.setdefault((sheet, domain, percent), []).append(coord)
        for (sheet, rule, percent), coords in groups.items():
            if isinstance(rule, str):
                options = {
                    "validate": "list",
                    "source": rule,
                    "error_message": "Pilih dari daftar" if self.layout.lang == "id" else "Choose from the list",
                }
                self.validate(sheet, coords, options)
            elif rule.above:  # an open lower bound takes a formula, written for each cell
                for coord in coords:
                    test = f"{coord}>{_xl_number(rule.low)}"
                    if rule.integer:
                        test += f",INT({coord})={coord}"
                    formula = f"=AND(ISNUMBER({coord}),{test},{coord}<={_xl_number(rule.high)})"
                    message = _domain_message(rule, percent, self.layout.lang)
                    self.validate(sheet, [coord], {"validate": "custom", "value": formula} | message)
            else:
                options = {"validate": "integer" if rule.integer else "decimal", "criteria": "between"}
                options |= {"minimum": _xl_number(rule.low), "maximum": _xl_number(rule.high)}
                self.validate(sheet, coords, options | _domain_message(rule, percent, self.layout.lang))

    def validate(self, sheet: str, coords: list[str], options: dict) -> None:
        options = options | {"error_title": "kalkulator", "show_input": False, "multi_range": " ".join(coords)}
        row, col = xl_cell_to_rowcol(coords[0])
        self.sheets[sheet].data_validation(row, col, row, col, options)

    def conditionals(self) -> None:
        levels = {level: self.wb.add_format(props) for level, props in LEVELS.items()}
        for c in self.layout.conditionals:
            if c.level not in levels:
                raise ValueError(f"conditional format on {c.sheet}!{c.cells}: unknown level {c.level!r}")
            rule = {"type": "formula", "criteria": f"={c.formula}", "format": levels[c.level]}
            self.sheets[c.sheet].conditional_format(c.cells, rule)

    def chart(self, spec: Chart) -> None:
        kinds = {"bar": "column", "line": "line", "tornado": "bar"}  # a tornado: horizontal bars either side of 0
        chart = self.wb.add_chart({"type": kinds[spec.kind]})
        first, last, cat_col = spec.categories
        categories = [spec.sheet, first - 1, cat_col - 1, last - 1, cat_col - 1]
        for title_row, first_row, last_row, col in spec.series:
            series = {"values": [spec.sheet, first_row - 1, col - 1, last_row - 1, col - 1], "categories": categories}
            if spec.kind == "line":
                series |= {"name": [spec.sheet, title_row - 1, col - 1], "smooth": False, "line": {"width": 2.25}}
            if spec.kind == "tornado":
                series |= {"name": [spec.sheet, title_row - 1, col - 1], "overlap": 100, "gap": 40}
            chart.add_series(series)
        if spec.kind == "bar":
            chart.set_legend({"none": True})
        elif spec.kind == "tornado":
            chart.set_legend({"position": "bottom", "font": {"size": CHART_PT}})
        else:
            chart.set_legend({"font": {"size": CHART_PT}})
        chart.set_title({"name": spec.title})
        font = {"num_font": {"size": CHART_PT}, "name_font": {"size": CHART_PT, "bold": True}}
        if spec.kind == "tornado":  # the largest effect on top; the category axis is vertical, values across
            chart.set_y_axis({"reverse": True, "label_position": "low"} | font)
        else:
            chart.set_x_axis({"label_position": "low"} | font)
        money = spec.kind != "tornado" and ("Rp" in spec.y_title or "IDR" in spec.y_title)  # tornado: Rp per 1M
        # Rupiah axes in millions ("jt" = juta): Rp 1.5 billion reads 1,500 jt, not 1,500,000,000.
        axis_format = ('#,##0,," jt"' if self.layout.lang == "id" else '#,##0,," mn"') if money else "#,##0"
        value_axis = {"name": spec.y_title, "num_format": axis_format} | font
        if spec.kind == "tornado":
            chart.set_x_axis(value_axis)
        else:
            chart.set_y_axis(value_axis)
        width = sum(_pixels(self.widths[spec.sheet].get(col, DEFAULT_WIDTH)) for col in self.printed(spec.sheet)[1])
        chart.set_size({"width": width, "height": (CHART_ROWS - 1) * ROW_PX})  # as wide as the sheet's columns
        self.sheets[spec.sheet].insert_chart(spec.anchor, chart)

    def points(self, title: str, columns: list[int]) -> float:
        """The printed width of `columns` at 100 %, in points, as LibreOffice lays them out without Calibri."""
        return sum(_pixels(self.widths[title].get(c, DEFAULT_WIDTH)) for c in columns) * 0.75 * WIDE_FONT

    def smallest_font(self, title: str, columns: list[int]) -> float:
        return min(
            STYLES[c.style].get("font_size", 11)
            for c in [*self.cells[title], *self.formulas[title]]
            if c.col in columns and c.style != "title"
        )

    def widen_notes(self, title: str) -> None:
        """On a sheet printed landscape, fit the notes column to the page's width at a readable scale: wider where
        there is room (notes wrap into fewer lines, so fewer pages), narrower (down to NOTES_MIN_WIDTH) where the
        other columns leave too little (the sheet then still prints one page wide at a readable size)."""
        orientation, columns = self.printed(title)
        notes = [c.col for c in self.cells[title] if c.style == "note" and c.col in columns]
        if orientation != "landscape" or not notes:
            return
        col = max(set(notes), key=notes.count)
        need = READABLE_PT / self.smallest_font(title, columns)
        spare = 0.97 * PAGE_PT["landscape"] / need - self.points(title, columns)
        width = self.widths[title].get(col, DEFAULT_WIDTH)
        if spare > 0:
            self.widths[title][col] = width + spare / (0.75 * WIDE_FONT * 7)
        short = PAGE_PT["landscape"] * self.smallest_font(title, columns) / MIN_PT - self.points(title, columns)
        if spare < 0 and short < 0 and title not in self.layout.catalog_sheets:
            floor = column_widths(self.cells[title], self.formulas[title], {}, self.cached).get(col, 0)  # no ###
            self.widths[title][col] = max(NOTES_MIN_WIDTH, floor, width + short / (0.75 * WIDE_FONT * 7))

    def printed(self, title: str) -> tuple[str, list[int]]:
        """The sheet's orientation and printed columns (helper columns are hidden and never printed)."""
        hidden = self.layout.hidden_columns.get(title, (0, -1))
        names = {(c.row, c.col) for c in self.cells[title] if c.col == NAME_COL and c.style == "name"}
        names |= {(HEADER_ROW, NAME_COL)}  # the names of quantity rows (and their header) stay on screen
        filled = {
            c.col
            for c in [*self.cells[title], *self.formulas[title]]
            if not hidden[0] <= c.col <= hidden[1] and (c.row, c.col) not in names
        }
        columns = list(range(1, max(filled) + 1))  # up to the last column with something to print
        need = READABLE_PT / self.smallest_font(title, columns)  # the least scale that keeps it readable

        def scale(orientation: str, cols: list[int]) -> float:
            return PAGE_PT[orientation] / self.points(title, cols)

        for orientation in ("portrait", "landscape"):
            if scale(orientation, columns) >= need:
                return orientation, columns
        key = self.layout.key_columns.get(title, len(columns))
        while title in self.layout.catalog_sheets and len(columns) > key and scale("landscape", columns) < need:
            columns.pop()  # a catalog prints its key columns (name, price, power, date, source) and what fits
        return "landscape", columns

    def print_setup(self, title: str) -> None:
        """Widths and heights for print; A4 fitted to one page wide (any number of pages tall), title and header
        rows repeated, footer, a page break before each chart so that none is split."""
        ws = self.sheets[title]
        hidden = self.layout.hidden_columns.get(title)
        for col, width in sorted(self.widths[title].items()):
            if hidden and hidden[0] <= col <= hidden[1]:
                ws.set_column(col - 1, col - 1, width, None, {"hidden": True, "level": 1})
            else:
                ws.set_column(col - 1, col - 1, width)
        if hidden:  # helper columns of live tables: grouped and collapsed, not printed
            for col in range(hidden[0], hidden[1] + 1):
                if col not in self.widths[title]:
                    ws.set_column(col - 1, col - 1, DEFAULT_WIDTH, None, {"hidden": True, "level": 1})
            ws.set_column(hidden[1], hidden[1], None, None, {"collapsed": True})
        orientation, columns = self.printed(title)
        heights = row_heights([c for c in self.cells[title] if c.style not in SPANNED], self.widths[title])
        for c in self.cells[title]:
            if c.style in SPANNED and isinstance(c.value, str):  # merged across the printed columns
                width = sum(self.widths[title].get(col, DEFAULT_WIDTH) for col in range(c.col, columns[-1] + 1))
                lines = _wrapped_lines(c.value, chars_per_line(width, c.style))
                heights[c.row] = max(15, math.ceil(lines * _size(c.style) * LINE_SPACING + 3))
        for f in self.formulas[title]:  # a sentence changes with the inputs; no spreadsheet refits the row
            if STYLES[f.style].get("text_wrap"):
                lines = formula_lines(f, self.widths[title])
                tall = math.ceil(lines * _size(f.style) * LINE_SPACING + 3)
                heights[f.row] = max(heights.get(f.row, 15), tall)
        for row, height in sorted(heights.items()):
            ws.set_row(row - 1, height)
        last_row, last_col = self.used[title]
        charts = [xl_cell_to_rowcol(c.anchor)[0] for c in self.layout.charts if c.sheet == title]
        last_row = max([last_row, *(row + CHART_ROWS - 1 for row in charts)])
        last_col = min(last_col, columns[-1])  # a wide catalog: its key columns and what fits beside them
        ws.set_paper(9)  # A4
        if orientation == "landscape":
            ws.set_landscape()
        else:
            ws.set_portrait()
        ws.fit_to_pages(1, 0)  # one page wide, as many tall as it takes: the scale follows the font in use
        ws.set_margins(left=0.5, right=0.5, top=0.5, bottom=0.6)
        ws.set_footer(FOOTER[self.layout.lang])
        ws.print_area(0, 0, last_row - 1, last_col - 1)
        has_header = any(c.row == HEADER_ROW and c.style == "header" for c in self.cells[title])
        if title in self.layout.repeat_header and has_header:
            ws.repeat_rows(0, HEADER_ROW - 1)  # the sheet's title, intro and column headers on every page
        else:
            ws.repeat_rows(0)  # the sheet's title
        if charts:
            ws.set_h_pagebreaks(sorted(charts))  # a chart starts a page (a break after the row above its anchor)


def formula_lines(f: FormulaCell, widths: Mapping[int, float]) -> int:
    """Lines a wrapped formula cell needs for the longest text it can show (STATUS_LINES when not estimated):
    characters per line from its (merged) width, with a seventh more for words that do not fill a line."""
    if not f.longest:
        return STATUS_LINES
    width = sum(widths.get(col, DEFAULT_WIDTH) for col in range(f.col, f.col + f.span))
    return min(MAX_LINES, math.ceil(f.longest * WORD_SLACK / chars_per_line(width, f.style)))


def chars_per_line(width: float, style: str) -> int:
    """Prose characters of `style` that fit one line of a column `width` digits wide."""
    return max(1, int((width - 1) * 11 / _size(style) * PROSE_CHARS_PER_DIGIT))


def _style(f: FormulaCell) -> str:
    return f.style


def _wrapping(c: Cell, layout: Layout) -> Cell:
    """The cell as written: short text of style "data" (a catalog's name, a setup) wraps instead of widening its
    column, in a catalog's key columns (always printed) and in tables; elsewhere it keeps its width, on screen only."""
    key = layout.key_columns.get(c.sheet) if c.sheet in layout.catalog_sheets else None
    short = c.style == "data" and isinstance(c.value, str) and len(c.value) <= LONG_TEXT
    return replace(c, style="data_wrap") if short and (key is None or c.col <= key) else c


def column_widths(
    cells: list[Cell], formulas: list[FormulaCell], layout_widths: Mapping[int, float], cached: Mapping[tuple, Value]
) -> dict[int, float]:
    """The layout's widths, capped where long text wraps or is cut, widened where a number would show ###."""
    caps: dict[int, float] = {}
    floors: dict[int, float] = {}
    for c in cells:
        wraps = STYLES[c.style].get("text_wrap")
        if c.style in CAP_WIDTH and isinstance(c.value, str) and (wraps or len(c.value) > LONG_TEXT):
            caps[c.col] = max(caps.get(c.col, 0), CAP_WIDTH[c.style])  # the roomiest style of the column
        if isinstance(c.value, int | float) and not isinstance(c.value, bool):
            floors[c.col] = max(floors.get(c.col, 0), _shown_width(c.value, c.number_format, c.style))
        elif isinstance(c.value, str) and (wraps or (c.style == "data" and len(c.value) <= LONG_TEXT)):
            whole = max((len(w) for w in HYPHENS.split(c.value)), default=0) if wraps else len(c.value)
            if c.style == "name":  # an identifier longer than its column breaks inside (as_of_date / _idr)
                whole = min(whole, NAME_CHARS)
            floors[c.col] = max(floors.get(c.col, 0), whole / PROSE_CHARS_PER_DIGIT * _size(c.style) / 11 + 1)
    for f in formulas:
        if f.number_format == "@":
            continue
        need = MONEY_WIDTH if "Rp" in f.number_format else NUMBER_WIDTH
        value = cached.get(f.key)
        if isinstance(value, int | float) and not isinstance(value, bool):
            need = max(need, _shown_width(value, f.number_format, _style(f)))
        floors[f.col] = max(floors.get(f.col, 0), need)
    widths = dict(layout_widths)
    for col in set(widths) | set(caps) | set(floors):
        widths[col] = max(min(widths.get(col, DEFAULT_WIDTH), caps.get(col, math.inf)), floors.get(col, 0))
    return widths


def _shown_width(value: float, number_format: str | None, style: str) -> float:
    """Width a number needs in its format: digits, separators, decimals, the Rp prefix, two of padding."""
    fmt = (number_format or "General").split(";")[0]  # the positive section (a negative adds its sign)
    decimals = len(re.sub(r"[^0#]", "", fmt.split(".")[1])) if "." in fmt else 0
    scaled = re.search(r"[0#](,+)(?![0#])", fmt)  # commas after the last digit divide by 1,000 each (#,##0.0,,)
    if scaled:
        value /= 1000 ** len(scaled.group(1))
    if fmt == "General":
        text = f"{value:.10g}"
    else:
        text = f"{value:,.{decimals}f}" if "," in fmt else f"{value:.{decimals}f}"
    text = ("Rp " if "Rp" in fmt else "") + text
    return (len(text) + 2) * _size(style) / 11


def _size(style: str) -> float:
    """The style's font size, a bold one counted 10 % larger (bold letters are wider)."""
    props = STYLES[style]
    return props.get("font_size", 11) * (1.1 if props.get("bold") else 1)


def row_heights(cells: list[Cell], widths: Mapping[int, float]) -> dict[int, float]:
    """Heights of rows whose wrapped text needs more than one line.

    Neither LibreOffice nor every preview fits rows to wrapped text on load, so the height is written: the text is
    wrapped word by word at the column width, with prose letters at 1/1.2 of a digit's width (Calibri and its
    stand-ins) and a little generously, so that no line is cut off.
    """
    heights: dict[int, float] = {}
    for c in cells:
        if not STYLES[c.style].get("text_wrap") or not isinstance(c.value, str):
            continue
        size = _size(c.style)
        per_line = chars_per_line(widths.get(c.col, DEFAULT_WIDTH), c.style)
        lines = _wrapped_lines(c.value, per_line)
        if lines > 1:
            heights[c.row] = max(heights.get(c.row, 15), math.ceil(lines * size * LINE_SPACING + 3))
    return heights


def _wrapped_lines(text: str, per_line: int) -> int:
    """Lines `text` takes when wrapped at `per_line` characters (a longer word breaks inside)."""
    lines = 0
    for paragraph in text.split("\n"):
        lines += 1
        used = 0
        for word in paragraph.split():
            if used and used + 1 + len(word) > per_line:
                lines += 1
                used = 0
            used += (1 if used else 0) + len(word)
            while used > per_line:
                lines += 1
                used -= per_line
    return lines


def _xl_number(x: float) -> str:
    return str(int(x)) if float(x).is_integer() and abs(x) < 1e16 else repr(float(x))


def _is_percent_format(number_format: str) -> bool:
    """A real percent format (the value is a share shown ×100): a % outside quotes."""
    return "%" in re.sub(r'"[^"]*"', "", number_format)


def _domain_message(domain: Domain, percent: bool = False, lang: str = "en") -> dict[str, str]:
    """The validation error text in the workbook's language; a cell shown in percent states its range in percent
    ("0% to 100%"); numbers grouped as the language writes them (1.000.000 under id)."""
    if percent:
        low, high = (f"{x * 100:,.10g}%" for x in (domain.low, domain.high))
    else:
        low, high = (
            f"{x:,.0f}" if float(x).is_integer() and abs(x) < 1e12 else f"{x:g}" for x in (domain.low, domain.high)
        )
    if lang == "id":
        low, high = (x.translate(str.maketrans(",.", ".,")) for x in (low, high))
        whole, exclusive = (" bulat", " (tidak termasuk)")
        return {
            "error_message": f"Masukkan angka{whole if domain.integer else ''} dari {low}"
            f"{exclusive if domain.above else ''} sampai {high}"
        }
    whole, exclusive = (" whole", " (exclusive)")
    return {
        "error_message": f"Enter a{whole if domain.integer else ''} number from {low}"
        f"{exclusive if domain.above else ''} to {high}"
    }


def _pixels(width: float) -> int:
    """A column's width in pixels, as Excel and XlsxWriter convert it (Calibri 11: a digit is 7 px)."""
    return int(width * 7 + 0.5) + 5


def _cached(value: Value) -> object:
    """A cached formula result as XlsxWriter writes it: a number, boolean, text or error code."""
    if value is None:
        return ""
    if isinstance(value, XlError):
        if str(value) not in ERROR_CODES:
            raise ValueError(f"cannot cache the error value {value}")
        return str(value)
    if isinstance(value, float) and not math.isfinite(value):
        return "#NUM!"
    if isinstance(value, str) and value in ERROR_CODES:
        raise ValueError(f"the text {value!r} would be cached as an error value")
    return value


def to_bytes(data: bytes) -> bytes:
    """Rewrite the zip with fixed timestamps and attributes so identical inputs give identical bytes."""
    out = io.BytesIO()
    stamp = FIXED_STAMP.strftime("%Y-%m-%dT%H:%M:%SZ").encode()
    with zipfile.ZipFile(io.BytesIO(data)) as zin, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            part = zin.read(info.filename)
            if info.filename == "docProps/core.xml":
                part = re.sub(rb"(<dcterms:(?:created|modified)[^>]*>)[^<]*", rb"\g<1>" + stamp, part)
            entry = zipfile.ZipInfo(info.filename, date_time=ZIP_TIME)
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = 0o644 << 16
            zout.writestr(entry, part)
    return out.getvalue()
