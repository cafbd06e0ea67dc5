"""Turn the declarative sheet plan into cells: positions, formula text, defined names, dropdowns.

The layout knows quantities only as named expression trees and catalogs only as tables; each formula
cell keeps the tree it was rendered from and a key that tells verify how to compute its expected value.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path

from kalkulator.catalog import Catalog
from kalkulator.expr import Node, R, Value, XlError, to_excel
from kalkulator.graph import Graph, override_key
from kalkulator.paths import TEMPLATES_DIR
from kalkulator.quantities.base import BOOLEAN_FORMAT, unit_key
from kalkulator.quantities.domains import Domain, domain_of
from kalkulator.workbook import choices, sensitivity
from kalkulator.workbook.sensitivity import Sensitivity, delta_name, end_name, sorted_name

TEMPLATES = TEMPLATES_DIR


def get_column_letter(col: int) -> str:
    """1 → A, 27 → AA (openpyxl's helper, written out so `hitung` need not import openpyxl)."""
    letters = ""
    while col:
        col, rest = divmod(col - 1, 26)
        letters = chr(65 + rest) + letters
    return letters


HEADERS = {
    "id": ("Besaran", "Nilai", "Isi manual", "Satuan", "Nama", "Keterangan dan sumber"),
    "en": ("Quantity", "Value", "Manual value", "Unit", "Name", "Description and source"),
}
VALUE_COL, OVERRIDE_COL = 2, 3
# A percentage input (`_pct`, 0–100 in the engine, CLI and CSV) is typed into the workbook as a spreadsheet
# percentage: the cell holds the share (11 % = 0.11) under a real percent format, so "12%" typed in Excel,
# LibreOffice or Sheets means 12 %; formulas read it as `(name*100)`. The defined name points at the cell.
SHARE_FORMAT = "0.0%"
PERCENT_UNITS = ("_pct", "_pct_per_month")
CHART_ROWS = 20  # rows a chart occupies in the sheet's flow
# the what-if's sorted table right of its first column: rank, two answers at both ends, the change at both ends
SENSITIVITY_COLUMNS = ("rank", "low", "high", "low", "high", "change low", "change high")


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
    key: tuple  # ("q", name) scenario cell, ("row", block, index, name) table cell, ("sens", table, name) what-if
    number_format: str
    style: str = "data"  # "answer" in the answer block

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
    """

    bound: list[dict[str, Value]]
    columns: list[str]
    moved: dict[str, Node] = field(default_factory=dict)


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


def load_plan(path: Path | None = None) -> list[dict]:
    with open(path or TEMPLATES / "workbook.toml", "rb") as fh:
        return tomllib.load(fh)["sheet"]


def load_guide(path: Path | None = None) -> dict:
    with open(path or TEMPLATES / "guide.toml", "rb") as fh:
        return tomllib.load(fh)


@cache
def load_notes(path: Path | None = None) -> dict[str, dict[str, str]]:
    """The Indonesian `note` of every quantity, and its `source` where the Python one is English or imprecise."""
    with open(path or TEMPLATES / "notes_id.toml", "rb") as fh:
        return tomllib.load(fh)


@cache
def load_sources_en(path: Path | None = None) -> dict[str, str]:
    """English for the sources written in Indonesian, keyed by the Indonesian text (templates/sources_en.toml)."""
    with open(path or TEMPLATES / "sources_en.toml", "rb") as fh:
        return tomllib.load(fh)


CATALOG_SOURCE = re.compile(r"Katalog (\w+): kolom ([\w /]+)")  # what base.lookup writes for a catalog value


def source_en(source: str) -> str:
    """A quantity's source as the English workbook shows it: from the table, else a catalog lookup by rule."""
    if source in load_sources_en():
        return load_sources_en()[source]
    match = CATALOG_SOURCE.fullmatch(source)
    return f"Catalog {match.group(1)}: column {match.group(2)}" if match else source


def _fill_guide(text: str, facts: dict[str, str]) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: facts.get(m.group(1), m.group(0)), text)


