"""The printed workbook: every sheet on A4 fitted to one page wide (landscape where portrait would print its
smallest text below 8 pt; a wide catalog prints its name, price, power, date and source columns and what fits beside
them), printed text at least 8 pt on every sheet, at most MAX_PAGES pages, nothing cut
off, no ###, no chart split, the verdict and the monthly cost of every mode on the first page of Asumsi.

LibreOffice prints the workbook to PDF; pdfinfo and pdftotext read it back. Skipped without them. Every test runs
twice: with LibreOffice's fallback font (DejaVu Sans, Carlito hidden) and with Carlito (tests/fonts.py).
"""

from __future__ import annotations

import io
import re
import shutil
import subprocess
from pathlib import Path
from typing import NamedTuple

import openpyxl
import pytest
import xlsxwriter
from fonts import FONT_SETUPS, font_env, fonts_used
from openpyxl.utils import column_index_from_string

from kalkulator.workbook.build import build
from kalkulator.workbook.cells import CHART_ROWS
from kalkulator.workbook.layout import Layout
from kalkulator.workbook.libreoffice import ERROR_TEXTS, render_pdf, soffice
from kalkulator.workbook.writer import LONG_TEXT, ROW_PX

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(soffice() is None, reason="LibreOffice is not installed"),
    pytest.mark.skipif(
        shutil.which("pdftotext") is None or shutil.which("pdfinfo") is None, reason="poppler-utils is not installed"
    ),
]

MAX_PAGES = 175  # fitted to one page wide at 8 pt or more: 128 pages with the fallback font, 153 with Carlito (its
# narrower letters print larger: docs/workbook.md lists each sheet's count); the cap catches a runaway table
SMALLEST_PT = 8  # the smallest printed text (10 pt notes and names, 11 pt body, scaled to fit the width); Break-even's
# eight-column tables show rupiah without "Rp " and totals in millions (the unit in the header), so it prints at
# 8.2 pt with the fallback font, 9.1 pt with Carlito (was 6.1 and 7.0: docs/workbook.md, "Printing")
BREAKS = re.compile(r"[-–_/|]")  # LibreOffice may break a line inside a word at these ("DeepSeek|" / "medium")
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


@pytest.fixture(scope="module", params=FONT_SETUPS)
def fonts(request, tmp_path_factory) -> dict[str, str]:
    """The environment giving LibreOffice one font setup (skipped when Carlito cannot be had)."""
    env = font_env(request.param, tmp_path_factory.mktemp(f"fonts-{request.param}"))
    if env is None:
        pytest.skip("Carlito is not installed and apt-get cannot download fonts-crosextra-carlito")
    return env


@pytest.fixture(scope="module", params=list(SCENARIOS), ids=list(SCENARIOS))
def printed(request, catalog, fonts, tmp_path_factory):
    """The workbook printed under one scenario."""
    built = build("id", catalog, values=SCENARIOS[request.param])
    work = tmp_path_factory.mktemp("print")
    path = work / "kalkulator.xlsx"
    path.write_bytes(built.data)
    pdf = render_pdf(path, work, env=fonts)
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    words = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True).stdout.split()
    pages = [page for page in text.split("\f") if page.strip()]
    return Printed(built.layout, pages, set(words), info, _printed_columns(built.data), pdf, _footers(pdf))


class Printed(NamedTuple):
    layout: Layout
    pages: list[str]  # laid out as text
    words: set[str]  # every printed word
    info: str  # pdfinfo's output
    columns: dict[str, int]  # sheet → the last column of its print area
    pdf: Path
    footers: list[str]  # each page's footer line: "Asumsi Halaman 3 dari 68"


def _printed_columns(data: bytes) -> dict[str, int]:
    """Sheet → the last column of its print area (a wide catalog prints its key columns only)."""
    book = openpyxl.load_workbook(io.BytesIO(data))
    return {ws.title: column_index_from_string(re.findall(r"\$([A-Z]+)\$", ws.print_area)[-1]) for ws in book}


@pytest.fixture(scope="module")
def points_per_height(fonts, tmp_path_factory) -> float:
    """pdftotext's word-box height per point of font size, from a 10 pt cell printed at 100 % (the box holds the
    font's ascent, descent and line gap, which depend on the font LibreOffice picks)."""
    work = tmp_path_factory.mktemp("calibrate")
    path = work / "calibrate.xlsx"
    wb = xlsxwriter.Workbook(str(path))
    wb.add_worksheet().write_string(0, 0, "Calibrate", wb.add_format({"font_size": 10}))
    wb.close()
    pdf = render_pdf(path, work, recalc=False, env=fonts)
    expected = {"DejaVuSans"} if "rejectfont" in Path(fonts["FONTCONFIG_FILE"]).read_text() else {"Carlito"}
    assert fonts_used(pdf) == expected  # the font setup is the one asked for
    ((_, height),) = _word_sizes(pdf, 1.0)
    return height / 10


