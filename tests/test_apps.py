"""The workbook as Excel, LibreOffice and Google Sheets show it: explicit formats on booleans, fixed decimals,
one percent convention, English in the English workbook (issue 26)."""

from __future__ import annotations

import io

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