def build_layout(
    graph: Graph,
    catalog: Catalog,
    lang: str = "id",
    plan: list[dict] | None = None,
    guide: dict | None = None,
    values: dict[str, Value] | None = None,
) -> Layout:
    """Place every quantity, catalog and live table of the plan; render every formula.

    `values` fills input and manual-value cells (by quantity name) instead of the defaults.
    """
    plan = plan if plan is not None else load_plan()
    guide = guide if guide is not None else load_guide()
    lay = Layout(lang)
    placed: dict[str, tuple[str, int]] = {}
    catalog_pos: dict[str, tuple[str, int, int]] = {}  # table -> (sheet, first data row, n rows)
    pending_rows: list[tuple[str, int, dict]] = []  # (sheet, start row, block)
    pending_charts: list[tuple[str, dict, int]] = []
    tables: dict[tuple[str, str], tuple[int, int, dict[str, int]]] = {}  # (sheet, title_en) -> header, rows, columns
    pending_quantities: list[tuple[str, int, str]] = []
    pending_answers: list[tuple[str, int, str]] = []  # answer rows: a home for new names, else a reference
    pending_snapshots: list[tuple[str, int, dict]] = []
    pending_sensitivities: list[tuple[str, int, dict]] = []
    pending_choices: list[tuple[str, int, dict]] = []

    def title_of(item: dict) -> str:
        return item[f"title_{lang}"]

    for sheet in plan:
        title = title_of(sheet)
        lay.sheets.append((sheet["key"], title))
        lay.widths[title] = {}
        lay.cells.append(Cell(title, 1, 1, title, "title"))
        if sheet.get(f"intro_{lang}"):
            lay.cells.append(Cell(title, 2, 1, sheet[f"intro_{lang}"], "intro"))
        row = 3
        has_quantities = any(b["kind"] == "quantities" for b in sheet["blocks"])
        if has_quantities:
            for col, text in enumerate(HEADERS[lang], start=1):
                lay.cells.append(Cell(title, row, col, text, "header"))
            lay.widths[title].update({1: 46, 2: 18, 3: 14, 4: 12, 5: 34, 6: 90})
            row += 1
        for block in sheet["blocks"]:
            kind = block["kind"]
            if kind == "quantities":
                lay.cells.append(Cell(title, row, 1, title_of(block), "section"))
                row += 1
                for name in block["names"]:
                    if name in placed:
                        raise ValueError(f"{name} is placed twice (sheets {placed[name][0]} and {title})")
                    placed[name] = (title, row)
                    pending_quantities.append((title, row, name))
                    row += 1
                row += 1
            elif kind == "answers":
                lay.cells.append(Cell(title, row, 1, title_of(block), "section"))
                row += 1
                for name in block["names"]:
                    pending_answers.append((title, row, name))
                    row += 1
                row += 1
            elif kind == "catalog":
                table = catalog[block["table"]]
                schema = table.schema
                if row > 3:
                    row += 1
                    lay.cells.append(
                        Cell(title, row, 1, schema.title_id if lang == "id" else schema.title_en, "section")
                    )
                    row += 1
                for col, f in enumerate(schema.fields, start=1):
                    header = schema.header(f.name, lang)
                    lay.cells.append(Cell(title, row, col, header, "header"))
                    lay.widths[title].setdefault(col, max(12, min(28, len(header) + 4)))
                lay.widths[title][1] = 30
                for col, f in enumerate(schema.fields, start=1):  # sources are prose (capped where they are long)
                    if f.name == "source" or f.name.endswith("_source"):
                        lay.widths[title][col] = 70
                first = row + 1
                formats = {f.name: _catalog_format(f.kind, [rec[f.name] for rec in table.rows]) for f in schema.fields}
                for i, rec in enumerate(table.rows):
                    for col, f in enumerate(schema.fields, start=1):
                        if rec[f.name] is not None:
                            lay.cells.append(Cell(title, first + i, col, rec[f.name], "data", formats[f.name]))
                catalog_pos[schema.key] = (title, first, len(table.rows))
                for col, f in enumerate(schema.fields, start=1):
                    letter = get_column_letter(col)
                    last = first + len(table.rows) - 1
                    lay.names[table_name(schema.key, f.name)] = f"'{title}'!${letter}${first}:${letter}${last}"
                row = first + len(table.rows) + 1
            elif kind == "rows":
                pending_rows.append((title, row, block))
                n = len(block["values"]) if "values" in block else len(catalog[block["rows_from"]].rows)
                row += n + 4
            elif kind == "snapshot":
                pending_snapshots.append((title, row, block))
                row += len(catalog[block["rows_from"]].rows) + 4
            elif kind == "sensitivity":
                pending_sensitivities.append((title, row, block))
                n = len(block["inputs"])
                row += 3 * n + 8 + CHART_ROWS
            elif kind == "choices":
                pending_choices.append((title, row, block))
                row += choices.height(block)
            elif kind == "chart":
                pending_charts.append((title, block, row))
                row += CHART_ROWS
            elif kind == "guide":
                _place_guide(lay, title, guide, catalog)
            else:
                raise ValueError(f"unknown block kind {kind!r} on sheet {title}")

    references = []
    for title, row, name in pending_answers:
        if name in placed:
            references.append((title, row, name))
        else:
            placed[name] = (title, row)
            pending_quantities.append((title, row, name))
    settable = {n for n, q in graph.quantities.items() if q.is_input or q.overridable}
    if values and set(values) - settable:
        raise ValueError(f"no input cell for {sorted(set(values) - settable)}")
    missing = set(graph.quantities) - set(placed)
    if missing:
        raise ValueError(f"quantities not placed on any sheet: {sorted(missing)}")

    cells: dict[str, str] = {name: name for name in placed}
    lay.share_inputs = {n for n in placed if graph[n].is_input and unit_key(n) in PERCENT_UNITS}
    cells |= {name: f"({name}*100)" for name in lay.share_inputs}
    ranges = {key: table_name(*key) for key in catalog.columns()}
    for name, (title, row) in placed.items():
        lay.names[name] = ref(title, row, VALUE_COL)
        if graph[name].overridable:
            cells[override_key(name)] = ref(title, row, OVERRIDE_COL)

    for title, row, name in pending_quantities:
        _place_quantity(lay, graph, title, row, name, cells, ranges, values or {})
    for title, row, name in references:
        _place_reference(lay, graph, title, row, name, placed[name][0], cells, ranges)
    for title, row, name in pending_answers:
        _colour_answer(lay, graph, title, row, name)
    sensitivity_columns = [(t, r, {"columns": SENSITIVITY_COLUMNS}) for t, r, _ in pending_sensitivities]
    choices_columns = [(t, r, {"columns": [*choices.KEYS, *b["columns"], "rank"]}) for t, r, b in pending_choices]
    helper_start = _helper_columns(lay, pending_rows + sensitivity_columns + choices_columns)
    for title, row, block in pending_rows:
        n, positions = _place_rows(
            lay, graph, catalog, catalog_pos, title, row, block, cells, ranges, helper_start[title]
        )
        tables[(title, block["title_en"])] = (row + 1, n, positions)
    for title, row, block in pending_sensitivities:
        _place_sensitivity(lay, graph, title, row, block, cells, ranges, helper_start[title])
    for title, row, block in pending_choices:
        _place_choices(lay, graph, title, row, block, cells, ranges, helper_start[title])
    for title, row, block in pending_snapshots:
        _place_snapshot(lay, graph, catalog, title, row, block, values or {})
    lay.repeat_header = {title_of(sheet) for sheet in plan if _one_table(sheet)}
    lay.catalog_sheets = {
        title_of(sheet)
        for sheet in plan
        if {b["kind"] for b in sheet["blocks"]} & {"catalog"}
        and not {b["kind"] for b in sheet["blocks"]} & {"quantities"}
    }
    for title, block, row in pending_charts:
        lay.charts.append(_chart(lay, title, block, f"A{row}", placed, tables))
    return lay


