"""Pieces every `kalkulator` command shares: the error exit, the --catalog option, --set parsing."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import NoReturn

import click

from kalkulator.catalog import Catalog, CatalogError, load_catalog
from kalkulator.catalog.numbers import number  # noqa: F401  (the one formatter, re-exported for the commands)
from kalkulator.engine.expr import Value
from kalkulator.engine.graph import Graph
from kalkulator.scenario import ScenarioError, parse_value

CATALOG_OPTION = click.option(
    "--catalog",
    "catalog_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Folder with the catalog CSVs (default: the shipped assumptions/).",
)


def width() -> int:
    """The terminal width human output wraps to: $COLUMNS, else 100."""
    import os

    try:
        return max(40, int(os.environ.get("COLUMNS", "")))
    except ValueError:
        return 100


ECHO_CHARS = 200  # a typed value longer than this is echoed by its start and its length


def clip_echoes(message: str) -> str:
    """`message` with every long run without spaces or quotes (a 130 KB cell, a pasted file) cut to its start and
    its length, so an error names the value without echoing it whole."""
    import re

    def clip(m: re.Match) -> str:
        text = m.group(0)
        return f"{text[:60]}… ({len(text):,} characters)"

    return re.sub(rf"[^\s'\"]{{{ECHO_CHARS},}}", clip, message)


def fail(message: str) -> NoReturn:
    """Print `error: message` on stderr and exit 2 (bad input); typed values are echoed at most ECHO_CHARS long."""
    click.echo(f"error: {clip_echoes(message)}", err=True)
    sys.exit(2)


def load_catalog_or_fail(folder: Path | None) -> Catalog:
    """The catalogs in `folder` (default: the shipped ones), or exit 2 with every problem, each as file:line:column."""
    if folder is not None and not folder.is_dir():
        fail(f"--catalog: {folder}: no such folder")
    try:
        return load_catalog(folder)
    except CatalogError as exc:
        fail("invalid catalog\n" + "\n".join(f"  {m}" for m in exc.messages))


def parse_sets(graph: Graph, sets: tuple[str, ...], lang: str | None = None) -> dict[str, Value]:
    """--set NAME=VALUE items → settings, each parsed for its quantity; under `lang` "id" an ambiguous 16.500 is read
    the Indonesian way, as the command prints it. A name given twice is an error, not the last one silently."""
    settings: dict[str, Value] = {}
    typed: dict[str, str] = {}
    for item in sets:
        if "=" not in item:
            raise ScenarioError(f"--set {item!r}: expected NAME=VALUE")
        name, raw = (part.strip() for part in item.split("=", 1))
        if name in typed:
            raise ScenarioError(f"--set {name} is given twice ({typed[name]!r} and {raw!r}); give it once")
        typed[name] = raw
        settings[name] = parse_value(graph, name, raw, f"--set {name}", lang)
    return settings
