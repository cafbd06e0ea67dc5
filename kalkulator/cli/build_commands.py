"""`kalkulator build` and `kalkulator verify`: write the workbooks and the preview page, check every formula cell."""

from __future__ import annotations

import io
import sys
import tempfile
import time
import zipfile
import zlib
from pathlib import Path

import click

from kalkulator.catalog import Catalog, catalog_files
from kalkulator.cli.common import CATALOG_OPTION, fail, load_catalog_or_fail
from kalkulator.io import forked
from kalkulator.io.files import MB, FileReadError, check_regular, check_xlsx
from kalkulator.io.paths import default_out_dir
from kalkulator.io.progress import steps
from kalkulator.io.staging import OutputError, check_outputs, leftovers, write_outputs
from kalkulator.preview.page import render as render_preview
from kalkulator.scenario import ScenarioError
from kalkulator.workbook.build import LANGS, build, lay_out, verification_passes, workbook_name
from kalkulator.workbook.plan import load_plan


def _comparable(data: bytes, path: Path) -> object:
    """What --check compares: a workbook's unzipped parts (deflate bytes vary between zlib builds), else bytes."""
    if path.suffix != ".xlsx":
        return data
    check_xlsx(data, str(path))
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return {i.filename: z.read(i.filename) for i in z.infolist()}


# What reading a damaged workbook raises, from zipfile, zlib, openpyxl and its XML parser.
_UNREADABLE = (zipfile.BadZipFile, zlib.error, EOFError, OSError, KeyError, ValueError, SyntaxError)


def _differs(path: Path, data: bytes) -> str | None:
    """Why `path` does not hold `data` (missing, damaged, different), or None when it does."""
    if not path.exists():
        return "missing"
    try:
        same = _comparable(path.read_bytes(), path) == _comparable(data, path)
    except (*_UNREADABLE, FileReadError) as exc:
        return f"unreadable ({exc})"
    return None if same else "out of date"


def _missing_defaults(catalog: Catalog) -> list[str]:
    """The default choices (GPU, model, …) that are not in the catalog: the workbook opens asking for them."""
    from kalkulator.quantities import QUANTITIES

    return [
        f"the default {q.name} {q.default!r} is not in the {q.choices[0]} catalog; the workbook asks to choose one"
        for q in QUANTITIES
        if q.choices
        and q.is_input
        and not q.optional
        and isinstance(q.default, str)
        and catalog[q.choices[0]].find(q.default) is None
    ]


