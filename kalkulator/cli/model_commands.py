"""`kalkulator model add`: append a model derived from a Hugging Face config.json or a GGUF file to the catalog.

The new models.csv is written into a hidden, locked folder beside the original (.model-add-…), validated with
the catalog's own checks and only then moved over the original (kalkulator.io.files.write_synced, then
replace_synced: the helpers every writer uses), so a failure or a kill at any step leaves the catalog
byte-for-byte unchanged; the next run removes a killed run's folder. model_settings() gives the same derived
values as `--set` settings for `hitung`.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import tempfile
from collections.abc import Iterable
from pathlib import Path

import click

from kalkulator.catalog import MODEL, CatalogError, check_name, load_table
from kalkulator.catalog.importers import ROW_COLUMNS, DerivedModel, ModelFileError
from kalkulator.cli.common import fail
from kalkulator.io.files import OutputError, check_output, mode_of, replace_synced, write_synced
from kalkulator.io.paths import CATALOG_DIR
from kalkulator.io.staging import remove_leftovers, staging_folder

_WORK_PREFIX = ".model-add-"  # the folder where the new models.csv is validated before it replaces the old one


def derive(config: Path | None, gguf: Path | None, name: str | None) -> DerivedModel:
    """The model described by exactly one file; raises ModelFileError (a ValueError) on any problem."""
    if (config is None) == (gguf is None):
        raise ModelFileError("give exactly one model file: a Hugging Face config.json or a GGUF file")
    if config is not None:
        from kalkulator.catalog.importers.hf_config import read_config

        derived = read_config(config, name)
    else:
        from kalkulator.catalog.importers.gguf_file import read_gguf

        derived = read_gguf(gguf, name)  # type: ignore[arg-type]
    problem = check_name(derived.name)
    if problem:
        raise ModelFileError(f"model name {derived.name!r} {problem}; choose another with --name")
    return derived


def model_settings(config: Path | None, gguf: Path | None, name: str | None) -> dict[str, object]:
    """`--set`-style settings (model_* quantities; for GGUF also weight_bits_per_param and weights_gb)."""
    return derive(config, gguf, name).settings()


def _csv_line(row: dict[str, str], newline: str) -> str:
    buf = io.StringIO()
    csv.writer(buf, lineterminator=newline).writerow([row[c] for c in ROW_COLUMNS])
    return buf.getvalue()


def append_row(folder: Path, row: dict[str, str], dry_run: bool = False, inputs: Iterable[Path | None] = ()) -> Path:
    """Append one row to folder/models.csv atomically after validating the result; return the file's path.

    OutputError (kalkulator.io.files.check_output) when models.csv is not a regular file or is one of `inputs`.
    """
    path = folder / MODEL.file
    check_output(path, inputs)  # before reading it: a pipe would hang the read, a link be replaced
    try:
        original = path.read_bytes()
        text = original.decode("utf-8")
    except OSError as exc:
        raise ModelFileError(f"{path}: cannot read ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise ModelFileError(f"{path}: not UTF-8 text") from None
    existing = load_table(MODEL, folder)
    clash = existing.find(row["name"])
    if clash is not None:
        raise ModelFileError(
            f"{path}: a model named {clash['name']!r} already exists (names are case-insensitive); "
            "choose another with --name"
        )
    newline = "\r\n" if b"\r\n" in original else "\n"
    if text and not text.endswith(("\n", "\r")):
        text += newline
    updated = (text + _csv_line(row, newline)).encode("utf-8")
    parent = Path(tempfile.gettempdir()) if dry_run else folder
    try:
        remove_leftovers(parent, _WORK_PREFIX)  # what a killed `model add` left
        with staging_folder(parent, _WORK_PREFIX) as work:
            candidate = work / MODEL.file
            write_synced(candidate, updated, mode_of(path))
            try:
                load_table(MODEL, work)
            except CatalogError as exc:
                messages = [m.replace(str(candidate), str(path)) for m in exc.messages]
                raise CatalogError(["the new row fails the catalog checks:", *messages]) from None
            if not dry_run:
                replace_synced(candidate, path)
    except OSError as exc:
        raise ModelFileError(f"{exc.filename or path}: cannot write ({exc.strerror or exc})") from None
    return path


@click.group("model")
def model() -> None:
    """Add models to the catalog from a Hugging Face config.json or a GGUF file."""


@model.command("add")
@click.option(
    "--from-config", "config", type=click.Path(path_type=Path), help="A config.json, or the model folder holding it."
)
@click.option("--from-gguf", "gguf", type=click.Path(path_type=Path), help="A GGUF model file.")
@click.option("--name", help="Catalog name (default: from the file; at most 40 characters).")
@click.option(
    "--catalog",
    "catalog_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=CATALOG_DIR,
    show_default=True,
    help="Folder with the catalog CSVs.",
)
@click.option("--dry-run", is_flag=True, help="Derive, validate and print the row; write nothing.")
def add(config: Path | None, gguf: Path | None, name: str | None, catalog_dir: Path, dry_run: bool) -> None:
    """Derive a model's catalog row from a config.json or a GGUF file and append it to <catalog>/models.csv."""
    try:
        derived = derive(config, gguf, name)
        row = derived.row(dt.date.today().isoformat())
        click.echo(derived.describe())
        click.echo("row: " + _csv_line(row, "\n"), nl=False)
        path = append_row(catalog_dir, row, dry_run, (config, gguf))
    except CatalogError as exc:
        fail("\n".join(exc.messages))
        return
    except OutputError as exc:
        fail(f"--catalog: {exc}")
        return
    except ModelFileError as exc:
        fail(str(exc))
        return
    if dry_run:
        click.echo(f"dry run: {path} not changed")
    else:
        click.echo(f"appended {row['name']} to {path}")
