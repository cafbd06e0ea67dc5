"""The what-if (tornado) table on the Break-even sheet: each key input moved down and up, sorted by its effect."""

from __future__ import annotations

import openpyxl
import pytest

from kalkulator.engine.graph import override_key
from kalkulator.workbook.verify import expected_values


def _table(built, settings=None):
    """(label → (cost down, cost up, break-even down, break-even up)), the sorted labels, the sorted changes."""
    layout = built.layout
    values = expected_values(layout, built.graph, built.catalog.columns(), settings or {})
    s = layout.sensitivities[0]
    by = {f.key: v for f, v in ((f, values[f.key]) for f in layout.formulas)}
    n = len(s.inputs)
    sorted_labels = [by[("sens", 0, f"{s.key}_sorted_label_{r}")] for r in range(n)]
    changes = [(by[("sens", 0, f"{s.key}_delta_{r}_0")], by[("sens", 0, f"{s.key}_delta_{r}_1")]) for r in range(n)]
    ends = {}
    for k, label in enumerate(s.labels):
        ends[label] = tuple(by[("sens", 0, f"{s.key}_copy_{k}_{up}_{out}")] for out in s.outputs for up in (0, 1))
    return values, ends, sorted_labels, changes


# One GPU at USD 2,000 × Rp 16,000 with PPN 11 % (no duty or margin), written off over 3 years down to 10 %, serving
# 1e8 tokens a month alone.
ONE_GPU = {
    "gpu_price_usd": 2000,
    "usd_idr": 16000,
    "ppn_pct": 11,
    "import_duty_pct": 0,
    "distributor_margin_pct": 0,
    "gpus_needed": 1,
    "residual_pct": 10,
    "lifetime_years": 3,
    "year_days": 365,
    "tokens_per_month": 1e8,
}


def test_gpu_price_swing_is_the_depreciation_of_a_fifth_of_the_gpus(built_en):
    # One GPU at USD 2,000 × Rp 16,000 × 1.11 (PPN 11 %, no duty or margin) = Rp 35,520,000 of GPU capex, written off
    # over 3 years down to a 10 % residual, 1 % of it a year for maintenance; 1e8 tokens a month = 1e8 ÷ (365 / 12)
    # a day, all served by the one GPU.
    settings = ONE_GPU | {"maintenance_share_frac": 0.01}
    _, ends, _, _ = _table(built_en, settings)
    low, high, _, _ = ends["GPU price"]
    # ±20 % on the GPU price moves 0.2 × the GPU capex each way: its depreciation per day and its maintenance.
    per_day = 0.2 * 2000 * 16000 * 1.11 * ((1 - 0.10) / 3 + 0.01) / 365
    step = per_day * 1e6 / (1e8 / (365 / 12))
    assert high - low == pytest.approx(2 * step, rel=1e-9)
    # The exchange rate moves the same rupiah capex (the GPU is the only dollar price on the on-premise side).
    assert ends["USD to rupiah rate"][:2] == pytest.approx((low, high), rel=1e-9)


def test_a_value_typed_by_hand_holds_in_every_row(built_en):
    """Maintenance typed as Rp 1,000,000 a year (a manual value): moving the GPU price by ±20 % now moves only its
    depreciation (the setup of the test above without the 1 % maintenance), and the ends bracket the answer block."""
    settings = ONE_GPU | {"maintenance_idr_per_year": 1_000_000}
    values, ends, _, _ = _table(built_en, settings)
    low, high, _, _ = ends["GPU price"]
    per_day = 0.2 * 2000 * 16000 * 1.11 * (1 - 0.10) / 3 / 365
    assert high - low == pytest.approx(2 * per_day * 1e6 / (1e8 / (365 / 12)), rel=1e-9)
    answer = built_en.graph.evaluate(settings, built_en.catalog.columns(), "en")["cost_idr_per_1m_tokens"]
    for label, (down, up, _, _) in ends.items():
        assert min(down, up) <= answer * (1 + 1e-12) and answer <= max(down, up) * (1 + 1e-12), label


def test_rows_are_sorted_by_swing_and_api_price_moves_only_the_breakeven(built_en):
    values, ends, labels, changes = _table(built_en)
    s = built_en.layout.sensitivities[0]
    assert sorted(labels) == sorted(s.labels)
    swings = [abs(up - down) for down, up in changes]
    assert swings == sorted(swings, reverse=True)
    api = ends["Blended API price (same model)"]
    scenario = built_en.graph.evaluate({}, built_en.catalog.columns(), "en")
    assert api[0] == api[1] == pytest.approx(scenario["cost_idr_per_1m_tokens"])
    # The default compares the same model on an API (Rp 427 per 1M tokens against Rp 13,737 on a workstation):
    # ±20 % on its price leaves it cheaper than the opex, so there is no break-even either way.
    assert api[2] == api[3] == scenario["breakeven_months"] == "no break-even: the API costs less than the opex"


