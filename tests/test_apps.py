"""The workbook as Excel, LibreOffice and Google Sheets show it: explicit formats on booleans, fixed decimals,
one percent convention, English in the English workbook (issue 26)."""

from __future__ import annotations

import io
import json
import re

import openpyxl
import pytest
from click.testing import CliRunner

from kalkulator.cli import main
from kalkulator.workbook.build import build
from kalkulator.workbook.cells import NAME_COL, NOTE_COL
from kalkulator.workbook.xltext import XlBook


@pytest.fixture(scope="module")
def books(built_id, built_en):
    """lang → (Built, the workbook read back with its cached values)."""
    out = {}
    for lang, built in (("id", built_id), ("en", built_en)):
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
        ("model", "params_b"): 3,  # 79.674 B (Qwen3-Next-80B-A3B: 79,674,391,296 parameters)
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


# ---- one percent convention: 12 % is "12%" in every app, 12 or "12%" on the command line and in CSV ------------


def test_percentage_inputs_hold_shares_under_a_real_percent_format(books):
    """The eight whole-percent inputs: PPN 11 % (UU HPP 2021) is stored as 0.11 and shown 11.0%; the p95 target's
    95 as 0.95."""
    built, book = books["id"]
    shipped = {"ppn_pct": 0.11, "pph22_pct": 0.15, "residual_pct": 0.10, "server_residual_pct": 0.05}
    shipped["sla_percentile_pct"] = 0.95
    for name, share in shipped.items():
        sheet, coord = built.layout.inputs[name]
        cell = book[sheet][coord]
        assert (cell.value, cell.number_format) == (pytest.approx(share, rel=1e-12), "0.0%"), name
    assert len(built.layout.share_inputs) == 8
    formats = _number_formats(book)
    assert [f for f in formats if '"%"' in f] == []  # no literal "%" after a 0–100 number


@pytest.mark.slow
def test_a_typed_12_percent_means_12_percent_in_the_formulas(books, tmp_path):
    """What Excel, LibreOffice and Sheets store for "12%" (0.12) gives the VAT multiplier 1 + 12/100."""
    built, _ = books["en"]
    path = tmp_path / "kalkulator-en.xlsx"
    path.write_bytes(built.data)
    (ratio,) = [f for f in built.layout.formulas if f.key == ("q", "ppn_multiplier_ratio")]
    book = XlBook.read(path)
    sheet, coord = built.layout.inputs["ppn_pct"]
    for typed, multiplier in ((0.12, 1.12), (0.11, 1.11), (0, 1.0)):
        got = book.values({(sheet, coord): typed}, [(ratio.sheet, ratio.coord)])
        assert list(got.values()) == [pytest.approx(multiplier, rel=1e-12)], typed


def test_percentage_validation_is_stated_in_percent(books):
    """12 typed where Sheets keeps it as 1200 % is refused: the rule is 0%–100%, and says so."""
    built, book = books["en"]
    sheet, coord = built.layout.inputs["ppn_pct"]
    (rule,) = [dv for dv in book[sheet].data_validations.dataValidation if coord in str(dv.sqref).split()]
    assert (rule.type, float(rule.formula1), float(rule.formula2)) == ("decimal", 0.0, 1.0)
    assert "from 0% to 100%" in rule.error
    sheet, coord = built.layout.inputs["traffic_growth_pct_per_month"]
    (rule,) = [dv for dv in book[sheet].data_validations.dataValidation if coord in str(dv.sqref).split()]
    assert (float(rule.formula1), float(rule.formula2)) == (-0.5, 2.0) and "from -50% to 200%" in rule.error


@pytest.mark.parametrize(
    ("typed", "same_as"),
    [
        ("ppn_pct=12%", "ppn_pct=12"),
        ("ppn_pct=12 %", "ppn_pct=12"),
        ("api_output_share_frac=50%", "api_output_share_frac=0.5"),
    ],
)
def test_cli_takes_a_percentage_with_or_without_the_sign(typed, same_as):
    run = CliRunner()
    with_sign = run.invoke(main, ["hitung", "--set", typed, "--set", "ppn_mode=on", "--json"])
    without = run.invoke(main, ["hitung", "--set", same_as, "--set", "ppn_mode=on", "--json"])
    assert with_sign.exit_code == without.exit_code == 0, with_sign.stderr
    name, value = same_as.split("=")
    assert json.loads(with_sign.stdout)[name] == float(value)
    assert json.loads(with_sign.stdout) == json.loads(without.stdout)