MAX_CATALOG_DECIMALS = 6


def _catalog_format(kind: str, values: list[Value]) -> str | None:
    """A catalog column's format: numbers with as many fixed decimals as its most precise value needs (at most
    six), so every row of the column shows alike and no app prints a whole number with a trailing point, as
    Excel and Sheets do with an optional-decimals format ("360.")."""
    if kind != "number":
        return {"int": "#,##0", "text": "@", "enum": "@", "date": "@"}.get(kind)
    decimals = max((decimals_of(v) for v in values if isinstance(v, int | float)), default=0)
    return "#,##0" + ("." + "0" * decimals if decimals else "")


def decimals_of(x: float) -> int:
    """Decimals `x` needs in its 12-significant-digit form (0.0028 → 4), at most MAX_CATALOG_DECIMALS."""
    text = f"{abs(float(x)):.12g}"
    if "e" in text:
        mantissa, exponent = text.split("e")
        digits = len(mantissa.split(".")[1]) if "." in mantissa else 0
        return min(MAX_CATALOG_DECIMALS, max(0, digits - int(exponent)))
    return min(MAX_CATALOG_DECIMALS, len(text.split(".")[1]) if "." in text else 0)


def _place_quantity(
    lay: Layout,
    graph: Graph,
    title: str,
    row: int,
    name: str,
    cells: dict[str, str],
    ranges: dict,
    values: dict[str, Value],
) -> None:
    q = graph[name]
    lang = lay.lang
    fmt = q.unit.number_format
    lay.cells.append(Cell(title, row, 1, q.label(lang), "label"))
    lay.cells.append(Cell(title, row, 4, q.unit.label_in(lang), "unit"))
    lay.cells.append(Cell(title, row, 5, name, "name"))
    note = load_notes().get(name, {}) if lang == "id" else {}  # a quantity without a note yet shows English
    source = note.get("source", q.source) if lang == "id" else source_en(q.source)
    lay.cells.append(Cell(title, row, 6, f"{note.get('note', q.doc)} [{source}]", "note"))
    coord = f"{get_column_letter(VALUE_COL)}{row}"
    if q.is_input:
        domain = domain_of(q)
        if name in lay.share_inputs:
            fmt, domain = SHARE_FORMAT, replace(domain, low=domain.low / 100, high=domain.high / 100)
        lay.cells.append(Cell(title, row, VALUE_COL, lay.cell_value(name, values.get(name, q.default)), "input", fmt))
        lay.inputs[name] = (title, coord)
        if q.choices:
            lay.list_validations.append((title, coord, table_name(*q.choices)))
        elif q.options:
            lay.list_validations.append((title, coord, '"' + ",".join(q.options) + '"'))
        else:
            lay.number_validations.append((title, coord))
            lay.domains[(title, coord)] = domain
        return
    node = graph.cell_expr(name)
    lay.formulas.append(
        FormulaCell(title, row, VALUE_COL, node, to_excel(node, cells, ranges, lay.lang), ("q", name), fmt)
    )
    if q.overridable:
        ocoord = f"{get_column_letter(OVERRIDE_COL)}{row}"
        lay.cells.append(Cell(title, row, OVERRIDE_COL, values.get(name), "input", fmt))
        lay.inputs[override_key(name)] = (title, ocoord)
        if q.is_text:
            if q.choices:
                lay.list_validations.append((title, ocoord, table_name(*q.choices)))
        else:
            lay.number_validations.append((title, ocoord))
            lay.domains[(title, ocoord)] = domain_of(q)