def test_decode_efficiency_moves_within_the_speed_error_band(built_en):
    scenario = built_en.graph.evaluate({}, built_en.catalog.columns(), "en")
    layout = built_en.layout
    values = expected_values(layout, built_en.graph, built_en.catalog.columns(), {})
    cells = [f for f in layout.formulas if f.key[0] == "row" and f.key[3] == "decode_efficiency_frac" and f.col == 3]
    low, high = (values[f.key] for f in cells)
    eff = scenario["decode_efficiency_frac"]
    assert low == pytest.approx(eff * (1 + scenario["speed_error_low_frac"]), rel=1e-12)
    assert high == pytest.approx(eff * (1 + scenario["speed_error_high_frac"]), rel=1e-12)


@pytest.mark.slow
def test_the_top_bar_moves_when_an_input_is_edited_in_libreoffice(built_en, tmp_path):
    from kalkulator.workbook.libreoffice import recalculate, soffice

    if soffice() is None:
        pytest.skip("LibreOffice is not installed")
    layout = built_en.layout
    s = layout.sensitivities[0]
    cell = {f.key[2]: f for f in layout.formulas if f.key[0] == "sens"}
    _, _, labels, changes = _table(built_en)
    assert labels[0] == "Tokens per month (demand)" and labels[1] != "Maintenance per year"
    # As a user would: type half the demand and a maintenance bill 100 × the shipped one into their yellow cells.
    path = tmp_path / "edited.xlsx"
    path.write_bytes(built_en.data)
    book = openpyxl.load_workbook(path)
    edits = {}
    cached = openpyxl.load_workbook(path, data_only=True)
    maintenance = next(f for f in layout.formulas if f.key == ("q", "maintenance_idr_per_year"))
    shipped = {
        "tokens_per_month": book[layout.inputs["tokens_per_month"][0]][layout.inputs["tokens_per_month"][1]].value,
        "maintenance_idr_per_year": cached[maintenance.sheet][maintenance.coord].value,  # a share of capex: a formula
    }
    for name, factor in (("tokens_per_month", 0.5), ("maintenance_idr_per_year", 100)):
        # the input's own cell, or the formula's yellow manual-value cell
        sheet, coord = layout.inputs.get(name) or layout.inputs[override_key(name)]
        edits[name] = shipped[name] * factor
        book[sheet][coord].value = edits[name]
    book.save(path)
    recalculated = recalculate(path)
    _, _, new_labels, new_changes = _table(built_en, edits)
    assert set(new_labels[:2]) == {
        "Tokens per month (demand)",
        "Maintenance per year",
    }  # maintenance rose to the top two
    for r in range(2):
        got = recalculated[(cell[f"{s.key}_sorted_label_{r}"].sheet, cell[f"{s.key}_sorted_label_{r}"].coord)]
        assert got == new_labels[r]
        for up in (0, 1):
            change = cell[f"{s.key}_delta_{r}_{up}"]
            assert recalculated[(change.sheet, change.coord)] == pytest.approx(new_changes[r][up], rel=1e-9)
    # The demand's bar grew (its length: half the demand carries the fleet's fixed costs on half the tokens, and at
    # this size 20 % less demand drops a GPU, which the 100-fold maintenance makes large).
    assert abs(new_changes[new_labels.index("Tokens per month (demand)")][0]) > 1.5 * abs(changes[0][0])


def test_hitung_what_if_prints_the_same_table(built_en):
    import json

    from click.testing import CliRunner

    from kalkulator.cli import main

    result = CliRunner().invoke(main, ["hitung", "--what-if", "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)["what_if"]
    assert [r["rank"] for r in rows] == list(range(1, len(built_en.layout.sensitivities[0].inputs) + 1))
    _, ends, labels, _ = _table(built_en)
    assert [r["label"] for r in rows] == labels
    gpu = next(r for r in rows if r["name"] == "gpu_price_usd")
    expected = ends["GPU price"]
    got = (gpu["cost_idr_per_1m_tokens_down"], gpu["cost_idr_per_1m_tokens_up"])
    got += (gpu["breakeven_months_down"], gpu["breakeven_months_up"])
    assert len(got) == len(expected)
    for value, want in zip(got, expected, strict=True):  # a break-even may be a sentence ("no break-even …")
        assert value == (pytest.approx(want, rel=1e-12) if isinstance(want, int | float) else want)
    text = CliRunner().invoke(main, ["hitung", "--what-if"]).output
    assert "What if: each key input 20 % down and up" in text and " 1. Tokens per month (demand)" in text


def test_what_if_with_a_scenario_file_is_an_error(tmp_path):
    from click.testing import CliRunner

    from kalkulator.cli import main

    path = tmp_path / "s.csv"
    path.write_text("gpu_name\nRTX 4090 24GB\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["hitung", "--what-if", "--scenarios", str(path)])
    assert result.exit_code == 2 and "--what-if: one scenario at a time" in result.stderr
