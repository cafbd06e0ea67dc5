"""The Excel-text evaluator verify uses (kalkulator/workbook/xltext.py), and verify catching what it must.

Expected values are Excel's, worked out by hand in each test (precedence, coercions, errors); the workbook tests
tamper with a built file and show the cell named.
"""

from __future__ import annotations

import copy
import dataclasses
import zipfile

import pytest

from kalkulator.engine import expr
from kalkulator.engine.expr import XlError
from kalkulator.workbook.build import verification_passes
from kalkulator.workbook.verify import sample, verify
from kalkulator.workbook.xltext import FormulaError, Ref, XlBook, features, parse

AT = ("S", "Z99")


def book(texts: dict[str, str], constants: dict[str, object] | None = None, names: dict | None = None) -> XlBook:
    """A workbook of sheet S (and 'Other Sheet') with the given formula and constant cells, compiled."""
    out = XlBook(
        {("S", c): t for c, t in texts.items()},
        {(c.split("!")[0], c.split("!")[1]) if "!" in c else ("S", c): v for c, v in (constants or {}).items()},
        names or {},
        {"S": "S", "OTHER SHEET": "Other Sheet"},
    )
    out.compile()
    return out


def _kind(v: object) -> str:
    """Excel has one number type: an int constant and a float result are both numbers; TRUE is not 1."""
    return "number" if isinstance(v, int | float) and not isinstance(v, bool) else type(v).__name__


@pytest.mark.parametrize(
    ("formula", "want"),
    [
        ("=-2^2", 4.0),  # Excel negates before raising: (-2)^2
        ("=-(2^2)", -4.0),
        ("=2^-1", 0.5),
        ("=1+2*3^2", 19.0),  # 3^2 = 9, 2*9 = 18, 1+18
        ("=2^3^2", 64.0),  # left to right: (2^3)^2
        ("=2*-3^2", 18.0),  # 2 * (-3)^2
        ("=10-4-3", 3.0),
        ("=12/3/2", 2.0),
        ("=(1+2)*3", 9.0),
        ("=50%", 0.5),
        ("=10+50%*2", 11.0),  # 0.5 * 2 = 1
        ("=1E3+.5", 1000.5),
        ('="a"&1', "a1"),
        ('=1.5&"x"', "1.5x"),
        ('=TRUE&""', "TRUE"),
        ('=1+2&"3"', "33"),  # & binds looser than +: (1+2)&"3"
        ('="say ""hi"""', 'say "hi"'),
        ('="b">"A"', True),  # text compares case-insensitively
        ('="a"="A"', True),
        ('=1<"a"', True),  # numbers sort before text
        ('="z"<TRUE', True),  # text before booleans
        ("=1+2=3", True),  # comparison binds loosest
        ("=A1+1", 1.0),  # a blank cell is 0 in arithmetic
        ('=A1&"x"', "x"),  # and "" in text
        ('=A1=""', True),
        ("=A1=0", True),
        ("=ISBLANK(A1)", True),
        ("=ISBLANK(A2)", False),
        ("=A2*2", 14.0),
        ("=$A$2+A$2+$A2", 21.0),
        ("=1/0", XlError("#DIV/0!")),
        ("=IF(1/0>1,1,2)", XlError("#DIV/0!")),  # the condition's error is the result
        ("=IF(TRUE,5,1/0)", 5.0),  # the other branch is never evaluated
        ("=IF(FALSE,5)", False),
        ('=IF("x",1,2)', XlError("#VALUE!")),
        ("=IF(TRUE,A1,1)", 0.0),  # a blank branch shows 0
        ("=IFERROR(1/0,7)", 7.0),
        ("=IFERROR(1/0+1,7)", 7.0),
        ('="a"+1', XlError("#VALUE!")),
        ("=NOT(AND(TRUE,OR(FALSE,1)))", False),
        ("=ROUND(2.5,0)", 3.0),  # half away from zero
        ("=ROUND(-2.5,0)", -3.0),
        ("=ROUND(1.005,2)", 1.01),  # 1.005 as Excel shows it (15 digits), not the double 1.00499…
        ("=ROUNDUP(1.21,1)", 1.3),
        ("=ROUNDDOWN(-1.29,1)", -1.2),
        ("=MAX(B1:B3,1)", 5.0),  # B1:B3 holds 5, "text", blank: text and blanks in a range are skipped
        ("=MIN(B1:B3)", 5.0),
        ("=ABS(-3)", 3.0),
        ("=LN(0)", XlError("#NUM!")),
        ('=INDEX(C1:C3,MATCH("y",D1:D3,0))', 20.0),  # D2 holds "Y": MATCH ignores case; C2 is 20
        ('=INDEX(C1:C3,MATCH("q",D1:D3,0))', XlError("#N/A")),
        ('=IFERROR(INDEX(C1:C3,MATCH("q",D1:D3,0)),-1)', -1.0),
        ("=INDEX(C1:C3,5)", XlError("#REF!")),
        ("=INDEX(C1:C3,3)", 0.0),  # INDEX of a blank is 0
        ("='Other Sheet'!B2*2", 6.0),
        ("=rate*3", 9.0),  # the defined name rate is 'Other Sheet'!$B$2
        ("=_xlfn.ROUND(1.25,1)", 1.3),
        ("=SUMX(1)", XlError("#NAME?")),  # a function outside the whitelist
        ("=nowhere+1", XlError("#NAME?")),
        ("=B1:B3", XlError("#VALUE!")),  # a range is no cell's value
    ],
)
def test_excel_semantics(formula, want):
    constants = {"A2": 7, "B1": 5, "B2": "text", "C1": 10, "C2": 20, "D1": "x", "D2": "Y", "D3": "z"}
    b = book({AT[1]: formula}, constants | {"Other Sheet!B2": 3}, {"RATE": Ref("Other Sheet", (2, 2), (2, 2))})
    got = b.value(b.evaluate({}), AT)
    assert (_kind(got), got) == (_kind(want), want), (formula, got)