def _preview(catalog: Catalog) -> tuple[str, list[str]]:
    """The preview page and the notes on what it left out (returned: a worker process cannot append to ours)."""
    notes: list[str] = []
    return render_preview(catalog, notes), notes


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
@click.option(
    "--check",
    is_flag=True,
    help="Write nothing; exit 1 unless dist/ holds exactly what would be built, and nothing a killed build left.",
)
@CATALOG_OPTION
def build_cmd(lang: str, out_dir: Path, check: bool, catalog_dir: Path | None) -> None:
    """Generate the workbooks (and, for all languages, dist/preview.html) as one set.

    Atomic: the files are staged in a hidden folder and swapped in together, so a failed or killed build leaves
    the previous set; the next build removes (or finishes) what a killed one left.
    """
    catalog = load_catalog_or_fail(catalog_dir)
    langs = LANGS if lang == "all" else (lang,)
    names = [workbook_name(code) for code in langs] + (["preview.html"] if lang == "all" else [])
    inputs = catalog_files(catalog_dir)
    if not check:
        try:
            check_outputs(out_dir, names, inputs)  # fail before the work, not after it
        except OutputError as exc:
            fail(f"--out: {exc}")
    started = time.perf_counter()
    notes = _missing_defaults(catalog)
    outputs: dict[str, bytes] = {}
    contents: dict[str, str] = {}  # file → what it holds, for the closing line
    preview = forked.start(_preview, catalog) if lang == "all" else None  # the page on the other core
    for code in steps(langs, "workbooks"):
        try:
            built = build(code, catalog)
        except ValueError as exc:
            fail(f"cannot lay out the workbook: {exc}")
        outputs[workbook_name(code)] = built.data
        layout = built.layout
        contents[workbook_name(code)] = (
            f"{len(layout.sheets)} sheets, {len(layout.formulas):,} formula cells, {len(built.data):,} bytes"
        )
    if preview is not None:
        try:
            page, left_out = preview()
        except ScenarioError as exc:
            fail(f"cannot build preview.html: {exc} (--lang id or --lang en builds a workbook alone)")
        outputs["preview.html"] = page.encode("utf-8")
        notes.extend(left_out)
    for note in notes:
        click.echo(f"note: {note}", err=True)
    if check:
        problems = [
            f"{p}: left by an interrupted build (the next `kalkulator build` removes it)"
            for p in leftovers(out_dir, tuple(outputs))
        ]
        for name, data in outputs.items():
            why = _differs(out_dir / name, data)
            if why:
                problems.append(f"{out_dir / name}: {why} (run `kalkulator build`)")
        for problem in problems:
            click.echo(problem, err=True)
        if problems:
            sys.exit(1)
        click.echo(f"up to date: {', '.join(str(out_dir / n) for n in outputs)}")
    else:
        try:
            done = write_outputs(out_dir, outputs, inputs)
        except OutputError as exc:
            fail(f"--out: {exc}")
        for line in done:
            click.echo(f"note: {line}", err=True)
        for name in outputs:
            what = contents.get(name, f"{len(outputs[name]):,} bytes")
            click.echo(f"wrote {out_dir / name} ({what})")
    verb = "checked" if check else "built"
    files = "1 file" if len(outputs) == 1 else f"{len(outputs)} files"
    click.echo(f"{verb} {files} in {time.perf_counter() - started:.2f} s", err=True)


WORKBOOK_LIMIT_BYTES = 200 * MB  # the shipped workbooks are about 1 MB


def _detect_lang(path: Path) -> str:
    """The workbook's language from its sheet names; a damaged or foreign file is a clear error (exit 2)."""
    import openpyxl
    from openpyxl.utils.exceptions import InvalidFileException

    try:
        check_regular(path, WORKBOOK_LIMIT_BYTES, "workbook")
        check_xlsx(path, str(path))
    except FileReadError as exc:
        fail(str(exc))
    try:
        with zipfile.ZipFile(path) as z:
            damaged = z.testzip()
        if damaged is not None:
            raise zipfile.BadZipFile(f"part {damaged} fails its checksum")
        book = openpyxl.load_workbook(path, read_only=True)
        sheets = set(book.sheetnames)
        book.close()
    except (*_UNREADABLE, InvalidFileException) as exc:
        fail(f"{path}: not a readable .xlsx workbook ({exc or type(exc).__name__}); rebuild it with `kalkulator build`")
    for code in LANGS:
        if all(sheet.title(code) in sheets for sheet in load_plan()):
            return code
    fail(f"{path}: not a kalkulator workbook (its sheets match no language of templates/workbook.toml)")


WORKBOOK_ARGUMENT = click.argument(
    "path",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=lambda: default_out_dir() / "kalkulator.xlsx",
    required=False,
)


