"""Evaluate a written workbook with the `formulas` package and compare every formula cell with Python.

Expected values come from the expression trees (graph evaluation), never from the Excel text; the
workbook is loaded once and recalculated for each input set. The results cached in the file (what
previews show without recalculating) must equal the recalculated values of the file's own inputs.
"""

from __future__ import annotations

import math
import os
import re
import warnings
from collections.abc import Callable, Mapping
from contextlib import chdir
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from kalkulator.catalog import Catalog
from kalkulator.engine.expr import Value, XlError, xl_round, xl_rounddown, xl_roundup
from kalkulator.engine.graph import Graph, override_key
from kalkulator.io import forked
from kalkulator.workbook.cells import FormulaCell, Layout
from kalkulator.workbook.expected import InputSet, expected_values

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
    texts_checked: int = 0  # formula cells whose text was compared with the engine's rendering of its tree

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


_WORD = re.compile(r"[A-Z_][A-Z0-9_.]*")


@cache
def _model_class() -> type:
    """`formulas`' ExcelModel, compiling each cell against only the defined names its formula mentions.

    `formulas` tries every defined name of the workbook (about 400) on every cell it compiles; handing it the
    names a formula's text contains builds the same model in less time (a name left out would show up as a
    mismatch, never hide one).
    """
    import formulas

    class Model(formulas.ExcelModel):
        def compile_cell(self, cell, context, references, formula_references):
            if cell.data_type == "f":
                words = set(_WORD.findall(str(getattr(cell.value, "text", cell.value)).upper()))
                references = {k: v for k, v in references.items() if k.rpartition("!")[2] in words}
            return super().compile_cell(cell, context, references, formula_references)

    return Model


class Evaluator:
    """One `formulas` model of a workbook file, recalculated for any set of input cells.

    `only` (cell keys) loads just those cells and what they depend on: a part of the workbook compiles in a
    fraction of the time, so parts can be evaluated side by side (see `verify`).
    """

    def __init__(self, path: Path, only: list[str] | None = None):
        os.environ.setdefault("TQDM_DISABLE", "1")
        patch_formulas_rounding()
        self.path = path.resolve()
        self.book = self.path.name
        with chdir(self.path.parent), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if only is None:
                self.model = _model_class()().loads(self.book).finish()
            else:
                self.model = _model_class()()
                self.model.add_book(self.book)
                self.model.complete(stack=only)
                self.model.finish()

    @staticmethod
    def key_of(path: Path) -> Callable[[str, str], str]:
        """The `formulas` node name of a cell of the workbook at `path`: key(sheet, coord)."""
        book = path.resolve().name
        return lambda sheet, coord: f"'[{book}]{sheet.upper()}'!{coord}"

    def key(self, sheet: str, coord: str) -> str:
        return Evaluator.key_of(self.path)(sheet, coord)

    def calculate(self, inputs: Mapping[str, Value]) -> Mapping[str, object]:
        """Recalculate with `inputs`; input cells this model did not load (no loaded cell reads them) are left out."""
        nodes = self.model.dsp.nodes
        with chdir(self.path.parent), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return self.model.calculate(inputs={k: v for k, v in inputs.items() if k in nodes})

    def values(self, inputs: Mapping[str, Value], keys: list[str]) -> dict[str, Value]:
        """Recalculate with `inputs` and return the normalised values of `keys`."""
        solution = self.calculate(inputs)
        return {k: normalise(solution[k]) if k in solution else None for k in keys}


def formula_cells(path: Path) -> dict[str, str]:
    """Key → formula text of every formula cell in the file, read with openpyxl (independent of the layout)."""
    import openpyxl

    key = Evaluator.key_of(path)
    wb = openpyxl.load_workbook(path)
    return {
        key(ws.title, cell.coordinate): str(cell.value)
        for ws in wb.worksheets
        for row in ws.iter_rows()
        for cell in row
        if cell.data_type == "f"
    }


_PREFIXES = re.compile(r"_xl(fn|ws)\.", re.IGNORECASE)


def text_mismatches(by_key: Mapping[str, FormulaCell], in_file: Mapping[str, str]) -> list[Mismatch]:
    """Formula cells whose text in the file is not the engine's rendering of their tree."""
    return [
        Mismatch("formula text", f"{f.sheet}!{f.coord}", f.label, f.text, in_file[k])
        for k, f in by_key.items()
        if k in in_file and formula_text(in_file[k]) != formula_text(f.text)
    ]


def formula_text(text: str) -> str:
    """A formula as compared: without the leading =, the prefixes writers add (_xlfn.) and whitespace outside
    text literals."""
    parts = re.split(r'("(?:[^"]|"")*")', text.lstrip("="))
    return "".join(p if p.startswith('"') else _PREFIXES.sub("", re.sub(r"\s+", "", p)) for p in parts)


def cached_values(path: Path, keys: list[str]) -> dict[str, Value]:
    """The results cached in the file for `keys`, as stored (read with openpyxl, nothing recalculated)."""
    import openpyxl

    key = Evaluator.key_of(path)
    wb = openpyxl.load_workbook(path, data_only=True)
    cells = {key(ws.title, cell.coordinate): cell for ws in wb.worksheets for row in ws.iter_rows() for cell in row}
    out: dict[str, Value] = {}
    for k in keys:
        cell = cells.get(k)
        value = None if cell is None else cell.value
        out[k] = XlError(value) if cell is not None and cell.data_type == "e" else value
    return out