def test_cells_are_evaluated_in_dependency_order_and_inputs_override():
    b = book({"C1": "=B1*2", "B1": "=A1+1", "D1": '=IF(C1>10,"big","small")'}, {"A1": 1})
    first = b.values({}, [("S", "B1"), ("S", "C1"), ("S", "D1")])
    assert first == {("S", "B1"): 2.0, ("S", "C1"): 4.0, ("S", "D1"): "small"}
    again = b.values({("S", "A1"): 9}, [("S", "C1"), ("S", "D1")])  # (9+1)*2 = 20
    assert again == {("S", "C1"): 20.0, ("S", "D1"): "big"}
    assert b.values({}, [("S", "C1")]) == {("S", "C1"): 4.0}  # the constants are unchanged by a run


def test_a_circular_reference_and_an_unreadable_formula_name_their_cell():
    with pytest.raises(FormulaError, match=r"S!A1 refers to itself|S!B1 refers to itself"):
        book({"A1": "=B1+1", "B1": "=A1+1"})
    with pytest.raises(FormulaError, match=r"S!A1 '=1\+\+\)'"):
        book({"A1": "=1++)"})
    with pytest.raises(FormulaError, match="ends too early"):
        parse("=ROUND(1,2")


def test_features_name_each_function_and_operator():
    assert sorted(set(features(parse('=-IF(A1>2,ROUND(B1^2,0),5%)&"x"')))) == sorted(
        {"unary -", "IF", ">", "ROUND", "^", "%", "&"}
    )


# ---- verify on a built workbook: a tampered formula is named -------------------------------------------------------


