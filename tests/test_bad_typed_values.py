"""Bad typed values stay local (issue 35 part 4): text or an out-of-range number typed into a numeric input cell
shows a message beside that cell and names the input in the status; the status never shows an error value, and
the answer block shows "input out of range" instead of #VALUE! or a meaningless number (−2 GPUs).

The workbook is recalculated from its Excel text (xltext; LibreOffice in the slow tier) with the text typed into
the cell, as a user would; what is expected is written out here (the input's name in the status, the words of the
message).
"""

from __future__ import annotations

import pytest

from kalkulator.engine.expr import XlError
from kalkulator.workbook.verify import normalise
from kalkulator.workbook.xltext import XlBook

TEXT = "abc"


def _numeric_inputs(layout, graph) -> list[str]:
    return [
        n
        for n, cell in layout.inputs.items()
        if cell in layout.domains and n in graph.quantities and graph[n].is_input and not graph[n].is_text
    ]


def _answer_cells(layout) -> dict[str, tuple[str, str]]:
    sheet = layout.sheets[1][1]
    return {
        f.key[-1]: (f.sheet, f.coord)
        for f in layout.formulas
        if f.sheet == sheet and f.style in ("answer", "answer_wrap", "status")
    }


def _message_cell(layout, name: str) -> tuple[str, str]:
    return next((f.sheet, f.coord) for f in layout.formulas if f.key == ("tree", f"{name}__message"))


@pytest.fixture(scope="module")
def model(built_en, tmp_path_factory):
    path = tmp_path_factory.mktemp("bad") / "kalkulator-en.xlsx"
    path.write_bytes(built_en.data)
    layout, graph = built_en.layout, built_en.graph
    cells = _answer_cells(layout) | {f"{n}__message": _message_cell(layout, n) for n in _numeric_inputs(layout, graph)}
    return XlBook.read(path), cells, lambda sheet, coord: (sheet, coord)


def test_every_numeric_input_has_a_message_cell(built_en):
    names = _numeric_inputs(built_en.layout, built_en.graph)
    assert len(names) >= 30
    assert {"n_gpus", "tokens_per_month", "usd_idr", "horizon_years"} <= set(names)


@pytest.mark.slow
def test_text_in_each_numeric_input_stays_local(built_en, model):
    ev, cells, key = model
    layout, graph = built_en.layout, built_en.graph
    names = _numeric_inputs(layout, graph)
    plain = ev.values({}, [key(*c) for c in cells.values()])
    assert plain[key(*cells["status_text"])] == "OK"
    assert all(plain[key(*cells[f"{n}__message"])] in ("", None) for n in names)
    for name in names:
        got = ev.values({key(*layout.inputs[name]): TEXT}, [key(*c) for c in cells.values()])
        status = got[key(*cells["status_text"])]
        assert isinstance(status, str) and name in status, (name, status)
        assert str(got[key(*cells[f"{name}__message"])]).startswith("← type"), name
        errors = {a: got[key(*c)] for a, c in cells.items() if isinstance(got[key(*c)], XlError)}
        assert errors == {}, (name, errors)
        others = [n for n in names if n != name and got[key(*cells[f"{n}__message"])] not in ("", None)]
        assert others == [], (name, others)  # the message stays beside the cell typed into


def test_minus_two_gpus_is_no_answer(built_en, model):
    """n_gpus = −2: the status names it, the fleet and the money show "input out of range", not −2 GPUs."""
    ev, cells, key = model
    layout = built_en.layout
    got = ev.values({key(*layout.inputs["n_gpus"]): -2}, [key(*c) for c in cells.values()])
    assert "n_gpus" in got[key(*cells["status_text"])]
    assert got[key(*cells["n_gpus__message"])] == "← type whole 1–1,024"
    for answer in ("answer_gpus_needed", "answer_servers_needed", "answer_cost_idr_per_1m_tokens", "answer_tco_idr"):
        assert got[key(*cells[answer])] == "input out of range", answer


@pytest.mark.slow
def test_text_in_every_numeric_input_in_libreoffice(built_en, tmp_path):
    """All numeric inputs typed as text at once: LibreOffice shows a readable status naming them, a message beside
    each, and no error value in the answer block."""
    from kalkulator.workbook.libreoffice import recalculate, soffice

    if soffice() is None:
        pytest.skip("LibreOffice is not installed")
    import openpyxl

    layout, graph = built_en.layout, built_en.graph
    names = _numeric_inputs(layout, graph)
    path = tmp_path / "typed.xlsx"
    path.write_bytes(built_en.data)
    book = openpyxl.load_workbook(path)
    for name in names:
        sheet, coord = layout.inputs[name]
        book[sheet][coord].value = TEXT
    book.save(path)
    got = {k: normalise(v) for k, v in recalculate(path).items()}
    cells = _answer_cells(layout)
    status = got[cells["status_text"]]
    assert isinstance(status, str) and status.startswith("Input out of range or not a number")
    assert all(n in status for n in names)
    assert {a: got[c] for a, c in cells.items() if isinstance(got[c], XlError) or str(got[c]).startswith("#")} == {}
    for name in names:
        assert str(got[_message_cell(layout, name)]).startswith("← type"), name