def _place_reference(
    lay: Layout, graph: Graph, title: str, row: int, name: str, home: str, cells: dict[str, str], ranges: dict
) -> None:
    """An answer row showing a quantity that lives on another sheet (its defined name points there)."""
    q = graph[name]
    node = R(name)
    lay.cells.append(Cell(title, row, 1, q.label(lay.lang), "label"))
    lay.formulas.append(
        FormulaCell(
            title, row, VALUE_COL, node, to_excel(node, cells, ranges, lay.lang), ("q", name), q.unit.number_format
        )
    )
    lay.cells.append(Cell(title, row, 4, q.unit.label_in(lay.lang), "unit"))
    lay.cells.append(Cell(title, row, 5, name, "name"))
    lay.cells.append(Cell(title, row, 6, ("→ see sheet " if lay.lang == "en" else "→ lihat sheet ") + home, "note"))


def _colour_answer(lay: Layout, graph: Graph, title: str, row: int, name: str) -> None:
    """Answer cells bold (a status sentence wrapped); green/amber/red: OK and TRUE green, FALSE and a status
    problem red, a reason in place of a number amber."""
    for i, f in enumerate(lay.formulas):
        if (f.sheet, f.row, f.col) == (title, row, VALUE_COL):
            lay.formulas[i] = replace(f, style="status" if name == "status_text" else "answer")
    coord = f"{get_column_letter(VALUE_COL)}{row}"
    if name.endswith("_hint_text"):  # advice, not a problem: amber when there is any
        lay.conditionals.append(Conditional(title, coord, f'{coord}<>""', "warn"))
    elif name.endswith("_text"):
        lay.conditionals.append(Conditional(title, coord, f'{coord}="OK"', "ok"))
        lay.conditionals.append(Conditional(title, coord, f'{coord}<>"OK"', "bad"))
    elif graph[name].unit.number_format == BOOLEAN_FORMAT:
        lay.conditionals.append(Conditional(title, coord, f"{coord}=TRUE", "ok"))
        lay.conditionals.append(Conditional(title, coord, f"{coord}=FALSE", "bad"))
    else:
        lay.conditionals.append(Conditional(title, coord, f"ISTEXT({coord})", "warn"))


def _one_table(sheet: dict) -> bool:
    """A sheet whose row-3 header heads everything on it: quantities only, or a single catalog."""
    kinds = [b["kind"] for b in sheet["blocks"]]
    return kinds == ["catalog"] or set(kinds) <= {"quantities", "answers"}


def _helper_columns(lay: Layout, pending_rows: list[tuple[str, int, dict]]) -> dict[str, int]:
    """Where each sheet's helper columns start: right of everything else on the sheet, one column apart.

    A live table shows the columns its plan asks for; the quantities between them and the bound ones (added
    automatically) sit in hidden, grouped columns further right, so the sheet prints readably one page wide.
    """
    start = {}
    for title in {t for t, _, _ in pending_rows}:
        used = max((c.col for c in lay.cells if c.sheet == title), default=1)
        asked = max(1 + len(b["columns"]) for t, _, b in pending_rows if t == title)
        start[title] = max(used, asked) + 2
    return start


def _place_rows(
    lay: Layout,
    graph: Graph,
    catalog: Catalog,
    catalog_pos: dict[str, tuple[str, int, int]],
    title: str,
    row: int,
    block: dict,
    cells: dict[str, str],
    ranges: dict,
    helper_start: int,
) -> tuple[int, dict[str, int]]:
    """Place a live table; return its number of rows and the column of each quantity."""
    lang = lay.lang
    bind: dict[str, str] = block["bind"]
    # `hold`: quantities that keep the scenario's value in every row (the closure stops there).
    columns = graph.row_closure(set(bind) | set(block.get("hold", ())), block["columns"])
    for name in block["columns"]:
        if not graph.depends_on(name, set(bind)):
            raise ValueError(f"table {block[f'title_{lang}']!r}: column {name} does not depend on {sorted(bind)}")
    helpers = [c for c in columns if c not in block["columns"]]
    positions = {name: j for j, name in enumerate(block["columns"], start=2)}
    positions |= {name: helper_start + k for k, name in enumerate(helpers)}
    if helpers:
        first, last = lay.hidden_columns.get(title, (helper_start, helper_start))
        lay.hidden_columns[title] = (helper_start, max(last, helper_start + len(helpers) - 1))
    key_name = next(iter(bind))
    section = block[f"title_{lang}"]
    if helpers:
        span = f"{get_column_letter(helper_start)}–{get_column_letter(helper_start + len(helpers) - 1)}"
        section += (
            f" (perhitungan antara: kolom {span}, tersembunyi)"
            if lang == "id"
            else (f" (intermediate steps: columns {span}, hidden)")
        )
    lay.cells.append(Cell(title, row, 1, section, "section"))
    header = row + 1
    lay.cells.append(Cell(title, header, 1, graph[key_name].label(lang), "header"))
    for name, j in positions.items():
        q = graph[name]
        unit = "" if q.is_text else f" ({q.unit.label_in(lang)})"
        lay.cells.append(Cell(title, header, j, f"{q.label(lang)}{unit}", "header"))
        lay.cells.append(Cell(title, header + 1, j, name, "name"))
        lay.widths[title].setdefault(j, 16)
    lay.cells.append(Cell(title, header + 1, 1, key_name, "name"))
    first = header + 2
    if "values" in block:
        bound_rows = [{key_name: v} for v in block["values"]]
    else:
        table = catalog[block["rows_from"]]
        bound_rows = [{name: rec[col] for name, col in bind.items()} for rec in table.rows]
    rb = RowBlock(bound_rows, columns)
    n_rows = len(bound_rows)
    lay.row_blocks.append(rb)
    index = len(lay.row_blocks) - 1
    for i, bound in enumerate(bound_rows):
        r = first + i
        local = dict(cells)
        if "values" in block:
            whole = all(float(v).is_integer() for v in block["values"])  # whole months on a chart axis
            fmt = "#,##0" if whole else graph[key_name].unit.number_format
            lay.cells.append(Cell(title, r, 1, bound[key_name], "input", fmt))
            lay.inputs[f"{key_name}@{index}:{i}"] = (title, f"A{r}")
            lay.number_validations.append((title, f"A{r}"))
            lay.domains[(title, f"A{r}")] = domain_of(graph[key_name])
            local[key_name] = ref(title, r, 1).replace(f"${r}", str(r))
        else:
            cat_title, cat_first, _ = catalog_pos[block["rows_from"]]
            fields = [f.name for f in catalog[block["rows_from"]].schema.fields]
            for name, col in bind.items():
                local[name] = ref(cat_title, cat_first + i, fields.index(col) + 1)
            node = R(key_name)
            lay.formulas.append(
                FormulaCell(title, r, 1, node, to_excel(node, local, ranges, lang), ("row", index, i, key_name), "@")
            )
        for name, j in positions.items():
            local[name] = f"${get_column_letter(j)}{r}"
        for name, j in positions.items():
            expr = graph[name].expr
            assert expr is not None
            lay.formulas.append(
                FormulaCell(
                    title,
                    r,
                    j,
                    expr,
                    to_excel(expr, local, ranges, lang),
                    ("row", index, i, name),
                    graph[name].unit.number_format,
                )
            )
    if "fits_in_vram" in block["columns"] and n_rows:
        fits = get_column_letter(positions["fits_in_vram"])
        last = get_column_letter(len(block["columns"]) + 1)
        area = f"A{first}:{last}{first + n_rows - 1}"
        lay.conditionals.append(Conditional(title, area, f"${fits}{first}=FALSE", "bad"))
    return n_rows, positions


