"""The workbook's texts kept in templates/: the guide and the English of the Indonesian sources."""

from __future__ import annotations

import re
import tomllib
from functools import cache
from pathlib import Path

from kalkulator.io.paths import TEMPLATES_DIR

TEMPLATES = TEMPLATES_DIR


def load_guide(path: Path | None = None) -> dict:
    with open(path or TEMPLATES / "guide.toml", "rb") as fh:
        return tomllib.load(fh)


def indonesian_note(q) -> tuple[str, str]:
    """The Indonesian workbook's note and source of quantity `q`: its doc_id, and its source_id where the source is
    English or imprecise (else the source itself)."""
    return q.doc_id, q.source_id or q.source


@cache
def load_sources_en(path: Path | None = None) -> dict[str, str]:
    """English for the sources written in Indonesian, keyed by the Indonesian text (templates/sources_en.toml)."""
    with open(path or TEMPLATES / "sources_en.toml", "rb") as fh:
        return tomllib.load(fh)


CATALOG_SOURCE = re.compile(r"Katalog (\w+): kolom ([\w /]+)")  # what base.lookup writes for a catalog value


def source_en(source: str) -> str:
    """A quantity's source as the English workbook shows it: from the table, else a catalog lookup by rule."""
    if source in load_sources_en():
        return load_sources_en()[source]
    match = CATALOG_SOURCE.fullmatch(source)
    if match:
        return f"Catalog {match.group(1)}: column {match.group(2)}"
    parts = source.split("; ")
    if len(parts) > 1:  # sources joined from parts (the book's chapter; an English reference): each part's English
        return "; ".join(source_en(part) for part in parts)
    return source
