"""The engine's value of every formula cell of a layout: what the writer caches and what verify compares with.

Computed from the expression trees (graph evaluation), never from the Excel text; building needs it for the
cached results, verifying for the expected ones, so it depends on neither.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from kalkulator.engine.expr import Value
from kalkulator.engine.expr import evaluate as evaluate_tree
from kalkulator.engine.graph import Graph
from kalkulator.workbook import whatif as sensitivity
from kalkulator.workbook.cells import Layout


@dataclass
class InputSet:
    """One verification pass: scenario settings plus changed key cells of value tables."""

    name: str
    settings: dict[str, Value]
    table_inputs: dict[tuple[int, int], dict[str, Value]] = field(default_factory=dict)


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

    def row_values(block: int, i: int) -> dict[str, Value]:
        if (block, i) not in rows:
            rb = layout.row_blocks[block]
            bound = {name: evaluate_tree(tree, scenario, columns, layout.lang) for name, tree in rb.moved.items()}
            bound |= rb.bound[i]
            bound.update((table_inputs or {}).get((block, i), {}))
            computed = graph.evaluate_row(scenario, bound, rb.columns, columns, layout.lang, rb.honour)
            rows[(block, i)] = dict(scenario) | bound | computed  # a column the row does not move: the scenario's
        return rows[(block, i)]

    whatif = [
        sensitivity.values(s, scenario, {e: row_values(b, i)[q] for e, (b, i, q) in s.ends.items()}, layout.lang)
        for s in layout.sensitivities
    ]
    out: dict[tuple, Value] = {}
    for f in layout.formulas:
        if f.key[0] == "q":
            out[f.key] = scenario[f.key[1]]
        elif f.key[0] == "tree":  # a cell's own tree over the scenario (an input's message, a guarded answer)
            assert f.node is not None
            out[f.key] = evaluate_tree(f.node, scenario, columns, layout.lang)
        elif f.key[0] == "sens":
            out[f.key] = whatif[f.key[1]][f.key[2]]
        else:
            _, block, i, name = f.key
            out[f.key] = row_values(block, i)[name]
    return out
