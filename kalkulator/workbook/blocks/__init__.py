"""The block kinds of templates/workbook.toml, one module each; a new kind is its module and one line below."""

from __future__ import annotations

from kalkulator.workbook.blocks.answer_block import Answers
from kalkulator.workbook.blocks.block import Block, Context, PlanError, from_toml
from kalkulator.workbook.blocks.catalog_table import CatalogTable
from kalkulator.workbook.blocks.chart import ChartBlock
from kalkulator.workbook.blocks.choices import ChoicesBlock
from kalkulator.workbook.blocks.guide import Guide
from kalkulator.workbook.blocks.quantities import Quantities
from kalkulator.workbook.blocks.rows import Rows
from kalkulator.workbook.blocks.sensitivity import SensitivityBlock
from kalkulator.workbook.blocks.snapshot import Snapshot

KINDS: dict[str, type[Block]] = {
    kind.kind: kind
    for kind in (Quantities, Answers, CatalogTable, Rows, Snapshot, SensitivityBlock, ChoicesBlock, ChartBlock, Guide)
}

__all__ = ["KINDS", "Block", "Context", "PlanError", "Quantities", "from_toml", "parse_block"]


def parse_block(raw: dict, where: str) -> Block:
    """One `[[sheet.blocks]]` table as its kind's block; `where` names it in errors."""
    kind = raw.get("kind")
    if kind not in KINDS:
        raise PlanError(f"{where}: unknown block kind {kind!r} (known: {', '.join(KINDS)})")
    block = from_toml(KINDS[kind], raw, f"{where} ({kind})")
    assert isinstance(block, Block)
    return block
