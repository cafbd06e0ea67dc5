"""The printed workbook: every sheet on A4 portrait one page wide, at most 40 pages, nothing cut off, no ###.

LibreOffice prints the workbook to PDF; pdfinfo and pdftotext read it back. Skipped without them.
"""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from kalkulator.build import build
from kalkulator.workbook.libreoffice import ERROR_TEXTS, render_pdf, soffice
from kalkulator.workbook.writer import LONG_TEXT

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(soffice() is None, reason="LibreOffice is not installed"),
    pytest.mark.skipif(
        shutil.which("pdftotext") is None or shutil.which("pdfinfo") is None, reason="poppler-utils is not installed"
    ),
]

MAX_PAGES = 40
BREAKS = re.compile(r"[-–_/]")  # LibreOffice may break a line inside a word at these
SCENARIOS = {
    "shipped inputs": None,
    "2× H100 SXM, Llama-3.1-70B FP8, 2 billion tokens/month": {
        "gpu_name": "H100 SXM 80GB",
        "n_gpus": 2,
        "model_name": "Llama-3.1-70B",
        "quant_name": "FP8",
        "tokens_per_month": 2_000_000_000,
    },
}


@pytest.fixture(scope="module", params=list(SCENARIOS), ids=list(SCENARIOS))
def printed(request, catalog, tmp_path_factory):
    """(layout, pages laid out as text, every printed word, pdfinfo output) under one scenario."""
    built = build("id", catalog, values=SCENARIOS[request.param])
    work = tmp_path_factory.mktemp("print")
    path = work / "kalkulator.xlsx"
    path.write_bytes(built.data)
    pdf = render_pdf(path, work)
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    words = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True).stdout.split()
    pages = [page for page in text.split("\f") if page.strip()]
    return built.layout, pages, set(words), info


def _sheet_of(page: str) -> str:
    """The sheet a page belongs to, from its footer: sheet name left, "Halaman n dari N" right."""
    footer = [line for line in page.splitlines() if line.strip()][-1]
    match = re.match(r"\s*(.+?)\s+Halaman \d+ dari \d+\s*$", footer)
    assert match, f"no footer on the page: {footer!r}"
    return match.group(1)


def test_at_most_40_a4_portrait_pages_every_sheet_printed(printed):
    layout, pages, _, info = printed
    assert "(A4)" in info and re.search(r"Page size:\s+595\.\d+ x 841\.\d+ pts", info), info
    count = int(re.search(r"Pages:\s+(\d+)", info).group(1))
    per_sheet: dict[str, int] = {}
    for page in pages:
        per_sheet[_sheet_of(page)] = per_sheet.get(_sheet_of(page), 0) + 1
    print(f"{count} pages: {per_sheet}")
    assert count == len(pages) <= MAX_PAGES, per_sheet
    assert list(per_sheet) == [title for _, title in layout.sheets]  # one page wide: sheets follow one another


def test_no_hashes_and_no_error_values(printed):
    _, pages, _, _ = printed
    for number, page in enumerate(pages, start=1):
        assert "###" not in page, f"page {number} shows ### (a column too narrow for its number)"
        found = [e for e in ERROR_TEXTS if e in page]
        assert not found, f"page {number} shows {found}"


def test_wrapped_text_is_never_cut_off(printed):
    """Every word of headers, labels, notes and catalog names is printed: columns are wide enough for a word and
    rows tall enough for their wrapped lines.

    Long catalog text (sources, notes: style "data") is cut at the cell edge on purpose, to keep the catalogs short;
    the hidden helper columns of live tables are not printed.
    """
    layout, _, printed_words, _ = printed

    def hidden(c) -> bool:
        first, last = layout.hidden_columns.get(c.sheet, (0, -1))
        return first <= c.col <= last

    missing = [
        (c.sheet, c.coord, word)
        for c in layout.cells
        if isinstance(c.value, str) and (c.style != "data" or len(c.value) <= LONG_TEXT) and not hidden(c)
        for word in c.value.split()
        if word not in printed_words and not BREAKS.search(word)
    ]
    assert missing == []


@pytest.fixture(scope="module")
def default_profile_pdfs(catalog, tmp_path_factory):
    """lang → (layout, PDF path): each shipped workbook printed by LibreOffice with a fresh, default profile (no
    forced recalculation: the cached values are laid out, as on a user's first start)."""
    pdfs = {}
    for lang in ("id", "en"):
        built = build(lang, catalog)
        work = tmp_path_factory.mktemp(f"default-{lang}")
        path = work / ("kalkulator.xlsx" if lang == "id" else "kalkulator-en.xlsx")
        path.write_bytes(built.data)
        pdfs[lang] = (built.layout, render_pdf(path, work, recalc=False))
    return pdfs


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["id", "en"])
def test_both_workbooks_print_with_a_default_profile(default_profile_pdfs, lang):
    """LibreOffice 7.4 aborted (signal 6) printing a General-format boolean under a conditional format; booleans now
    carry an explicit format and print as TRUE/FALSE."""
    layout, pdf = default_profile_pdfs[lang]
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    pages = [page for page in text.split("\f") if page.strip()]
    footer = "Halaman" if lang == "id" else "Page"
    sheets = []
    for page in pages:
        last = [line for line in page.splitlines() if line.strip()][-1]
        match = re.match(rf"\s*(.+?)\s+{footer} \d+ (?:dari|of) {len(pages)}\s*$", last)
        assert match, f"no footer on the page: {last!r}"
        sheets.append(match.group(1))
    assert list(dict.fromkeys(sheets)) == [title for _, title in layout.sheets]
    (fits,) = [line for line in text.splitlines() if re.search(r"\bfits_in_vram\b", line) and "VRAM" in line[:40]][:1]
    assert re.search(r"\s(TRUE|FALSE)\s", fits), fits
