"""A bar chart over consecutive quantity rows of its sheet, or a line chart over columns of a live table on it.

It takes CHART_ROWS rows of the sheet where it is declared; `categories` (quantity rows) label the bars.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from kalkulator.workbook.blocks.block import Context, Titled
from kalkulator.workbook.cells import CHART_ROWS, VALUE_COL, Chart


@dataclass(frozen=True)
class ChartBlock(Titled):
    kind: ClassVar[str] = "chart"
    stage: ClassVar[int] = 7  # after the live tables it may draw
    chart: str
    names: list[str] | None = None
    categories: list[str] | None = None
    table: str | None = None  # a live table's title_en, with `columns`
    columns: list[str] | None = None
    y_title_id: str = ""
    y_title_en: str = ""

    def __post_init__(self) -> None:
        if self.chart not in ("bar", "line"):
            raise ValueError(f"chart {self.chart!r} is not bar or line")
        if (self.names is None) == (self.table is None) or (self.table is None) != (self.columns is None):
            raise ValueError("a chart takes names (quantity rows) or table and columns (a live table's), not both")

    def reserve(self, ctx: Context, sheet: str, row: int) -> int:
        return CHART_ROWS

    def place(self, ctx: Context, sheet: str, row: int) -> None:
        label = self.title(ctx.lang)
        if self.names is not None:
            series, categories = self._over_rows(ctx, sheet, label, self.names)
        else:
            header, n, positions = ctx.tables[(sheet, self.table)]
            first = header + 2
            series = tuple((header, first, first + n - 1, positions[c]) for c in self.columns or ())
            categories = (first, first + n - 1, 1)
        y_title = self.y_title_id if ctx.lang == "id" else self.y_title_en
        ctx.lay.charts.append(Chart(sheet, self.chart, label, f"A{row}", series, categories, y_title))

    def _over_rows(
        self, ctx: Context, sheet: str, label: str, names: list[str]
    ) -> tuple[tuple[tuple[int, int, int, int], ...], tuple[int, int, int]]:
        """Series and categories over quantity rows: the rows' labels, or the values of other rows (a reason)."""
        rows = [ctx.placed[n][1] for n in names]
        if any(ctx.placed[n][0] != sheet for n in names) or rows != list(range(rows[0], rows[0] + len(rows))):
            raise ValueError(f"chart {label!r}: {names} must be consecutive rows of sheet {sheet}")
        series = ((rows[0] - 1, rows[0], rows[-1], VALUE_COL),)
        if self.categories is None:
            return series, (rows[0], rows[-1], 1)
        at = [ctx.placed[n][1] for n in self.categories]
        if any(ctx.placed[n][0] != sheet for n in self.categories) or at != list(range(at[0], at[0] + len(rows))):
            raise ValueError(f"chart {label!r}: categories {self.categories} must be {len(rows)} consecutive rows")
        return series, (at[0], at[-1], VALUE_COL)