def _evaluate_part(path: Path, keys: list[str], input_sets: list[dict[str, Value]]) -> list[dict[str, Value]]:
    """Load the cells `keys` (and what they read) and recalculate them under each input set."""
    ev = Evaluator(path, only=keys)
    return [ev.values(inputs, keys) for inputs in input_sets]


def parts(layout: Layout, n: int) -> list[list[FormulaCell]]:
    """Split the formula cells into `n` parts of about equal size that share little: a table row stays whole
    (its cells read each other), a what-if table too (its sorted cells read all its rows), the scenario cells go
    where they are few (every part reads some of them)."""

    def group_of(f: FormulaCell) -> tuple:
        if f.key[0] in ("q", "tree"):
            return ("q",)
        if f.key[0] == "sens" or layout.row_blocks[f.key[1]].moved:
            return ("what-if",)  # the sorted cells read every row of their table: one part loads it once
        return f.key[:3]

    groups: dict[tuple, list[FormulaCell]] = {}
    for f in layout.formulas:
        groups.setdefault(group_of(f), []).append(f)
    out: list[list[FormulaCell]] = [[] for _ in range(n)]
    for group in sorted(groups.values(), key=len, reverse=True):
        min(out, key=len).extend(group)
    return [p for p in out if p]


def evaluate(
    path: Path, layout: Layout, input_sets: list[dict[str, Value]], meanwhile: Callable[[], object] = lambda: None
) -> list[dict[str, Value]]:
    """Every formula cell's recalculated value (by cell key) under each input set, the parts on every core.

    `meanwhile` runs in this process while the workers recalculate (it would otherwise wait idle).
    """
    key = Evaluator.key_of(path)
    workers = (os.cpu_count() or 1) if forked.available() else 1
    jobs = [(path, [key(f.sheet, f.coord) for f in part], input_sets) for part in parts(layout, workers)]
    results = forked.run_all(_evaluate_part, jobs, meanwhile)
    merged: list[dict[str, Value]] = [{} for _ in input_sets]
    for result in results:
        for whole, part in zip(merged, result, strict=True):
            whole.update(part)
    return merged


def input_cells(layout: Layout, inputs: InputSet) -> dict[tuple[str, str], Value]:
    """Map an input set to the workbook cells that hold its values."""
    cells: dict[tuple[str, str], Value] = {}
    for (block, i), values in inputs.table_inputs.items():
        for key_name, v in values.items():
            cells[layout.inputs[f"{key_name}@{block}:{i}"]] = v
    for name, value in inputs.settings.items():
        if name in layout.inputs:
            cells[layout.inputs[name]] = layout.cell_value(name, value)
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
    """Evaluate the file once per input set and compare every formula cell with the engine, and its text with the
    engine's rendering of the cell's tree (a booby-trapped formula may give the right values under every set).

    Then compare every cached result with the file recalculated as it stands (the shipped-inputs pass when
    there is one): a stale or wrong cache is reported as a mismatch of the pass "cached values".
    """
    columns = catalog.columns()
    key = Evaluator.key_of(path)
    report = Report()
    by_key = {key(f.sheet, f.coord): f for f in layout.formulas}
    cell_sets = [{key(s, c): v for (s, c), v in input_cells(layout, inputs).items()} for inputs in passes]
    as_is = next((i for i, p in enumerate(passes) if not p.settings and not p.table_inputs), None)
    if as_is is None:
        cell_sets.append({})
        as_is = len(passes)
    found: list[tuple[list[dict[tuple, Value]], dict[str, str], dict[str, Value]]] = []

    def meanwhile() -> None:  # the engine's values and the file's own cells, read while the workers recalculate
        expected = [expected_values(layout, graph, columns, p.settings, p.table_inputs) for p in passes]
        found.append((expected, formula_cells(path), cached_values(path, list(by_key))))

    results = evaluate(path, layout, cell_sets, meanwhile)
    expected_sets, in_file, cached = found[0]
    for inputs, got_values, expected in zip(passes, results, expected_sets, strict=False):
        report.passes.append(inputs.name)
        for k, f in by_key.items():
            got = got_values[k]
            want = expected[f.key]
            report.cells_checked += 1
            if not same(want, got):
                report.mismatches.append(Mismatch(inputs.name, f"{f.sheet}!{f.coord}", f.label, want, got))
    recalculated = results[as_is]
    report.unexpected_formulas = sorted(set(in_file) - set(by_key))
    report.texts_checked = len(by_key)
    report.mismatches += text_mismatches(by_key, in_file)
    for k, f in by_key.items():
        report.cached_checked += 1
        if not same(recalculated[k], cached[k]):
            report.mismatches.append(
                Mismatch("cached values", f"{f.sheet}!{f.coord}", f.label, recalculated[k], cached[k])
            )
    return report


def check_with_libreoffice(lang: str, catalog: Catalog, passes: list[InputSet], workdir: Path) -> Report:
    """Recalculate the workbook in LibreOffice once per input set (its inputs typed into the cells)."""
    from kalkulator.workbook.build import build, workbook_name
    from kalkulator.workbook.libreoffice import recalculate

    report = Report()
    for inputs in passes:
        variant = build(lang, catalog, values=inputs.settings)
        path = workdir / workbook_name(lang)
        path.write_bytes(variant.data)
        values = recalculate(path)
        report.passes.append(inputs.name)
        report.cells_checked += len(variant.layout.formulas)
        report.mismatches.extend(compare(variant.layout, variant.graph, catalog, inputs, values))
    return report