def _tampered(workbook_path, built_id, tmp_path):
    """A copy with one constant inside one formula changed (energy per day: ×24 hours → ×25), the zip rewritten
    part by part so every cached value stays as built."""
    target = next(f for f in built_id.layout.formulas if f.key == ("q", "energy_kwh_per_day"))
    assert target.text == "=facility_power_w*24/1000"
    index = [title for _, title in built_id.layout.sheets].index(target.sheet)
    path = tmp_path / "tampered.xlsx"
    with zipfile.ZipFile(workbook_path) as zin, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename == f"xl/worksheets/sheet{index + 1}.xml":
                old = b"<f>facility_power_w*24/1000</f>"
                assert data.count(old) == 1
                data = data.replace(old, b"<f>facility_power_w*25/1000</f>")
            zout.writestr(info, data)
    return path, target


@pytest.mark.slow
def test_verify_names_a_formula_whose_constant_changed(workbook_path, built_id, catalog, tmp_path):
    path, target = _tampered(workbook_path, built_id, tmp_path)
    where = f"{target.sheet}!{target.coord}"
    report = verify(path, built_id.layout, built_id.graph, catalog, verification_passes(catalog, built_id.layout)[:1])
    found = {(m.pass_name, m.where) for m in report.mismatches}
    assert {("shipped inputs", where), ("formula text", where), ("cached values", where)} <= found
    (m,) = [m for m in report.mismatches if m.pass_name == "shipped inputs" and m.where == where]
    assert m.label == "energy_kwh_per_day" and m.got == pytest.approx(m.expected * 25 / 24, rel=1e-12)
    assert not report.ok


@pytest.mark.slow
def test_the_values_alone_name_it_when_the_text_check_agrees(workbook_path, built_id, catalog, tmp_path):
    """The layout is told the tampered text is the engine's, so only the evaluation of the file can find it."""
    path, target = _tampered(workbook_path, built_id, tmp_path)
    layout = copy.copy(built_id.layout)
    layout.formulas = [
        dataclasses.replace(f, text="=facility_power_w*25/1000") if f is target else f for f in layout.formulas
    ]
    report = verify(path, layout, built_id.graph, catalog, verification_passes(catalog, layout)[:1])
    assert [m for m in report.mismatches if m.pass_name == "formula text"] == []
    wrong = [m for m in report.mismatches if m.pass_name == "shipped inputs"]
    assert f"{target.sheet}!{target.coord}" in {m.where for m in wrong}
    assert len(wrong) > 1  # and the cells that read it


@pytest.mark.slow
def test_the_formulas_sample_catches_a_wrong_shared_function(workbook_path, built_id, catalog, monkeypatch):
    """ROUND made wrong in expr.FUNCS misleads the engine and the Excel-text evaluator alike (they agree), but not
    `formulas`, which recomputes the sampled ROUND cells on its own."""
    monkeypatch.setitem(expr.FUNCS, "ROUND", expr.Func(lambda x, d: expr.xl_round(x, d) + 1, 2, 2))
    report = verify(workbook_path, built_id.layout, built_id.graph, catalog, [])
    assert report.passes == [] and report.sampled_cells == 300
    caught = [tuple(m.where.split("!")) for m in report.mismatches if m.pass_name == "formulas sample, as saved"]
    texts = XlBook.read(workbook_path).texts
    assert caught and all("ROUND(" in texts[c] for c in caught)  # only cells calling ROUND itself, fed equal inputs


@pytest.mark.slow
def test_the_sample_holds_every_function_operator_and_sheet(workbook_path):
    b = XlBook.read(workbook_path)
    chosen = sample(b, b.texts)
    assert chosen == sample(b, b.texts) and len(chosen) == 300  # deterministic
    everywhere = {f for c in b.texts for f in features(b.trees[c])} | {f"sheet {s}" for s, _ in b.texts}
    sampled = {f for c in chosen for f in features(b.trees[c])} | {f"sheet {s}" for s, _ in chosen}
    assert sampled == everywhere
    assert {"IF", "ROUND", "INDEX", "MATCH", "IFERROR", "ISBLANK", "LN", "&", "^", "unary -"} <= sampled
