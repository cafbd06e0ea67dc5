"""The workbook as Excel, LibreOffice and Google Sheets show it: explicit formats on booleans, fixed decimals,
one percent convention, English in the English workbook (issue 26)."""

from __future__ import annotations

import io
import re

import openpyxl
import pytest

from kalkulator.build import build


@pytest.fixture(scope="module")
def books(catalog):
    """lang → (Built, the workbook read back with its cached values)."""
    out = {}
    for lang in ("id", "en"):
        built = build(lang, catalog)
        out[lang] = (built, openpyxl.load_workbook(io.BytesIO(built.data), data_only=True))
    return out


@pytest.mark.parametrize("lang", ["id", "en"])
def test_every_boolean_cell_has_an_explicit_true_false_format(books, lang):
    """A General boolean under a conditional format crashes LibreOffice 7.4 when it prints."""
    _, book = books[lang]
    booleans = [
        (ws.title, c.coordinate, c.number_format)
        for ws in book
        for row in ws.iter_rows()
        for c in row
        if isinstance(c.value, bool)
    ]
    assert len(booleans) > 200  # the fits answer and the fits column of every live table
    assert {fmt for _, _, fmt in booleans} == {'"TRUE";"TRUE";"FALSE"'}


OPTIONAL_DECIMALS = re.compile(r"\.[0]*#")  # "#,##0.###": Excel and Sheets show 360 as "360."


def _number_formats(book) -> dict[str, set[tuple[str, str]]]:
    """Number format → the (sheet, column) of the numbers shown with it."""
    out: dict[str, set[tuple[str, str]]] = {}
    for ws in book:
        for row in ws.iter_rows():
            for c in row:
                if isinstance(c.value, int | float) and not isinstance(c.value, bool):
                    out.setdefault(c.number_format, set()).add((ws.title, c.column_letter))
    return out


@pytest.mark.parametrize("lang", ["id", "en"])
def test_no_optional_decimals_and_no_general_numbers(books, lang):
    formats = _number_formats(books[lang][1])
    assert [f for f in formats if OPTIONAL_DECIMALS.search(f)] == []
    assert "General" not in formats, sorted(formats["General"])[:10]


def test_catalog_columns_show_fixed_decimals_that_keep_every_value(books):
    """Each catalog column has one format with as many decimals as its most precise value (CSV values here)."""
    built, book = books["id"]
    expected = {  # column → decimals, read off assumptions/*.csv
        ("gpu", "vram_gib"): 0,  # 24, 80, 192: whole numbers, no trailing point
        ("gpu", "mem_bandwidth_gbs"): 1,  # 51.2 GB/s
        ("quant", "bits_per_weight"): 4,  # 1.6875 bits (IQ1_S)
        ("model", "params_b"): 2,  # 0.49 B (Qwen2.5-0.5B)
    }
    for (table, column), decimals in expected.items():
        target = built.layout.names[f"tbl_{table}_{column}"]
        sheet, cells = target.split("!")
        first, last = cells.replace("$", "").split(":")
        column_cells = [row[0] for row in book[sheet.strip("'")][f"{first}:{last}"]]
        shown = {c.number_format for c in column_cells if isinstance(c.value, int | float)}
        assert shown == {"#,##0" + ("." + "0" * decimals if decimals else "")}, (table, column, shown)
        for c in column_cells:
            if isinstance(c.value, float):
                assert float(f"{c.value:.{decimals}f}") == pytest.approx(c.value, abs=1e-12), (table, column, c.value)
