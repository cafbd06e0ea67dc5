"""Evaluate a written workbook with the `formulas` package and compare every formula cell with Python.

Expected values come from the expression trees (graph evaluation), never from the Excel text; the
workbook is loaded once and recalculated for each input set. The results cached in the file (what
previews show without recalculating) must equal the recalculated values of the file's own inputs.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import warnings
from collections.abc import Mapping
from contextlib import chdir
from dataclasses import dataclass, field
from pathlib import Path

from kalkulator.catalog import Catalog
from kalkulator.expr import Value, XlError, xl_round, xl_rounddown, xl_roundup
from kalkulator.graph import Graph, override_key
from kalkulator.workbook.layout import Layout

REL_TOL = 1e-9


@dataclass
class Mismatch:
    pass_name: str
    where: str  # Sheet!A1
    label: str
    expected: Value
    got: Value


@dataclass
class Report:
    cells_checked: int = 0
    passes: list[str] = field(default_factory=list)
    mismatches: list[Mismatch] = field(default_factory=list)
    unexpected_formulas: list[str] = field(default_factory=list)
    cached_checked: int = 0  # formula cells whose cached result was compared with the recalculated value

    @property
    def ok(self) -> bool:
        return not self.mismatches and not self.unexpected_formulas


def patch_formulas_rounding() -> None:
    """Make `formulas` round like Excel and LibreOffice (15 significant digits, half away from zero)."""
    import formulas
    from formulas.functions import wrap_ufunc

    table = formulas.get_functions()
    table["ROUND"] = wrap_ufunc(xl_round)
    table["ROUNDUP"] = wrap_ufunc(xl_roundup)
    table["ROUNDDOWN"] = wrap_ufunc(xl_rounddown)


def normalise(v: object) -> Value:
    """Turn a `formulas` result into a plain Python value."""
    import numpy as np

    v = getattr(v, "value", v)
    if isinstance(v, np.ndarray):
        v = v.ravel()[0] if v.size else None
    if type(v).__name__ == "XlError":
        return XlError(str(v))
    if isinstance(v, np.bool_ | bool):
        return bool(v)
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.floating):
        return float(v)
    if type(v).__name__ == "Token":  # schedula EMPTY
        return None
    return v


def same(expected: Value, got: Value) -> bool:
    """Numbers within REL_TOL; text, booleans and errors exactly (an empty text reads back as a blank)."""
    if {expected, got} <= {"", None}:
        return True
    if isinstance(expected, bool) or isinstance(got, bool):
        return type(expected) is type(got) and expected == got
    if isinstance(expected, int | float) and isinstance(got, int | float):
        return math.isclose(expected, got, rel_tol=REL_TOL, abs_tol=1e-12)
    if isinstance(expected, XlError) or isinstance(got, XlError):
        return str(expected) == str(got)
    return expected == got


def expected_values(
    layout: Layout,
    graph: Graph,
    columns: Mapping,
    settings: Mapping[str, Value],
    table_inputs: Mapping[tuple[int, int], dict[str, Value]] | None = None,
) -> dict[tuple, Value]:
    """Python's value for every formula cell under `settings` (and changed table key cells)."""
    scenario = graph.evaluate(settings, columns, layout.lang)
    rows: dict[tuple[int, int], dict[str, Value]] = {}
    out: dict[tuple, Value] = {}
    for f in layout.formulas:
        if f.key[0] == "q":
            out[f.key] = scenario[f.key[1]]
            continue
        _, block, i, name = f.key
        if (block, i) not in rows:
            rb = layout.row_blocks[block]
            bound = dict(rb.bound[i])
            bound.update((table_inputs or {}).get((block, i), {}))
            rows[(block, i)] = bound | graph.evaluate_row(scenario, bound, rb.columns, columns, layout.lang)
        out[f.key] = rows[(block, i)][name]
    return out


