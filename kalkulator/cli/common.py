"""Pieces every `kalkulator` command shares: the error exit, the --catalog option, --set parsing."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import NoReturn

import click

from kalkulator.catalog import Catalog, CatalogError, load_catalog
from kalkulator.expr import Value
from kalkulator.graph import Graph
from kalkulator.numbers import number  # noqa: F401  (the one formatter, re-exported for the commands)
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


def fail(message: str) -> NoReturn:
    """Print `error: message` on stderr and exit 2 (bad input)."""
    click.echo(f"error: {message}", err=True)
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
    the Indonesian way, as the command prints it."""
    settings: dict[str, Value] = {}
    for item in sets:
        if "=" not in item:
            raise ScenarioError(f"--set {item!r}: expected NAME=VALUE")
        name, raw = (part.strip() for part in item.split("=", 1))
        settings[name] = parse_value(graph, name, raw, f"--set {name}", lang)
    return settings
