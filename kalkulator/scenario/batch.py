"""Scenario batches: a CSV of scenarios is checked whole, then evaluated as arrays and written chunk by chunk.

The check pass reads every row before anything is written, so a bad cell anywhere stops the batch with
file:row:column and no output; the second pass holds one chunk at a time, so memory does not grow with the rows.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TextIO

from kalkulator.catalog import FORMULA_START, Catalog, CsvFileError, iter_records
from kalkulator.engine.arrays import MISSING, evaluate_many, is_array
from kalkulator.engine.expr import Value, XlError
from kalkulator.engine.graph import Graph
from kalkulator.io.progress import steps
from kalkulator.io.textout import json_text
from kalkulator.quantities.base import NO_CHOICE
from kalkulator.scenario import INPUT_CHECK, ScenarioError, check_inputs, parse_value, resolve

CHUNK_ROWS = 2048  # scenarios evaluated together: large enough for numpy to pay, small enough to stay flat


class _Resolver:
    """`resolve` remembered per choice: a catalog name's canonical spelling depends on that name alone (a name
    outside the catalog depends on which numbers are set beside it, so it is resolved in full every time)."""

    def __init__(self, graph: Graph, catalog: Catalog):
        self.graph, self.catalog = graph, catalog
        self.keys = {q.name: q.choices[0] for q in graph.quantities.values() if q.choices}
        self.known: dict[tuple[str, Value], tuple[bool, Value]] = {}  # (key, value) → (written?, canonical)

    def __call__(self, settings: dict[str, Value], where: str) -> dict[str, Value]:
        out = dict(settings)
        for key in self.keys:
            hit = self.known.get((key, settings.get(key, MISSING)))
            if hit is None:
                return self._full(settings, where)
            if hit[0]:
                out[key] = hit[1]
        return out

    def _full(self, settings: dict[str, Value], where: str) -> dict[str, Value]:
        resolved = resolve(self.graph, self.catalog, settings, where)
        for key, table in self.keys.items():
            given = settings.get(key, MISSING)
            value = resolved.get(key, given)
            if given is not MISSING and not isinstance(given, str):
                continue
            if key in resolved and self.catalog[table].find(str(value)) is None and value != NO_CHOICE:
                continue  # outside the catalog: depends on the numbers set beside it
            self.known[(key, given)] = (key in resolved, value)
        return resolved


def scenario_rows(
    graph: Graph, catalog: Catalog, path: Path, base: Mapping[str, Value]
) -> Iterator[tuple[int, dict[str, Value]]]:
    """(file line, resolved settings) per row; a bad cell raises ScenarioError naming file:line:column."""
    records = iter_records(path)
    try:
        header_line, header = next(records)
    except CsvFileError as exc:
        raise ScenarioError(str(exc)) from None
    if not header:
        raise ScenarioError(f"{path}:1: empty file; expected a header row of names")
    for column in header:
        if column not in graph:
            parse_value(graph, column, "", f"{path}:{header_line}:{column}")  # raises with closest names
    settle = _Resolver(graph, catalog)
    rows = 0
    try:
        for line, fields in records:
            settings = dict(base)
            for column, raw in zip(header, fields, strict=True):
                if raw.strip() != "":
                    settings[column] = parse_value(graph, column, raw, f"{path}:{line}:{column}")
            rows += 1
            yield line, settle(settings, f"{path}:{line}")
    except CsvFileError as exc:
        raise ScenarioError(str(exc)) from None
    if rows == 0:
        raise ScenarioError(f"{path}:{header_line}: no scenario rows below the header")


def check_scenarios(graph: Graph, catalog: Catalog, path: Path, base: Mapping[str, Value]) -> int:
    """The number of scenario rows, after every row was parsed, resolved and checked by the rules `--set` obeys
    (domains, the cross-field and architecture checks of `input_check_text`): the pass that writes nothing."""
    columns = catalog.columns()
    total = 0
    for chunk in _chunks(graph, catalog, path, base, with_lines=True):
        lines = [line for line, _ in chunk]
        values = evaluate_many(graph, [s for _, s in chunk], columns, names=(INPUT_CHECK,))
        for line, value in zip(lines, items_of(values[INPUT_CHECK], len(chunk)), strict=True):
            check_inputs({INPUT_CHECK: _public(value)}, f"{path}:{line}: ")
        total += len(chunk)
    return total


def public_names(graph: Graph) -> list[str]:
    """The names a batch writes: every quantity but the internal catalog row positions."""
    return [n for n in graph.quantities if not n.endswith("_row")]


def _chunks(
    graph: Graph, catalog: Catalog, path: Path, base: Mapping[str, Value], with_lines: bool = False
) -> Iterator[list]:
    """The resolved rows of `path`, CHUNK_ROWS at a time (each a (line, settings) pair when `with_lines`)."""
    chunk: list = []
    for line, settings in steps(scenario_rows(graph, catalog, path, base), path.name):
        chunk.append((line, settings) if with_lines else settings)
        if len(chunk) == CHUNK_ROWS:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def items_of(v, n: int) -> list:
    """An `evaluate_many` result as a list of n values (a uniform scalar repeated)."""
    return v.tolist() if is_array(v) else [v] * n


def _public(v: Value) -> Value:
    return str(v) if isinstance(v, XlError) else v


def _csv_cell(value: Value) -> Value:
    """Text that starts like a formula gets a leading ' (OWASP CSV injection rule); numbers stay numbers."""
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


def write_batch(
    graph: Graph, catalog: Catalog, path: Path, base: Mapping[str, Value], out: TextIO, as_json: bool = False
) -> int:
    """Evaluate every scenario of `path` and write one output row each (CSV with a header, or JSON lines) to
    `out`, a chunk at a time; returns the number of rows. Call `check_scenarios` first: this pass writes as it
    goes."""
    names = public_names(graph)
    columns = catalog.columns()
    writer = None if as_json else csv.writer(out, lineterminator="\n")
    if writer is not None:
        writer.writerow(names)
    total = 0
    for chunk in _chunks(graph, catalog, path, base):
        n = len(chunk)
        values = evaluate_many(graph, chunk, columns)
        cols = []
        for name in names:
            v = values[name]
            items = items_of(v, n)
            if not is_array(v) or v.dtype == object:
                items = [_public(x) for x in items]
                if writer is not None:
                    items = [_csv_cell(x) for x in items]
            cols.append(items)
        if writer is not None:
            writer.writerows(zip(*cols, strict=True))
        else:
            for row in zip(*cols, strict=True):
                out.write(json_text(dict(zip(names, row, strict=True)), ensure_ascii=False) + "\n")
        total += n
    return total
