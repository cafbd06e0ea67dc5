"""The what-if (tornado) block: each key input moved down and up, its effect on two answers, sorted, charted.

The trees live in kalkulator/workbook/whatif.py; this places them: part 1 (a row per input and direction),
part 2 (sorted by the first answer's swing, helpers in hidden columns), then the tornado chart.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from kalkulator.engine.expr import R, to_excel
from kalkulator.workbook import whatif
from kalkulator.workbook.blocks.block import Context, Titled
from kalkulator.workbook.cells import (
    CHART_ROWS,
    Cell,
    Chart,
    FormulaCell,
    RowBlock,
    get_column_letter,
    ref,
    split_coord,
    table_money_format,
    table_money_unit,
)
from kalkulator.workbook.whatif import Sensitivity, delta_name, end_name, sorted_name

# the sorted table right of its first column: rank, two answers at both ends, the change at both ends
SORTED_COLUMNS = ("rank", "low", "high", "low", "high", "change low", "change high")
TEXT = {  # key → (Indonesian, English)
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


@dataclass(frozen=True)
class SensitivityBlock(Titled):
    """`inputs` move by ± `step_frac`, or within `bands` (input → its low and high share quantities)."""

    kind: ClassVar[str] = "sensitivity"
    stage: ClassVar[int] = 4
    chart_title_id: str
    chart_title_en: str
    step_frac: float
    inputs: list[str]
    outputs: list[str]
    bands: dict[str, list[str]] = field(default_factory=dict)

    def reserve(self, ctx: Context, sheet: str, row: int) -> int:
        return 3 * len(self.inputs) + 8 + CHART_ROWS

    def helper_width(self) -> int:
        return 1 + len(SORTED_COLUMNS)

    def place(self, ctx: Context, sheet: str, row: int) -> None:
        s = whatif.new(ctx.graph, self, f"whatif{len(ctx.lay.sensitivities)}", ctx.lang)
        text = {key: pair[ctx.lang == "en"] for key, pair in TEXT.items()}
        local_all = dict(ctx.cells)
        r, last_helper = self._moved_rows(ctx, sheet, row, s, text, local_all)
        top, first, last = self._sorted_rows(ctx, sheet, r + 1, s, text, local_all)
        lay, start = ctx.lay, ctx.helper_start[sheet]
        lay.sensitivities.append(s)
        lay.hidden_columns[sheet] = (start, max(lay.hidden_columns.get(sheet, (0, 0))[1], last_helper, last))
        for col in range(1, 9):
            lay.widths[sheet].setdefault(col, 12)  # numbers; the header wraps
        n = len(self.inputs)
        series = tuple((top + 1, first, first + n - 1, 7 + j) for j in (0, 1))
        chart_title = self.chart_title_id if ctx.lang == "id" else self.chart_title_en
        lay.charts.append(
            Chart(sheet, "tornado", chart_title, f"A{first + n + 1}", series, (first, first + n - 1, 1), "Rp")
        )

    def _header_row(self, ctx: Context, sheet: str, at: int, texts: list[str], names: list[str]) -> None:
        for j, t in enumerate(texts, start=1):
            ctx.lay.cells.append(Cell(sheet, at, j, t, "header"))
        for j, n in enumerate(names, start=1):
            if n:
                ctx.lay.cells.append(Cell(sheet, at + 1, j, n, "name"))

    def _moved_rows(
        self, ctx: Context, sheet: str, row: int, s: Sensitivity, text: dict, local_all: dict[str, str]
    ) -> tuple[int, int]:
        """Part 1: a row per input and direction; returns the next row and the last helper column used."""
        graph, lang = ctx.graph, ctx.lang

        def unit_label(name: str) -> str:
            return f"{graph[name].label(lang)} ({_unit(ctx, name)})"

        ctx.lay.cells.append(Cell(sheet, row, 1, self.title(lang) + text["hidden"], "section"))
        outputs = self.outputs
        header = [text["input"], text["direction"], text["value"], *map(unit_label, outputs)]
        self._header_row(ctx, sheet, row + 1, header, ["", "", "", *outputs])
        r, last_helper = row + 3, ctx.helper_start[sheet]
        for k, name in enumerate(self.inputs):
            for up in (False, True):
                columns, last = self._moved_row(ctx, sheet, r, s, k, name, up, text)
                last_helper = max(last_helper, last)
                for out in outputs:
                    local_all[end_name(s.key, k, out, up)] = ref(sheet, r, columns[out])
                r += 1
        return r, last_helper

    def _moved_row(
        self, ctx: Context, sheet: str, r: int, s: Sensitivity, k: int, name: str, up: bool, text: dict
    ) -> tuple[dict[str, int], int]:
        """One input moved one way: its moved value, the answers recomputed (helpers hidden); the answers'
        columns and the last helper column."""
        lay, graph, lang = ctx.lay, ctx.graph, ctx.lang
        closure, tree = whatif.row_spec(graph, self, name, up)
        lay.row_blocks.append(RowBlock([{}], closure, {name: tree}, honour=()))  # manual values hold
        index = len(lay.row_blocks) - 1
        fmt = table_money_format(graph[name].unit.number_format, scale=False)  # an input's own size: no millions
        # the label carries the unit where the value drops its "Rp " prefix (the column holds inputs of every unit)
        unit = f" ({graph[name].unit.label_in(lang)})" if fmt != graph[name].unit.number_format else ""
        lay.cells.append(Cell(sheet, r, 1, s.labels[k] + unit, "label"))
        step = text["band" if name in self.bands else "step"][up].format(step=float(self.step_frac))
        lay.cells.append(Cell(sheet, r, 2, step, "data"))
        moved_text = to_excel(tree, ctx.cells, ctx.ranges, lang)
        lay.formulas.append(FormulaCell(sheet, r, 3, tree, moved_text, ("row", index, 0, name), fmt))
        local = dict(ctx.cells) | {name: f"$C{r}"}
        helpers = [c for c in closure if c not in self.outputs]
        positions = {out: 4 + j for j, out in enumerate(self.outputs)}
        positions |= {h: ctx.helper_start[sheet] + j for j, h in enumerate(helpers)}
        for q, col in positions.items():
            local[q] = f"${get_column_letter(col)}{r}"
        for q, col in positions.items():
            node = graph.row_expr(q, ()) if q in closure else R(q)
            cell_text = to_excel(node, local if q in closure else ctx.cells, ctx.ranges, lang)
            fmt = graph[q].unit.number_format
            fmt = table_money_format(fmt) if q in self.outputs else fmt  # the answers' unit is in the header
            lay.formulas.append(FormulaCell(sheet, r, col, node, cell_text, ("row", index, 0, q), fmt))
        for out in self.outputs:
            s.ends[end_name(s.key, k, out, up)] = (index, 0, out)
        return positions, ctx.helper_start[sheet] + len(helpers) - 1

    def _sorted_rows(
        self, ctx: Context, sheet: str, top: int, s: Sensitivity, text: dict, local_all: dict[str, str]
    ) -> tuple[int, int, int]:
        """Part 2: sorted by the swing of the first answer; swing, rank and copies in hidden helper columns.
        Returns its title row, its first row and its last helper column."""
        lay, graph, lang, start = ctx.lay, ctx.graph, ctx.lang, ctx.helper_start[sheet]
        answer = graph[self.outputs[0]].label(lang)
        lay.cells.append(Cell(sheet, top, 1, text["sorted"].format(answer=answer), "section"))
        ends = [f"{graph[o].label(lang)}: {text[e]} ({_unit(ctx, o)})" for o in self.outputs for e in ("low", "high")]
        changes = [f"{text['change']} {answer}: {text[e]} ({_unit(ctx, self.outputs[0])})" for e in ("low", "high")]
        self._header_row(ctx, sheet, top + 1, [text["input"], text["rank"], *ends, *changes], [])
        first = top + 3
        ends_at = [(o, u) for o in self.outputs for u in (False, True)]
        hidden = {f"{s.key}_label_{{}}": 0, f"{s.key}_swing_{{}}": 1, f"{s.key}_rank_{{}}": 2}
        for j, (out, up) in enumerate(ends_at):
            hidden[f"{s.key}_copy_{{}}_{int(up)}_{out}"] = 3 + j
        for k in range(len(self.inputs)):
            at = first + k
            for pattern, j in hidden.items():
                local_all[pattern.format(k)] = ref(sheet, at, start + j)
            local_all[f"{s.key}_position_{k}"] = ref(sheet, at, 2)
            lay.cells.append(Cell(sheet, at, 2, k + 1, "data", "#,##0"))
            lay.cells.append(Cell(sheet, at, start, s.labels[k], "data"))
            local_all[f"{s.key}_sorted_label_{k}"] = ref(sheet, at, 1)
            for j, (out, up) in enumerate(ends_at):
                local_all[sorted_name(s.key, k, out, up)] = ref(sheet, at, 3 + j)
            for up in (False, True):
                local_all[delta_name(s.key, k, up)] = ref(sheet, at, 7 + int(up))
        self._sorted_formulas(ctx, sheet, first, s, local_all)
        return top, first, start + max(hidden.values())

    def _sorted_formulas(self, ctx: Context, sheet: str, first: int, s: Sensitivity, local_all: dict[str, str]) -> None:
        """Every part-2 tree as a formula, its INDEX ranges over part 2's hidden columns."""
        lay, graph, start, n = ctx.lay, ctx.graph, ctx.helper_start[sheet], len(self.inputs)
        area = {(s.key, "rank"): 2, (s.key, "label"): 0}
        for j, (out, up) in enumerate((o, u) for o in self.outputs for u in (False, True)):
            area[(s.key, f"{int(up)}_{out}")] = 3 + j
        ranges_all = dict(ctx.ranges)
        for col_key, j in area.items():
            letter = get_column_letter(start + j)
            ranges_all[col_key] = f"'{sheet}'!${letter}${first}:${letter}${first + n - 1}"
        money = table_money_format(graph[self.outputs[0]].unit.number_format)
        for name, tree in s.names.items():
            at_col, at_row = split_coord(local_all[name].split("!")[1])
            fmt = "#,##0" if "_rank_" in name else "@" if "_label_" in name else _answer_format(ctx, s, name) or money
            text = to_excel(tree, local_all, ranges_all, ctx.lang)
            key = ("sens", len(lay.sensitivities), name)
            lay.formulas.append(FormulaCell(sheet, at_row, at_col, tree, text, key, fmt))


def _answer_format(ctx: Context, s: Sensitivity, name: str) -> str | None:
    """Number format of a sorted or copied answer cell: that answer's own."""
    for out in s.outputs:
        if name.endswith(f"_{out}"):
            return table_money_format(ctx.graph[out].unit.number_format)
    return None


def _unit(ctx: Context, name: str) -> str:
    """An answer's unit in a header (rupiah in millions where the cells show millions)."""
    unit = ctx.graph[name].unit
    return table_money_unit(unit.label_in(ctx.lang), unit.number_format, ctx.lang)