def _place_sensitivity(
    lay: Layout,
    graph: Graph,
    title: str,
    row: int,
    block: dict,
    cells: dict[str, str],
    ranges: dict,
    helper_start: int,
) -> None:
    """Place a what-if table (kalkulator/workbook/sensitivity.py): a row per input and direction, then the
    inputs sorted by their effect on the first answer, then the tornado chart."""
    lang = lay.lang
    inputs, outputs, step = block["inputs"], block["outputs"], float(block["step_frac"])
    bands = block.get("bands", {})
    s = sensitivity.new(graph, block, f"whatif{len(lay.sensitivities)}", lang)
    text = {key: pair[lang == "en"] for key, pair in SENSITIVITY_TEXT.items()}
    last_helper = helper_start

    def header_row(at: int, texts: list[str], names: list[str]) -> None:
        for j, t in enumerate(texts, start=1):
            lay.cells.append(Cell(title, at, j, t, "header"))
        for j, n in enumerate(names, start=1):
            if n:
                lay.cells.append(Cell(title, at + 1, j, n, "name"))

    def unit_label(name: str) -> str:
        q = graph[name]
        return f"{q.label(lang)} ({q.unit.label_in(lang)})"

    # Part 1: a row per input and direction.
    lay.cells.append(Cell(title, row, 1, block[f"title_{lang}"] + text["hidden"], "section"))
    header_row(
        row + 1, [text["input"], text["direction"], text["value"], *map(unit_label, outputs)], ["", "", "", *outputs]
    )
    r = row + 3
    local_all = dict(cells)
    for k, name in enumerate(inputs):
        for up in (False, True):
            closure, tree = sensitivity.row_spec(graph, block, name, up)
            lay.row_blocks.append(RowBlock([{}], closure, {name: tree}))
            index = len(lay.row_blocks) - 1
            lay.cells.append(Cell(title, r, 1, s.labels[k], "label"))
            lay.cells.append(Cell(title, r, 2, text["band" if name in bands else "step"][up].format(step=step), "data"))
            fmt = graph[name].unit.number_format
            lay.formulas.append(
                FormulaCell(title, r, 3, tree, to_excel(tree, cells, ranges, lang), ("row", index, 0, name), fmt)
            )
            local = dict(cells) | {name: f"$C{r}"}
            helpers = [c for c in closure if c not in outputs]
            positions = {out: 4 + j for j, out in enumerate(outputs)}
            positions |= {h: helper_start + j for j, h in enumerate(helpers)}
            last_helper = max(last_helper, helper_start + len(helpers) - 1)
            for q, col in positions.items():
                local[q] = f"${get_column_letter(col)}{r}"
            for q, col in positions.items():
                node = graph[q].expr if q in closure else R(q)
                assert node is not None
                ctx = local if q in closure else cells
                lay.formulas.append(
                    FormulaCell(
                        title,
                        r,
                        col,
                        node,
                        to_excel(node, ctx, ranges, lang),
                        ("row", index, 0, q),
                        graph[q].unit.number_format,
                    )
                )
            for out in outputs:
                s.ends[end_name(s.key, k, out, up)] = (index, 0, out)
                local_all[end_name(s.key, k, out, up)] = ref(title, r, positions[out])
            r += 1
    # Part 2: sorted by the swing of the first answer; swing, rank and copies in hidden helper columns.
    top = r + 1
    lay.cells.append(Cell(title, top, 1, text["sorted"].format(answer=graph[outputs[0]].label(lang)), "section"))
    ends = [f"{graph[o].label(lang)}: {text[e]}" for o in outputs for e in ("low", "high")]
    changes = [f"{text['change']} {graph[outputs[0]].label(lang)}: {text[e]}" for e in ("low", "high")]
    header_row(top + 1, [text["input"], text["rank"], *ends, *changes], [])
    first = top + 3
    n = len(inputs)
    hidden = {f"{s.key}_label_{{}}": 0, f"{s.key}_swing_{{}}": 1, f"{s.key}_rank_{{}}": 2}
    for j, (out, up) in enumerate((o, u) for o in outputs for u in (False, True)):
        hidden[f"{s.key}_copy_{{}}_{int(up)}_{out}"] = 3 + j
    last_helper = max(last_helper, helper_start + max(hidden.values()))
    for k in range(n):
        at = first + k
        for pattern, j in hidden.items():
            local_all[pattern.format(k)] = ref(title, at, helper_start + j)
        local_all[f"{s.key}_position_{k}"] = ref(title, at, 2)
        lay.cells.append(Cell(title, at, 2, k + 1, "data", "#,##0"))
        lay.cells.append(Cell(title, at, helper_start, s.labels[k], "data"))
        local_all[f"{s.key}_sorted_label_{k}"] = ref(title, at, 1)
        for j, (out, up) in enumerate((o, u) for o in outputs for u in (False, True)):
            local_all[sorted_name(s.key, k, out, up)] = ref(title, at, 3 + j)
        for up in (False, True):
            local_all[delta_name(s.key, k, up)] = ref(title, at, 7 + int(up))
    area = {(s.key, "rank"): 2, (s.key, "label"): 0}
    for j, (out, up) in enumerate((o, u) for o in outputs for u in (False, True)):
        area[(s.key, f"{int(up)}_{out}")] = 3 + j
    ranges_all = dict(ranges)
    for col_key, j in area.items():
        letter = get_column_letter(helper_start + j)
        ranges_all[col_key] = f"'{title}'!${letter}${first}:${letter}${first + n - 1}"
    money = graph[outputs[0]].unit.number_format
    for name, tree in s.names.items():
        _, coord = local_all[name].split("!")
        at_col, at_row = _split(coord)
        fmt = "#,##0" if "_rank_" in name else "@" if "_label_" in name else _answer_format(graph, s, name) or money
        lay.formulas.append(
            FormulaCell(
                title,
                at_row,
                at_col,
                tree,
                to_excel(tree, local_all, ranges_all, lang),
                ("sens", len(lay.sensitivities), name),
                fmt,
            )
        )
    lay.sensitivities.append(s)
    lay.hidden_columns[title] = (helper_start, max(lay.hidden_columns.get(title, (0, 0))[1], last_helper))
    for col in range(1, 9):
        lay.widths[title].setdefault(col, 16)
    chart_at = first + n + 1
    series = tuple((top + 1, first, first + n - 1, 7 + j) for j in (0, 1))
    lay.charts.append(
        Chart(title, "tornado", block[f"chart_title_{lang}"], f"A{chart_at}", series, (first, first + n - 1, 1), "Rp")
    )


