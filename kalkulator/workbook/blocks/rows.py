"""A live table: one row per catalog row or per listed value, each recomputing its columns with live formulas.

The first `bind` entry is the row key; `bind` maps quantities to catalog columns (or `{name = "value"}` for a
list of values). Every quantity between the columns and the bound ones is a hidden helper column further right.
`hold` keeps the scenario's value of those quantities in every row (the closure stops there).
A value typed by hand on the Assumptions sheet holds in the rows it belongs to (Graph.row_expr with the row key):
a site's value in every row, a value of the chosen GPU (or model, or count) only in the row of that key.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from kalkulator.engine.expr import R, Value, to_excel
from kalkulator.engine.graph import chosen_key
from kalkulator.quantities.domains import domain_of
from kalkulator.workbook.blocks.block import Context, Titled
from kalkulator.workbook.blocks.catalog_table import print_order
from kalkulator.workbook.cells import (
    Cell,
    Conditional,
    FormulaCell,
    RowBlock,
    get_column_letter,
    ref,
    table_money_format,
    table_money_unit,
)


@dataclass(frozen=True)
class Rows(Titled):
    kind: ClassVar[str] = "rows"
    stage: ClassVar[int] = 3
    bind: dict[str, str]
    columns: list[str]
    rows_from: str | None = None
    values: list | None = None
    hold: list[str] = field(default_factory=list)
    millions: bool = False  # rupiah columns show millions under "Rp juta" (a wide table that must print at 8 pt)

    def __post_init__(self) -> None:
        if (self.rows_from is None) == (self.values is None):
            raise ValueError("a rows block takes either rows_from (a catalog) or values (a list), not both or none")
        if not self.bind:
            raise ValueError("bind names no quantity")

    @property
    def key_name(self) -> str:
        return next(iter(self.bind))

    def n_rows(self, ctx: Context) -> int:
        return len(self.values) if self.values is not None else len(ctx.catalog[self.rows_from].rows)

    def reserve(self, ctx: Context, sheet: str, row: int) -> int:
        return self.n_rows(ctx) + 4

    def helper_width(self) -> int:
        return 1 + len(self.columns)

    def place(self, ctx: Context, sheet: str, row: int) -> None:
        graph = ctx.graph
        columns = graph.row_closure(set(self.bind) | set(self.hold), self.columns)
        for name in self.columns:
            if not graph.depends_on(name, set(self.bind)):
                raise ValueError(
                    f"table {self.title(ctx.lang)!r}: column {name} does not depend on {sorted(self.bind)}"
                )
        positions, n_helpers = self._positions(ctx, sheet, columns)
        self._headers(ctx, sheet, row, positions, n_helpers)
        bound_rows = self._bound_rows(ctx)
        ctx.lay.row_blocks.append(RowBlock(bound_rows, columns, honour=self.honour(ctx)))
        index = len(ctx.lay.row_blocks) - 1
        first = row + 3
        for i, bound in enumerate(bound_rows):
            self._place_row(ctx, sheet, first + i, index, i, bound, positions)
        if "fits_in_vram" in self.columns and bound_rows:
            fits = get_column_letter(positions["fits_in_vram"])
            last = get_column_letter(len(self.columns) + 1)
            area = f"A{first}:{last}{first + len(bound_rows) - 1}"
            ctx.lay.conditionals.append(Conditional(sheet, area, f"${fits}{first}=FALSE", "bad"))
        ctx.tables[(sheet, self.title_en)] = (row + 1, len(bound_rows), positions)

    def honour(self, ctx: Context) -> tuple[str, ...]:
        """The row key whose equality with the scenario's decides where a manual value holds (none when the key
        has no cell of its own on the Assumptions sheet to compare with)."""
        return (self.key_name,) if self.key_name in ctx.cells else ()

    def _positions(self, ctx: Context, sheet: str, columns: list[str]) -> tuple[dict[str, int], int]:
        """The column of each quantity (the asked ones from B, the helpers from the sheet's helper start); the
        number of helpers."""
        start = ctx.helper_start[sheet]
        helpers = [c for c in columns if c not in self.columns]
        positions = {name: j for j, name in enumerate(self.columns, start=2)}
        positions |= {name: start + k for k, name in enumerate(helpers)}
        if helpers:
            _, last = ctx.lay.hidden_columns.get(sheet, (start, start))
            ctx.lay.hidden_columns[sheet] = (start, max(last, start + len(helpers) - 1))
        return positions, len(helpers)

    def _headers(self, ctx: Context, sheet: str, row: int, positions: dict[str, int], n_helpers: int) -> None:
        """The section title (naming the hidden helper columns), the column headers and the names under them."""
        lang, lay, graph = ctx.lang, ctx.lay, ctx.graph
        section = self.title(lang)
        if n_helpers:
            start = ctx.helper_start[sheet]
            span = f"{get_column_letter(start)}–{get_column_letter(start + n_helpers - 1)}"
            section += (
                f" (perhitungan antara: kolom {span}, tersembunyi)"
                if lang == "id"
                else f" (intermediate steps: columns {span}, hidden)"
            )
        lay.cells.append(Cell(sheet, row, 1, section, "section"))
        header = row + 1
        lay.cells.append(Cell(sheet, header, 1, graph[self.key_name].label(lang), "header"))
        for name, j in positions.items():
            q = graph[name]
            label = q.unit.label_in(lang)
            unit = (
                ""
                if q.is_text
                else f" ({table_money_unit(label, q.unit.number_format, lang) if self.millions else label})"
            )
            lay.cells.append(Cell(sheet, header, j, f"{q.label(lang)}{unit}", "header"))
            lay.cells.append(Cell(sheet, header + 1, j, name, "name"))
            lay.widths[sheet].setdefault(j, 12)  # numbers; the header wraps
        lay.cells.append(Cell(sheet, header + 1, 1, self.key_name, "name"))

    def _bound_rows(self, ctx: Context) -> list[dict[str, Value]]:
        if self.values is not None:
            return [{self.key_name: v} for v in self.values]
        table = ctx.catalog[self.rows_from]
        return [{name: rec[col] for name, col in self.bind.items()} for rec in table.rows]

    def _place_row(
        self, ctx: Context, sheet: str, r: int, index: int, i: int, bound: dict, positions: dict[str, int]
    ) -> None:
        """Row i: its key (a yellow value, or the catalog row's cells), then a formula per column."""
        lay, graph, lang = ctx.lay, ctx.graph, ctx.lang
        local = dict(ctx.cells)
        key_name = self.key_name
        honour = self.honour(ctx)
        local |= {chosen_key(k): ctx.cells[k] for k in honour}  # the Assumptions sheet's own value of the key
        if self.values is not None:
            whole = all(float(v).is_integer() for v in self.values)  # whole months on a chart axis
            fmt = "#,##0" if whole else graph[key_name].unit.number_format
            lay.cells.append(Cell(sheet, r, 1, bound[key_name], "input", fmt))
            lay.inputs[f"{key_name}@{index}:{i}"] = (sheet, f"A{r}")
            lay.number_validations.append((sheet, f"A{r}"))
            lay.domains[(sheet, f"A{r}")] = domain_of(graph[key_name])
            local[key_name] = ref(sheet, r, 1).replace(f"${r}", str(r))
        else:
            cat_sheet, cat_first, _ = ctx.catalog_pos[self.rows_from]
            fields = [f.name for f in print_order(list(ctx.catalog[self.rows_from].schema.fields))]  # as laid out
            for name, col in self.bind.items():
                local[name] = ref(cat_sheet, cat_first + i, fields.index(col) + 1)
            node = R(key_name)
            text = to_excel(node, local, ctx.ranges, lang)
            lay.formulas.append(FormulaCell(sheet, r, 1, node, text, ("row", index, i, key_name), "@"))
        for name, j in positions.items():
            local[name] = f"${get_column_letter(j)}{r}"
        for name, j in positions.items():
            expr = graph.row_expr(name, honour)
            text = to_excel(expr, local, ctx.ranges, lang)
            fmt = graph[name].unit.number_format
            fmt = table_money_format(fmt) if self.millions else fmt
            lay.formulas.append(FormulaCell(sheet, r, j, expr, text, ("row", index, i, name), fmt))
