"""The sheet plan as typed blocks: every kind of templates/workbook.toml registered, a wrong kind, key or type a
clear error naming sheet, block and key (exit 2 from `kalkulator build`, nothing written), and the two-pass
coordinator placing a small hand-made plan where the row arithmetic below says."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from typing import ClassVar

import pytest
from click.testing import CliRunner

from kalkulator.cli import main
from kalkulator.engine.expr import R
from kalkulator.engine.graph import Graph
from kalkulator.quantities.base import Quantity
from kalkulator.workbook import blocks, plan
from kalkulator.workbook.blocks import Block, Context, PlanError, Quantities
from kalkulator.workbook.cells import NOTE_COL, Cell
from kalkulator.workbook.layout import build_layout
from kalkulator.workbook.texts import TEMPLATES


def test_every_kind_the_template_uses_is_registered_and_parses():
    with open(TEMPLATES / "workbook.toml", "rb") as fh:
        raw = tomllib.load(fh)
    used = {b["kind"] for sheet in raw["sheet"] for b in sheet["blocks"]}
    assert used == {"guide", "quantities", "answers", "catalog", "rows", "snapshot", "sensitivity", "choices", "chart"}
    assert used <= set(blocks.KINDS)
    sheets = plan.load_plan()
    assert [s.key for s in sheets] == [s["key"] for s in raw["sheet"]]
    assert [b.kind for s in sheets for b in s.blocks] == [b["kind"] for s in raw["sheet"] for b in s["blocks"]]


def _plan(block: dict) -> dict:
    return {"sheet": [{"key": "inputs", "title_id": "Asumsi", "title_en": "Assumptions", "blocks": [block]}]}


@pytest.mark.parametrize(
    "block, message",
    [
        ({"kind": "table"}, "sheet 'inputs', block 1: unknown block kind 'table'"),
        (
            {"kind": "quantities", "title_id": "A", "title_en": "A", "nmes": ["gpu_name"]},
            "sheet 'inputs', block 1 (quantities): unknown key 'nmes'",
        ),
        ({"kind": "quantities", "title_id": "A", "title_en": "A"}, "block 1 (quantities): missing key 'names'"),
        (
            {"kind": "quantities", "title_id": "A", "title_en": "A", "names": "gpu_name"},
            "block 1 (quantities): key 'names' is 'gpu_name', not a list[str]",
        ),
        (
            {"kind": "quantities", "title_id": "A", "title_en": "A", "names": [], "summary": 1},
            "key 'summary' is 1, not a bool",
        ),
        (
            {"kind": "rows", "title_id": "A", "title_en": "A", "bind": {"n_gpus": "value"}, "columns": []},
            "block 1 (rows): a rows block takes either rows_from (a catalog) or values (a list)",
        ),
        ({"kind": "chart", "chart": "pie", "title_id": "A", "title_en": "A", "names": []}, "chart 'pie' is not"),
    ],
)
def test_a_wrong_block_is_an_error_naming_sheet_block_and_key(block, message):
    with pytest.raises(PlanError) as exc:
        plan.parse_plan(_plan(block))
    assert str(exc.value).startswith("workbook.toml: sheet 'inputs', block 1")
    assert message in str(exc.value)


def test_a_wrong_sheet_key_is_named():
    raw = _plan({"kind": "guide"})
    raw["sheet"][0]["intro"] = "x"
    with pytest.raises(PlanError, match="sheet 'inputs': unknown key 'intro'"):
        plan.parse_plan(raw)


def test_build_with_a_broken_plan_exits_2_and_writes_nothing(tmp_path, monkeypatch):
    templates = tmp_path / "templates"
    templates.mkdir()
    text = (TEMPLATES / "workbook.toml").read_text(encoding="utf-8").replace('table = "quant"', 'tabel = "quant"', 1)
    (templates / "workbook.toml").write_text(text, encoding="utf-8")
    monkeypatch.setattr(plan, "TEMPLATES", templates)
    out = tmp_path / "dist"
    result = CliRunner().invoke(main, ["build", "--lang", "en", "--out", str(out)])
    assert result.exit_code == 2
    assert "sheet 'model_catalog', block 2 (catalog): unknown key 'tabel'" in result.output
    assert not out.exists() or not any(out.iterdir())


def _input(name: str, default: float) -> Quantity:
    return Quantity(name, name, name, "a test input", "test", default=default)


GRAPH = Graph(
    [_input("a_gb", 2.0), _input("b_gb", 3.0), Quantity("c_gb", "c", "c", "a + b", "test", R("a_gb") + R("b_gb"))]
)


@dataclass(frozen=True)
class Note(Block):
    """A kind added the way a new one is: a dataclass with reserve (and place); registered by one line."""

    kind: ClassVar[str] = "note"
    text: str

    def reserve(self, ctx: Context, sheet: str, row: int) -> int:
        ctx.lay.cells.append(Cell(sheet, row, 1, self.text, "note"))
        return 2


def test_the_coordinator_places_a_small_plan(catalog, monkeypatch):
    monkeypatch.setitem(blocks.KINDS, "note", Note)
    raw = {
        "sheet": [
            {
                "key": "one",
                "title_id": "Satu",
                "title_en": "One",
                "blocks": [
                    {"kind": "answers", "title_id": "Jawaban", "title_en": "Answers", "names": ["c_gb", "a_gb"]}
                ],
            },
            {
                "key": "two",
                "title_id": "Dua",
                "title_en": "Two",
                "blocks": [
                    {"kind": "quantities", "title_id": "A", "title_en": "A", "names": ["a_gb"]},
                    {"kind": "note", "text": "between"},
                    {"kind": "quantities", "title_id": "B", "title_en": "B", "names": ["b_gb"]},
                ],
            },
        ]
    }
    sheets = plan.parse_plan(raw)
    assert isinstance(sheets[1].blocks[0], Quantities) and isinstance(sheets[1].blocks[1], Note)
    lay = build_layout(GRAPH, catalog, "en", plan=sheets, guide={})
    # One: no quantities block, so no column headers: the answers' title on row 3, c_gb row 4, a_gb row 5.
    # Two: headers on row 3; block A's title on 4, a_gb 5, a blank row 6; the note on 7 and 8; block B's title
    # on 9, b_gb on 10.
    assert lay.names == {"c_gb": "'One'!$B$4", "a_gb": "'Two'!$B$5", "b_gb": "'Two'!$B$10"}
    assert Cell("Two", 7, 1, "between", "note") in lay.cells
    assert lay.inputs == {"a_gb": ("Two", "B5"), "b_gb": ("Two", "B10")}
    formulas = {(f.sheet, f.coord): (f.text, f.style) for f in lay.formulas if f.col != 3}
    assert formulas == {("One", "B4"): ("=a_gb+b_gb", "answer"), ("One", "B5"): ("=a_gb", "answer")}
    # beside each typed number, its message: blank inside 0–1e15 GB (the unit's domain), else what to type
    messages = {(f.sheet, f.coord): f.key for f in lay.formulas if f.col == 3}
    assert messages == {("Two", "C5"): ("tree", "a_gb__message"), ("Two", "C10"): ("tree", "b_gb__message")}
    assert Cell("One", 5, NOTE_COL, "→ see sheet Two", "note") in lay.cells
    assert {(c.sheet, c.cells, c.formula) for c in lay.conditionals} == {
        ("One", "B4", "ISTEXT(B4)"),
        ("One", "B5", "ISTEXT(B5)"),
        ("Two", "C5", 'C5<>""'),  # a message beside an input is red
        ("Two", "C10", 'C10<>""'),
    }
    assert lay.repeat_header == {"One"}  # Two holds a note too: its row-3 header does not head all of it
