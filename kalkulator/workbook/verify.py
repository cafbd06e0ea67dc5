"""Evaluate a written workbook from its Excel text and compare every formula cell with the engine.

Expected values come from the expression trees (graph evaluation), the values checked from the file's own formula
texts (xltext: each formula compiled once, all cells recalculated for each input set). That evaluator shares the
engine's definitions of each function and operator (kalkulator/engine/expr.py), so a deterministic sample of cells is
evaluated again by the `formulas` package, fed the same precedent values: every function, operator and sheet is in
it. LibreOffice (`check_with_libreoffice`, `verify --libreoffice`) recalculates the whole workbook independently.
The results cached in the file (what previews show without recalculating) must equal the recalculated values of
the file's own inputs.
"""

from __future__ import annotations

import math
import os
import random
import re
import warnings
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from kalkulator.catalog import Catalog
from kalkulator.engine.expr import Value, XlError, xl_round, xl_rounddown, xl_roundup
from kalkulator.engine.graph import Graph, override_key
from kalkulator.workbook.cells import FormulaCell, Layout
from kalkulator.workbook.expected import InputSet, expected_values
from kalkulator.workbook.libreoffice import ERROR_TEXTS
from kalkulator.workbook.xltext import Cell, XlBook, features

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
    sampled_cells: int = 0  # formula cells evaluated again by `formulas` (SAMPLE_SIZE, stratified)
    sampled_checked: int = 0  # their comparisons, one per cell and input set

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


_PREFIXES = re.compile(r"_xl(fn|ws)\.", re.IGNORECASE)


def text_mismatches(by_cell: Mapping[Cell, FormulaCell], in_file: Mapping[Cell, str]) -> list[Mismatch]:
    """Formula cells whose text in the file is not the engine's rendering of their tree."""
    return [
        Mismatch("formula text", f"{f.sheet}!{f.coord}", f.label, f.text, in_file[c])
        for c, f in by_cell.items()
        if c in in_file and formula_text(in_file[c]) != formula_text(f.text)
    ]


def formula_text(text: str) -> str:
    """A formula as compared: without the leading =, the prefixes writers add (_xlfn.) and whitespace outside
    text literals."""
    parts = re.split(r'("(?:[^"]|"")*")', text.lstrip("="))
    return "".join(p if p.startswith('"') else _PREFIXES.sub("", re.sub(r"\s+", "", p)) for p in parts)


SAMPLE_SIZE = 300  # formula cells evaluated again by `formulas` under every input set
SAMPLE_PER_FEATURE = 5  # of them, at least this many (or all) using each function, operator and sheet
SAMPLE_SEED = 35


def sample(book: XlBook, cells: Iterable[Cell], size: int = SAMPLE_SIZE, seed: int = SAMPLE_SEED) -> list[Cell]:
    """A deterministic sample of formula cells in which every function, operator and sheet appears: a few cells
    using each (all when fewer), then cells drawn at random up to `size`."""
    rng = random.Random(seed)
    cells = sorted(cells)
    using: dict[str, list[Cell]] = {}
    for cell in cells:
        for feature in {*features(book.trees[cell]), f"sheet {cell[0]}"}:
            using.setdefault(feature, []).append(cell)
    chosen: set[Cell] = set()
    for feature in sorted(using):
        chosen.update(rng.sample(using[feature], min(SAMPLE_PER_FEATURE, len(using[feature]))))
    rest = [c for c in cells if c not in chosen]
    chosen.update(rng.sample(rest, max(0, min(size - len(chosen), len(rest)))))
    return sorted(chosen)