class Evaluator:
    """One `formulas` model of a workbook file, recalculated for any set of input cells."""

    def __init__(self, path: Path):
        os.environ.setdefault("TQDM_DISABLE", "1")
        patch_formulas_rounding()
        import formulas

        self.path = path.resolve()
        self.book = self.path.name
        with chdir(self.path.parent), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self.model = formulas.ExcelModel().loads(self.book).finish()

    def key(self, sheet: str, coord: str) -> str:
        return f"'[{self.book}]{sheet.upper()}'!{coord}"

    def formula_cells(self) -> set[str]:
        """Keys of every formula cell in the file, read with openpyxl (independent of the layout)."""
        import openpyxl

        wb = openpyxl.load_workbook(self.path)
        return {
            self.key(ws.title, cell.coordinate)
            for ws in wb.worksheets
            for row in ws.iter_rows()
            for cell in row
            if cell.data_type == "f"
        }

    def cached_values(self, keys: list[str]) -> dict[str, Value]:
        """The results cached in the file for `keys`, as stored (read with openpyxl, nothing recalculated)."""
        import openpyxl

        wb = openpyxl.load_workbook(self.path, data_only=True)
        cells = {
            self.key(ws.title, cell.coordinate): cell for ws in wb.worksheets for row in ws.iter_rows() for cell in row
        }
        out: dict[str, Value] = {}
        for k in keys:
            cell = cells.get(k)
            value = None if cell is None else cell.value
            out[k] = XlError(value) if cell is not None and cell.data_type == "e" else value
        return out

    def calculate(self, inputs: Mapping[str, Value]) -> Mapping[str, object]:
        with chdir(self.path.parent), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return self.model.calculate(inputs=dict(inputs))

    def values(self, inputs: Mapping[str, Value], keys: list[str]) -> dict[str, Value]:
        """Recalculate with `inputs` and return the normalised values of `keys`."""
        solution = self.calculate(inputs)
        return {k: normalise(solution[k]) if k in solution else None for k in keys}

    def values_many(self, input_sets: list[dict[str, Value]], keys: list[str]) -> list[dict[str, Value]]:
        """`values` for several input sets, on every core: forked workers share the loaded model."""
        global _SHARED
        workers = min(len(input_sets), os.cpu_count() or 1)
        if workers < 2 or "fork" not in multiprocessing.get_all_start_methods():
            return [self.values(inputs, keys) for inputs in input_sets]
        _SHARED = self
        try:
            with multiprocessing.get_context("fork").Pool(workers) as pool:
                return pool.starmap(_values_in_worker, [(inputs, keys) for inputs in input_sets])
        finally:
            _SHARED = None


_SHARED: Evaluator | None = None  # the evaluator forked workers inherit


def _values_in_worker(inputs: dict[str, Value], keys: list[str]) -> dict[str, Value]:
    assert _SHARED is not None
    return _SHARED.values(inputs, keys)


@dataclass
class InputSet:
    """One verification pass: scenario settings plus changed key cells of value tables."""

    name: str
    settings: dict[str, Value]
    table_inputs: dict[tuple[int, int], dict[str, Value]] = field(default_factory=dict)


def input_cells(layout: Layout, inputs: InputSet) -> dict[tuple[str, str], Value]:
    """Map an input set to the workbook cells that hold its values."""
    cells: dict[tuple[str, str], Value] = {}
    for (block, i), values in inputs.table_inputs.items():
        for key_name, v in values.items():
            cells[layout.inputs[f"{key_name}@{block}:{i}"]] = v
    for name, value in inputs.settings.items():
        if name in layout.inputs:
            cells[layout.inputs[name]] = value
        elif override_key(name) in layout.inputs:
            cells[layout.inputs[override_key(name)]] = value
        else:
            raise KeyError(f"{name} has no input cell in the workbook")
    return cells


def compare(
    layout: Layout, graph: Graph, catalog: Catalog, inputs: InputSet, values: Mapping[tuple[str, str], Value]
) -> list[Mismatch]:
    """Compare (sheet, cell) → value read from another evaluator with the engine under `inputs`."""
    expected = expected_values(layout, graph, catalog.columns(), inputs.settings, inputs.table_inputs)
    return [
        Mismatch(inputs.name, f"{f.sheet}!{f.coord}", f.label, expected[f.key], values.get((f.sheet, f.coord)))
        for f in layout.formulas
        if not same(expected[f.key], values.get((f.sheet, f.coord)))
    ]


def verify(
    path: Path,
    layout: Layout,
    graph: Graph,
    catalog: Catalog,
    passes: list[InputSet],
) -> Report:
    """Evaluate the file once per input set and compare every formula cell with the engine.

    Then compare every cached result with the file recalculated as it stands (the shipped-inputs pass when
    there is one): a stale or wrong cache is reported as a mismatch of the pass "cached values".
    """
    columns = catalog.columns()
    ev = Evaluator(path)
    report = Report()
    by_key = {ev.key(f.sheet, f.coord): f for f in layout.formulas}
    report.unexpected_formulas = sorted(ev.formula_cells() - set(by_key))
    keys = list(by_key)
    cell_sets = [{ev.key(s, c): v for (s, c), v in input_cells(layout, inputs).items()} for inputs in passes]
    results = ev.values_many(cell_sets, keys)
    for inputs, got_values in zip(passes, results, strict=True):
        report.passes.append(inputs.name)
        expected = expected_values(layout, graph, columns, inputs.settings, inputs.table_inputs)
        for k, f in by_key.items():
            got = got_values[k]
            want = expected[f.key]
            report.cells_checked += 1
            if not same(want, got):
                report.mismatches.append(Mismatch(inputs.name, f"{f.sheet}!{f.coord}", f.label, want, got))
    as_is = next((r for p, r in zip(passes, results, strict=True) if not p.settings and not p.table_inputs), None)
    recalculated = as_is if as_is is not None else ev.values({}, keys)
    cached = ev.cached_values(keys)
    for k, f in by_key.items():
        report.cached_checked += 1
        if not same(recalculated[k], cached[k]):
            report.mismatches.append(
                Mismatch("cached values", f"{f.sheet}!{f.coord}", f.label, recalculated[k], cached[k])
            )
    return report
