"""The shortlist "Pilihan termurah untuk beban kerja ini" goes through the answer block's own chain (issue 35 part 1).

A row with the chosen GPU and count must show what the answer block shows for the same setup, whatever the user
typed: a manual tariff, deployment, PUE, GPU price, decode efficiency, maintenance share, host power or server
capex. The expectation is the answer block's value (the engine's scenario, `Graph.evaluate`), which never reads
the shortlist's trees; the workbook's row is recalculated from its Excel text (and LibreOffice in the slow tier) with
the value typed into its yellow manual-value cell. Before the fix a typed tariff moved the answer's TCO from
Rp 47.7 M to Rp 52.7 M and left the row at Rp 47.7 M.
"""

from __future__ import annotations

import pytest

from kalkulator.workbook import shortlist as choices
from kalkulator.workbook.verify import InputSet, input_cells, normalise, same
from kalkulator.workbook.xltext import XlBook

SHOWN = (
    "onprem_check_text",
    "gpus_needed",
    "answer_cost_idr_per_1m_tokens",
    "answer_tco_idr",
    "answer_breakeven_months",
)
# One typed value per case, each unlike the catalog's (the chosen GPU's default deployment is the office
# workstation on PLN R-1 1300 VA).
TYPED = {
    "tariff": {"tariff_name": "Colo power Jakarta high"},
    "deployment": {"deployment_name": "server rak"},
    "pue": {"pue": 1.9},
    "gpu_price": {"gpu_price_usd": 4321.0},
    "decode_efficiency": {"decode_efficiency_frac": 0.31},
    "maintenance": {"maintenance_share_frac": 0.2},
    "host_power": {"host_power_w": 650.0},
    "server_capex": {"server_capex_idr": 90_000_000.0},
}


def _shortlist(layout):
    at = next(i for i, rb in enumerate(layout.row_blocks) if rb.honour == choices.KEYS)
    return at, layout.row_blocks[at]


def _chosen_row(graph, rb) -> int:
    gpu, n = graph["gpu_name"].default, graph["n_gpus"].default
    return next(i for i, b in enumerate(rb.bound) if b["gpu_name"] == gpu and b["n_gpus"] == n)


def _cells(layout, at: int, i: int) -> dict[str, tuple[str, str]]:
    return {f.key[3]: (f.sheet, f.coord) for f in layout.formulas if f.key[:3] == ("row", at, i) and f.key[3] in SHOWN}


@pytest.fixture(scope="module")
def model(built_en, tmp_path_factory):
    """The workbook's formulas compiled from their text once; each case recalculates the chosen GPU's row."""
    path = tmp_path_factory.mktemp("chain") / "kalkulator-en.xlsx"
    path.write_bytes(built_en.data)
    at, rb = _shortlist(built_en.layout)
    cells = _cells(built_en.layout, at, _chosen_row(built_en.graph, rb))
    return XlBook.read(path), cells, lambda sheet, coord: (sheet, coord)


@pytest.mark.parametrize("case", list(TYPED))
def test_the_chosen_gpus_row_equals_the_answer_block_with_a_typed_value(case, built_en, catalog, model):
    ev, cells, key = model
    graph, layout = built_en.graph, built_en.layout
    settings = TYPED[case]
    answer = graph.evaluate(settings, catalog.columns(), "en")
    plain = graph.evaluate({}, catalog.columns(), "en")
    # the typed value moves the answer (else the case would prove nothing)
    assert any(not same(answer[q], plain[q]) for q in ("answer_tco_idr", "gpus_needed")), case
    typed = {key(*c): v for c, v in input_cells(layout, InputSet(case, settings)).items()}
    got = ev.values(typed, [key(*c) for c in cells.values()])
    for name, cell in cells.items():
        want = answer[name]
        assert same(want, got[key(*cell)]), (case, name, want, got[key(*cell)])


