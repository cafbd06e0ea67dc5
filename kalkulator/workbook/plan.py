"""templates/workbook.toml read into typed sheets and blocks; a wrong kind, key or type names sheet, block, key."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path

from kalkulator.workbook.blocks import Block, PlanError, from_toml, parse_block
from kalkulator.workbook.texts import TEMPLATES


@dataclass(frozen=True)
class Sheet:
    """A sheet of the plan: its key, titles, optional intro and blocks in order."""

    key: str
    title_id: str
    title_en: str
    intro_id: str = ""
    intro_en: str = ""
    blocks: list[Block] = field(default_factory=list)

    def title(self, lang: str) -> str:
        return getattr(self, f"title_{lang}")

    def intro(self, lang: str) -> str:
        return getattr(self, f"intro_{lang}")

    @property
    def kinds(self) -> list[str]:
        return [b.kind for b in self.blocks]

    @property
    def one_table(self) -> bool:
        """The row-3 header heads everything on the sheet: quantities only, or a single catalog."""
        return self.kinds == ["catalog"] or set(self.kinds) <= {"quantities", "answers"}

    @property
    def catalogs_only(self) -> bool:
        """Catalogs and no quantities (it may print its key columns only)."""
        return "catalog" in self.kinds and "quantities" not in self.kinds


def load_plan(path: Path | None = None) -> list[Sheet]:
    path = path or TEMPLATES / "workbook.toml"
    with open(path, "rb") as fh:
        return parse_plan(tomllib.load(fh), str(path))


def parse_plan(raw: dict, name: str = "workbook.toml") -> list[Sheet]:
    """The sheets of a parsed workbook.toml, every block typed (PlanError names what is wrong, and where)."""
    if set(raw) != {"sheet"}:
        raise PlanError(f"{name}: expected only [[sheet]] tables, found {sorted(set(raw) - {'sheet'}) or 'none'}")
    sheets = []
    for i, sheet in enumerate(raw["sheet"], start=1):
        where = f"{name}: sheet {sheet.get('key', i)!r}"
        blocks = [parse_block(b, f"{where}, block {j}") for j, b in enumerate(sheet.get("blocks", []), start=1)]
        parsed = from_toml(Sheet, {k: v for k, v in sheet.items() if k != "blocks"}, where)
        assert isinstance(parsed, Sheet)
        sheets.append(replace(parsed, blocks=blocks))
    keys = [s.key for s in sheets]
    if len(set(keys)) != len(keys):
        raise PlanError(f"{name}: sheet keys repeat: {keys}")
    return sheets