def test_a_percent_sign_on_a_non_percentage_is_an_error():
    result = CliRunner().invoke(main, ["hitung", "--set", "n_gpus=50%"])
    assert result.exit_code == 2
    assert "--set n_gpus: n_gpus is in GPUs, not a percentage; got '50%'" in result.stderr


def test_scenarios_csv_takes_12_percent_and_12_alike(tmp_path):
    path = tmp_path / "in.csv"
    path.write_text("ppn_mode,ppn_pct,residual_pct\non,12%,10\non,12,10%\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["hitung", "--scenarios", str(path), "--json"])
    assert result.exit_code == 0, result.stderr
    first, second = (json.loads(line) for line in result.stdout.splitlines())
    assert first["ppn_pct"] == second["ppn_pct"] == 12 and first["residual_pct"] == second["residual_pct"] == 10
    assert first["ppn_multiplier_ratio"] == pytest.approx(1.12, rel=1e-12)
    assert first == second


# ---- a deployment mode without an offer: its reason on the TCO sheet and in the chart, never "Rp 0" ------------


def _tco_chart(built, book) -> list[tuple[object, object]]:
    """(category, value) of each bar of the TCO sheet's bar chart, as the workbook caches them."""
    (chart,) = [c for c in built.layout.charts if c.kind == "bar" and c.sheet == "TCO"]
    ws = book[chart.sheet]
    first, last, cat_col = chart.categories
    ((_, top, bottom, col),) = chart.series
    assert last - first == bottom - top
    return [(ws.cell(first + k, cat_col).value, ws.cell(top + k, col).value) for k in range(last - first + 1)]


@pytest.mark.parametrize(("lang", "reason"), [("id", "tidak ada tarif dedicated"), ("en", "no dedicated rent")])
def test_no_dedicated_offer_shows_its_reason_not_rp_0(books, lang, reason):
    """The shipped GPU (RTX 4090 24GB) has no dedicated plan in assumptions/hosting.csv."""
    built, book = books[lang]
    bars = dict(_tco_chart(built, book))
    assert bars["Dedicated: " + reason] == reason  # no bar, and the category says why
    ws = book["TCO"]
    year_table = [row for row in ws.iter_rows(values_only=True) if row and row[0] in range(1, 11)]
    assert len(year_table) == 10 and all(reason in row for row in year_table)
    on_tco = [row[1] for row in ws.iter_rows(values_only=True) if row[NAME_COL - 1] == "answer_tco_dedicated_idr"]
    assert on_tco == [reason]


@pytest.mark.slow
def test_a_dedicated_offer_gets_its_bar(catalog):
    """A100 PCIe 80GB: the book's 4× A100 plan at Rp 80 million a month, i.e. Rp 20 million per GPU."""
    built = build("en", catalog, values={"gpu_name": "A100 PCIe 80GB", "staff_idr_per_month": 0, "horizon_years": 3})
    book = openpyxl.load_workbook(io.BytesIO(built.data), data_only=True)
    values = {f.key[1]: book[f.sheet][f.coord].value for f in built.layout.formulas if f.key[0] == "q"}
    bars = dict(_tco_chart(built, book))
    expected = 80_000_000 / 4 * values["gpus_needed"] * 12 * 3
    assert bars["Dedicated"] == pytest.approx(expected, rel=1e-12)


# ---- the English workbook in English ------------------------------------------------------------------------

MARKERS = ("[Ringkasan", "[Katalog", "[Buku", "tidak ada", "lihat sheet", "Halaman", "kolom", " juta", "dikoreksi")
INDONESIAN = frozenset(
    "dan atau dengan untuk yang bila tidak ada dari kolom bulan tahun hari jam juta buku bab katalog ringkasan "
    "angka sewa harga tarif biaya contoh bagian subbab dikoreksi bukan naik lembar".split()
)


def _catalog_cells(layout) -> set[tuple[str, str]]:
    """(sheet, coord) of every catalog data cell: the CSVs' own text (sources, notes) is data, cited as written."""
    cells = set()
    for name, target in layout.names.items():
        if name.startswith("tbl_"):
            sheet, span = target.split("!")
            first, last = span.replace("$", "").split(":")
            col, top, bottom = re.sub(r"\d", "", first), int(re.sub(r"\D", "", first)), int(re.sub(r"\D", "", last))
            cells |= {(sheet.strip("'"), f"{col}{r}") for r in range(top, bottom + 1)}
    return cells


def _texts(built, book):
    """(sheet!coord, text) of every text the workbook shows (cached formula results too), catalog data aside."""
    data = _catalog_cells(built.layout)
    for ws in book:
        for row in ws.iter_rows():
            for c in row:
                if isinstance(c.value, str) and (ws.title, c.coordinate) not in data:
                    yield f"{ws.title}!{c.coordinate}", c.value


def test_no_indonesian_marker_in_the_english_workbook(books):
    built, book = books["en"]
    found = [(where, text[:100]) for where, text in _texts(built, book) if any(m in text for m in MARKERS)]
    assert found == []


def test_the_indonesian_workbook_has_the_markers(books):
    """Positive control: the same check finds them where they belong."""
    built, book = books["id"]
    found = {m for _, text in _texts(built, book) for m in MARKERS if m in text}
    assert {"[Katalog", "[Buku", "tidak ada", "lihat sheet", "kolom"} <= found


def test_english_sources_are_english(books):
    """The bracketed source after each English note: no Indonesian word (a quoted title aside)."""
    built, _ = books["en"]
    bad = []
    for c in built.layout.cells:
        if c.style == "note" and c.col == NOTE_COL and c.value.endswith("]"):
            source = re.sub(r"'[^']*'", "", c.value[c.value.rindex("[") + 1 : -1])
            found = re.findall(r"[A-Za-z]+", source)
            words = [w for w in found if w.lower() in INDONESIAN and w != "Ada"]  # Ada: NVIDIA's GPU architecture
            if words:
                bad.append((c.sheet, c.coord, words, source[:80]))
    assert bad == []
    notes = {c.value for c in built.layout.cells if c.style == "note"}
    assert any(n.endswith("[Catalog gpu: column mem_bandwidth_gbs]") for n in notes)
    assert any(n.endswith("[Book, chapter TCO: 3 and 5 years]") for n in notes)


@pytest.mark.slow
def test_build_says_what_it_wrote(tmp_path):
    result = CliRunner().invoke(main, ["build", "--lang", "en", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.stderr
    path = tmp_path / "kalkulator-en.xlsx"
    book = openpyxl.load_workbook(path)
    formulas = sum(c.data_type == "f" for ws in book for row in ws.iter_rows() for c in row)
    size = path.stat().st_size
    assert result.stdout == f"wrote {path} (12 sheets, {formulas:,} formula cells, {size:,} bytes)\n"
    assert re.fullmatch(r"built 1 file in \d+\.\d\d s\n", result.stderr)


# ---- kalkulator list: key numbers, JSON, both languages -------------------------------------------------------


def test_list_gpus_shows_key_numbers():
    """RTX 4090: 24 GB, 1,008 GB/s, 330.3 dense FP16 TFLOPS, 450 W (NVIDIA's Ada whitepaper); the price is a
    market figure the catalog updates, so it is only checked to be a whole number of dollars."""
    result = CliRunner().invoke(main, ["list", "gpus", "--lang", "en", "--wide"])  # the header on one line
    assert result.exit_code == 0, result.stderr
    header, *rows = result.stdout.splitlines()
    assert header.split("  ")[0].strip() == "Name" and "Memory bandwidth (GB/s)" in header
    (line,) = [r for r in rows if r.startswith("RTX 4090 24GB ")]
    # fixed decimals per column, as in the workbook: as many as the most precise value of the column
    assert line.split()[-5:-1] == ["24", "1,008.0", "330.30", "450"]
    assert re.fullmatch(r"\d{1,3}(,\d{3})*", line.split()[-1])


@pytest.mark.parametrize(
    ("what", "name", "expected"),
    [
        ("gpus", "RTX 4090 24GB", {"vram_gib": 24, "mem_bandwidth_gbs": 1008, "tdp_w": 450}),
        ("models", "Llama-3.1-8B", {"layers": 32, "kv_heads": 8, "max_context": 131072}),
        ("tariffs", "PLN R-1/TR 1300VA", {"idr_per_kwh": 1444.7}),
    ],
)
def test_list_json(what, name, expected):
    result = CliRunner().invoke(main, ["list", what, "--json"])
    assert result.exit_code == 0, result.stderr
    rows = {r["name"]: r for r in map(json.loads, result.stdout.splitlines())}
    assert {k: rows[name][k] for k in expected} == expected


@pytest.mark.parametrize("what", ["apis", "tariffs", "clouds", "hosting", "engines", "quants", "kv-cache", "workloads"])
def test_every_catalog_list_has_a_header_and_its_rows(what, catalog):
    from kalkulator.cli.catalog_commands import LISTS

    result = CliRunner().invoke(main, ["list", what, "--wide"])  # --wide: the header on one line
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 1 + len(catalog[LISTS[what][0]].rows)


def test_list_speaks_indonesian_with_lang_id_or_kalkulator_lang(monkeypatch):
    english = CliRunner().invoke(main, ["list", "tariffs", "--lang", "en"]).stdout.splitlines()[0]
    assert english.split() == ["Name", "Tariff", "kind", "Electricity", "price", "(Rp/kWh)"]
    indonesian = CliRunner().invoke(main, ["list", "tariffs", "--lang", "id"]).stdout.splitlines()[0]
    assert indonesian.split() == ["Nama", "Jenis", "tarif", "Harga", "listrik", "(Rp/kWh)"]
    monkeypatch.setenv("KALKULATOR_LANG", "id")
    assert CliRunner().invoke(main, ["list", "tariffs"]).stdout.splitlines()[0] == indonesian
    monkeypatch.setenv("KALKULATOR_LANG", "")
    monkeypatch.setenv("LANG", "id_ID.UTF-8")
    assert CliRunner().invoke(main, ["list", "tariffs"]).stdout.splitlines()[0] == indonesian
    monkeypatch.setenv("LANG", "C.UTF-8")
    assert CliRunner().invoke(main, ["list", "tariffs"]).stdout.splitlines()[0] == english


def test_hitung_in_indonesian_with_lang_id(monkeypatch):
    monkeypatch.delenv("KALKULATOR_LANG", raising=False)
    monkeypatch.setenv("LANG", "C.UTF-8")
    english = CliRunner().invoke(main, ["hitung"]).stdout
    indonesian = CliRunner().invoke(main, ["hitung", "--lang", "id"]).stdout
    line = next(x for x in indonesian.splitlines() if x.rstrip().endswith("answer_tco_dedicated_idr"))
    assert line.split()[:2] == ["TCO", "dedicated"] and "tidak ada tarif dedicated" in line
    assert "no dedicated rent" in english and "Status skenario" in indonesian and "Scenario status" in english
    assert "token/bulan" in indonesian and "tokens/month" in english  # unit labels too
    as_json = CliRunner().invoke(main, ["hitung", "--lang", "id", "--json"]).stdout
    assert json.loads(as_json)["answer_tco_dedicated_idr"] == "no dedicated rent"  # JSON stays the contract


def test_a_raw_zero_rupiah_shows_a_dash(books):
    """The TCO sheet's raw (unchecked) figures: a mode without an offer is 0 there, shown as –, not "Rp 0"."""
    built, book = books["en"]
    cell = next(f for f in built.layout.formulas if f.key == ("q", "tco_dedicated_idr"))
    fmt = book[cell.sheet][cell.coord].number_format
    assert fmt.split(";")[2] == '"–"' and book[cell.sheet][cell.coord].value == 0
