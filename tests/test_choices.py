"""The Break-even sheet's live shortlist "Pilihan termurah untuk beban kerja ini": ranks, sorted copy, edits.

Expected ranks are not read from the table's own trees: each row's setup is computed on its own through the
engine (`Graph.evaluate` with that GPU and count), and the rows are ordered here by the rule the sheet states —
on-premise TCO among the rows whose on-premise check is OK, cheapest first, the rest after them in table order.
"""

from __future__ import annotations

import math

import openpyxl
import pytest

from kalkulator.workbook import shortlist as choices
from kalkulator.workbook.build import build, verification_passes
from kalkulator.workbook.verify import expected_values


@pytest.fixture(scope="module")
def built(catalog):
    return build("id", catalog)


def _table(built):
    layout = built.layout
    index = next(i for i, s in enumerate(layout.sensitivities) if s.key.startswith("choices"))
    block = next(rb for rb in layout.row_blocks if set(rb.bound[0]) == set(choices.KEYS))
    return layout, index, layout.sensitivities[index], block


def _expected_order(built, rows, settings):
    """Row indices cheapest first, each row computed alone by the engine (not by the table)."""
    columns = built.catalog.columns()
    scored = []
    for i, bound in enumerate(rows):
        v = built.graph.evaluate({**settings, **bound}, columns, "id")
        ok = v["onprem_check_text"] == "OK"
        scored.append((0 if ok else 1, round(v["tco_idr"]) if ok else math.inf, i))
    return [i for _, _, i in sorted(scored)]


def _ranks(values, index, s, n):
    return [values[("sens", index, f"{s.key}_rank_{i}")] for i in range(n)]


def test_ranks_follow_each_rows_own_tco(built):
    layout, index, s, block = _table(built)
    n = len(block.bound)
    values = expected_values(layout, built.graph, built.catalog.columns(), {})
    order = _expected_order(built, block.bound, {})
    ranks = _ranks(values, index, s, n)
    assert [ranks[i] for i in order] == list(range(1, n + 1))
    # the sorted copy lists the rows in that order, with the row's own answers
    for r, i in enumerate(order):
        assert values[("sens", index, choices.sorted_name(s.key, r, "gpu_name"))] == block.bound[i]["gpu_name"]
        assert (
            values[("sens", index, choices.sorted_name(s.key, r, "answer_tco_idr"))]
            == values[("row", layout.row_blocks.index(block), i, "answer_tco_idr")]
        )


def test_a_row_that_cannot_serve_ranks_last(built):
    """Llama-3.1-405B in F16 on vLLM (2 bytes × 405 B = 810 GB of weights) fits no single GPU of the shortlist (the
    largest holds 192 GB): every row fails its check and the ranks keep the table's order; typed as 8 × B200
    (8 × 180 GB = 1,440 GB, tensor split) one row can serve, and it ranks first."""
    layout, index, s, block = _table(built)
    n = len(block.bound)
    settings = {"model_name": "Llama-3.1-405B", "quant_name": "F16", "engine": "vllm"}
    values = expected_values(layout, built.graph, built.catalog.columns(), settings)
    assert _ranks(values, index, s, n) == list(range(1, n + 1))
    b200 = next(i for i, r in enumerate(block.bound) if r["gpu_name"].startswith("B200"))
    table_inputs = {(layout.row_blocks.index(block), b200): {"n_gpus": 8}}
    values = expected_values(layout, built.graph, built.catalog.columns(), settings, table_inputs)
    row = built.graph.evaluate(
        {**settings, "gpu_name": block.bound[b200]["gpu_name"], "n_gpus": 8}, built.catalog.columns(), "id"
    )
    assert row["onprem_check_text"] == "OK", row["onprem_check_text"]
    ranks = _ranks(values, index, s, n)
    assert ranks[b200] == 1
    assert sorted(ranks) == list(range(1, n + 1))


def test_the_verification_passes_type_other_gpus_into_the_shortlist(built):
    layout, _, _, block = _table(built)
    at = layout.row_blocks.index(block)
    typed = [t for p in verification_passes(built.catalog, layout) for (b, _), t in p.table_inputs.items() if b == at]
    assert any("gpu_name" in t for t in typed) and any("n_gpus" in t for t in typed)


@pytest.mark.slow
def test_ranks_change_when_the_demand_is_typed_ten_times_larger_in_libreoffice(built, tmp_path):
    """As a user would: tokens per month × 10 in its yellow cell; LibreOffice's ranks are the engine's, and they
    differ from the shipped ranks (at 100 M tokens a month one cheap card serves; at 1 B the fleet grows and a
    card with more throughput per rupiah moves up)."""
    from kalkulator.workbook.libreoffice import recalculate, soffice

    if soffice() is None:
        pytest.skip("LibreOffice is not installed")
    layout, index, s, block = _table(built)
    n = len(block.bound)
    path = tmp_path / "edited.xlsx"
    path.write_bytes(built.data)
    book = openpyxl.load_workbook(path)
    sheet, coord = layout.inputs["tokens_per_month"]
    edited = {"tokens_per_month": book[sheet][coord].value * 10}
    book[sheet][coord].value = edited["tokens_per_month"]
    book.save(path)
    recalculated = recalculate(path)
    cells = {f.key[2]: f for f in layout.formulas if f.key[:2] == ("sens", index)}
    got = [recalculated[(cells[f"{s.key}_rank_{i}"].sheet, cells[f"{s.key}_rank_{i}"].coord)] for i in range(n)]
    order = _expected_order(built, block.bound, edited)
    assert [got[i] for i in order] == list(range(1, n + 1))
    shipped = _expected_order(built, block.bound, {})
    assert order != shipped
    first = cells[choices.sorted_name(s.key, 0, "gpu_name")]
    assert recalculated[(first.sheet, first.coord)] == block.bound[order[0]]["gpu_name"]