def test_engine_rows_follow_the_answer_block_and_keep_gpu_values_to_their_gpu(built_en, catalog):
    """All typed at once: the chosen row equals the answer; another GPU's row takes the site's values (tariff,
    PUE, …) but not the chosen GPU's price or efficiency — it equals that GPU computed alone with the site's
    values only."""
    from kalkulator.workbook.expected import expected_values

    graph, layout = built_en.graph, built_en.layout
    at, rb = _shortlist(layout)
    settings = {k: v for case in TYPED.values() for k, v in case.items()}
    values = expected_values(layout, graph, catalog.columns(), settings)
    answer = graph.evaluate(settings, catalog.columns(), "en")
    chosen = _chosen_row(graph, rb)
    for name in SHOWN:
        assert same(answer[name], values[("row", at, chosen, name)]), name
    site = {k: v for k, v in settings.items() if k not in ("gpu_price_usd", "decode_efficiency_frac")}
    for i, bound in enumerate(rb.bound):
        if i == chosen:
            continue
        alone = graph.evaluate({**site, **bound}, catalog.columns(), "en")
        for name in SHOWN:
            assert same(alone[name], values[("row", at, i, name)]), (bound, name)


@pytest.mark.slow
def test_libreoffice_row_equals_the_answer_block_with_each_typed_value(built_en, catalog, tmp_path):
    from kalkulator.workbook.libreoffice import recalculate, soffice

    if soffice() is None:
        pytest.skip("LibreOffice is not installed")
    import openpyxl

    graph, layout = built_en.graph, built_en.layout
    at, rb = _shortlist(layout)
    cells = _cells(layout, at, _chosen_row(graph, rb))
    answers = {f.key[1]: (f.sheet, f.coord) for f in layout.formulas if f.key[0] == "q"}
    for case in ("tariff", "deployment", "pue", "gpu_price", "decode_efficiency"):
        settings = TYPED[case]
        path = tmp_path / f"{case}.xlsx"
        path.write_bytes(built_en.data)
        book = openpyxl.load_workbook(path)
        for (sheet, coord), v in input_cells(layout, InputSet(case, settings)).items():
            book[sheet][coord].value = v
        book.save(path)
        got = recalculate(path)
        for name, cell in cells.items():
            assert same(normalise(got[answers[name]]), normalise(got[cell])), (case, name)
            assert same(graph.evaluate(settings, catalog.columns(), "en")[name], normalise(got[cell])), (case, name)


def test_plan_prices_each_shortlist_gpu_as_the_workbook_row(built_en, catalog):
    """`kalkulator plan` with the same typed values: each shortlist GPU's buy option (the scenario's format and
    engine, the row's count) has the row's TCO; the chosen GPU's option keeps the typed GPU price and efficiency,
    and its `hitung` settings carry them."""
    from kalkulator.scenario.planner import candidates, search
    from kalkulator.workbook.expected import expected_values

    graph, layout = built_en.graph, built_en.layout
    at, rb = _shortlist(layout)
    typed = {k: v for case in TYPED.values() for k, v in case.items()}
    values = expected_values(layout, graph, catalog.columns(), typed)
    quant, engine = graph["quant_name"].default, graph["engine"].default
    gpus = ",".join(dict.fromkeys(b["gpu_name"] for b in rb.bound))
    space = candidates(catalog, typed, gpus, quant, engine, (1,), graph=graph)
    space = [s for s in space if s["gpu_name"] in {b["gpu_name"] for b in rb.bound}]
    plan = search(graph, catalog, space)
    buy = {(o.settings["gpu_name"], o.settings["n_gpus"]): o for o in plan.options if o.mode == "buy"}
    assert len(buy) >= 3
    chosen = _chosen_row(graph, rb)
    compared = 0
    for i, bound in enumerate(rb.bound):
        o = buy.get((bound["gpu_name"], float(bound["n_gpus"])))
        if o is None or o.settings["quant_name"] != quant:
            continue
        assert o.tco_idr == pytest.approx(values[("row", at, i, "answer_tco_idr")], rel=1e-9), bound
        compared += 1
        if i == chosen:
            assert o.settings["gpu_price_usd"] == typed["gpu_price_usd"]
            assert o.settings["decode_efficiency_frac"] == typed["decode_efficiency_frac"]
        else:
            assert "gpu_price_usd" not in o.settings and "decode_efficiency_frac" not in o.settings
    assert compared >= 3