class FormulasSample:
    """The sampled cells, each formula compiled alone by `formulas`, fed its precedents' values from another
    evaluation: a check of the shared function and operator semantics that does not use them."""

    def __init__(self, book: XlBook, cells: list[Cell]):
        import formulas

        os.environ.setdefault("TQDM_DISABLE", "1")
        patch_formulas_rounding()
        self.book = book
        self.compiled: list[tuple[Cell, Callable, list[tuple[tuple[int, int], list[Cell]] | None]]] = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for cell in cells:
                fn = formulas.Parser().ast("=" + book.texts[cell].lstrip("="))[1].compile()
                self.compiled.append((cell, fn, [book.reference(name, cell[0]) for name in fn.inputs]))

    def mismatches(self, values: list[Value], pass_name: str, labels: Mapping[Cell, str]) -> list[Mismatch]:
        """Cells whose `formulas` value differs from theirs in `values` (a result of `book.evaluate`)."""
        import numpy as np
        from formulas.functions import Error
        from schedula import EMPTY

        def given(v: Value) -> object:
            if v is None:
                return EMPTY
            return Error.errors.get(str(v), Error.errors["#VALUE!"]) if isinstance(v, XlError) else v

        out = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for cell, fn, refs in self.compiled:
                args: list[object] = []
                for ref in refs:
                    if ref is None:
                        args.append(Error.errors["#NAME?"])
                        continue
                    shape, cells = ref
                    got = [given(self.book.value(values, c)) for c in cells]
                    args.append(got[0] if len(cells) == 1 else np.array(got, dtype=object).reshape(shape))
                want, fast = normalise(fn(*args)), self.book.value(values, cell)
                if not same(want, fast):
                    where = f"{cell[0]}!{cell[1]}"
                    out.append(Mismatch(f"formulas sample, {pass_name}", where, labels.get(cell, ""), want, fast))
        return out


def read_cells(path: Path, wanted: set[tuple[str, str]]) -> dict[tuple[str, str], Value]:
    """The values (cached results for formula cells) of the `wanted` (sheet, coord) cells, read in one stream.

    An error value (#N/A) comes back as XlError; an absent or empty cell as None.
    """
    import openpyxl

    sheets = {s for s, _ in wanted}
    out: dict[tuple[str, str], Value] = {}
    book = openpyxl.load_workbook(path, read_only=True, data_only=True)
    try:
        for ws in book.worksheets:
            if ws.title not in sheets:
                continue
            for row in ws.iter_rows():
                for cell in row:
                    where = (ws.title, getattr(cell, "coordinate", None))
                    if where in wanted:
                        v = cell.value
                        error = cell.data_type == "e" or (isinstance(v, str) and v.startswith(ERROR_TEXTS))
                        out[where] = XlError(v) if error else v
    finally:
        book.close()
    return out


def cached_values(path: Path, cells: Iterable[Cell]) -> dict[Cell, Value]:
    """The results cached in the file for `cells`, as stored (nothing recalculated; an error value as XlError)."""
    wanted = set(cells)
    found = read_cells(path, wanted)
    return {c: found.get(c) for c in wanted}


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
    """Evaluate the file's formulas once per input set and compare every formula cell with the engine, and its text
    with the engine's rendering of the cell's tree (a booby-trapped formula may give the right values under every
    set); evaluate a sample of cells again with `formulas` under every set.

    Then compare every cached result with the file recalculated as it stands (the shipped-inputs pass when
    there is one): a stale or wrong cache is reported as a mismatch of the pass "cached values".
    """
    columns = catalog.columns()
    report = Report()
    book = XlBook.read(path)
    by_cell = {(f.sheet, f.coord): f for f in layout.formulas}
    labels = {c: f.label for c, f in by_cell.items()}
    cell_sets = [input_cells(layout, inputs) for inputs in passes]
    names = [p.name for p in passes]
    as_is = next((i for i, p in enumerate(passes) if not p.settings and not p.table_inputs), None)
    if as_is is None:
        cell_sets.append({})
        names.append("as saved")
        as_is = len(passes)
    checker = FormulasSample(book, sample(book, book.texts))
    report.sampled_cells = len(checker.compiled)
    for i, (name, cells) in enumerate(zip(names, cell_sets, strict=True)):
        values = book.evaluate(cells)
        report.mismatches += checker.mismatches(values, name, labels)
        report.sampled_checked += report.sampled_cells
        if i < len(passes):
            inputs = passes[i]
            expected = expected_values(layout, graph, columns, inputs.settings, inputs.table_inputs)
            report.passes.append(inputs.name)
            for c, f in by_cell.items():
                got, want = book.value(values, c), expected[f.key]
                report.cells_checked += 1
                if not same(want, got):
                    report.mismatches.append(Mismatch(inputs.name, f"{f.sheet}!{f.coord}", f.label, want, got))
        if i == as_is:
            cached = cached_values(path, by_cell)
            for c, f in by_cell.items():
                report.cached_checked += 1
                now = book.value(values, c)
                if not same(now, cached[c]):
                    report.mismatches.append(Mismatch("cached values", f"{f.sheet}!{f.coord}", f.label, now, cached[c]))
    report.unexpected_formulas = [f"{s}!{c}" for s, c in sorted(set(book.texts) - set(by_cell))]
    report.texts_checked = len(by_cell)
    report.mismatches += text_mismatches(by_cell, book.texts)
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
