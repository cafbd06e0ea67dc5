"""The what-if (tornado) table: each key input moved down and up, its effect on the answers, sorted by impact.

All live formulas on one sheet:
1. a row per input and direction: the moved value (the scenario's cell × (1 − step) or × (1 + step); for an input
   with a band, such as the speed model's error band, × (1 + low) and × (1 + high)) and the answers recomputed
   from it (the quantities in between sit in hidden helper columns, as in the other live tables; a value typed by
   hand on the Assumptions sheet holds in every row, as in the answer block);
2. the inputs sorted by the swing of the first answer (ties keep the plan's order), with both ends of every
   answer and the first answer's change at both ends for the chart; the swing and rank of each input sit in
   hidden helper columns of the same rows.
Every cell is an expression tree the engine evaluates too (`values`), so verify checks the sort like any other
formula cell.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kalkulator.engine.expr import EQ, IF, IFERROR, INDEX, MATCH, MAX, ROUND, Col, Node, R, Value, evaluate
from kalkulator.engine.graph import Graph

if TYPE_CHECKING:
    from kalkulator.workbook.blocks.sensitivity import SensitivityBlock


@dataclass
class Sensitivity:
    """One what-if table: `names` = synthetic name → tree of a part-2 cell, in evaluation order (the `first` of
    them before the INDEX ranges are read); `columns` = synthetic INDEX range → the names whose values it holds;
    `ends` = synthetic name of a part-1 answer cell → (its row block, row, the answer); `constants` = labels and
    positions written as values."""

    key: str
    inputs: list[str]
    outputs: list[str]
    labels: list[str]
    names: dict[str, Node] = field(default_factory=dict)
    first: int = 0
    columns: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    ends: dict[str, tuple[int, int, str]] = field(default_factory=dict)
    constants: dict[str, Value] = field(default_factory=dict)


def moved(name: str, up: bool, step: float, band: Sequence[str] | None) -> Node:
    """The input's value at one end: × (1 ∓ step), or × (1 + the band's low or high share)."""
    if band is not None:
        return R(name) * (1 + R(band[1] if up else band[0]))
    return R(name) * ((1 + step) if up else (1 - step))


def row_spec(graph: Graph, block: SensitivityBlock, name: str, up: bool) -> tuple[list[str], Node]:
    """One part-1 row: the quantities recomputed when `name` moves (its closure to the answers that depend on
    it) and the tree of its moved value."""
    answers = [o for o in block.outputs if graph.depends_on(o, {name})]
    band = block.bands.get(name)
    return graph.row_closure({name}, answers), moved(name, up, float(block.step_frac), band)


def new(graph: Graph, block: SensitivityBlock, key: str, lang: str) -> Sensitivity:
    """The what-if table of a plan block, its part-2 trees built; checks the block's inputs and answers."""
    inputs, outputs = block.inputs, block.outputs
    if len(outputs) != 2:
        raise ValueError(f"what-if table {block.title(lang)!r}: two answers, not {outputs}")
    for name in inputs:
        if name not in graph or not any(graph.depends_on(out, {name}) for out in outputs):
            raise ValueError(f"what-if table: input {name!r} is unknown or moves none of {outputs}")
    s = Sensitivity(key, inputs, outputs, [graph[n].label(lang) for n in inputs])
    build_trees(s)
    return s


def compute(
    graph: Graph, block: SensitivityBlock, scenario: Mapping[str, Value], columns: Mapping, lang: str
) -> list[dict]:
    """The sorted what-if table for a scenario (what `kalkulator hitung --what-if` prints): per input, by rank,
    both answers at both ends."""
    s = new(graph, block, "whatif", lang)
    ends: dict[str, Value] = {}
    for k, name in enumerate(s.inputs):
        for up in (False, True):
            closure, tree = row_spec(graph, block, name, up)
            bound = {name: evaluate(tree, scenario, columns, lang)}
            row = dict(scenario) | bound | graph.evaluate_row(scenario, bound, closure, columns, lang, honour=())
            ends |= {end_name(s.key, k, out, up): row[out] for out in s.outputs}
    v = values(s, scenario, ends, lang)
    order = sorted(range(len(s.inputs)), key=lambda k: v[f"{s.key}_rank_{k}"])
    return [
        {"rank": r + 1, "name": s.inputs[k], "label": s.labels[k]}
        | {
            f"{out}_{end}": ends[end_name(s.key, k, out, up)]
            for out in s.outputs
            for end, up in (("down", False), ("up", True))
        }
        for r, k in enumerate(order)
    ]


