"""`kalkulator check` and `hitung --from-workbook`: a user's edited copy, read back and checked against the engine.

Quick tier: the copy is the workbook built with other inputs (the writer caches the engine's results for them, as a
spreadsheet that recalculates correctly would); a check that misread any typed cell (a share, a manual value, a
choice) would find the results differ. Slow tier: the copy is edited with openpyxl and recalculated by LibreOffice,
an evaluator independent of the engine.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from pathlib import Path

import openpyxl
import pytest
from click.testing import CliRunner

from kalkulator.cli import main
from kalkulator.workbook.build import build, lay_out
from kalkulator.workbook.check import WorkbookInputError, read_cells, typed_inputs
from kalkulator.workbook.libreoffice import soffice

# What the user typed, in the engine's terms (percentages 0–100 as on the CLI).
EDITS = {
    "gpu_name": "RTX 3090 24GB",
    "n_gpus": 2,
    "pue": 1.5,  # a manual value (the deployment profile gives one)
    "ppn_pct": 12,  # the cell holds the share 0.12 (typed "12%")
    "gpu_price_usd": 1234,  # a manual value beside the catalog's price
}


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def _cell_of(layout, key: tuple) -> tuple[str, str]:
    f = next(f for f in layout.formulas if f.key == key)
    return f.sheet, f.coord


def rewrite_parts(path: Path, edit) -> None:
    """Rewrite the worksheet parts of the .xlsx at `path` with edit(name, xml) (other parts as they are)."""
    with zipfile.ZipFile(path) as z:
        parts = {i.filename: z.read(i.filename) for i in z.infolist()}
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in parts.items():
            z.writestr(name, edit(name, data) if name.startswith("xl/worksheets/sheet") else data)
    path.write_bytes(buf.getvalue())


def tamper(path: Path, sheet: str, coord: str, factor: float) -> float:
    """Multiply the saved result of one formula cell by `factor` inside the file (its formula untouched)."""
    target = f"xl/worksheets/sheet{openpyxl.load_workbook(path, read_only=True).sheetnames.index(sheet) + 1}.xml"
    pattern = re.compile(rf'(<c r="{coord}"[^>]*>(?:<f[^>]*>[^<]*</f>|<f[^>]*/>)?<v>)([^<]*)(</v>)'.encode())
    found: list[float] = []

    def edit(name: str, xml: bytes) -> bytes:
        if name != target:
            return xml
        match = pattern.search(xml)
        assert match is not None, f"{sheet}!{coord} has no saved result"
        found.append(float(match.group(2)))
        return xml[: match.start(2)] + repr(found[0] * factor).encode() + xml[match.end(2) :]

    rewrite_parts(path, edit)
    return found[0]


@pytest.fixture(scope="module")
def edited(catalog, tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("copy") / "my.xlsx"
    path.write_bytes(build("id", catalog, values=EDITS).data)
    return path


def test_check_passes_on_a_copy_whose_results_are_those_of_its_typed_inputs(edited):
    result = run("check", str(edited))
    assert result.exit_code == 0, result.output
    assert "0 differ" in result.output
    listed = re.search(r"inputs changed from the shipped workbook \((\d+)\): (.*)", result.output)
    assert listed is not None and int(listed.group(1)) == 5
    for name in EDITS:
        assert name in listed.group(2)
    assert "ppn_pct=0.12" in listed.group(2)  # as typed in the cell


def test_check_finds_a_tampered_result_and_names_its_cell(edited, catalog, tmp_path):
    copy = tmp_path / "tampered.xlsx"
    copy.write_bytes(edited.read_bytes())
    _, layout = lay_out("id", catalog)
    sheet, coord = _cell_of(layout, ("q", "tco_idr"))
    old = tamper(copy, sheet, coord, 1.01)
    result = run("check", str(copy))
    assert result.exit_code == 1, result.output
    line = next(x for x in result.output.splitlines() if x.startswith("MISMATCH"))
    assert f"{sheet}!{coord} tco_idr" in line
    assert repr(old * 1.01) in line  # the copy's value beside the engine's
    assert "1 differ" in result.output


def test_check_says_a_copy_was_never_recalculated(workbook_path, tmp_path):
    copy = tmp_path / "never_recalculated.xlsx"
    copy.write_bytes(workbook_path.read_bytes())
    # what a tool that does not calculate (openpyxl) writes: every formula without a saved result
    rewrite_parts(copy, lambda _, xml: re.sub(rb"(</f>)<v>[^<]*</v>", rb"\1", xml))
    result = run("check", str(copy))
    assert result.exit_code == 2
    assert "never recalculated" in result.output
    assert str(copy) in result.output


@pytest.fixture(scope="module")
def shipped_cells(catalog, workbook_path):
    graph, layout = lay_out("id", catalog)
    return graph, layout, read_cells(workbook_path, set(layout.inputs.values()))


@pytest.mark.parametrize(
    ("key", "typed", "name", "says"),
    [
        ("gpu_name", "RTX 9999 Imaginary", "gpu_name", "'RTX 9999 Imaginary' is not in the gpu catalog"),
        ("n_gpus", "two", "n_gpus", "'two' is not a number"),
        ("tokens_per_month", "2e9 tokens", "tokens_per_month", "'2e9 tokens' is not a number"),
        ("context_tokens__set", "8k", "context_tokens, manual", "'8k' is not a number"),
        ("ppn_mode", "maybe", "ppn_mode", "'maybe' is not in the cell's list"),
        ("engine", None, "engine", "blank"),
    ],
)
def test_an_unreadable_typed_input_is_named_by_file_cell_and_name(shipped_cells, catalog, key, typed, name, says):
    graph, layout, cells = shipped_cells
    sheet, coord = layout.inputs[key]
    with pytest.raises(WorkbookInputError) as err:
        typed_inputs(Path("my.xlsx"), layout, graph, catalog, {**cells, (sheet, coord): typed})
    assert f"my.xlsx: {sheet}!{coord} ({name}): " in str(err.value)
    assert says in str(err.value)


def test_a_blank_manual_value_keeps_the_formula_and_a_typed_one_replaces_it(shipped_cells, catalog):
    graph, layout, cells = shipped_cells
    inputs, changed = typed_inputs(Path("my.xlsx"), layout, graph, catalog, cells)
    assert "gpu_price_usd" not in inputs.settings and changed == {}
    where = layout.inputs["gpu_price_usd__set"]
    inputs, changed = typed_inputs(Path("my.xlsx"), layout, graph, catalog, {**cells, where: 999})
    assert inputs.settings["gpu_price_usd"] == 999 and changed == {"gpu_price_usd__set": 999}


def test_hitung_from_workbook_answers_for_the_typed_inputs(edited):
    from_copy = run("hitung", "--from-workbook", str(edited), "--json")
    assert from_copy.exit_code == 0, from_copy.output
    sets = [x for name, value in EDITS.items() for x in ("--set", f"{name}={value}")]
    by_hand = run("hitung", *sets, "--json")
    assert by_hand.exit_code == 0, by_hand.output
    got = json.loads(from_copy.stdout)
    want = json.loads(by_hand.stdout)
    assert got["ppn_pct"] == pytest.approx(12, rel=1e-12)
    assert got["gpu_price_usd"] == 1234 and got["gpu_name"] == "RTX 3090 24GB"
    for name in ("tco_idr", "decode_tok_s", "cost_idr_per_1m_tokens", "breakeven_months"):
        assert got[name] == pytest.approx(want[name], rel=1e-9) if isinstance(want[name], float) else want[name]


def test_hitung_from_workbook_refuses_a_choice_beside_it(edited):
    result = run("hitung", "--from-workbook", str(edited), "--gpu", "RTX 3090 24GB")
    assert result.exit_code == 2
    assert "--from-workbook" in result.output


@pytest.mark.slow
@pytest.mark.skipif(soffice() is None, reason="LibreOffice is not installed")
def test_check_agrees_with_a_copy_edited_and_recalculated_in_libreoffice(catalog, workbook_path, tmp_path):
    from kalkulator.workbook.libreoffice import _convert

    _, layout = lay_out("id", catalog)
    book = openpyxl.load_workbook(workbook_path)
    typed = {"gpu_name": "RTX 3090 24GB", "n_gpus": 2, "pue__set": 1.5, "ppn_pct": 0.12, "gpu_price_usd__set": 1234}
    for name, value in typed.items():
        sheet, coord = layout.inputs[name]
        book[sheet][coord] = value
    edited = tmp_path / "my.xlsx"
    book.save(edited)
    recalculated = _convert(edited, tmp_path / "lo", "xlsx")
    result = run("check", str(recalculated))
    assert result.exit_code == 0, result.output[-3000:]
    assert "0 differ" in result.output and "(5)" in result.output
    sheet, coord = _cell_of(layout, ("q", "tco_idr"))
    tamper(recalculated, sheet, coord, 0.5)
    result = run("check", str(recalculated))
    assert result.exit_code == 1
    assert f"MISMATCH [typed inputs] {sheet}!{coord} tco_idr" in result.output