def _place_choices(
    lay: Layout,
    graph: Graph,
    title: str,
    row: int,
    block: dict,
    cells: dict[str, str],
    ranges: dict,
    helper_start: int,
) -> None:
    """Place the live shortlist (kalkulator/workbook/choices.py): the candidates with their yellow GPU and count,
    their answers and live rank, then the same rows sorted cheapest first."""
    lang = lay.lang
    text = {key: pair[lang == "en"] for key, pair in choices.TEXT.items()}
    s = choices.new(graph, block, f"choices{len(lay.sensitivities)}", lang)
    shown, n = choices.shown(block), len(block["rows"])
    closure = graph.row_closure(set(choices.KEYS), [*shown, *choices.read(block)[2:]])
    helpers = [c for c in closure if c not in shown]
    positions = {name: 3 + j for j, name in enumerate(shown)} | {h: helper_start + k for k, h in enumerate(helpers)}
    rank_col, score_col = 3 + len(shown), helper_start + len(helpers)
    lay.cells.append(Cell(title, row, 1, block[f"title_{lang}"] + text["hidden"], "section"))
    lay.cells.append(Cell(title, row + 1, 1, text["note"], "note"))
    heads = [graph[k].label(lang) for k in choices.KEYS]
    heads += [
        f"{graph[q].label(lang)}{'' if graph[q].is_text else f' ({graph[q].unit.label_in(lang)})'}" for q in shown
    ]
    for j, (head, name) in enumerate(zip([*heads, text["rank"]], [*choices.KEYS, *shown, ""], strict=True), start=1):
        lay.cells.append(Cell(title, row + 2, j, head, "header"))
        if name:
            lay.cells.append(Cell(title, row + 3, j, name, "name"))
        lay.widths[title].setdefault(j, 16)
    first = row + 4
    lay.row_blocks.append(RowBlock([dict(zip(choices.KEYS, r, strict=True)) for r in block["rows"]], closure))
    index = len(lay.row_blocks) - 1
    local_all = dict(cells)
    gpu_list = table_name(*graph["gpu_name"].choices)
    for i, (gpu, count) in enumerate(block["rows"]):
        r = first + i
        lay.cells.append(Cell(title, r, 1, gpu, "input", "@"))
        lay.cells.append(Cell(title, r, 2, count, "input", "#,##0"))
        lay.inputs[f"gpu_name@{index}:{i}"], lay.inputs[f"n_gpus@{index}:{i}"] = (title, f"A{r}"), (title, f"B{r}")
        lay.list_validations.append((title, f"A{r}", gpu_list))
        lay.number_validations.append((title, f"B{r}"))
        lay.domains[(title, f"B{r}")] = domain_of(graph["n_gpus"])
        local = dict(cells) | {"gpu_name": f"$A{r}", "n_gpus": f"$B{r}"}
        local |= {name: f"${get_column_letter(j)}{r}" for name, j in positions.items()}
        for name, j in positions.items():
            expr = graph[name].expr
            assert expr is not None
            fmt = graph[name].unit.number_format
            key = ("row", index, i, name)
            lay.formulas.append(FormulaCell(title, r, j, expr, to_excel(expr, local, ranges, lang), key, fmt))
        for name in choices.read(block):
            s.ends[choices.end_name(s.key, i, name)] = (index, i, name)
            col = {"gpu_name": 1, "n_gpus": 2}.get(name) or positions[name]
            local_all[choices.end_name(s.key, i, name)] = ref(title, r, col)
        local_all[f"{s.key}_score_{i}"] = ref(title, r, score_col)
        local_all[f"{s.key}_rank_{i}"] = ref(title, r, rank_col)
    last = first + n - 1
    ranges_all = dict(ranges)
    for name, col in {"gpu_name": 1, "n_gpus": 2, **{q: positions[q] for q in shown}, "rank": rank_col}.items():
        letter = get_column_letter(col)
        ranges_all[(s.key, name)] = f"'{title}'!${letter}${first}:${letter}${last}"
    top = last + 2
    lay.cells.append(Cell(title, top, 1, text["sorted"], "section"))
    for j, head in enumerate([text["rank"], *heads], start=1):
        lay.cells.append(Cell(title, top + 1, j, head, "header"))
    sorted_first = top + 2
    for r in range(n):
        at = sorted_first + r
        lay.cells.append(Cell(title, at, 1, r + 1, "data", "#,##0"))
        local_all[f"{s.key}_position_{r}"] = ref(title, at, 1)
        local_all[f"{s.key}_at_{r}"] = ref(title, at, helper_start)
        for j, name in enumerate((*choices.KEYS, *shown), start=2):
            local_all[choices.sorted_name(s.key, r, name)] = ref(title, at, j)
    formats = {f"{s.key}_score_{i}": graph[choices.RANK_BY].unit.number_format for i in range(n)}
    for r in range(n):
        for name in (*choices.KEYS, *shown):
            formats[choices.sorted_name(s.key, r, name)] = (
                "@" if graph[name].is_text else graph[name].unit.number_format
            )
    for name, tree in s.names.items():
        at_col, at_row = _split(local_all[name].split("!")[1])
        key = ("sens", len(lay.sensitivities), name)
        formula = to_excel(tree, local_all, ranges_all, lang)
        lay.formulas.append(FormulaCell(title, at_row, at_col, tree, formula, key, formats.get(name, "#,##0")))
    lay.sensitivities.append(s)
    hidden_last = max(lay.hidden_columns.get(title, (0, 0))[1], score_col)
    lay.hidden_columns[title] = (helper_start, hidden_last)
    rk, chk, right = (
        get_column_letter(rank_col),
        get_column_letter(positions[choices.CHECK]),
        get_column_letter(rank_col),
    )
    lay.conditionals.append(
        Conditional(title, f"A{first}:{right}{last}", f'AND(${rk}{first}=1,${chk}{first}="OK")', "ok")
    )
    lay.conditionals.append(Conditional(title, f"{chk}{first}:{chk}{last}", f'{chk}{first}<>"OK"', "bad"))
    chk2 = get_column_letter(positions[choices.CHECK] + 1)
    lay.conditionals.append(
        Conditional(title, f"A{sorted_first}:{right}{sorted_first}", f'${chk2}{sorted_first}="OK"', "ok")
    )


