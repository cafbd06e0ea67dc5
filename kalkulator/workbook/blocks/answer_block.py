"""The answer block: rows of quantities, bold and coloured; one placed on another sheet is shown by reference."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar

from kalkulator.engine.expr import IF, NE, R, to_excel
from kalkulator.quantities.base import BOOLEAN_FORMAT
from kalkulator.quantities.checks import OUT_OF_RANGE
from kalkulator.workbook.blocks.block import Context
from kalkulator.workbook.blocks.quantities import Quantities, place_quantity
from kalkulator.workbook.cells import (
    NAME_COL,
    NOTE_COL,
    UNIT_COL,
    VALUE_COL,
    Cell,
    Conditional,
    FormulaCell,
    get_column_letter,
)
from kalkulator.workbook.longest import Longest

SENTENCES = ("verdict_text", "status_text", "caveats_text")  # merged across value, manual value, unit; wrapped
SPAN = 3
ANSWER_CHARS = 22  # characters of bold 12 pt text that fit the value column (24 digits wide) on one line
WARNINGS = ("caveats_text",)  # advice that holds: amber when there is any, neutral when empty (like a hint)


@dataclass(frozen=True)
class Answers(Quantities):
    kind: ClassVar[str] = "answers"
    stage: ClassVar[int] = 2  # after every quantities block: a name placed there is shown here by reference

    def reserve(self, ctx: Context, sheet: str, row: int) -> int:
        ctx.lay.cells.append(Cell(sheet, row, 1, self.title(ctx.lang), "section"))
        return len(self.names) + 2

    def claim(self, ctx: Context, sheet: str, row: int) -> None:
        for i, name in enumerate(self.names):
            if name not in ctx.placed:
                ctx.home(name, sheet, row + 1 + i)

    def place(self, ctx: Context, sheet: str, row: int) -> None:
        rows = list(enumerate(self.names, start=row + 1))
        for at, name in rows:
            if ctx.placed[name] == (sheet, at):
                place_quantity(ctx, sheet, at, name)
        for at, name in rows:
            if ctx.placed[name] != (sheet, at):
                _place_reference(ctx, sheet, at, name)
        longest = Longest(ctx.graph, ctx.catalog.columns(), ctx.lang)
        for at, name in rows:
            _colour_answer(ctx, sheet, at, name, longest)


def _place_reference(ctx: Context, sheet: str, row: int, name: str) -> None:
    """An answer row showing a quantity that lives on another sheet (its defined name points there)."""
    lay, q = ctx.lay, ctx.graph[name]
    # Inputs out of range or not numbers: "input out of range" rather than #VALUE! or a meaningless number.
    node = IF(NE(R("out_of_range_text"), ""), OUT_OF_RANGE, R(name)) if "out_of_range_text" in ctx.cells else R(name)
    lay.cells.append(Cell(sheet, row, 1, q.label(lay.lang), "label"))
    text = to_excel(node, ctx.cells, ctx.ranges, lay.lang)
    lay.formulas.append(FormulaCell(sheet, row, VALUE_COL, node, text, ("tree", name), q.unit.number_format))
    lay.cells.append(Cell(sheet, row, UNIT_COL, q.unit.label_in(lay.lang), "unit"))
    lay.cells.append(Cell(sheet, row, NAME_COL, name, "name"))
    see = "→ see sheet " if lay.lang == "en" else "→ lihat sheet "
    lay.cells.append(Cell(sheet, row, NOTE_COL, see + ctx.placed[name][0], "note"))


def _colour_answer(ctx: Context, sheet: str, row: int, name: str, longest: Longest) -> None:
    """Answer cells bold, wrapped where a text they can show is longer than the column (the row is sized for the
    longest, the verdict spans three columns); green/amber/red: OK and TRUE green, FALSE and a status problem red,
    a reason in place of a number amber, an empty caveat neutral."""
    lay = ctx.lay
    chars = longest.quantity(name)[0]
    for i, f in enumerate(lay.formulas):
        if (f.sheet, f.row, f.col) == (sheet, row, VALUE_COL):
            wraps = name == "status_text" or chars > ANSWER_CHARS
            span = SPAN if name in SENTENCES else 1
            lay.formulas[i] = replace(
                f,
                style=("status" if name == "status_text" else "answer_wrap") if wraps else "answer",
                span=span,
                longest=chars,
            )
    if name in SENTENCES:  # the merged cells hold nothing else
        lay.cells[:] = [
            c for c in lay.cells if not (c.sheet == sheet and c.row == row and VALUE_COL < c.col < VALUE_COL + SPAN)
        ]
    if name == "verdict_text":  # a decision, neither good nor bad
        return
    coord = f"{get_column_letter(VALUE_COL)}{row}"
    if name.endswith("_hint_text") or name in WARNINGS:  # advice, not a problem: amber when there is any
        lay.conditionals.append(Conditional(sheet, coord, f'{coord}<>""', "warn"))
    elif name.endswith("_text"):
        lay.conditionals.append(Conditional(sheet, coord, f'{coord}="OK"', "ok"))
        lay.conditionals.append(Conditional(sheet, coord, f'AND({coord}<>"OK",{coord}<>"")', "bad"))
    elif ctx.graph[name].unit.number_format == BOOLEAN_FORMAT:
        lay.conditionals.append(Conditional(sheet, coord, f"{coord}=TRUE", "ok"))
        lay.conditionals.append(Conditional(sheet, coord, f"{coord}=FALSE", "bad"))
    else:
        lay.conditionals.append(Conditional(sheet, coord, f"ISTEXT({coord})", "warn"))