def _word_sizes(pdf, per_point: float) -> list[tuple[int, float]]:
    """(page, font size in points) of every printed word."""
    html = subprocess.run(["pdftotext", "-bbox", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    sizes = []
    for number, page in enumerate(html.split("<page ")[1:], start=1):
        for top, bottom in re.findall(r'<word xMin="[\d.]+" yMin="([\d.]+)" xMax="[\d.]+" yMax="([\d.]+)"', page):
            sizes.append((number, (float(bottom) - float(top)) / per_point))
    return sizes


def _smallest_per_page(pdf, per_point: float) -> dict[int, float]:
    smallest: dict[int, float] = {}
    for page, size in _word_sizes(pdf, per_point):
        smallest[page] = min(smallest.get(page, size), size)
    return smallest


def _sheet_of(footer_line: str, titles: list[str], footer: str = r"Halaman \d+ dari \d+") -> str:
    """The sheet a page belongs to, from its footer line: sheet name left, "Halaman n dari N" right."""
    names = "|".join(re.escape(t) for t in sorted(titles, key=len, reverse=True))
    found = re.fullmatch(rf"({names})(?: \S+)*? {footer}", footer_line)  # a clipped axis label may sit between
    assert found, f"not a footer: {footer_line!r}"
    return found.group(1)


def _words(pdf) -> list[tuple[float, list[tuple[float, float, float, str]]]]:
    """Per page: its height and its words as (x, top, bottom, text)."""
    html = subprocess.run(["pdftotext", "-bbox", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    pages = []
    for page in html.split("<page ")[1:]:
        height = float(re.search(r'height="([\d.]+)"', page).group(1))
        words = re.findall(r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="[\d.]+" yMax="([\d.]+)">([^<]*)</word>', page)
        pages.append((height, [(float(x), float(top), float(bottom), w) for x, top, bottom, w in words]))
    return pages


def _footers(pdf) -> list[str]:
    """Each page's footer line: the words on the baseline of "Halaman"/"Page" in the bottom margin, left to right
    (a chart reaching into the margin leaves clipped words there too, on other lines)."""
    lines = []
    for height, words in _words(pdf):
        marks = [(x, top) for x, top, _, w in words if w in ("Halaman", "Page") and top > height - 43]
        mark_x, mark_top = marks[-1] if marks else (0.0, 0.0)
        footer = ("Halaman", "Page", "dari", "of")
        line = sorted(  # the sheet's name at the left edge and "Halaman n dari N"; clipped chart words among them
            (x, w)
            for x, top, _, w in words
            if marks and abs(top - mark_top) < 1 and (x < 150 or (x >= mark_x and (w in footer or w.isdigit())))
        )
        lines.append(" ".join(w for _, w in line))
    return lines


def test_at_most_max_pages_a4_every_sheet_printed(printed):
    layout, pages, info = printed.layout, printed.pages, printed.info
    assert "(A4)" in info and re.search(r"Page size:\s+595\.\d+ x 841\.\d+ pts", info), info  # the guide: portrait
    count = int(re.search(r"Pages:\s+(\d+)", info).group(1))
    per_sheet: dict[str, int] = {}
    for line in printed.footers:
        sheet = _sheet_of(line, [title for _, title in layout.sheets])
        per_sheet[sheet] = per_sheet.get(sheet, 0) + 1
    print(f"{count} pages: {per_sheet}")
    assert count == len(pages) <= MAX_PAGES, per_sheet
    assert list(per_sheet) == [title for _, title in layout.sheets]  # one page wide: sheets follow one another


def test_no_hashes_and_no_error_values(printed):
    pages = printed.pages
    for number, page in enumerate(pages, start=1):
        assert "###" not in page, f"page {number} shows ### (a column too narrow for its number)"
        found = [e for e in ERROR_TEXTS if e in page]
        assert not found, f"page {number} shows {found}"


def test_wrapped_text_is_never_cut_off(printed):
    """Every word of headers, labels, notes and catalog names is printed: columns are wide enough for a word and
    rows tall enough for their wrapped lines.

    Long catalog text (sources, notes: style "data") is cut at the cell edge on purpose, to keep the catalogs short;
    the hidden helper columns of live tables are not printed, nor a wide catalog's columns right of its print area.
    """
    layout, printed_words = printed.layout, printed.words

    def hidden(c) -> bool:
        first, last = layout.hidden_columns.get(c.sheet, (0, -1))
        return first <= c.col <= last or c.col > printed.columns[c.sheet]

    # A catalog source cut at its cell's edge is clipped on paper, but its whole text stays in the PDF's text layer,
    # where the next cell's first word joins its last (…grupawq): such a word is printed, as the end of one.
    endings = {word[i:] for word in printed_words for i in range(1, len(word))}
    missing = [
        (c.sheet, c.coord, word)
        for c in layout.cells
        if isinstance(c.value, str) and (c.style != "data" or len(c.value) <= LONG_TEXT) and not hidden(c)
        for word in c.value.split()
        if word not in printed_words and word not in endings and not BREAKS.search(word)
    ]
    assert missing == []


@pytest.fixture(scope="module")
def default_profile_pdfs(catalog, fonts, tmp_path_factory):
    """lang → (layout, PDF path): each shipped workbook printed by LibreOffice with a fresh, default profile (no
    forced recalculation: the cached values are laid out, as on a user's first start)."""
    pdfs = {}
    for lang in ("id", "en"):
        built = build(lang, catalog)
        work = tmp_path_factory.mktemp(f"default-{lang}")
        path = work / ("kalkulator.xlsx" if lang == "id" else "kalkulator-en.xlsx")
        path.write_bytes(built.data)
        pdfs[lang] = (built.layout, render_pdf(path, work, recalc=False, env=fonts))
    return pdfs


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["id", "en"])
def test_both_workbooks_print_with_a_default_profile(default_profile_pdfs, lang):
    """LibreOffice 7.4 aborted (signal 6) printing a General-format boolean under a conditional format; booleans now
    carry an explicit format and print as TRUE/FALSE."""
    layout, pdf = default_profile_pdfs[lang]
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    pages = [page for page in text.split("\f") if page.strip()]
    footer = rf"Halaman \d+ dari {len(pages)}" if lang == "id" else rf"Page \d+ of {len(pages)}"
    sheets = [_sheet_of(line, [title for _, title in layout.sheets], footer) for line in _footers(pdf)]
    assert list(dict.fromkeys(sheets)) == [title for _, title in layout.sheets]
    (fits,) = [line for line in text.splitlines() if re.search(r"\bfits_in_vram\b", line) and "VRAM" in line[:40]][:1]
    assert re.search(r"\s(TRUE|FALSE)\s", fits), fits


def _too_small(pdf, per_point: float, titles: list[str], footer: str = r"Halaman \d+ dari \d+") -> dict:
    """(sheet, page) → the smallest printed size on a page where it is below SMALLEST_PT."""
    sheets = [_sheet_of(line, titles, footer) for line in _footers(pdf)]
    smallest = _smallest_per_page(pdf, per_point)
    print({page: (sheets[page - 1], round(size, 2)) for page, size in smallest.items()})
    return {(sheets[page - 1], page): round(size, 2) for page, size in smallest.items() if size < SMALLEST_PT}


def test_printed_text_is_at_least_8_pt_on_every_page(printed, points_per_height):
    assert _too_small(printed.pdf, points_per_height, [title for _, title in printed.layout.sheets]) == {}


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["id", "en"])
def test_printed_text_is_at_least_8_pt_with_a_default_profile(default_profile_pdfs, points_per_height, lang):
    layout, pdf = default_profile_pdfs[lang]
    footer = r"Halaman \d+ dari \d+" if lang == "id" else r"Page \d+ of \d+"
    assert len(_smallest_per_page(pdf, points_per_height)) <= MAX_PAGES
    assert _too_small(pdf, points_per_height, [title for _, title in layout.sheets], footer) == {}


def test_the_first_page_of_asumsi_holds_the_verdict_and_the_monthly_cost_of_every_mode(printed):
    """A reader of the first printed page of Asumsi has the decision: the verdict sentence, then Rp per month of
    on-premise, colocation, cloud, hybrid and the API."""
    first = printed.pages[next(i for i, line in enumerate(printed.footers) if line.startswith("Asumsi "))]
    flat = " ".join(first.split())
    assert "Untuk beban ini" in flat and ("lebih murah daripada" in flat or "tidak bisa dipakai" in flat), flat[:600]
    for label in ("On-premise per bulan", "Colocation per bulan", "Cloud GPU per bulan", "Hybrid per bulan"):
        assert label in flat, label
    assert "Biaya API per bulan" in flat and "Break-even vs API" in flat


def test_no_chart_is_split_across_pages(printed):
    """Each chart starts a page (a break precedes it) and is shorter than a page, so none is split: its title is
    printed in the top fifth of a page's body. (LibreOffice also writes a
    chart into the text layer of the page before, clipped away: text alone cannot tell what shows, so the test
    looks for where the chart starts.)"""
    pages = _words(printed.pdf)
    for chart in printed.layout.charts:
        first = chart.title.split()[0]
        starts = [
            (number, top)
            for number, (height, words) in enumerate(pages)
            for _, top, _, w in words
            if w == first and top < 36 + 0.2 * (height - 79)
        ]
        assert starts, chart.title
        assert CHART_ROWS * ROW_PX * 0.75 < pages[starts[0][0]][0] - 79  # shorter than a page's body even at 100 %
