"""The array evaluator agrees with the scalar one: on random trees over mixed values (numbers, text, blanks,
booleans, error values) and on the whole graph for scenarios drawn over every input's domain, edges often."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from conftest import TYPED
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kalkulator.engine.arrays import MISSING, evaluate_array, evaluate_many, pack, rows, same
from kalkulator.engine.expr import (
    AND,
    DIV0,
    EQ,
    IF,
    IFERROR,
    INDEX,
    ISBLANK,
    JOIN,
    LN,
    MATCH,
    MAX,
    MIN,
    NA,
    NE,
    NOT,
    OR,
    ROUND,
    ROUNDDOWN,
    ROUNDUP,
    BinOp,
    Col,
    Neg,
    R,
    call,
    evaluate,
    lift,
)
from kalkulator.engine.graph import Graph
from kalkulator.quantities import QUANTITIES
from kalkulator.quantities.domains import domain_of

COLUMNS = {("t", "name"): ("a", "B", None, 3.0, "c"), ("t", "x"): (1.5, None, "text", 7.0, -2.0)}
LEAVES = ("x", "y", "z")

scalars = st.one_of(
    st.floats(-1e6, 1e6, allow_nan=False),
    st.sampled_from([0.0, -0.0, 0.5, -0.5, 2.5, 1.005, 2.675, 1e15 + 0.5, 0.1 + 0.2, 1e-300, 3.0]),
    st.integers(-5, 5),
    st.sampled_from(["a", "b", "", "3", "B", None, True, False, NA, DIV0]),
)


def trees(depth: int = 3) -> st.SearchStrategy:
    leaf = st.one_of(
        st.sampled_from(LEAVES).map(R),
        st.floats(-10, 10, allow_nan=False).map(lambda v: R("x") * v),
        st.sampled_from(["a", 0.0, 2.0, -1.5, True, None]).map(lambda v: IF(True, R("z"), 0) if v is None else lift(v)),
    )
    if depth == 0:
        return leaf
    sub = trees(depth - 1)
    binary = st.sampled_from(["+", "-", "*", "/", "^", "=", "<>", "<", "<=", ">", ">=", "&"])
    return st.one_of(
        leaf,
        st.tuples(binary, sub, sub).map(lambda t: BinOp(*t)),
        sub.map(Neg),
        st.tuples(sub, sub, sub).map(lambda t: IF(*t)),
        st.tuples(st.sampled_from([MIN, MAX, AND, OR]), sub, sub).map(lambda t: t[0](t[1], t[2])),
        st.tuples(st.sampled_from([ROUND, ROUNDUP, ROUNDDOWN]), sub, st.integers(-2, 3)).map(
            lambda t: t[0](t[1], t[2])
        ),
        sub.map(NOT),
        sub.map(LN),
        sub.map(ISBLANK),
        sub.map(lambda a: call("ABS", a)),
        st.tuples(sub, sub).map(lambda t: IFERROR(*t)),
        sub.map(lambda a: INDEX(Col("t", "x"), a)),
        sub.map(lambda a: MATCH(a, Col("t", "name"))),
        sub.map(lambda a: MAX(Col("t", "x"), a)),
    )


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tree=trees(), data=st.lists(st.tuples(scalars, scalars, scalars), min_size=1, max_size=12))
def test_random_trees_agree_elementwise(tree, data):
    values = {name: pack([row[i] for row in data]) for i, name in enumerate(LEAVES)}
    got = evaluate_array(tree, values, len(data), COLUMNS)
    for i, row in enumerate(data):
        expected = evaluate(tree, dict(zip(LEAVES, row, strict=True)), COLUMNS)
        actual = got[i] if isinstance(got, np.ndarray) else got
        actual = actual.item() if isinstance(actual, np.generic) else actual
        assert _agree(actual, expected), (tree, row, actual, expected)


def _agree(a, b) -> bool:
    """Bit for bit, except LN and ^, whose libraries may differ in the last place (1e-12 relative)."""
    if same(a, b):
        return True
    if isinstance(a, float) and isinstance(b, float) and not isinstance(a, bool):
        return math.isclose(a, b, rel_tol=1e-12)
    return False


def test_uniform_values_stay_scalars_and_rows_repeat_them():
    values = {"x": 2.0, "y": pack([1.0, 4.0])}
    out = evaluate_array(R("x") * 3, values, 2, {})
    assert out == 6.0  # uniform in, uniform out: computed once by the scalar code
    both = evaluate_array(R("x") * R("y"), values, 2, {})
    assert both.tolist() == [2.0, 8.0]


def test_rounding_is_excels_half_away_from_zero_on_fifteen_digits():
    x = pack([2.5, -2.5, 0.5, 1.005, 2.675, 0.1 + 0.2, 3.0000000000000004, -0.4, 1234.5])
    # By hand: Excel ROUND is half away from zero on the value shown to 15 significant digits, so 1.005 → 1.01,
    # 2.675 → 2.68 at 2 digits (binary 2.67499999… shows as 2.675), 0.1 + 0.2 → 0.3.
    assert evaluate_array(ROUND(R("x"), 0), {"x": x}, 9, {}).tolist() == [3, -3, 1, 1, 3, 0, 3, -0.0, 1235]
    assert evaluate_array(ROUND(R("x"), 2), {"x": x}, 9, {}).tolist()[3:6] == [1.01, 2.68, 0.3]
    # ROUNDUP of 3 + 1 ulp is 3: the snap to 15 digits removes the ulp before rounding away from zero.
    assert evaluate_array(ROUNDUP(R("x"), 0), {"x": x}, 9, {}).tolist()[6] == 3.0
    assert evaluate_array(ROUNDDOWN(R("x"), -2), {"x": x}, 9, {}).tolist()[8] == 1200.0


def test_if_chooses_elementwise_and_errors_come_from_the_condition():
    values = {"c": pack([True, False, NA, "t", None]), "d": pack([1.0, 0.0, 2.0, 3.0, 4.0])}
    tree = IF(R("c"), 1 / R("d"), R("d") * 10)
    out = evaluate_array(tree, values, 5, {}).tolist()
    assert out[:2] == [1.0, 0.0] and out[2] is NA and str(out[3]) == "#VALUE!" and out[4] == 40.0
    # A branch no scenario takes is not evaluated; one that some take gives its own errors there only.
    guarded = evaluate_array(IF(R("d") > 0, 1 / R("d"), -1), {"d": values["d"]}, 5, {}).tolist()
    assert guarded == [1.0, -1, 0.5, 1 / 3, 0.25]


def test_lookups_by_row_index_arrays():
    row = IFERROR(MATCH(R("k"), Col("t", "name")), 0)
    values = {"k": pack(["b", "c", "zz", 3.0, None])}
    assert evaluate_array(row, values, 5, COLUMNS).tolist() == [2.0, 5.0, 0, 4.0, 0]
    picked = evaluate_array(INDEX(Col("t", "x"), R("i")), {"i": pack([1.0, 2.0, 3.0, 9.0, 0.0])}, 5, COLUMNS)
    assert picked.tolist()[:3] == [1.5, 0.0, "text"]  # a blank catalog cell reads as 0
    assert [str(v) for v in picked.tolist()[3:]] == ["#REF!", "#REF!"]


def test_text_and_messages():
    values = {"n": pack([1.0, 2.5, None])}
    out = evaluate_array(JOIN("needs ", R("n"), " GPUs"), values, 3, {}).tolist()
    assert out == ["needs 1 GPUs", "needs 2.5 GPUs", "needs  GPUs"]
    assert evaluate_array(EQ(R("n"), 2.5), values, 3, {}).tolist() == [False, True, False]
    assert evaluate_array(NE(R("n"), 0), values, 3, {}).tolist() == [True, True, False]
    assert evaluate_array(AND(R("n") > 0, OR(R("n") > 2, False)), values, 3, {}).tolist() == [False, True, False]


@pytest.fixture(scope="module")
def graph() -> Graph:
    return Graph(QUANTITIES)


OVERRIDES = ("decode_tok_s", "weights_gb", "gpus_needed", "prefill_tok_s")


def _domain_draw(rng: random.Random, catalog) -> dict:
    """One scenario over the whole input domain as tests/test_domain.py draws it (a seeded draw: hypothesis takes
    minutes to build lists of these wide dictionaries): each input set or not, its edges a third of the time each."""
    out: dict = {}
    for q in QUANTITIES:
        if not q.is_input or rng.random() < 0.5:
            continue
        if q.choices:
            out[q.name] = rng.choice(catalog[q.choices[0]].names)
        elif q.options:
            out[q.name] = rng.choice(q.options)
        elif q in TYPED:
            d = domain_of(q)
            low = d.low + (1 if d.integer else max(abs(d.low) * 1e-9, 1e-9)) if d.above else d.low
            pick = rng.random()
            value = low if pick < 1 / 3 else d.high if pick < 2 / 3 else rng.uniform(low, d.high)
            out[q.name] = float(round(value)) if d.integer else value
    return out


@pytest.mark.parametrize("seed", range(4))
def test_graph_over_the_domain_equals_the_scalar_graph(seed, graph, catalog):
    """≥ 300 scenarios in all (4 seeds × 80), drawn over every typed input's domain with its edges often, some with
    manual values for formulas and some with unset cells: every quantity agrees, in both languages."""
    rng = random.Random(seed)
    scenarios = [_domain_draw(rng, catalog) for _ in range(80)]
    for i, s in enumerate(scenarios):
        if i % 5 == 0:
            s[OVERRIDES[i % len(OVERRIDES)]] = float(1 + i)
    columns = catalog.columns()
    lang = ("en", "id")[seed % 2]
    many = rows(evaluate_many(graph, scenarios, columns, lang=lang), len(scenarios))
    for s, got in zip(scenarios, many, strict=True):
        expected = graph.evaluate(s, columns, lang)
        wrong = {k: (got[k], v) for k, v in expected.items() if not _agree(got[k], v)}
        assert wrong == {}, s


def test_only_the_names_asked_for(graph, catalog):
    scenarios = [{"gpu_name": "H100 SXM 80GB"}, {"gpu_name": "RTX 4090 24GB"}]
    out = evaluate_many(graph, scenarios, catalog.columns(), names=["decode_tok_s"])
    assert "tco_idr" not in out and "decode_tok_s" in out
    single = [graph.evaluate(s, catalog.columns())["decode_tok_s"] for s in scenarios]
    assert out["decode_tok_s"].tolist() == single


def test_an_unset_cell_in_one_scenario_is_the_default_there(graph, catalog):
    scenarios = [{"n_gpus": 2.0}, {}]
    out = evaluate_many(graph, scenarios, catalog.columns(), names=["n_gpus"])
    assert out["n_gpus"].tolist() == [2.0, graph["n_gpus"].default]
    blank = evaluate_many(graph, [{"decode_tok_s": 151.0}, {"decode_tok_s": MISSING}], catalog.columns())
    assert blank["decode_tok_s"].tolist()[0] == 151.0
    assert blank["decode_tok_s"].tolist()[1] == graph.evaluate({}, catalog.columns())["decode_tok_s"]
