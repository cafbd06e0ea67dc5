"""kalkulator.xlsx speaks Indonesian, kalkulator-en.xlsx English, and neither points at a file of the repository.

How English is found (`english_words`): a text cell is reduced to its prose, then searched for English words
that Indonesian never uses.

1. What is not prose goes first: URLs and domains, anything with a slash or a backslash (paths, units such as
   GB/s, repositories such as org/name), file names, snake_case names, command-line flags, and quoted titles
   ('…', "…", “…”: the name of an article or a product is a proper noun in any language).
2. The rest is split into words; a hyphenated compound is one word ("on-premise", "end-to-end", "break-even"
   and "on-demand" are technical terms Indonesian borrows whole, so their "on"/"to" do not count).
3. A word counts as English when its lower-case form is in ENGLISH, a list of English function words and
   plural or unit nouns (the, and, of, is, with, when, users, tokens, month…) chosen because none of them is
   an Indonesian word or the name of a product in the catalogs ("per", "data", "model", "server" are
   Indonesian too and are not listed; neither is "Together", a provider). A word written in capitals is an
   acronym ("AS" = Amerika Serikat, "OR"), not English.

Skipped cells: the Name column (quantity names are the names contract), the catalogs' name column and the
scenario's input cells (catalog names and option codes such as on/off are keys that formulas match).
The check is validated both ways: it finds nothing in the Indonesian workbook and finds English in nearly
every note of the English one.
"""

from __future__ import annotations

import io
import re

import openpyxl
import pytest

from kalkulator.catalog import SCHEMAS, english_problems, is_prose
from kalkulator.engine.expr import Msg, Node
from kalkulator.quantities import QUANTITIES, UNITS
from kalkulator.workbook.cells import NAME_COL, NOTE_COL
from kalkulator.workbook.layout import TEMPLATES

ENGLISH = frozenset(
    """
    the a an and or nor but of is are was were be been being it its this that these those there their they
    with without within when where which while who whose what how why if than then so such also only both each
    every either neither any some other another more most less least many much few same own
    to from into onto for by at on in out off up down over under above below between through during after before
    about against since until per-user not no yes can cannot could should would will shall may might must
    do does did done has have had having get gets got make makes made use used uses using see seen set sets
    one two three first second half
    user users tokens bytes bits value values request requests replicas device devices
    measurement measurements price prices estimate estimated list listed
    month months year years day days hour hours week weeks text row rows
    """.split()
)

# Not prose: URLs, domains, paths and units with a slash, file names, snake_case, flags, quoted titles.
NOT_PROSE = re.compile(
    r"""
    https?://\S+ | www\.\S+
    | \S*[/\\]\S*
    | \S+\.(?:com|ai|io|org|net|dev|to|cz|de|se|news|systems|app|co|id)\b\S*
    | \S+\.(?:csv|json|yml|yaml|txt|md|pdf|gguf|py)\b
    | \S*_\S*
    | (?<!\w)--?[A-Za-z][\w-]*
    | '[^']*' | "[^"]*" | “[^”]*” | ‘[^’]*’
    """,
    re.VERBOSE,
)
WORD = re.compile(r"[A-Za-z]+(?:[-’'][A-Za-z]+)*")
REPO_PATH = re.compile(r"seeds/|\.txt line|shared/|\d{3}_[0-9a-f]{16}\.txt")


def english_words(text: str) -> list[str]:
    """The English words of `text` (see the module docstring for the rules)."""
    prose = NOT_PROSE.sub(" ", text)
    return [w for w in WORD.findall(prose) if w.lower() in ENGLISH and not w.isupper()]


@pytest.fixture(scope="module")
def books(built_id, built_en):
    return {"id": built_id, "en": built_en}


# Catalog columns holding names of another catalog's rows (a deployment's tariff and colocation plan).
NAME_REFERENCES = (("deployment", "tariff_name"), ("deployment", "colocation_name"))


