"""The `kalkulator` command: build and verify the workbook, compute scenarios in the terminal."""

from __future__ import annotations

import csv
import io
import json
import sys
import tempfile
import time
import zipfile
from collections.abc import Mapping
from pathlib import Path

import click

from kalkulator.build import DIST, LANGS, build, check_with_libreoffice, verification_passes, workbook_name
from kalkulator.cli.calibration import accuracy, calibrate_cmd
from kalkulator.cli.common import CATALOG_OPTION, fail, load_catalog_or_fail, parse_sets
from kalkulator.cli.model import model as model_group
from kalkulator.cli.model import model_settings
from kalkulator.cli.simulate import preview, simulate
from kalkulator.expr import Value
from kalkulator.graph import Graph
from kalkulator.importers import ModelFileError
from kalkulator.preview import render as render_preview
from kalkulator.quantities import QUANTITIES
from kalkulator.scenario import ScenarioError, outputs, parse_value, resolve
from kalkulator.workbook.layout import load_plan
from kalkulator.workbook.writer import write_atomic


@click.group()
@click.version_option(package_name="kalkulator")
def main() -> None:
    """LLM inference sizing: VRAM, tokens/s, latency — as a live Excel workbook and in the terminal."""


def _comparable(data: bytes, path: Path) -> object:
    """What --check compares: a workbook's unzipped parts (deflate bytes vary between zlib builds), else bytes."""
    if path.suffix != ".xlsx":
        return data
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return {i.filename: z.read(i.filename) for i in z.infolist()}


@main.command("build")
@click.option(
    "--lang",
    type=click.Choice([*LANGS, "all"]),
    default="all",
    show_default=True,
    help="Workbook language: id → dist/kalkulator.xlsx, en → dist/kalkulator-en.xlsx.",
)
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=DIST, show_default=True)
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


@main.command("verify")
@click.argument(
    "path",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=DIST / "kalkulator.xlsx",
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


def _format(value: Value, number_format: str) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    decimals = len(number_format.split(".")[1]) if "." in number_format else 0
    return f"{value:,.{decimals}f}"


def _table(graph: Graph, values: Mapping[str, Value], lang: str = "en") -> str:
    lines = []
    placed = set()
    for sheet in load_plan():
        for block in sheet["blocks"]:
            if block["kind"] != "quantities":
                continue
            lines.append(f"\n{sheet['title_en']} — {block['title_en']}")
            for name in block["names"]:
                if name.endswith("_row"):
                    continue
                q = graph[name]
                placed.add(name)
                lines.append(
                    f"  {q.label(lang):<44} {_format(values[name], q.unit.number_format):>18} {q.unit.label:<12} {name}"
                )
    return "\n".join(lines).lstrip("\n")


@main.command("hitung")
@click.option("--model", "model_name", help="Model name from the catalog (see `kalkulator list models`).")
@click.option("--gpu", "gpu_name", help="GPU name from the catalog (see `kalkulator list gpus`).")
@click.option("--quant", "quant_name", help="Weight quantization, e.g. Q4_K_M, FP8, AWQ-4bit.")
@click.option("--engine", help="Inference engine, e.g. llama.cpp, vllm.")
@click.option("--kv-cache", "kv_cache_type", help="KV-cache precision, e.g. F16, Q8_0, FP8.")
@click.option(
    "--set",
    "sets",
    multiple=True,
    metavar="NAME=VALUE",
    help="Set any input or replace any quantity (repeatable), e.g. --set context_tokens=8192.",
)
@click.option(
    "--scenarios",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="CSV with one scenario per row (columns are names; blank = default).",
)
@click.option("--json", "as_json", is_flag=True, help="JSON (one object per scenario; JSON lines with --scenarios).")
@click.option(
    "--config",
    "config_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Describe the model by its Hugging Face config.json instead of --model.",
)
@click.option(
    "--gguf",
    "gguf_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Describe the model by a GGUF file: shape from its header, exact weight size and bits per weight.",
)
@CATALOG_OPTION
def hitung(
    model_name,
    gpu_name,
    quant_name,
    engine,
    kv_cache_type,
    sets,
    scenarios,
    as_json,
    config_path,
    gguf_path,
    catalog_dir,
) -> None:
    """Compute a scenario's quantities (the same numbers as the workbook)."""
    graph = Graph(QUANTITIES)
    catalog = load_catalog_or_fail(catalog_dir)
    columns = catalog.columns()
    chosen = {
        "model_name": model_name,
        "gpu_name": gpu_name,
        "quant_name": quant_name,
        "engine": engine,
        "kv_cache_type": kv_cache_type,
    }
    try:
        base = {k: v for k, v in chosen.items() if v is not None}
        if config_path is not None or gguf_path is not None:
            if model_name is not None:
                raise ScenarioError("--model: give either --model or --config/--gguf, not both")
            base.update(model_settings(config_path, gguf_path, None))
            if gguf_path is not None:
                click.echo(
                    f"note: weight size from {gguf_path.name}: {base['weights_gb']:.3f} GB "
                    f"({base['weight_bits_per_param']:.4f} bits per weight); --quant does not change them",
                    err=True,
                )
        base.update(parse_sets(graph, sets))  # --set still overrides anything derived from a file
        if scenarios is None:
            notes: list[str] = []
            settings = resolve(graph, catalog, base, notes=notes)
            for note in notes:
                click.echo(f"note: {note}", err=True)
            values = outputs(graph.evaluate(settings, columns), graph)
            click.echo(json.dumps(values, ensure_ascii=False, indent=2) if as_json else _table(graph, values))
            return
        rows = list(_read_scenarios(graph, catalog, scenarios, base))
    except (ScenarioError, ModelFileError) as exc:
        fail(str(exc))
        return
    results = [outputs(graph.evaluate(s, columns), graph) for s in rows]
    if as_json:
        for r in results:
            click.echo(json.dumps(r, ensure_ascii=False))
        return
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(results[0]) if results else [], lineterminator="\n")
    writer.writeheader()
    writer.writerows(results)
    click.echo(buf.getvalue(), nl=False)


