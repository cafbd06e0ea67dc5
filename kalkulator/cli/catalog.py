"""`kalkulator list` and `kalkulator catalog export`: show catalog names, copy the shipped catalogs to edit them."""

from __future__ import annotations

import shutil
from pathlib import Path

import click

from kalkulator.catalog import SCHEMAS
from kalkulator.cli.common import CATALOG_OPTION, fail, load_catalog_or_fail
from kalkulator.paths import CATALOG_DIR
from kalkulator.quantities import QUANTITIES


@click.command("list")
@click.argument("what", type=click.Choice(["gpus", "models", "quants", "kv-cache", "engines", "workloads", "names"]))
@CATALOG_OPTION
def list_cmd(what: str, catalog_dir: Path | None) -> None:
    """List catalog names, or every quantity name with its unit."""
    if what == "names":
        for q in QUANTITIES:
            kind = "input" if q.is_input else ("formula, settable" if q.overridable else "formula")
            click.echo(f"{q.name:<40} {q.unit.label:<12} {kind}")
        return
    key = {
        "gpus": "gpu",
        "models": "model",
        "quants": "quant",
        "kv-cache": "kv_cache",
        "engines": "engine",
        "workloads": "workload",
    }[what]
    for name in load_catalog_or_fail(catalog_dir)[key].names:
        click.echo(name)


@click.group("catalog")
def catalog() -> None:
    """Work on your own copy of the catalogs (prices, GPUs, models …)."""


@catalog.command("export")
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path))
@click.option("--force", is_flag=True, help="Overwrite catalog files that already exist in FOLDER.")
def export(folder: Path, force: bool) -> None:
    """Copy the shipped catalog CSVs to FOLDER; edit them and build with `kalkulator build --catalog FOLDER`."""
    targets = [folder / schema.file for schema in SCHEMAS]
    existing = [t.name for t in targets if t.exists()]
    if existing and not force:
        fail(f"{folder} already holds {', '.join(existing)}; use --force to overwrite")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for schema, target in zip(SCHEMAS, targets, strict=True):
            shutil.copyfile(CATALOG_DIR / schema.file, target)  # content only: the copy is writable
    except OSError as exc:
        fail(f"{folder}: cannot write ({exc.strerror or exc})")
    click.echo(f"wrote {len(targets)} catalogs to {folder}; edit them, then: kalkulator build --catalog {folder}")
