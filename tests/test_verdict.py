"""The verdict sentence on top of Asumsi and of `kalkulator hitung`: numbers written by formulas as a reader says
them, in the workbook's language, and the decision it states."""

from __future__ import annotations

import pytest

from kalkulator.catalog import load_catalog
from kalkulator.engine.expr import Evaluate, Num
from kalkulator.engine.graph import Graph
from kalkulator.quantities import QUANTITIES
from kalkulator.quantities.verdict import amount_text, grouped_text, one_decimal_text, ratio_text
from kalkulator.scenario import resolve


@pytest.mark.parametrize(
    ("fn", "x", "id_text", "en_text"),
    [
        (grouped_text, 0, "0", "0"),
        (grouped_text, 999.4, "999", "999"),
        (grouped_text, 999.5, "1.000", "1,000"),  # half away from zero, then grouped
        (grouped_text, 42_735.2, "42.735", "42,735"),
        (grouped_text, 100_005, "100.005", "100,005"),  # zeros kept inside a group
        (grouped_text, 7_050, "7.050", "7,050"),
        (one_decimal_text, 1.577064, "1,6", "1.6"),
        (one_decimal_text, 0.04, "0,0", "0.0"),
        (one_decimal_text, 14.25, "14,3", "14.3"),
        (amount_text, 42_735, "42.735", "42,735"),
        (amount_text, 999_999.6, "1,0 juta", "1.0 million"),
        (amount_text, 1_577_064, "1,6 juta", "1.6 million"),
        (amount_text, 184_000_000, "184,0 juta", "184.0 million"),
        (amount_text, 999_960_000, "1,0 miliar", "1.0 billion"),
        (amount_text, 2_300_000_000, "2,3 miliar", "2.3 billion"),
        (amount_text, 1.1e12, "1,1 triliun", "1.1 trillion"),
        (ratio_text, 36.9, "37×", "37×"),
        (ratio_text, 1.44, "1,4×", "1.4×"),
        (ratio_text, 12_345, "12.345×", "12,345×"),
    ],
)
def test_numbers_as_text_in_each_language(fn, x, id_text, en_text):
    node = fn(Num(x))
    assert Evaluate({}, lang="id").visit(node) == id_text
    assert Evaluate({}, lang="en").visit(node) == en_text


def compute(settings: dict, lang: str) -> dict:
    """One scenario's values with the messages in `lang` (the CLI's --lang)."""
    graph, catalog = Graph(QUANTITIES), load_catalog()
    return graph.evaluate(resolve(graph, catalog, settings), catalog.columns(), lang=lang)


def _money(x: float, lang: str) -> str:
    """The same rounding written with Python's own formatting (an independent path): three figures from a million."""
    text = f"{x / 1e6:.1f} juta" if x >= 1e6 else f"{x:,.0f}"
    if lang == "en":
        return text.replace(" juta", " million")
    return text.replace(",", "_").replace(".", ",").replace("_", ".")


@pytest.mark.parametrize("lang", ["id", "en"])
def test_the_verdict_names_the_cheaper_option_and_how_many_times(lang):
    values = compute({}, lang=lang)
    api, onprem = values["api_cost_idr_per_month"], values["onprem_cost_idr_per_month"]
    times = round(onprem / api)
    assert api < onprem and times >= 10  # the shipped scenario: the API is far cheaper
    sentence = values["verdict_text"]
    if lang == "id":
        assert f"API {values['api_name']} Rp {_money(api, lang)}/bulan, {times}× lebih murah daripada" in sentence
        assert f"on-premise Rp {_money(onprem, lang)}/bulan" in sentence
    else:
        assert f"the API {values['api_name']} Rp {_money(api, lang)}/month, {times}× cheaper than" in sentence
        assert f"on-premise Rp {_money(onprem, lang)}/month" in sentence
    assert sentence.endswith(f"; {values['breakeven_months']}.")  # no break-even: its reason, as the answer says


def test_a_setup_that_cannot_run_says_so_and_gives_the_api_price():
    values = compute({"model_name": "Llama-3.1-405B", "gpu_name": "RTX 3060 12GB", "quant_name": "F16"}, lang="en")
    sentence = values["verdict_text"]
    assert "on-premise with this setup cannot be used: " + values["onprem_check_text"] in sentence
    assert "cheaper" not in sentence


def test_on_premise_cheaper_gives_the_break_even_in_months():
    """An API invoice of Rp 50 million a month (typed over the formula) against the shipped workstation."""
    values = compute({"api_cost_idr_per_month": 50_000_000}, lang="en")
    onprem, months = values["onprem_cost_idr_per_month"], values["breakeven_months"]
    assert isinstance(months, float) and onprem < 50_000_000
    times = 50_000_000 / onprem
    expected = f"{round(times)}×" if times >= 9.95 else f"{times:.1f}×"
    assert f"on-premise Rp {_money(onprem, 'en')}/month, {expected} cheaper than the API" in values["verdict_text"]
    assert "Rp 50.0 million/month" in values["verdict_text"]
    assert values["verdict_text"].endswith(f"; break-even in {months:.1f} months.")