def end_name(key: str, k: int, output: str, up: bool) -> str:
    return f"{key}_end_{k}_{int(up)}_{output}"


def build_trees(s: Sensitivity) -> None:
    """Fill `s.names`, `s.columns` and `s.constants`: part 2's trees over part 1's answer cells (copied into
    hidden cells of part 2's rows first: an INDEX range must be contiguous)."""
    n, key, first_out = len(s.inputs), s.key, s.outputs[0]
    for k in range(n):
        s.constants[f"{key}_label_{k}"] = s.labels[k]
        s.constants[f"{key}_position_{k}"] = k + 1
        low, high = R(end_name(key, k, first_out, False)), R(end_name(key, k, first_out, True))
        # Rounded to 1e-6 of the answer's unit: an input that moves nothing gives float noise (1e-12) that another
        # spreadsheet engine computes as exactly 0; the rank of equal swings then follows the plan in both.
        s.names[f"{key}_swing_{k}"] = IFERROR(ROUND(MAX(high - low, low - high), 6), 0)
    for k in range(n):
        for out in s.outputs:
            for up in (False, True):
                s.names[copy_name(key, k, out, up)] = R(end_name(key, k, out, up))
    for k in range(n):
        s.names[f"{key}_rank_{k}"] = rank_of([f"{key}_swing_{j}" for j in range(n)], k, largest_first=True)
    s.first = len(s.names)
    s.columns[(key, "rank")] = [f"{key}_rank_{k}" for k in range(n)]
    s.columns[(key, "label")] = [f"{key}_label_{k}" for k in range(n)]
    for out in s.outputs:
        for up in (False, True):
            s.columns[(key, f"{int(up)}_{out}")] = [copy_name(key, k, out, up) for k in range(n)]
    for r in range(n):
        position = MATCH(R(f"{key}_position_{r}"), Col(key, "rank"))
        s.names[f"{key}_sorted_label_{r}"] = INDEX(Col(key, "label"), position)
        for out in s.outputs:
            for up in (False, True):
                s.names[sorted_name(key, r, out, up)] = INDEX(Col(key, f"{int(up)}_{out}"), position)
        for up in (False, True):
            s.names[delta_name(key, r, up)] = IFERROR(R(sorted_name(key, r, first_out, up)) - R(first_out), 0)


def rank_of(names: list[str], k: int, largest_first: bool) -> Node:
    """Live rank (1 = first) of the value named names[k] among `names`; ties keep the order of `names`.
    Sums of IFs rather than RANK(): every spreadsheet app and the engine evaluate it alike."""
    me = R(names[k])
    terms = [IF(R(other) > me if largest_first else R(other) < me, 1, 0) for other in names]
    terms += [IF(EQ(R(other), me), 1, 0) for other in names[:k]]
    rank: Node = terms[0]
    for t in terms[1:]:
        rank = rank + t
    return rank + 1


def copy_name(key: str, k: int, output: str, up: bool) -> str:
    return f"{key}_copy_{k}_{int(up)}_{output}"


def sorted_name(key: str, r: int, output: str, up: bool) -> str:
    return f"{key}_sorted_{r}_{int(up)}_{output}"


def delta_name(key: str, r: int, up: bool) -> str:
    return f"{key}_delta_{r}_{int(up)}"


def values(s: Sensitivity, scenario: Mapping[str, Value], ends: Mapping[str, Value], lang: str) -> dict[str, Value]:
    """Every synthetic name's value, given the scenario and part 1's answers (by synthetic name)."""
    env: dict[str, Value] = dict(scenario) | dict(ends) | s.constants
    items = list(s.names.items())
    for name, tree in items[: s.first]:
        env[name] = evaluate(tree, env, {}, lang)
    columns = {c: tuple(env[m] for m in members) for c, members in s.columns.items()}
    for name, tree in items[s.first :]:
        env[name] = evaluate(tree, env, columns, lang)
    return {name: env[name] for name in s.names}
