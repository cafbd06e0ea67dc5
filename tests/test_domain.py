"""Over the whole declared domain of every number a user can type (domains.py), edges included, the engine
leaves no error value in any formula cell of the workbook, and its status says OK or names a problem."""

from __future__ import annotations

import pytest
from conftest import TYPED, domain_scenarios
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kalkulator.engine.expr import XlError
from kalkulator.quantities.domains import domain_of
from kalkulator.workbook.verify import expected_values


@pytest.mark.slow
@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_no_error_value_anywhere_over_the_domain(data, built_id, catalog):
    scenario = data.draw(domain_scenarios(catalog))
    values = expected_values(built_id.layout, built_id.graph, catalog.columns(), scenario)
    errors = {
        f"{f.sheet}!{f.coord} {f.label}": values[f.key]
        for f in built_id.layout.formulas
        if isinstance(values[f.key], XlError)
    }
    assert errors == {}
    status = values[("q", "status_text")]
    assert isinstance(status, str) and status


@pytest.mark.parametrize("edge", ["low", "high"])
def test_every_input_at_its_edges_at_once(built_id, catalog, edge):
    def at(q):
        d = domain_of(q)
        if edge == "high":
            return d.high
        return d.low + (1 if d.integer else 1e-9) if d.above else d.low

    scenario = {q.name: at(q) for q in TYPED}
    values = expected_values(built_id.layout, built_id.graph, catalog.columns(), scenario)
    errors = {
        f"{f.sheet}!{f.coord} {f.label}": values[f.key]
        for f in built_id.layout.formulas
        if isinstance(values[f.key], XlError)
    }
    assert errors == {}
