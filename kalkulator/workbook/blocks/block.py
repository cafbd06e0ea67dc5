"""What every block of the sheet plan shares: its two-pass interface, the state of one build, the toml check."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import ClassVar

from kalkulator.catalog import Catalog
from kalkulator.engine.expr import Value
from kalkulator.engine.graph import Graph
from kalkulator.workbook.cells import Layout


class PlanError(ValueError):
    """templates/workbook.toml does not describe a workbook: names the sheet, the block and the key."""


@dataclass
class Context:
    """What the blocks of one workbook share while they are placed (filled as the passes go)."""

    lay: Layout
    graph: Graph
    catalog: Catalog
    guide: dict
    values: dict[str, Value]
    placed: dict[str, tuple[str, int]] = field(default_factory=dict)  # quantity → (sheet, row) of its value cell
    catalog_pos: dict[str, tuple[str, int, int]] = field(default_factory=dict)  # table → (sheet, first row, rows)
    tables: dict[tuple[str, str], tuple[int, int, dict[str, int]]] = field(default_factory=dict)
    # ^ live tables: (sheet, title_en) → (header row, rows, column of each quantity), for the charts over them
    cells: dict[str, str] = field(default_factory=dict)  # how a formula reads each quantity and manual value
    ranges: dict[tuple[str, str], str] = field(default_factory=dict)  # catalog column → its defined name
    helper_start: dict[str, int] = field(default_factory=dict)  # sheet → its first hidden helper column

    @property
    def lang(self) -> str:
        return self.lay.lang

    def home(self, name: str, sheet: str, row: int) -> None:
        """Give quantity `name` its value cell (one per quantity in the whole workbook)."""
        if name in self.placed:
            raise ValueError(f"{name} is placed twice (sheets {self.placed[name][0]} and {sheet})")
        self.placed[name] = (sheet, row)


@dataclass(frozen=True)
class Block:
    """One block of a sheet's plan, placed in two passes.

    Pass 1 (`reserve`) claims the block's rows, sheet by sheet, and writes what needs no other block; pass 2
    (`place`) fills them once every quantity has its cell, block kind by kind in the order of `stage` (a chart
    reads the table it draws), each stage in the plan's order.
    """

    kind: ClassVar[str]
    stage: ClassVar[int] = 0  # 0: nothing left for pass 2

    def reserve(self, ctx: Context, sheet: str, row: int) -> int:
        """Pass 1: the rows the block takes from `row` of `sheet`."""
        raise NotImplementedError

    def claim(self, ctx: Context, sheet: str, row: int) -> None:
        """Between the passes: give a home to names no other block placed (the answer block does)."""

    def helper_width(self) -> int | None:
        """Columns of the visible table when hidden helper columns sit right of it (they start right of all)."""
        return None

    def place(self, ctx: Context, sheet: str, row: int) -> None:
        """Pass 2: fill the rows reserved at `row`."""


@dataclass(frozen=True)
class Titled(Block):
    """A block with a section title in each language."""

    title_id: str
    title_en: str

    def title(self, lang: str) -> str:
        return self.title_id if lang == "id" else self.title_en


_TYPES: dict[str, type | tuple[type, ...]] = {
    "str": str,
    "bool": bool,
    "float": (int, float),
    "list": list,
    "dict": dict,
}


def from_toml(cls: type, raw: dict, where: str) -> object:
    """Build dataclass `cls` from a toml table: every key known, every field without a default given, of its type.

    `where` names the table in errors (file, sheet, block).
    """
    known = {f.name: f for f in dataclasses.fields(cls)}
    for key, value in raw.items():
        if key == "kind" and hasattr(cls, "kind"):
            continue
        if key not in known:
            raise PlanError(f"{where}: unknown key {key!r} (known: {', '.join(sorted(known))})")
        expected = _TYPES[str(known[key].type).split("[")[0].split(" |")[0]]
        if not isinstance(value, expected) or (expected is not bool and isinstance(value, bool)):
            raise PlanError(f"{where}: key {key!r} is {value!r}, not a {known[key].type}")
    for f in known.values():
        no_default = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        if no_default and f.init and f.name not in raw:
            raise PlanError(f"{where}: missing key {f.name!r}")
    try:
        return cls(**{k: v for k, v in raw.items() if k in known})
    except ValueError as exc:
        raise PlanError(f"{where}: {exc}") from None
