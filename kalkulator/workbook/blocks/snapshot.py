"""A table of values the engine computed for each catalog row at build time (no formulas).

For reference tables whose rows are fixed setups (the published measurements beside kalkulator's estimate):
their inputs are catalog rows, not the yellow cells, so live formulas would add thousands of cells for numbers a
user does not steer. The section title says the values are fixed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from kalkulator.engine.expr import XlError
from kalkulator.workbook.blocks.block import Context, Titled
from kalkulator.workbook.cells import Cell

FIXED = {"id": " (nilai tetap, dihitung saat workbook dibuat)", "en": " (fixed values, computed at build)"}


@dataclass(frozen=True)
class Snapshot(Titled):
    kind: ClassVar[str] = "snapshot"
    stage: ClassVar[int] = 6
    rows_from: str
    bind: dict[str, str]
    columns: list[str]

    def reserve(self, ctx: Context, sheet: str, row: int) -> int:
        return len(ctx.catalog[self.rows_from].rows) + 4

    def place(self, ctx: Context, sheet: str, row: int) -> None:
        lang, lay, graph = ctx.lang, ctx.lay, ctx.graph
        key_name = next(iter(self.bind))
        lay.cells.append(Cell(sheet, row, 1, self.title(lang) + FIXED[lang], "section"))
        header = row + 1
        shown = [key_name, *self.columns]
        for j, name in enumerate(shown, start=1):
            q = graph[name]
            unit = "" if q.is_text else f" ({q.unit.label_in(lang)})"
            lay.cells.append(Cell(sheet, header, j, f"{q.label(lang)}{unit}", "header"))
            lay.cells.append(Cell(sheet, header + 1, j, name, "name"))
            lay.widths[sheet].setdefault(j, 12)  # numbers; the header wraps
        columns = ctx.catalog.columns()
        scenario = graph.evaluate(ctx.values, columns, lang)
        needed = graph.row_closure(set(self.bind), self.columns)
        for i, rec in enumerate(ctx.catalog[self.rows_from].rows):
            bound = {name: rec[col] for name, col in self.bind.items()}
            row_values = bound | graph.evaluate_row(scenario, bound, needed, columns, lang)
            for j, name in enumerate(shown, start=1):
                value = row_values[name]
                value = str(value) if isinstance(value, XlError) else value
                fmt = "@" if graph[name].is_text else graph[name].unit.number_format
                lay.cells.append(Cell(sheet, header + 2 + i, j, value, "data", fmt))