def _catalog_name_cells(layout) -> set[tuple[str, int, int]]:
    """(sheet, row, col) of the catalogs' name column (the first column under each catalog header row), of their
    enum columns (codes such as yes/no that formulas match, like the scenario's option codes) and of the columns that
    name rows of other catalogs."""
    headers = {s.header("name", layout.lang) for s in SCHEMAS}
    codes = {s.header(f.name, layout.lang) for s in SCHEMAS for f in s.fields if f.kind == "enum"}
    codes |= {next(s for s in SCHEMAS if s.key == t).header(f, layout.lang) for t, f in NAME_REFERENCES}
    cells = set()
    starts = [(c.sheet, c.row) for c in layout.cells if c.style == "header" and c.col == 1 and c.value in headers]
    data = {(c.sheet, c.row, c.col) for c in layout.cells if c.style == "data"}
    for sheet, row in starts:
        columns = [1] + [c.col for c in layout.cells if c.sheet == sheet and c.row == row and c.value in codes]
        for col in columns:
            r = row + 1
            while (sheet, r, col) in data:
                cells.add((sheet, r, col))
                r += 1
    return cells


def _prose_cells(layout):
    names = _catalog_name_cells(layout)
    for c in layout.cells:
        if not isinstance(c.value, str) or c.style in ("name", "input") or (c.sheet, c.row, c.col) in names:
            continue
        yield c


def test_the_indonesian_workbook_has_no_english_sentence(books):
    found = {
        f"{c.sheet}!{c.coord}": (english_words(c.value), c.value[:120])
        for c in _prose_cells(books["id"].layout)
        if english_words(c.value)
    }
    assert found == {}


def test_the_check_finds_the_english_notes(books):
    """Positive control: the English workbook's notes are English, and the check says so."""
    notes = [c.value for c in books["en"].layout.cells if c.style == "note" and c.col == NOTE_COL]
    flagged = [n for n in notes if english_words(n)]
    assert len(notes) > 200 and len(flagged) >= 0.8 * len(notes)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("Bobot + KV cache + overhead, per pengguna (on-premise, end-to-end).", []),
        ("Harga di AS (US launch MSRP): lihat https://www.nvidia.com/en-us/ dan gpus.csv", []),
        ("The GPU price per user", ["The", "price", "user"]),
        ("tokens per month of the book", ["tokens", "month", "of", "the"]),
        ("see 'Nvidia may be about to launch a $3,000 GPU' in datareceipts/data-receipts", ["see", "in"]),
        ("max_num_seqs --max-num-seqs default", []),
    ],
)
def test_english_words(text, words):
    assert english_words(text) == words


def test_every_quantity_has_its_indonesian_note_beside_it():
    """The Indonesian note is the quantity's `doc_id` (a lookup's may come from its column's Field): every quantity
    has one, and no separate notes file remains for it to drift from."""
    assert [q.name for q in QUANTITIES if not q.doc_id.strip()] == []
    assert not (TEMPLATES / "notes_id.toml").exists()


def test_the_workbooks_show_notes_and_units_in_their_language(books):
    q = next(q for q in QUANTITIES if q.name == "electricity_idr_per_month")
    for lang, note, unit in (("id", q.doc_id, "Rp/bulan"), ("en", q.doc, "Rp/month")):
        sheet, row = _row_of(books[lang], q.name)
        cells = {c.col: c.value for c in books[lang].layout.cells if (c.sheet, c.row) == (sheet, row)}
        assert cells[4] == unit and cells[NOTE_COL].startswith(note)
    assert UNITS["_users"].label_in("id") == "pengguna" and UNITS["_users"].label_in("en") == "users"
    assert UNITS["_gbs"].label_in("id") == "GB/s"


def _row_of(built, name: str) -> tuple[str, int]:
    return next(
        (c.sheet, c.row) for c in built.layout.cells if c.style == "name" and c.col == NAME_COL and c.value == name
    )