SENSITIVITY_TEXT = {  # key → (Indonesian, English)
    "hidden": (" (perhitungan antara di kolom tersembunyi)", " (intermediate steps in hidden columns)"),
    "input": ("Masukan", "Input"),
    "direction": ("Arah", "Direction"),
    "value": ("Nilai", "Value"),
    "step": (("−{step:.0%}", "+{step:.0%}"),) * 2,
    "band": (("batas bawah pita galat", "batas atas pita galat"), ("error band, low end", "error band, high end")),
    "sorted": ("Diurutkan menurut pengaruh pada {answer}", "Sorted by effect on {answer}"),
    "rank": ("Peringkat", "Rank"),
    "low": ("turun", "down"),
    "high": ("naik", "up"),
    "change": ("Perubahan", "Change in"),
}


def _split(coord: str) -> tuple[int, int]:
    """'$AB$12' → (28, 12)."""
    m = re.fullmatch(r"\$?([A-Z]+)\$?(\d+)", coord)
    assert m is not None, coord
    col = 0
    for ch in m.group(1):
        col = col * 26 + ord(ch) - 64
    return col, int(m.group(2))


def _answer_format(graph: Graph, s: Sensitivity, name: str) -> str | None:
    """Number format of a sorted or copied answer cell: that answer's own."""
    for out in s.outputs:
        if name.endswith(f"_{out}"):
            return graph[out].unit.number_format
    return None


