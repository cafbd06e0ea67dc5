"""Check a user's edited copy of the workbook: the inputs typed in it, through the engine, against its saved results.

Nothing is evaluated from the Excel text: openpyxl reads the yellow input cells and the results Excel or LibreOffice
cached when the copy was recalculated and saved, the engine computes every formula cell for those inputs
(`expected_values`, as the writer does for the shipped file), and each cell is compared with verify's tolerance.
So it takes seconds, and a copy with other inputs is not compared with the shipped ones (as `verify` would).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from kalkulator.catalog import Catalog
from kalkulator.engine.expr import Value
from kalkulator.engine.graph import Graph, override_key
from kalkulator.quantities.base import BOOLEAN_FORMAT, NO_CHOICE
from kalkulator.workbook.cells import FormulaCell, Layout
from kalkulator.workbook.expected import InputSet, expected_values
from kalkulator.workbook.verify import Mismatch, read_cells, same


class WorkbookInputError(ValueError):
    """A copy whose inputs cannot be read as the engine's; the message names the file, the cell and the name."""


@dataclass
class CheckReport:
    settings: dict[str, Value]  # what the user typed, as the engine's settings (the shipped value where unchanged)
    changed: dict[str, Value]  # the inputs and manual values that differ from the shipped workbook
    table_inputs: dict[tuple[int, int], dict[str, Value]] = field(default_factory=dict)
    cells_checked: int = 0
    mismatches: list[Mismatch] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.mismatches


def _where(path: Path, sheet: str, coord: str, name: str) -> str:
    return f"{path}: {sheet}!{coord} ({name})"


def _typed(graph: Graph, catalog: Catalog, name: str, value: Value, where: str) -> Value:
    """The engine's value of what was typed into the input cell of quantity `name`, or WorkbookInputError."""
    q = graph[name]
    if q.choices or q.options:
        if value is None or value == "":
            if q.optional:
                return NO_CHOICE
            raise WorkbookInputError(f"{where}: blank; choose a value from the cell's list")
        allowed = catalog[q.choices[0]].names if q.choices else q.options
        if q.optional:
            allowed = (*allowed, NO_CHOICE)
        if str(value).lower() not in {a.lower() for a in allowed}:
            table = f"the {q.choices[0]} catalog" if q.choices else "the cell's list: " + ", ".join(q.options)
            raise WorkbookInputError(f"{where}: {value!r} is not in {table}; choose a value from the cell's list")
        return value
    if q.is_text:
        return "" if value is None else str(value)
    if isinstance(value, bool) or not isinstance(value, int | float):
        if value is None or value == "":
            raise WorkbookInputError(f"{where}: blank; type a number")
        raise WorkbookInputError(f"{where}: {value!r} is not a number; type a number")
    return value


def typed_inputs(
    path: Path, layout: Layout, graph: Graph, catalog: Catalog, cells: Mapping[tuple[str, str], Value]
) -> tuple[InputSet, dict[str, Value]]:
    """The inputs typed in the copy as an input set (scenario settings and table key cells), and those that differ
    from the shipped workbook's (for the report)."""
    settings: dict[str, Value] = {}
    table_inputs: dict[tuple[int, int], dict[str, Value]] = {}
    changed: dict[str, Value] = {}
    shipped = {(c.sheet, c.coord): c.value for c in layout.cells if c.style == "input"}
    for key, (sheet, coord) in layout.inputs.items():
        raw = cells.get((sheet, coord))
        if "@" in key:  # a table's yellow key cell: name@block:row
            name, _, at = key.partition("@")
            block, _, i = at.partition(":")
            value = _typed(graph, catalog, name, raw, _where(path, sheet, coord, f"{name}, row {int(i) + 1}"))
            table_inputs.setdefault((int(block), int(i)), {})[name] = value
        elif key.endswith("__set"):  # a manual value: blank keeps the formula's
            name = key.removesuffix(override_key(""))
            if raw is None or raw == "":
                continue
            settings[name] = _typed(graph, catalog, name, raw, _where(path, sheet, coord, f"{name}, manual"))
        else:
            value = _typed(graph, catalog, key, raw, _where(path, sheet, coord, key))
            if key in layout.share_inputs and isinstance(value, int | float):
                value = value * 100  # the cell holds a share (12 % = 0.12), the engine a percentage
            settings[key] = value
        if not same(shipped.get((sheet, coord)), raw):
            changed[key] = raw
    return InputSet("typed inputs", settings, table_inputs), changed


def saved_as_shown(f: FormulaCell, expected: Value, got: Value) -> Value:
    """The saved result `got` as the cell shows it: LibreOffice saves a boolean as 1/0 once its cell has a number
    format, so under the TRUE/FALSE format a 1 or 0 where the engine has a boolean is that boolean."""
    if isinstance(expected, bool) and f.number_format == BOOLEAN_FORMAT and type(got) is int and got in (0, 1):
        return bool(got)
    return got


def check_copy(path: Path, layout: Layout, graph: Graph, catalog: Catalog) -> CheckReport:
    """Compare every formula cell's saved result in the copy at `path` with the engine under the copy's inputs.

    Raises WorkbookInputError for an input the engine cannot take (unknown choice, text in a number cell) and for a
    copy with no saved results (never recalculated: written by a tool that does not calculate).
    """
    wanted = set(layout.inputs.values()) | {(f.sheet, f.coord) for f in layout.formulas}
    cells = read_cells(path, wanted)
    inputs, changed = typed_inputs(path, layout, graph, catalog, cells)
    results = [cells.get((f.sheet, f.coord)) for f in layout.formulas]
    if all(v is None for v in results):
        raise WorkbookInputError(
            f"{path}: no saved results in any of its {len(results):,} formula cells: the copy was never "
            "recalculated (a tool such as openpyxl wrote it); open it in Excel or LibreOffice, recalculate, save, "
            "and check again"
        )
    expected = expected_values(layout, graph, catalog.columns(), inputs.settings, inputs.table_inputs)
    report = CheckReport(inputs.settings, changed, inputs.table_inputs)
    for f, got in zip(layout.formulas, results, strict=True):
        report.cells_checked += 1
        got = saved_as_shown(f, expected[f.key], got)
        if not same(expected[f.key], got):
            report.mismatches.append(Mismatch("typed inputs", f"{f.sheet}!{f.coord}", f.label, expected[f.key], got))
    return report
