"""The guide sheet's text (templates/guide.toml), with catalog facts such as {gpu_rows} filled in."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

from kalkulator.workbook.blocks.block import Block, Context
from kalkulator.workbook.cells import Cell


@dataclass(frozen=True)
class Guide(Block):
    kind: ClassVar[str] = "guide"

    def reserve(self, ctx: Context, sheet: str, row: int) -> int:
        """Placed at once from row 3, whatever `row` is; it takes no rows of the sheet's flow."""
        lang, lay = ctx.lang, ctx.lay
        tables = ctx.catalog.tables
        facts = {f"{key}_as_of": max(r["as_of"] for r in t.rows) for key, t in tables.items()} | {
            f"{key}_rows": str(len(t.rows)) for key, t in tables.items()
        }
        lay.widths[sheet] = {1: 34, 2: 80}
        at = 3
        for section in ctx.guide["section"]:
            lay.cells.append(Cell(sheet, at, 1, section[f"title_{lang}"], "section"))
            at += 1
            for item in section.get("items", []):
                lay.cells.append(Cell(sheet, at, 1, _fill(item[f"term_{lang}"], facts), "label"))
                lay.cells.append(Cell(sheet, at, 2, _fill(item[f"text_{lang}"], facts), "guide"))
                at += 1
            at += 1
        return 0


def _fill(text: str, facts: dict[str, str]) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: facts.get(m.group(1), m.group(0)), text)