@click.command("verify")
@WORKBOOK_ARGUMENT
@click.option("--shipped-only", is_flag=True, help="Check the shipped inputs only (skip the changed-input passes).")
@click.option(
    "--libreoffice",
    "with_lo",
    is_flag=True,
    help="Also recalculate in headless LibreOffice (one run per input set) and compare every cell.",
)
@CATALOG_OPTION
def verify_cmd(path: Path, shipped_only: bool, with_lo: bool, catalog_dir: Path | None) -> None:
    """Evaluate PATH's formulas from their Excel text and compare every formula cell with the engine."""
    from kalkulator.workbook.verify import InputSet, check_with_libreoffice, verify
    from kalkulator.workbook.xltext import FormulaError

    catalog = load_catalog_or_fail(catalog_dir)
    started = time.perf_counter()
    lang = _detect_lang(path)
    graph, layout = lay_out(lang, catalog)
    passes = verification_passes(catalog, layout)
    if shipped_only:
        passes = passes[:1]
    try:
        report = verify(path, layout, graph, catalog, passes)
    except FormulaError as exc:
        fail(str(exc))
    for where in report.unexpected_formulas:
        click.echo(f"UNEXPECTED formula cell (not produced by the engine): {where}")
    _print_mismatches(report.mismatches)
    click.echo(
        f"workbook formulas: {report.cells_checked:,} cells checked, {len(report.mismatches):,} mismatches\n"
        f"  {len(layout.formulas):,} formula cells × {len(passes)} input sets: {'; '.join(report.passes)}\n"
        f"  {report.cached_checked:,} cached values checked against the recalculation\n"
        f"  {report.texts_checked:,} formula texts compared with the engine's rendering\n"
        f"  {report.sampled_checked:,} values recomputed by `formulas` ({report.sampled_cells} sampled cells × "
        f"{report.sampled_checked // max(report.sampled_cells, 1)} input sets)\n"
        f"  {len(report.unexpected_formulas)} unexpected formula cells"
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


def read_copy(path: Path, catalog: Catalog) -> tuple[dict, dict]:
    """The settings typed in a user's copy at `path` and those that differ from the shipped workbook (exit 2 naming
    the file and cell when unreadable)."""
    from kalkulator.workbook.check import WorkbookInputError, read_cells, typed_inputs

    lang = _detect_lang(path)
    graph, layout = lay_out(lang, catalog)
    try:
        cells = read_cells(path, set(layout.inputs.values()))
        inputs, changed = typed_inputs(path, layout, graph, catalog, cells)
    except WorkbookInputError as exc:
        fail(str(exc))
    except _UNREADABLE as exc:
        fail(f"{path}: not a readable .xlsx workbook ({exc or type(exc).__name__})")
    return inputs.settings, changed


@click.command("check")
@WORKBOOK_ARGUMENT
@CATALOG_OPTION
def check_cmd(path: Path, catalog_dir: Path | None) -> None:
    """Check an edited, recalculated copy: its typed inputs through the engine against the results saved in it.

    Exit 0 when every formula cell agrees, 1 when some differ (each printed with sheet, cell, name and both values),
    2 when the copy cannot be read (an unknown choice, text in a number cell, never recalculated).
    """
    from kalkulator.workbook.check import WorkbookInputError, check_copy

    catalog = load_catalog_or_fail(catalog_dir)
    started = time.perf_counter()
    lang = _detect_lang(path)
    graph, layout = lay_out(lang, catalog)
    try:
        report = check_copy(path, layout, graph, catalog)
    except WorkbookInputError as exc:
        fail(str(exc))
    except _UNREADABLE as exc:
        fail(f"{path}: not a readable .xlsx workbook ({exc or type(exc).__name__})")
    if report.changed:
        typed = ", ".join(f"{name}={value!r}" for name, value in sorted(report.changed.items()))
        click.echo(f"inputs changed from the shipped workbook ({len(report.changed)}): {typed}")
    else:
        click.echo("inputs: as shipped")
    _print_mismatches(report.mismatches)
    click.echo(
        f"check: {report.cells_checked} formula cells compared with the engine for these inputs, "
        f"{len(report.mismatches)} differ ({time.perf_counter() - started:.1f} s)"
    )
    sys.exit(0 if report.ok else 1)


def _print_mismatches(mismatches: list) -> None:
    for m in mismatches[:200]:
        click.echo(f"MISMATCH [{m.pass_name}] {m.where} {m.label}: engine={m.expected!r} workbook={m.got!r}")
    if len(mismatches) > 200:
        click.echo(f"... and {len(mismatches) - 200} more mismatches")