def _read_scenarios(graph: Graph, catalog, path: Path, base: dict[str, Value]):
    with open(path, newline="", encoding="utf-8-sig") as fh:
        reader = csv.DictReader(fh)
        if not reader.fieldnames:
            raise ScenarioError(f"{path}: empty file, expected a header row of names")
        for column in reader.fieldnames:
            if column not in graph:
                parse_value(graph, column, "", f"{path}:1:{column}")  # raises with closest names
        parsed = []
        for line, row in enumerate(reader, start=2):
            settings = dict(base)
            for column, raw in row.items():
                if column is None:
                    raise ScenarioError(f"{path}:{line}: more fields than header columns")
                if raw is None or raw.strip() == "":
                    continue
                settings[column] = parse_value(graph, column, raw, f"{path}:{line}:{column}")
            parsed.append(resolve(graph, catalog, settings, f"{path}:{line}"))
        if not parsed:
            raise ScenarioError(f"{path}: no scenario rows")
        return parsed


main.add_command(model_group)
main.add_command(calibrate_cmd)
main.add_command(accuracy)
main.add_command(simulate)
main.add_command(preview)


@main.command("list")
@click.argument("what", type=click.Choice(["gpus", "models", "quants", "kv-cache", "engines", "names"]))
@CATALOG_OPTION
def list_cmd(what: str, catalog_dir: Path | None) -> None:
    """List catalog names, or every quantity name with its unit."""
    if what == "names":
        for q in QUANTITIES:
            kind = "input" if q.is_input else ("formula, settable" if q.overridable else "formula")
            click.echo(f"{q.name:<40} {q.unit.label:<12} {kind}")
        return
    key = {"gpus": "gpu", "models": "model", "quants": "quant", "kv-cache": "kv_cache", "engines": "engine"}[what]
    for name in load_catalog_or_fail(catalog_dir)[key].names:
        click.echo(name)
