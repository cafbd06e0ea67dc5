"""Turn the declarative sheet plan into cells: positions, formula text, defined names, dropdowns.

The layout knows quantities only as named expression trees and catalogs only as tables; each formula
cell keeps the tree it was rendered from and a key that tells verify how to compute its expected value.
This module coordinates the blocks (kalkulator/workbook/blocks/, one module per kind) in two passes: every
block claims its rows sheet by sheet, then, once every quantity has a cell, the blocks fill them stage by stage.
"""

from __future__ import annotations

from kalkulator.catalog import Catalog
from kalkulator.engine.expr import Value
from kalkulator.engine.graph import Graph, override_key
from kalkulator.quantities.base import unit_key
from kalkulator.workbook.blocks import Block, Context
from kalkulator.workbook.cells import (
    CHART_ROWS,
    OVERRIDE_COL,
    PERCENT_UNITS,
    VALUE_COL,
    Cell,
    Chart,
    Conditional,
    FormulaCell,
    Layout,
    RowBlock,
    get_column_letter,
    ref,
    table_name,
)
from kalkulator.workbook.plan import Sheet, load_plan
from kalkulator.workbook.texts import TEMPLATES, load_guide, source_en

__all__ = [
    "CHART_ROWS",
    "TEMPLATES",
    "Cell",
    "Chart",
    "Conditional",
    "FormulaCell",
    "Layout",
    "RowBlock",
    "build_layout",
    "get_column_letter",
    "load_plan",
    "source_en",
    "table_name",
]

HEADERS = {
    "id": ("Besaran", "Nilai", "Isi manual", "Satuan", "Keterangan dan sumber", "Nama"),
    "en": ("Quantity", "Value", "Manual value", "Unit", "Description and source", "Name"),
}
Spot = tuple[Block, str, int]  # a block, its sheet's title and its first row


def build_layout(
    graph: Graph,
    catalog: Catalog,
    lang: str = "id",
    plan: list[Sheet] | None = None,
    guide: dict | None = None,
    values: dict[str, Value] | None = None,
) -> Layout:
    """Place every quantity, catalog and live table of the plan; render every formula.

    `values` fills input and manual-value cells (by quantity name) instead of the defaults.
    """
    plan = plan if plan is not None else load_plan()
    ctx = Context(Layout(lang), graph, catalog, guide if guide is not None else load_guide(), values or {})
    spots = [spot for sheet in plan for spot in _reserve(ctx, sheet)]
    for block, title, row in spots:
        block.claim(ctx, title, row)
    _name_cells(ctx)
    ctx.helper_start = _helper_columns(ctx.lay, spots)
    for block, title, row in sorted(spots, key=lambda spot: spot[0].stage):  # stable: plan order in a stage
        block.place(ctx, title, row)
    ctx.lay.repeat_header = {sheet.title(lang) for sheet in plan if sheet.one_table}
    ctx.lay.catalog_sheets = {sheet.title(lang) for sheet in plan if sheet.catalogs_only}
    return ctx.lay


def _reserve(ctx: Context, sheet: Sheet) -> list[Spot]:
    """Pass 1 on one sheet: its title, intro and (with quantities) the column headers; each block's rows."""
    lay, lang = ctx.lay, ctx.lang
    title = sheet.title(lang)
    lay.sheets.append((sheet.key, title))
    lay.widths[title] = {}
    lay.cells.append(Cell(title, 1, 1, title, "title"))
    if sheet.intro(lang):
        lay.cells.append(Cell(title, 2, 1, sheet.intro(lang), "intro"))
    row = 3
    if "quantities" in sheet.kinds:
        for col, text in enumerate(HEADERS[lang], start=1):
            lay.cells.append(Cell(title, row, col, text, "header"))
        lay.widths[title].update({1: 46, 2: 20, 3: 14, 4: 12, 5: 90, 6: 34})
        row += 1
    spots = []
    for block in sheet.blocks:
        spots.append((block, title, row))
        row += block.reserve(ctx, title, row)
    return spots


def _name_cells(ctx: Context) -> None:
    """Between the passes: check every quantity has a cell; the defined names and how formulas read them."""
    graph, lay, placed = ctx.graph, ctx.lay, ctx.placed
    settable = {n for n, q in graph.quantities.items() if q.is_input or q.overridable}
    if set(ctx.values) - settable:
        raise ValueError(f"no input cell for {sorted(set(ctx.values) - settable)}")
    missing = set(graph.quantities) - set(placed)
    if missing:
        raise ValueError(f"quantities not placed on any sheet: {sorted(missing)}")
    ctx.cells = {name: name for name in placed}
    lay.share_inputs = {n for n in placed if graph[n].is_input and unit_key(n) in PERCENT_UNITS}
    ctx.cells |= {name: f"({name}*100)" for name in lay.share_inputs}
    ctx.ranges = {key: table_name(*key) for key in ctx.catalog.columns()}
    for name, (title, row) in placed.items():
        lay.names[name] = ref(title, row, VALUE_COL)
        if graph[name].overridable:
            ctx.cells[override_key(name)] = ref(title, row, OVERRIDE_COL)


def _helper_columns(lay: Layout, spots: list[Spot]) -> dict[str, int]:
    """Where each sheet's helper columns start: right of everything else on the sheet, one column apart.

    A live table shows the columns its plan asks for; the quantities between them and the bound ones (added
    automatically) sit in hidden, grouped columns further right, so the sheet prints readably one page wide.
    """
    asked: dict[str, int] = {}
    for block, title, _ in spots:
        width = block.helper_width()
        if width is not None:
            asked[title] = max(asked.get(title, 0), width)
    used = {title: max((c.col for c in lay.cells if c.sheet == title), default=1) for title in asked}
    return {title: max(used[title], width) + 2 for title, width in asked.items()}
