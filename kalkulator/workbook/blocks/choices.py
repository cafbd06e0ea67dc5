"""The live shortlist block "Pilihan termurah untuk beban kerja ini": candidate rows with yellow GPU and count,
their answers and live rank, then the rows sorted cheapest first.

The trees live in kalkulator/workbook/shortlist.py; this places them (helpers in hidden columns).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from kalkulator.engine.expr import to_excel
from kalkulator.engine.graph import chosen_key
from kalkulator.quantities.domains import domain_of
from kalkulator.workbook import shortlist as choices
from kalkulator.workbook.blocks.block import Context, Titled
from kalkulator.workbook.cells import (
    Cell,
    Conditional,
    FormulaCell,
    RowBlock,
    get_column_letter,
    ref,
    split_coord,
    table_money_format,
    table_money_unit,
    table_name,
)
from kalkulator.workbook.whatif import Sensitivity


@dataclass(frozen=True)
class Part1:
    """Where part 1's columns are: each quantity's (the shown ones from C, helpers hidden), the rank, the score."""

    first: int
    index: int
    positions: dict[str, int]
    rank_col: int
    score_col: int


@dataclass(frozen=True)
class ChoicesBlock(Titled):
    """`rows`: [GPU name, GPUs per replica] per candidate; `columns`: the answers shown (the check among them)."""

    kind: ClassVar[str] = "choices"
    stage: ClassVar[int] = 5
    rows: list[list]
    columns: list[str]

    def reserve(self, ctx: Context, sheet: str, row: int) -> int:
        return choices.height(self)

    def helper_width(self) -> int:
        return 1 + len(choices.KEYS) + len(self.columns) + 1  # the keys, the shown answers, the rank

    def place(self, ctx: Context, sheet: str, row: int) -> None:
        text = {key: pair[ctx.lang == "en"] for key, pair in choices.TEXT.items()}
        s = choices.new(ctx.graph, self, f"choices{len(ctx.lay.sensitivities)}", ctx.lang)
        heads, part1 = self._part1_head(ctx, sheet, row, text)
        local_all = dict(ctx.cells)
        for i, (gpu, count) in enumerate(self.rows):
            self._candidate(ctx, sheet, part1, i, gpu, count, s, local_all)
        last = part1.first + len(self.rows) - 1
        self._sorted(ctx, sheet, part1, last, heads, text, s, local_all)
        self._colours(ctx, sheet, part1, last)

    def _part1_head(self, ctx: Context, sheet: str, row: int, text: dict[str, str]) -> tuple[list[str], Part1]:
        """Part 1's title, note and header; its columns and row block."""
        lay, graph, lang, start = ctx.lay, ctx.graph, ctx.lang, ctx.helper_start[sheet]
        shown = choices.shown(self)
        closure = graph.row_closure(set(choices.KEYS), [*shown, *choices.read(self)[2:]])
        helpers = [c for c in closure if c not in shown]
        positions = {name: 3 + j for j, name in enumerate(shown)} | {h: start + k for k, h in enumerate(helpers)}
        lay.cells.append(Cell(sheet, row, 1, self.title(lang) + text["hidden"], "section"))
        lay.cells.append(Cell(sheet, row + 1, 1, text["note"], "table_note"))
        heads = [graph[k].label(lang) for k in choices.KEYS]
        heads += [f"{graph[q].label(lang)}{'' if graph[q].is_text else f' ({_unit(graph, q, lang)})'}" for q in shown]
        names = [*choices.KEYS, *shown, ""]
        for j, (head, name) in enumerate(zip([*heads, text["rank"]], names, strict=True), start=1):
            lay.cells.append(Cell(sheet, row + 2, j, head, "header"))
            if name:
                lay.cells.append(Cell(sheet, row + 3, j, name, "name"))
            lay.widths[sheet].setdefault(j, 12)  # numbers; the header wraps
        lay.row_blocks.append(
            RowBlock([dict(zip(choices.KEYS, r, strict=True)) for r in self.rows], closure, honour=choices.KEYS)
        )
        part1 = Part1(row + 4, len(lay.row_blocks) - 1, positions, 3 + len(shown), start + len(helpers))
        return heads, part1

    def _candidate(
        self, ctx: Context, sheet: str, p: Part1, i: int, gpu: str, count: int, s: Sensitivity, local_all: dict
    ) -> None:
        """Candidate i: its yellow GPU (catalog dropdown) and count, then a formula per column."""
        lay, graph, lang, r = ctx.lay, ctx.graph, ctx.lang, p.first + i
        lay.cells.append(Cell(sheet, r, 1, gpu, "input", "@"))
        lay.cells.append(Cell(sheet, r, 2, count, "input", "#,##0"))
        lay.inputs[f"gpu_name@{p.index}:{i}"], lay.inputs[f"n_gpus@{p.index}:{i}"] = (sheet, f"A{r}"), (sheet, f"B{r}")
        lay.list_validations.append((sheet, f"A{r}", table_name(*graph["gpu_name"].choices)))
        lay.number_validations.append((sheet, f"B{r}"))
        lay.domains[(sheet, f"B{r}")] = domain_of(graph["n_gpus"])
        local = dict(ctx.cells) | {"gpu_name": f"$A{r}", "n_gpus": f"$B{r}"}
        local |= {chosen_key(k): ctx.cells[k] for k in choices.KEYS}  # the Assumptions sheet's GPU and count
        local |= {name: f"${get_column_letter(j)}{r}" for name, j in p.positions.items()}
        for name, j in p.positions.items():
            expr = graph.row_expr(name, choices.KEYS)  # the answer block's chain, manual values included
            fmt = table_money_format(graph[name].unit.number_format)  # the unit is in the header
            key = ("row", p.index, i, name)
            lay.formulas.append(FormulaCell(sheet, r, j, expr, to_excel(expr, local, ctx.ranges, lang), key, fmt))
        for name in choices.read(self):
            s.ends[choices.end_name(s.key, i, name)] = (p.index, i, name)
            col = {"gpu_name": 1, "n_gpus": 2}.get(name) or p.positions[name]
            local_all[choices.end_name(s.key, i, name)] = ref(sheet, r, col)
        local_all[f"{s.key}_score_{i}"] = ref(sheet, r, p.score_col)
        local_all[f"{s.key}_rank_{i}"] = ref(sheet, r, p.rank_col)

    def _sorted(
        self,
        ctx: Context,
        sheet: str,
        p: Part1,
        last: int,
        heads: list[str],
        text: dict[str, str],
        s: Sensitivity,
        local_all: dict,
    ) -> None:
        """Part 2: the rows by rank (INDEX/MATCH over part 1), and every synthetic tree as a formula."""
        lay, graph, start, n, shown = ctx.lay, ctx.graph, ctx.helper_start[sheet], len(self.rows), choices.shown(self)
        ranges_all = dict(ctx.ranges)
        for name, col in {"gpu_name": 1, "n_gpus": 2, **{q: p.positions[q] for q in shown}, "rank": p.rank_col}.items():
            letter = get_column_letter(col)
            ranges_all[(s.key, name)] = f"'{sheet}'!${letter}${p.first}:${letter}${last}"
        top = last + 2
        lay.cells.append(Cell(sheet, top, 1, text["sorted"], "section"))
        for j, head in enumerate([text["rank"], *heads], start=1):
            lay.cells.append(Cell(sheet, top + 1, j, head, "header"))
        for r in range(n):
            at = top + 2 + r
            lay.cells.append(Cell(sheet, at, 1, r + 1, "data", "#,##0"))
            local_all[f"{s.key}_position_{r}"] = ref(sheet, at, 1)
            local_all[f"{s.key}_at_{r}"] = ref(sheet, at, start)
            for j, name in enumerate((*choices.KEYS, *shown), start=2):
                local_all[choices.sorted_name(s.key, r, name)] = ref(sheet, at, j)
        formats = {f"{s.key}_score_{i}": graph[choices.RANK_BY].unit.number_format for i in range(n)}
        for r in range(n):
            for name in (*choices.KEYS, *shown):
                formats[choices.sorted_name(s.key, r, name)] = (
                    "@" if graph[name].is_text else table_money_format(graph[name].unit.number_format)
                )
        for name, tree in s.names.items():
            at_col, at_row = split_coord(local_all[name].split("!")[1])
            key = ("sens", len(lay.sensitivities), name)
            formula = to_excel(tree, local_all, ranges_all, ctx.lang)
            lay.formulas.append(FormulaCell(sheet, at_row, at_col, tree, formula, key, formats.get(name, "#,##0")))
        lay.sensitivities.append(s)
        hidden_last = max(lay.hidden_columns.get(sheet, (0, 0))[1], p.score_col)
        lay.hidden_columns[sheet] = (start, hidden_last)

    def _colours(self, ctx: Context, sheet: str, p: Part1, last: int) -> None:
        """Green: the rank-1 row and the sorted table's first row, when they pass; red: a failed check."""
        lay, first, sorted_first = ctx.lay, p.first, last + 4  # part 2: a gap, its title and header
        rk, right = get_column_letter(p.rank_col), get_column_letter(p.rank_col)
        chk = get_column_letter(p.positions[choices.CHECK])
        lay.conditionals.append(
            Conditional(sheet, f"A{first}:{right}{last}", f'AND(${rk}{first}=1,${chk}{first}="OK")', "ok")
        )
        lay.conditionals.append(Conditional(sheet, f"{chk}{first}:{chk}{last}", f'{chk}{first}<>"OK"', "bad"))
        chk2 = get_column_letter(p.positions[choices.CHECK] + 1)
        lay.conditionals.append(
            Conditional(sheet, f"A{sorted_first}:{right}{sorted_first}", f'${chk2}{sorted_first}="OK"', "ok")
        )


def _unit(graph, name: str, lang: str) -> str:
    """A column's unit in its header (rupiah in millions where the cells show millions)."""
    unit = graph[name].unit
    return table_money_unit(unit.label_in(lang), unit.number_format, lang)
