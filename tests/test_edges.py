"""Edge inputs never produce error values, and random valid inputs agree between the engine and the workbook's
Excel text (evaluated by xltext)."""

from __future__ import annotations

import math

import pytest
from click.testing import CliRunner
from conftest import domain_scenarios
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kalkulator.catalog import SCHEMAS, CatalogError, load_catalog
from kalkulator.cli import main
from kalkulator.engine.expr import XlError
from kalkulator.workbook.verify import InputSet, expected_values, input_cells, same
from kalkulator.workbook.xltext import XlBook

NUMERIC_INPUTS = [
    "n_gpus",
    "context_tokens",
    "prompt_tokens",
    "output_tokens",
    "concurrent_users",
    "vram_overhead_gb",
    "network_overhead_ms",
    "host_power_w",
    "duty_cycle_frac",
    "idle_power_frac",
    "pue",
    "year_days",
    "usd_idr",
    "ppn_pct",
    "pph22_pct",
    "server_capex_idr",
    "lifetime_years",
    "residual_pct",
    "server_lifetime_years",
    "server_residual_pct",
    "horizon_years",
    "maintenance_idr_per_year",
    "staff_idr_per_month",
    "tokens_per_month",
    "api_output_share_frac",
    "cloud_hours_per_day",
    "dedicated_idr_per_gpu_month",
    "hybrid_base_frac",
    "elapsed_months",
]
CHOICES = [
    "gpu_name",
    "model_name",
    "quant_name",
    "kv_cache_type",
    "engine",
    "tariff_name",
    "cloud_offer_name",
    "api_name",
    "colocation_name",
]

# The edge classes of issue 5: zero, blank, huge, and a GPU far too small for the model.
EDGES = {
    "zeros": dict.fromkeys(NUMERIC_INPUTS, 0),
    "blanks": dict.fromkeys(NUMERIC_INPUTS + CHOICES, None),
    "huge": dict.fromkeys(NUMERIC_INPUTS, 1e12),
    "gpu too small": {
        "gpu_name": "RTX 3060 12GB",
        "model_name": "Llama-3.1-405B",
        "quant_name": "F16",
        "context_tokens": 131072,
        "concurrent_users": 64,
    },
    "manual zeros": {
        "gpu_mem_bandwidth_gbs": 0,
        "gpu_fp16_tflops": 0,
        "weights_gb": 0,
        "decode_tok_s": 0,
        "prefill_tok_s": 0,
        "hardware_capex_idr": 0,
        "model_params_b": 0,
    },
}


@pytest.mark.parametrize("edge", EDGES, ids=str)
def test_edge_inputs_give_no_error_values(built_id, catalog, edge):
    values = expected_values(built_id.layout, built_id.graph, catalog.columns(), EDGES[edge])
    errors = {k: v for k, v in values.items() if isinstance(v, XlError)}
    assert errors == {}
    assert all(not isinstance(v, float) or math.isfinite(v) for v in values.values())


def test_edge_status_says_what_is_wrong(calc):
    assert calc(**EDGES["gpu too small"])["status_text"].startswith("Does not fit in VRAM")
    assert calc(gpu_mem_bandwidth_gbs=0)["status_text"].startswith("Choose a GPU from the catalog")
    assert calc(context_tokens=0)["max_concurrent_users"] == "not limited by the KV cache (context 0)"
    assert calc()["status_text"] == "OK"


# ---- property: random scenarios over the declared domain (edges often), engine vs the Excel text on every cell


@pytest.fixture(scope="module")
def evaluator(workbook_path):
    return XlBook.read(workbook_path)


@pytest.mark.slow
@settings(
    max_examples=6,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_random_scenarios_engine_equals_the_excel_text(data, built_id, catalog, evaluator):
    scenario = data.draw(domain_scenarios(catalog))
    inputs = InputSet("random", scenario)
    solution = evaluator.evaluate(input_cells(built_id.layout, inputs))
    expected = expected_values(built_id.layout, built_id.graph, catalog.columns(), scenario)
    bad = []
    for f in built_id.layout.formulas:
        got = evaluator.value(solution, (f.sheet, f.coord))
        if not same(expected[f.key], got):
            bad.append((f.sheet, f.coord, f.label, expected[f.key], got))
    assert bad == []


# ---- property: a random bad catalog value gives one clear error and writes nothing ---------------------------

BAD_VALUES = {
    "number": ["x", "-1", "inf", "", "1,5"],
    "int": ["2.5", "many", ""],
    "enum": ["nope", ""],
    "date": ["yesterday", "2025-13-01", ""],
    "text": [""],
}


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_random_bad_catalog_value(data, tmp_path_factory):
    import shutil

    from kalkulator.io.paths import CATALOG_DIR

    folder = tmp_path_factory.mktemp("cat") / "assumptions"
    shutil.copytree(CATALOG_DIR, folder)
    schema = data.draw(st.sampled_from(SCHEMAS))
    field = data.draw(st.sampled_from([f for f in schema.fields if f.required or f.kind != "text"]))
    allowed = (lambda x: field.domain.problem(x) is None) if field.domain else (lambda x: False)
    candidates = [v for v in BAD_VALUES[field.kind] if (v or field.required) and not (v == "-1" and allowed(-1))]
    if field.domain is not None and not allowed(-5):
        candidates.append("-5")
    value = data.draw(st.sampled_from(candidates))
    path = folder / schema.file
    lines = path.read_text(encoding="utf-8").splitlines()
    line = data.draw(st.integers(2, len(lines)))
    import csv
    import io

    rows = list(csv.reader(io.StringIO("\n".join(lines))))
    rows[line - 1][[f.name for f in schema.fields].index(field.name)] = value
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    path.write_text(buf.getvalue(), encoding="utf-8")
    with pytest.raises(CatalogError) as err:
        load_catalog(folder)
    assert any(m.startswith(f"{path}:{line}:{field.name}") for m in err.value.messages), err.value.messages
    out = tmp_path_factory.mktemp("dist")
    result = CliRunner().invoke(main, ["build", "--catalog", str(folder), "--out", str(out)])
    assert result.exit_code == 2 and f"{path}:{line}:{field.name}" in result.output
    assert list(out.iterdir()) == []
