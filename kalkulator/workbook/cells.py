"""What a workbook layout is made of: constant and formula cells, live tables, charts, conditional colours.

The blocks (kalkulator/workbook/blocks/) fill a Layout; the writer serialises it and verify checks it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from kalkulator.engine.expr import Node, Value
from kalkulator.quantities.domains import Domain
from kalkulator.workbook.whatif import Sensitivity


def get_column_letter(col: int) -> str:
    """1 → A, 27 → AA (openpyxl's helper, written out so `hitung` need not import openpyxl)."""
    letters = ""
    while col:
        col, rest = divmod(col - 1, 26)
        letters = chr(65 + rest) + letters
    return letters


VALUE_COL, OVERRIDE_COL = 2, 3
# A quantity row: label | value | manual value | unit | note and source | name. The name (the identifier formulas
# and `kalkulator hitung` use) comes last, so a sheet of quantity rows prints its columns A–E only.
UNIT_COL, NOTE_COL, NAME_COL = 4, 5, 6
# A percentage input (`_pct`, 0–100 in the engine, CLI and CSV) is typed into the workbook as a spreadsheet
# percentage: the cell holds the share (11 % = 0.11) under a real percent format, so "12%" typed in Excel,
# LibreOffice or Sheets means 12 %; formulas read it as `(name*100)`. The defined name points at the cell.
SHARE_FORMAT = "0.0%"
PERCENT_UNITS = ("_pct", "_pct_per_month")
CHART_ROWS = 20  # rows a chart occupies in the sheet's flow
# Rupiah in a wide table (the Break-even sheet's shortlist, what-if and cumulative tables): the unit moves to the
# header, so a cell drops its "Rp " prefix, and whole-rupiah amounts (totals, per month) show in millions with a
# format that scales (the value stays in rupiah): Rp 1,234,567,890 reads 1,234.6 under "Rp juta". Eight such
# columns then fit A4 landscape at 8 pt (docs/workbook.md, "Printing").
MILLIONS = {"id": "Rp juta", "en": "Rp million"}


def table_money_format(number_format: str, scale: bool = True) -> str:
    """A unit's number format as a table cell shows it: without "Rp ", whole rupiah in millions when `scale`."""
    sections = []
    for section in number_format.split(";"):
        if '"Rp "' in section:
            section = section.replace('"Rp "', "")
            if scale and "." not in section:
                section = section.replace("#,##0", "#,##0.0,,")
        sections.append(section)
    return ";".join(sections)


def table_money_unit(unit_label: str, number_format: str, lang: str) -> str:
    """A unit's label as a table header shows it: "Rp/bulan" → "Rp juta/bulan" where the cells show millions."""
    if '"Rp "' in number_format and "." not in number_format and unit_label.startswith("Rp"):
        return MILLIONS[lang] + unit_label[2:]
    return unit_label


@dataclass(frozen=True)
class Cell:
    """A constant cell: text, number, an input value or a heading."""

    sheet: str
    row: int
    col: int
    value: Value
    style: str  # title | intro | section | header | label | input | unit | name | note | data
    number_format: str | None = None

    @property
    def coord(self) -> str:
        return f"{get_column_letter(self.col)}{self.row}"


@dataclass(frozen=True)
class FormulaCell:
    sheet: str
    row: int
    col: int
    node: Node
    text: str  # the Excel formula, rendered from node
    key: tuple  # ("q", name) scenario cell, ("row", block, index, name) table cell, ("sens", table, name) what-if,
    # ("tree", label) a cell of its own tree over the scenario (a message beside an input, a guarded answer)
    number_format: str
    style: str = "data"  # "answer" in the answer block
    span: int = 1  # columns the cell is merged across (a long sentence)
    longest: int = 0  # the longest text it can show (wrapped answers: sizes the row); 0 when not estimated

    @property
    def coord(self) -> str:
        return f"{get_column_letter(self.col)}{self.row}"

    @property
    def label(self) -> str:
        if self.key[0] == "row":
            return f"{self.key[3]}[{self.key[2] + 1}]"
        return self.key[-1]


@dataclass
class RowBlock:
    """A live table: `bound[i]` replaces scenario values in row i; `columns` are computed per row.

    `moved`: names replaced in every row by a tree over the scenario (the what-if table's input × 0.8).
    `honour`: the row keys of a table whose rows go through the answer block's chain (manual values included, see
    Graph.row_expr); None: the rows recompute the raw formulas from their bound values.
    """

    bound: list[dict[str, Value]]
    columns: list[str]
    moved: dict[str, Node] = field(default_factory=dict)
    honour: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Chart:
    """A bar or line chart over cells of the layout: series are (header cell, first row, last row, column)."""

    sheet: str
    kind: str  # bar | line
    title: str
    anchor: str
    series: tuple[tuple[int, int, int, int], ...]  # (title row, first data row, last data row, column)
    categories: tuple[int, int, int]  # (first row, last row, column)
    y_title: str


@dataclass(frozen=True)
class Conditional:
    """Colour `cells` (e.g. "B5:B20") when `formula` is true; the formula is relative to the range's top-left cell."""

    sheet: str
    cells: str
    formula: str  # Excel condition text without "=", e.g. 'ISTEXT(B5)'
    level: str  # ok (green) | warn (amber) | bad (red)


@dataclass
class Layout:
    lang: str
    sheets: list[tuple[str, str]] = field(default_factory=list)  # (key, title)
    cells: list[Cell] = field(default_factory=list)
    formulas: list[FormulaCell] = field(default_factory=list)
    names: dict[str, str] = field(default_factory=dict)  # defined name -> 'Sheet'!$B$7
    inputs: dict[str, tuple[str, str]] = field(default_factory=dict)  # name or override key -> (sheet, coord)
    list_validations: list[tuple[str, str, str]] = field(default_factory=list)  # (sheet, coord, list formula)
    number_validations: list[tuple[str, str]] = field(default_factory=list)  # (sheet, coord) of a typed number
    domains: dict[tuple[str, str], Domain] = field(default_factory=dict)  # (sheet, coord) → allowed numbers
    row_blocks: list[RowBlock] = field(default_factory=list)
    sensitivities: list[Sensitivity] = field(default_factory=list)
    widths: dict[str, dict[int, float]] = field(default_factory=dict)
    charts: list[Chart] = field(default_factory=list)
    conditionals: list[Conditional] = field(default_factory=list)
    hidden_columns: dict[str, tuple[int, int]] = field(default_factory=dict)  # sheet → (first, last) helper columns
    repeat_header: set[str] = field(default_factory=set)  # sheets whose row-3 header heads every printed page
    catalog_sheets: set[str] = field(default_factory=set)  # catalogs only: may print their key columns only
    key_columns: dict[str, int] = field(default_factory=dict)  # catalog sheet → its last column always printed
    share_inputs: set[str] = field(default_factory=set)  # percentage inputs whose cells hold a share (see SHARE_FORMAT)

    def cell_value(self, name: str, value: Value) -> Value:
        """What the input cell of `name` holds for the engine's `value`: a percentage (11) as a share (0.11)."""
        if name in self.share_inputs and isinstance(value, int | float) and not isinstance(value, bool):
            return value / 100
        return value


def ref(sheet: str, row: int, col: int) -> str:
    return f"'{sheet}'!${get_column_letter(col)}${row}"


def table_name(table: str, column: str) -> str:
    """Defined name of a catalog column, e.g. tbl_gpu_mem_bandwidth_gbs."""
    return f"tbl_{table}_{column}"


def split_coord(coord: str) -> tuple[int, int]:
    """'$AB$12' → (28, 12)."""
    m = re.fullmatch(r"\$?([A-Z]+)\$?(\d+)", coord)
    assert m is not None, coord
    col = 0
    for ch in m.group(1):
        col = col * 26 + ord(ch) - 64
    return col, int(m.group(2))