def _place_snapshot(
    lay: Layout, graph: Graph, catalog: Catalog, title: str, row: int, block: dict, values: dict[str, Value]
) -> None:
    """Place a table of values the engine computed for each catalog row when the workbook was built.

    For reference tables whose rows are fixed setups (the published measurements beside kalkulator's estimate):
    their inputs are catalog rows, not the yellow cells, so live formulas would add thousands of cells for
    numbers a user does not steer. The section title says the values are fixed.
    """
    lang = lay.lang
    bind: dict[str, str] = block["bind"]
    key_name = next(iter(bind))
    fixed = " (nilai tetap, dihitung saat workbook dibuat)" if lang == "id" else " (fixed values, computed at build)"
    lay.cells.append(Cell(title, row, 1, block[f"title_{lang}"] + fixed, "section"))
    header = row + 1
    shown = [key_name, *block["columns"]]
    for j, name in enumerate(shown, start=1):
        q = graph[name]
        unit = "" if q.is_text else f" ({q.unit.label_in(lang)})"
        lay.cells.append(Cell(title, header, j, f"{q.label(lang)}{unit}", "header"))
        lay.cells.append(Cell(title, header + 1, j, name, "name"))
        lay.widths[title].setdefault(j, 16)
    columns = catalog.columns()
    scenario = graph.evaluate(values, columns, lang)
    needed = graph.row_closure(set(bind), block["columns"])
    for i, rec in enumerate(catalog[block["rows_from"]].rows):
        bound = {name: rec[col] for name, col in bind.items()}
        row_values = bound | graph.evaluate_row(scenario, bound, needed, columns, lang)
        for j, name in enumerate(shown, start=1):
            value = row_values[name]
            value = str(value) if isinstance(value, XlError) else value
            fmt = "@" if graph[name].is_text else graph[name].unit.number_format
            lay.cells.append(Cell(title, header + 2 + i, j, value, "data", fmt))


def _chart(
    lay: Layout,
    title: str,
    block: dict,
    anchor: str,
    placed: dict[str, tuple[str, int]],
    tables: dict[tuple[str, str], tuple[int, int, dict[str, int]]],
) -> Chart:
    """A chart over consecutive quantity rows of this sheet, or over columns of a live table on it."""
    lang = lay.lang
    label = block[f"title_{lang}"]
    if "names" in block:
        rows = [placed[n][1] for n in block["names"]]
        if any(placed[n][0] != title for n in block["names"]) or rows != list(range(rows[0], rows[0] + len(rows))):
            raise ValueError(f"chart {label!r}: {block['names']} must be consecutive rows of sheet {title}")
        series = ((rows[0] - 1, rows[0], rows[-1], VALUE_COL),)
        categories = (rows[0], rows[-1], 1)  # the rows' labels, or the values of other rows (e.g. with a reason)
        if "categories" in block:
            at = [placed[n][1] for n in block["categories"]]
            if any(placed[n][0] != title for n in block["categories"]) or at != list(range(at[0], at[0] + len(rows))):
                raise ValueError(
                    f"chart {label!r}: categories {block['categories']} must be {len(rows)} consecutive rows"
                )
            categories = (at[0], at[-1], VALUE_COL)
    else:
        header, n, positions = tables[(title, block["table"])]
        first = header + 2
        series = tuple((header, first, first + n - 1, positions[c]) for c in block["columns"])
        categories = (first, first + n - 1, 1)
    return Chart(title, block["chart"], label, anchor, series, categories, block.get(f"y_title_{lang}", ""))


def _place_guide(lay: Layout, title: str, guide: dict, catalog: Catalog) -> None:
    lang = lay.lang
    facts = {f"{key}_as_of": max(r["as_of"] for r in t.rows) for key, t in catalog.tables.items()} | {
        f"{key}_rows": str(len(t.rows)) for key, t in catalog.tables.items()
    }
    lay.widths[title] = {1: 34, 2: 80}
    row = 3
    for section in guide["section"]:
        lay.cells.append(Cell(title, row, 1, section[f"title_{lang}"], "section"))
        row += 1
        for item in section.get("items", []):
            lay.cells.append(Cell(title, row, 1, _fill_guide(item[f"term_{lang}"], facts), "label"))
            lay.cells.append(Cell(title, row, 2, _fill_guide(item[f"text_{lang}"], facts), "guide"))
            row += 1
        row += 1