def test_catalog_headers_are_labels_in_the_workbook_language(books):
    for lang in ("id", "en"):
        headers = {c.value for c in books[lang].layout.cells if c.style == "header"}
        assert "mem_bandwidth_gbs" not in headers and "as_of" not in headers
    assert "Bandwidth memori (GB/s)" in {c.value for c in books["id"].layout.cells if c.style == "header"}
    assert "Memory bandwidth (GB/s)" in {c.value for c in books["en"].layout.cells if c.style == "header"}


@pytest.mark.parametrize("lang", ["id", "en"])
def test_no_cell_points_at_a_file_of_the_repository(books, lang):
    layout = books[lang].layout
    texts = [(f"{c.sheet}!{c.coord}", c.value) for c in layout.cells if isinstance(c.value, str)]
    texts += [(f"{f.sheet}!{f.coord}", f.text) for f in layout.formulas]
    assert [(where, text[:120]) for where, text in texts if REPO_PATH.search(text)] == []


# Indonesian words English never uses (lower case only: "Dan" may be a name); a text of the English workbook holding
# one is Indonesian prose.
INDONESIAN = frozenset(
    """
    yang dan dengan untuk atau tidak dari pada adalah dalam oleh akan bila jika karena sebagai ini itu ada
    harga bulan tahun hari jam lihat kolom sumber catatan pengguna permintaan biaya listrik menurut belum sudah
    juga tetapi lebih kurang saat agar setiap semua hanya masih tanpa antara terhadap sampai hingga dapat bisa
    dipakai memakai dihitung diukur tercatat perkiraan buku subbab halaman bawaan kosong isi pilih
    dkk juta bobot lewat tabel didukung pasal bentuk aslinya ditetapkan jumlah arsitektur konteks terikat aritmetika
    penurunan rata-rata diskusi lisensi memori beberapa latensi asumsi spesifikasi sekitar mencantumkan kartu
    """.split()
)
# What stays as written in either workbook (documented in docs/workbook.md): catalog row names, their enum codes and
# the names of other catalogs' rows (keys formulas and --set match; PLN's tariff names are PLN's own), wherever a cell
# shows one whole (a live table's row key, the chosen GPU). The catalogs' source and note columns are written in
# Indonesian in assumptions/*.csv; the English workbook shows their English from assumptions/english/
# (docs/catalogs.md), so none of its catalog cells is Indonesian prose (1,141 were before the translations).
CATALOG_PROSE_ID = 0


def indonesian_words(text: str) -> list[str]:
    """The Indonesian words of `text` (URLs, paths, names and quoted titles removed first, as for English)."""
    prose = NOT_PROSE.sub(" ", text)
    return [w for w in WORD.findall(prose) if w in INDONESIAN]


def _visible_texts(built) -> list[tuple[str, str, str]]:
    """(where, text, kind) of every text a reader of the workbook sees: constant cells and the cached result of
    every formula cell outside hidden helper columns, and every message any formula can show (kind "message":
    each Msg of every quantity, in the workbook's language)."""
    layout = built.layout
    skip = _catalog_name_cells(layout)
    keys = {(s.key, "name") for s in SCHEMAS} | set(NAME_REFERENCES)
    keys |= {(s.key, f.name) for s in SCHEMAS for f in s.fields if f.kind == "enum"}
    columns = built.catalog.columns()
    names = {v for key in keys if key in columns for v in columns[key] if isinstance(v, str)}  # row names, codes
    styles = {(c.sheet, c.row, c.col): c.style for c in layout.cells}
    book = openpyxl.load_workbook(io.BytesIO(built.data), data_only=True)
    out = []
    for ws in book.worksheets:
        first, last = layout.hidden_columns.get(ws.title, (0, -1))
        for row in ws.iter_rows():
            for cell in row:
                if not isinstance(cell.value, str) or first <= cell.column <= last:
                    continue
                if (ws.title, cell.row, cell.column) in skip or cell.value in names:
                    continue
                style = styles.get((ws.title, cell.row, cell.column), "")
                if style == "name":
                    continue
                out.append((f"{ws.title}!{cell.coordinate}", cell.value, "data" if style == "data" else "text"))
    for q in QUANTITIES:
        for node in _messages(q.expr):
            out.append((q.name, node.id if layout.lang == "id" else node.en, "message"))
    return out


