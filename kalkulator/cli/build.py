"""`kalkulator build` and `kalkulator verify`: write the workbooks and the preview page, check every formula cell."""

from __future__ import annotations

import io
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import click

from kalkulator.build import LANGS, build, check_with_libreoffice, verification_passes, workbook_name
from kalkulator.cli.common import CATALOG_OPTION, fail, load_catalog_or_fail
from kalkulator.paths import default_out_dir
from kalkulator.preview import render as render_preview
from kalkulator.workbook.layout import load_plan
from kalkulator.workbook.writer import write_atomic


def _comparable(data: bytes, path: Path) -> object:
    """What --check compares: a workbook's unzipped parts (deflate bytes vary between zlib builds), else bytes."""
    if path.suffix != ".xlsx":
        return data
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return {i.filename: z.read(i.filename) for i in z.infolist()}


@click.command("build")
@click.option(
    "--lang",
    type=click.Choice([*LANGS, "all"]),
    default="all",
    show_default=True,
    help="Workbook language: id → dist/kalkulator.xlsx, en → dist/kalkulator-en.xlsx.",
)
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=default_out_dir,
    show_default="dist/ of the source checkout, else ./dist",
    help="Folder for the workbooks and preview.html.",
)
@click.option("--check", is_flag=True, help="Write nothing; exit 1 unless dist/ holds exactly what would be built.")
@CATALOG_OPTION
def build_cmd(lang: str, out_dir: Path, check: bool, catalog_dir: Path | None) -> None:
    """Generate the workbooks (and, for all languages, dist/preview.html); atomic: a failed build changes nothing."""
    catalog = load_catalog_or_fail(catalog_dir)
    langs = LANGS if lang == "all" else (lang,)
    started = time.perf_counter()
    built = {}
    for code in langs:
        try:
            built[code] = build(code, catalog)
        except ValueError as exc:
            fail(f"cannot lay out the workbook: {exc}")
    outputs_by_path = {out_dir / workbook_name(code): result.data for code, result in built.items()}
    if lang == "all":
        outputs_by_path[out_dir / "preview.html"] = render_preview(catalog).encode("utf-8")
    stale = []
    for path, data in outputs_by_path.items():
        if check:
            if not path.exists() or _comparable(path.read_bytes(), path) != _comparable(data, path):
                stale.append(str(path))
        else:
            write_atomic(path, data)
            click.echo(f"wrote {path}")
    if check:
        if stale:
            click.echo("out of date (run `kalkulator build`): " + ", ".join(stale), err=True)
            sys.exit(1)
        click.echo(f"up to date: {', '.join(str(p) for p in outputs_by_path)}")
    click.echo(f"{time.perf_counter() - started:.2f} s", err=True)


def _detect_lang(path: Path) -> str:
    import openpyxl

    sheets = set(openpyxl.load_workbook(path, read_only=True).sheetnames)
    for code in LANGS:
        if all(sheet[f"title_{code}"] in sheets for sheet in load_plan()):
            return code
    fail(f"{path}: not a kalkulator workbook (its sheets match no language of templates/workbook.toml)")


@click.command("verify")
@click.argument(
    "path",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=lambda: default_out_dir() / "kalkulator.xlsx",
    required=False,
)
@click.option("--shipped-only", is_flag=True, help="Check the shipped inputs only (skip the changed-input passes).")
@click.option(
    "--libreoffice",
    "with_lo",
    is_flag=True,
    help="Also recalculate in headless LibreOffice (one run per input set) and compare every cell.",
)
@CATALOG_OPTION
def verify_cmd(path: Path, shipped_only: bool, with_lo: bool, catalog_dir: Path | None) -> None:
    """Evaluate PATH with the `formulas` package and compare every formula cell with the engine."""
    from kalkulator.workbook.verify import InputSet, verify

    catalog = load_catalog_or_fail(catalog_dir)
    started = time.perf_counter()
    lang = _detect_lang(path)
    result = build(lang, catalog)
    passes = verification_passes(catalog, result.layout)
    if shipped_only:
        passes = passes[:1]
    report = verify(path, result.layout, result.graph, catalog, passes)
    for where in report.unexpected_formulas:
        click.echo(f"UNEXPECTED formula cell (not produced by the engine): {where}")
    _print_mismatches(report.mismatches)
    click.echo(
        f"formulas: {report.cells_checked} cells checked "
        f"({len(result.layout.formulas)} formula cells × {len(passes)} input sets: {'; '.join(report.passes)}), "
        f"{len(report.mismatches)} mismatches, {len(report.unexpected_formulas)} unexpected formula cells"
    )
    ok = report.ok
    if with_lo:
        with tempfile.TemporaryDirectory() as tmp:
            plain = [InputSet(p.name, p.settings) for p in passes]  # table key cells stay as shipped
            lo = check_with_libreoffice(lang, catalog, plain, Path(tmp))
        _print_mismatches(lo.mismatches)
        click.echo(f"LibreOffice: {lo.cells_checked} cells checked, {len(lo.mismatches)} mismatches")
        ok = ok and lo.ok
    click.echo(f"{time.perf_counter() - started:.1f} s")
    sys.exit(0 if ok else 1)


def _print_mismatches(mismatches: list) -> None:
    for m in mismatches[:200]:
        click.echo(f"MISMATCH [{m.pass_name}] {m.where} {m.label}: engine={m.expected!r} workbook={m.got!r}")
    if len(mismatches) > 200:
        click.echo(f"... and {len(mismatches) - 200} more mismatches")
