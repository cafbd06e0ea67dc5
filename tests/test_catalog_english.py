"""assumptions/english/: the English of the catalogs' prose, how it is keyed, shown and kept from going stale.

Expected values come from the files themselves (a cell edited in a copy, a translation row written here), not from
the loader's output.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from click.testing import CliRunner

from kalkulator.catalog import ENGLISH_DIR, CatalogError, catalog_files, english_problems, load_catalog
from kalkulator.cli import main
from kalkulator.io.paths import CATALOG_DIR

GPU = "RTX 3060 12GB"


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def _write(path: Path, rows: list[dict[str, str]]) -> None:
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def test_a_row_shows_its_english_under_en_and_its_indonesian_under_id(catalog):
    row = catalog["gpu"].find(GPU)
    english = next(r for r in _rows(CATALOG_DIR / ENGLISH_DIR / "gpus.csv") if r["name"] == GPU)
    assert english["field"] == "source" and english["id"] == row["source"]
    assert catalog.shown("gpu", row, "source", "en") == english["en"]
    assert catalog.shown("gpu", row, "source", "id") == row["source"]
    assert catalog.shown("gpu", row, "price_usd", "en") == row["price_usd"]  # not prose: as written


def test_a_shared_translation_applies_to_every_row_with_that_text(catalog):
    """A translation with a blank name serves every row whose field reads exactly its Indonesian text."""
    shared = next(t for t in catalog.english if t.table == "gpu" and not t.name and t.field == "link_source")
    rows = [r for r in catalog["gpu"].rows if r["link_source"] == shared.id]
    assert len(rows) > 1
    assert {catalog.shown("gpu", r, "link_source", "en") for r in rows} == {shared.en}


def test_an_edited_source_makes_its_translation_stale_naming_file_row_and_field(catalog_copy):
    path = catalog_copy / "gpus.csv"
    rows = _rows(path)
    row = next(r for r in rows if r["name"] == GPU)
    row["source"] += "; harga diperiksa ulang"
    _write(path, rows)
    catalog = load_catalog(catalog_copy)  # an edited source never stops a build
    problems = english_problems(catalog)
    assert len(problems) == 1
    assert "english/gpus.csv:" in problems[0] and f"row {GPU!r} source now reads" in problems[0]
    edited = catalog["gpu"].find(GPU)
    assert catalog.shown("gpu", edited, "source", "en") == edited["source"]  # shown as written until retranslated


def test_a_shared_translation_no_cell_reads_is_reported(catalog_copy):
    path = catalog_copy / ENGLISH_DIR / "gpus.csv"
    rows = _rows(path)
    rows.append({"name": "", "field": "source", "id": "teks yang tidak ada", "en": "a text nobody has"})
    _write(path, rows)
    problems = english_problems(load_catalog(catalog_copy))
    assert problems == [f"{path}:{len(rows) + 1}:id: no row of gpus.csv has this source any more (stale)"]


def test_a_translation_of_a_missing_row_is_reported(catalog_copy):
    path = catalog_copy / ENGLISH_DIR / "gpus.csv"
    rows = _rows(path)
    rows.append({"name": "GPU yang tidak ada", "field": "source", "id": "x", "en": "y"})
    _write(path, rows)
    assert english_problems(load_catalog(catalog_copy)) == [
        f"{path}:{len(rows) + 1}:name: no row 'GPU yang tidak ada' in gpus.csv"
    ]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"name": "", "field": "price_usd", "id": "x", "en": "y"}, ":field: 'price_usd' is not a prose column"),
        ({"name": "", "field": "source", "id": "x", "en": ""}, ":en: blank"),
    ],
)
def test_a_malformed_translation_stops_the_load_naming_its_line(catalog_copy, extra, message):
    path = catalog_copy / ENGLISH_DIR / "gpus.csv"
    rows = _rows(path)
    rows.append(extra)
    _write(path, rows)
    with pytest.raises(CatalogError) as err:
        load_catalog(catalog_copy)
    assert f"{path}:{len(rows) + 1}{message}" in str(err.value)


def test_a_translation_written_twice_stops_the_load(catalog_copy):
    path = catalog_copy / ENGLISH_DIR / "gpus.csv"
    rows = _rows(path)
    rows.append(dict(rows[0]))
    _write(path, rows)
    with pytest.raises(CatalogError, match=r"gpus.csv:\d+:id: translated twice \(line 2\)"):
        load_catalog(catalog_copy)


def test_a_catalog_folder_without_translations_loads_and_shows_the_indonesian(catalog_copy):
    for path in (catalog_copy / ENGLISH_DIR).iterdir():
        path.unlink()
    catalog = load_catalog(catalog_copy)
    row = catalog["gpu"].find(GPU)
    assert catalog.english == () and catalog.shown("gpu", row, "source", "en") == row["source"]


def test_the_translations_are_inputs_and_exported_with_the_catalogs(tmp_path):
    assert CATALOG_DIR / ENGLISH_DIR / "gpus.csv" in catalog_files()  # no output may replace them
    folder = tmp_path / "mine"
    result = CliRunner().invoke(main, ["catalog", "export", str(folder)])
    assert result.exit_code == 0, result.output
    assert _rows(folder / ENGLISH_DIR / "gpus.csv") == _rows(CATALOG_DIR / ENGLISH_DIR / "gpus.csv")
    texts = [(t.table, t.name, t.field, t.id, t.en) for t in load_catalog(folder).english]
    assert texts == [(t.table, t.name, t.field, t.id, t.en) for t in load_catalog().english]