def _messages(node):
    """Every Msg node of a tree."""
    if node is None:
        return
    if isinstance(node, Msg):
        yield node
    for child in vars(node).values():
        if isinstance(child, Node):
            yield from _messages(child)
        elif isinstance(child, tuple):
            for c in child:
                if isinstance(c, Node):
                    yield from _messages(c)


@pytest.fixture(scope="module")
def visible(books):
    return {lang: _visible_texts(built) for lang, built in books.items()}


def test_every_visible_text_of_the_indonesian_workbook_is_indonesian(visible):
    found = {where: (english_words(text), text[:100]) for where, text, _ in visible["id"] if english_words(text)}
    assert found == {}


def test_every_visible_text_of_the_english_workbook_is_english_but_the_catalog_prose(visible, books):
    """Labels, notes, headers, messages and formula results: English, and the catalogs' sources and notes too (their
    English from assumptions/english/); a catalog cell still Indonesian is counted apart to name where it comes from."""
    found = [(where, indonesian_words(text), text[:100], kind) for where, text, kind in visible["en"]]
    found = [f for f in found if f[1]]
    prose = [f for f in found if f[3] == "data" and books["en"].layout.catalog_sheets >= {f[0].split("!")[0]}]
    assert [f for f in found if f not in prose] == []
    print(f"{len(prose)} catalog source/note cells of the English workbook are still Indonesian")
    assert len(prose) == CATALOG_PROSE_ID, prose[:20]


def test_the_word_lists_find_their_language():
    """Both checks find what they look for and nothing in the other language."""
    assert indonesian_words("Bobot + KV cache per pengguna, dihitung dari harga GPU") == [
        "pengguna",
        "dihitung",
        "dari",
        "harga",
    ]
    assert indonesian_words("Weights + KV cache per user, from the GPU's price (Dan's note)") == []
    assert english_words("Bobot + KV cache per pengguna, dihitung dari harga GPU") == []


def _indonesian_prose_cells(catalog):
    """(table, file line, row, field, text) of every catalog prose cell written in Indonesian."""
    for key, table in catalog.tables.items():
        prose = [f.name for f in table.schema.fields if is_prose(f)]
        for line, row in zip(table.lines, table.rows, strict=True):
            for name in prose:
                if isinstance(row[name], str) and indonesian_words(row[name]):
                    yield key, line, row, name, row[name]


def test_every_indonesian_catalog_prose_cell_has_its_english(catalog):
    """The guard behind CATALOG_PROSE_ID = 0, on the catalogs themselves: each Indonesian source or note has an
    English text in assumptions/english/, and no translation is stale (its Indonesian text no longer the cell's, or
    its row gone). Each failure names the file, line or row and field to fix."""
    missing = [
        f"assumptions/{catalog[key].schema.file}:{line}:{name}: row {row['name']!r} has no English in "
        f"assumptions/english/{catalog[key].schema.file}"
        for key, line, row, name, _ in _indonesian_prose_cells(catalog)
        if catalog.english_of(key, row, name) is None
    ]
    assert missing == []
    assert english_problems(catalog) == []


def test_the_translations_are_english(catalog):
    """Every English text of assumptions/english/ is free of Indonesian words (URLs, names and quoted titles aside)."""
    assert len(catalog.english) > 500
    assert [(t.where, indonesian_words(t.en)) for t in catalog.english if indonesian_words(t.en)] == []
