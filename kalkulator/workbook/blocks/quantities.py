"""Rows of named quantities: label | value (or yellow input) | manual value | unit | note and source | name."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar

from kalkulator.engine.expr import to_excel
from kalkulator.engine.graph import override_key
from kalkulator.quantities.checks import input_message
from kalkulator.quantities.domains import domain_of, settable_numbers
from kalkulator.workbook.blocks.block import Context, Titled
from kalkulator.workbook.cells import (
    NAME_COL,
    NOTE_COL,
    OVERRIDE_COL,
    SHARE_FORMAT,
    UNIT_COL,
    VALUE_COL,
    Cell,
    Conditional,
    FormulaCell,
    get_column_letter,
    table_name,
)
from kalkulator.workbook.texts import indonesian_note, source_en


@dataclass(frozen=True)
class Quantities(Titled):
    """A titled run of quantity rows; `summary` marks what `kalkulator hitung` prints first."""

    kind: ClassVar[str] = "quantities"
    stage: ClassVar[int] = 1
    names: list[str]
    summary: bool = False

    def reserve(self, ctx: Context, sheet: str, row: int) -> int:
        ctx.lay.cells.append(Cell(sheet, row, 1, self.title(ctx.lang), "section"))
        for i, name in enumerate(self.names):
            ctx.home(name, sheet, row + 1 + i)
        return len(self.names) + 2

    def place(self, ctx: Context, sheet: str, row: int) -> None:
        for i, name in enumerate(self.names):
            place_quantity(ctx, sheet, row + 1 + i, name)


def place_quantity(ctx: Context, sheet: str, row: int, name: str) -> None:
    """A quantity's row: an input cell with its dropdown or allowed range, else its formula (and manual value)."""
    lay, q = ctx.lay, ctx.graph[name]
    fmt = q.unit.number_format
    lay.cells.append(Cell(sheet, row, 1, q.label(ctx.lang), "label"))
    lay.cells.append(Cell(sheet, row, UNIT_COL, q.unit.label_in(ctx.lang), "unit"))
    lay.cells.append(Cell(sheet, row, NAME_COL, name, "name"))
    note, source = indonesian_note(q) if ctx.lang == "id" else (q.doc, source_en(q.source))
    lay.cells.append(Cell(sheet, row, NOTE_COL, f"{note} [{source}]", "note"))
    coord = f"{get_column_letter(VALUE_COL)}{row}"
    if q.is_input:
        domain = domain_of(q)
        if name in lay.share_inputs:
            fmt, domain = SHARE_FORMAT, replace(domain, low=domain.low / 100, high=domain.high / 100)
        value = lay.cell_value(name, ctx.values.get(name, q.default))
        lay.cells.append(Cell(sheet, row, VALUE_COL, value, "input", fmt))
        lay.inputs[name] = (sheet, coord)
        if q.choices:
            lay.list_validations.append((sheet, coord, table_name(*q.choices)))
        elif q.options:
            lay.list_validations.append((sheet, coord, '"' + ",".join(q.options) + '"'))
        else:
            lay.number_validations.append((sheet, coord))
            lay.domains[(sheet, coord)] = domain
            if settable_numbers([q]):  # a number (a typed date or word is checked by its own rule)
                _input_message(ctx, sheet, row, name)
        return
    node = ctx.graph.cell_expr(name)
    text = to_excel(node, ctx.cells, ctx.ranges, ctx.lang)
    lay.formulas.append(FormulaCell(sheet, row, VALUE_COL, node, text, ("q", name), fmt))
    if q.overridable:
        _manual_value_cell(ctx, sheet, row, name, fmt)


def _manual_value_cell(ctx: Context, sheet: str, row: int, name: str, fmt: str) -> None:
    """The yellow cell that replaces a formula's or catalog's value when filled."""
    lay, q = ctx.lay, ctx.graph[name]
    coord = f"{get_column_letter(OVERRIDE_COL)}{row}"
    lay.cells.append(Cell(sheet, row, OVERRIDE_COL, ctx.values.get(name), "input", fmt))
    lay.inputs[override_key(name)] = (sheet, coord)
    if q.is_text:
        if q.choices:
            lay.list_validations.append((sheet, coord, table_name(*q.choices)))
    else:
        lay.number_validations.append((sheet, coord))
        lay.domains[(sheet, coord)] = domain_of(q)


def _input_message(ctx: Context, sheet: str, row: int, name: str) -> None:
    """Beside a typed number (the manual-value column, empty for an input): blank, or what the cell must hold when
    its value is out of range or not a number (checks.input_message, the rule out_of_range_text uses)."""
    lay = ctx.lay
    node = input_message(ctx.graph[name])
    text = to_excel(node, ctx.cells, ctx.ranges, ctx.lang)
    lay.formulas.append(FormulaCell(sheet, row, OVERRIDE_COL, node, text, ("tree", f"{name}__message"), "@"))
    coord = f"{get_column_letter(OVERRIDE_COL)}{row}"
    lay.conditionals.append(Conditional(sheet, coord, f'{coord}<>""', "bad"))
