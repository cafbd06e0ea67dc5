"""`kalkulator hitung`: a scenario's quantities as a table, as JSON, or one row per scenario of a CSV."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Mapping
from pathlib import Path

import click

from kalkulator.calibration.measurements import near_scenario, text_block
from kalkulator.catalog import catalog_files
from kalkulator.catalog.importers import ModelFileError
from kalkulator.cli.catalog_commands import LANG_OPTION
from kalkulator.cli.common import CATALOG_OPTION, fail, load_catalog_or_fail, number, parse_sets, width
from kalkulator.cli.model_commands import model_settings
from kalkulator.engine.expr import Value
from kalkulator.engine.graph import Graph
from kalkulator.io.files import OutputError, check_output, open_atomic
from kalkulator.io.textout import json_text
from kalkulator.quantities import QUANTITIES
from kalkulator.quantities.base import BOOLEAN_FORMAT
from kalkulator.scenario import ScenarioError, check_inputs, outputs, resolve
from kalkulator.scenario.batch import check_scenarios, write_batch
from kalkulator.workbook.blocks.quantities import Quantities
from kalkulator.workbook.blocks.sensitivity import SensitivityBlock
from kalkulator.workbook.plan import load_plan

# A yes/no answer in the table's language (JSON keeps true/false, scenario CSVs TRUE/FALSE).
YES_NO = {"id": ("tidak", "ya"), "en": ("no", "yes")}
# English count units in the singular beside a 1 (1 GPU, not 1 GPUs).
SINGULAR = {"GPUs": "GPU", "servers": "server", "users": "user", "tokens": "token", "requests": "request"}
# The table's own words (the labels and units come from the quantities).
WORDS = {
    "id": {
        "more": "({n} besaran lain: kalkulator hitung --full, atau --json)",
        "defaults": "bawaan: {gpu}, {model} (pilih dengan --gpu dan --model; kalkulator list gpus|models)",
        "band": " ({bands}: pita galatnya)",
        "by_effect": "menurut dampak pada",
        "input": "masukan",
        "down": "turun",
        "up": "naik",
    },
    "en": {
        "more": "({n} more quantities: kalkulator hitung --full, or --json)",
        "defaults": "defaults: {gpu}, {model} (choose with --gpu and --model; kalkulator list gpus|models)",
        "band": " ({bands}: its error band)",
        "by_effect": "by effect on",
        "input": "input",
        "down": "down",
        "up": "up",
    },
}
# Speeds and fleet sizes of a setup that does not fit in VRAM: the table shows the reason, not a number.
NEEDS_FIT = (
    "decode_tok_s",
    "ttft_s",
    "ttft_fast_s",
    "ttft_slow_s",
    "tpot_ms",
    "tpot_at_load_ms",
    "sla_max_concurrent_users",
    "gpus_needed",
    "servers_needed",
)
DOES_NOT_FIT = {"id": "tidak muat di VRAM", "en": "does not fit in VRAM"}
LABEL, VALUE, UNIT = 42, 13, 15  # the table's columns; the quantity's name follows


def _format(value: Value, number_format: str, lang: str) -> str:
    """A value as the table shows it: in `lang`'s number format, in a form `--set` reads back."""
    if isinstance(value, bool):
        return YES_NO[lang][value]
    if not isinstance(value, int | float):
        return str(value)
    if number_format.endswith("%"):  # a 0–1 share, shown as a percentage like the workbook
        return number(value * 100, 1, lang, trim=True) + "%"
    if number_format.endswith('"%"'):  # already a percentage
        return number(value, 1, lang, trim=True) + "%"
    decimals = len(number_format.split(".")[1]) if "." in number_format else 0
    return number(value, decimals, lang, trim=True)


def _line(graph: Graph, values: Mapping[str, Value], name: str, lang: str, wide: bool = False) -> str:
    """One row: label, value, unit, name; within width() unless `wide` (a long text goes under its label, a long
    name on the next line)."""
    q = graph[name]
    value = values[name]
    if q.unit.number_format == BOOLEAN_FORMAT and isinstance(value, int | float):
        value = bool(value)  # a flag read from a catalog's 0/1 column
    # No unit after a name, a reason in place of a number, a yes/no or a value already shown as a percentage.
    bare = isinstance(value, str | bool) or "%" in q.unit.number_format
    unit = "" if bare else q.unit.label_in(lang)
    if lang == "en" and value == 1:
        unit = SINGULAR.get(unit, unit)
    shown = _format(value, q.unit.number_format, lang)
    if wide:
        return f"  {q.label(lang):<44} {shown:>18} {unit:<12} {name}"
    limit = width()
    label = q.label(lang)
    if isinstance(value, str) and len(shown) <= VALUE + 1 + UNIT:  # a short text fills the value and unit columns
        row = f"  {label:<{LABEL}} {shown:<{VALUE + 1 + UNIT}} {name}"
        return row if len(row) <= limit else "\n".join([row[: -len(name) - 1].rstrip(), f"{name:>{limit}}"])
    if len(shown) > VALUE:  # a text: the row names it, the text follows underneath
        row = f"  {label:<{LABEL + VALUE + UNIT + 2}} {name}"
        head = [row] if len(row) <= limit else [f"  {label}", f"{name:>{limit}}"]
        return "\n".join([*head, *textwrap.wrap(shown, limit, initial_indent=" " * 6, subsequent_indent=" " * 6)])
    row = f"  {label:<{LABEL}} {shown:>{VALUE}} {unit:<{UNIT}} {name}"
    if len(row) <= limit:
        return row
    head = f"  {label:<{LABEL}} {shown:>{VALUE}} {unit}".rstrip()
    if len(head) > limit:  # a narrow terminal: the label, then the value and the name on lines of their own
        return "\n".join([f"  {label}", f"{f'{shown} {unit}'.strip():>{limit}}", f"{name:>{limit}}"])
    return "\n".join([head, f"{name:>{limit}}"])


def _wrapped(line: str) -> str:
    """A line of text within width(), its continuation indented two more (a web address is never broken)."""
    indent = " " * (len(line) - len(line.lstrip()) + 2)
    parts = textwrap.wrap(line, width(), subsequent_indent=indent, break_long_words=False, break_on_hyphens=False)
    return "\n".join(parts) or line


def _table(
    graph: Graph,
    values: Mapping[str, Value],
    full: bool = False,
    lang: str = "en",
    after_summary: str = "",
    wide: bool = False,
) -> str:
    """The summary blocks of the workbook plan (its answer block) first, then `after_summary`; with `full`, every
    other block after."""
    blocks = [
        (sheet, block)
        for sheet in load_plan()
        for block in sheet.blocks
        if isinstance(block, Quantities)  # and the answer block
    ]
    summary = [b for _, b in blocks if b.summary]
    shown = {name for b in summary for name in b.names}
    lines = []
    for block in summary:
        lines.append("\n" + (block.title(lang) if wide else _wrapped(block.title(lang))))
        lines.extend(_line(graph, values, name, lang, wide) for name in block.names if values[name] != "")
    if after_summary:
        lines.append(f"\n{after_summary}")
    if not full:
        rest = sum(1 for n in graph.quantities if n not in shown and not n.endswith("_row"))
        lines.append("\n" + WORDS[lang]["more"].format(n=number(rest, 0, lang)))
        return "\n".join(lines).lstrip("\n")
    for sheet, block in blocks:
        names = [n for n in block.names if n not in shown and not n.endswith("_row")]
        if block.summary or not names:
            continue
        lines.append(
            "\n"
            + (
                f"{sheet.title(lang)} — {block.title(lang)}"
                if wide
                else _wrapped(f"{sheet.title(lang)} — {block.title(lang)}")
            )
        )
        lines.extend(_line(graph, values, name, lang, wide) for name in names)
    return "\n".join(lines).lstrip("\n")


@click.command("hitung")
@click.option("--model", "model_name", help="Model name from the catalog (see `kalkulator list models`).")
@click.option("--gpu", "gpu_name", help="GPU name from the catalog (see `kalkulator list gpus`).")
@click.option("--quant", "quant_name", help="Weight quantization, e.g. Q4_K_M, FP8, AWQ-4bit.")
@click.option("--engine", help="Inference engine, e.g. llama.cpp, vllm.")
@click.option("--kv-cache", "kv_cache_type", help="KV-cache precision, e.g. F16, Q8_0, FP8.")
@click.option(
    "--workload",
    "workload_name",
    help="Workload preset (see `kalkulator list workloads`): sets prompt/output tokens, latency targets, active hours.",
)
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
    "--out",
    "out_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="With --scenarios: write the rows to this file (it appears only when complete) instead of the terminal.",
)
@click.option("--full", is_flag=True, help="After the answer block, every quantity of the workbook, sheet by sheet.")
@click.option("--wide", is_flag=True, help="The full table on one line a quantity, whatever the terminal width.")
@click.option(
    "--what-if",
    "what_if",
    is_flag=True,
    help="Also the what-if table of the Break-even sheet: each key input 20 % down and up, sorted by its effect.",
)
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
@click.option(
    "--from-workbook",
    "workbook_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Take every input and manual value from the yellow cells of an edited copy of the workbook (.xlsx).",
)
@LANG_OPTION
@CATALOG_OPTION
def hitung(
    model_name,
    gpu_name,
    quant_name,
    engine,
    kv_cache_type,
    workload_name,
    sets,
    scenarios,
    as_json,
    out_path,
    full,
    wide,
    what_if,
    config_path,
    gguf_path,
    workbook_path,
    lang,
    catalog_dir,
) -> None:
    """Compute a scenario: the answer block first (the same numbers as the workbook); --full for everything.

    --lang labels the table (and words its reasons) in Indonesian or English; JSON and CSV stay as they are.
    """
    graph = Graph(QUANTITIES)
    catalog = load_catalog_or_fail(catalog_dir)
    columns = catalog.columns()
    chosen = {
        "model_name": model_name,
        "gpu_name": gpu_name,
        "quant_name": quant_name,
        "engine": engine,
        "kv_cache_type": kv_cache_type,
        "workload_name": workload_name,
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
        if workbook_path is not None:
            from kalkulator.cli.build_commands import read_copy

            given = [o for o, v in (("--model", model_name), ("--config", config_path), ("--gguf", gguf_path)) if v]
            if given or any(v is not None for v in chosen.values()):
                raise ScenarioError("--from-workbook: the workbook names the model, GPU and the rest; use --set")
            typed, changed = read_copy(workbook_path, catalog)
            base.update(typed)
            click.echo(f"note: inputs from {workbook_path} ({len(changed)} differ from the shipped ones)", err=True)
        base.update(parse_sets(graph, sets, lang))  # --set still overrides anything derived from a file
        if out_path is not None and scenarios is None:
            raise ScenarioError("--out: only with --scenarios (a batch); one scenario prints to the terminal")
        inputs = (scenarios, config_path, gguf_path, *catalog_files(catalog_dir))
        if out_path is not None:
            check_output(out_path, inputs)  # before the work; open_atomic checks again just before writing
        if scenarios is None:
            notes: list[str] = []
            settings = resolve(graph, catalog, base, notes=notes)
            for note in notes:
                click.echo(f"note: {note}", err=True)
            scenario = graph.evaluate(settings, columns)
            if "engine" not in base and scenario["engine_format_flag"] is False:  # the default engine cannot run it
                settings, scenario = _engine_for_format(graph, catalog, settings, scenario, lang)
            values = outputs(scenario, graph)
            check_inputs(values, "")
            found = near_scenario(values, graph, catalog)  # published measurements beside the estimate
            extra = {"measurements": found}
            if what_if:
                extra["what_if"] = what_if_rows(graph, scenario, columns)
            if as_json:
                click.echo(json_text({**values, **extra}, ensure_ascii=False, indent=2))
            else:
                after = text_block(found, lang)
                if what_if:
                    rows = extra["what_if"] if lang == "en" else what_if_rows(graph, scenario, columns, lang)
                    after += "\n\n" + _what_if_text(graph, rows, lang, wide)
                shown = values if lang == "en" else outputs(graph.evaluate(settings, columns, lang), graph)
                if values["fits_in_vram"] is False:  # no speed or fleet for a setup that cannot run
                    shown = {**shown, **dict.fromkeys(NEEDS_FIT, DOES_NOT_FIT[lang])}
                if not (sets or config_path or gguf_path) and model_name is None and gpu_name is None:
                    defaults = WORDS[lang]["defaults"].format(gpu=values["gpu_name"], model=values["model_name"])
                    click.echo(defaults if wide else "\n".join(textwrap.wrap(defaults, width())), err=True)
                if not wide:
                    after = "\n".join(_wrapped(line) for line in after.split("\n"))
                click.echo(_table(graph, shown, full, lang, after_summary=after.strip("\n"), wide=wide))
            return
        if what_if:
            raise ScenarioError("--what-if: one scenario at a time, not with --scenarios")
        check_scenarios(graph, catalog, scenarios, base)  # every row checked before anything is written
        if out_path is not None:
            with open_atomic(out_path, "w", inputs, encoding="utf-8", newline="") as fh:
                write_batch(graph, catalog, scenarios, base, fh, as_json)
        else:
            write_batch(graph, catalog, scenarios, base, sys.stdout, as_json)
    except (ScenarioError, ModelFileError) as exc:
        fail(str(exc))
    except OutputError as exc:
        fail(f"--out: {exc}")
    except OSError as exc:
        fail(f"--out {out_path}: cannot write ({exc.strerror or exc})")


ENGINE_NOTES = {
    "id": {
        "one": "mesin {engine}: hanya mesin ini yang menjalankan {quant} di GPU ini ({default} tidak)",
        "many": "{default} tidak menjalankan {quant}; yang menjalankannya di GPU ini: {engines} "
        "(mis. --engine {first})",
        "none": "{default} tidak menjalankan {quant}, dan tidak ada mesin di katalog yang menjalankannya di GPU ini",
    },
    "en": {
        "one": "engine {engine}: the only one that runs {quant} on this GPU ({default} does not)",
        "many": "{default} does not run {quant}; engines that do on this GPU: {engines} (e.g. --engine {first})",
        "none": "{default} does not run {quant}, and no engine in the catalog runs it on this GPU",
    },
}


def _engine_for_format(
    graph: Graph, catalog, settings: dict[str, Value], scenario: Mapping[str, Value], lang: str
) -> tuple[dict[str, Value], Mapping[str, Value]]:
    """The default engine does not run the chosen format: the engine follows the format when only one engine in the
    catalog runs it on this GPU (a note says so); otherwise a note names those that do and nothing changes."""
    columns = catalog.columns()
    runs = {}
    for engine in catalog["engine"].names:
        tried = graph.evaluate({**settings, "engine": engine}, columns)
        if tried["engine_format_flag"] is True and tried["engine_backend_flag"] is not False:
            runs[engine] = tried
    words = ENGINE_NOTES[lang]
    default, quant = scenario["engine"], scenario["quant_name"]
    if len(runs) == 1:
        ((engine, tried),) = runs.items()
        click.echo(f"note: {words['one'].format(engine=engine, quant=quant, default=default)}", err=True)
        return {**settings, "engine": engine}, tried
    if runs:
        note = words["many"].format(default=default, quant=quant, engines=", ".join(runs), first=next(iter(runs)))
    else:
        note = words["none"].format(default=default, quant=quant)
    click.echo(
        "\n".join(textwrap.wrap(f"note: {note}", width(), subsequent_indent="  ", break_on_hyphens=False)), err=True
    )
    return settings, scenario


def what_if_rows(graph: Graph, scenario: Mapping[str, Value], columns: Mapping, lang: str = "en") -> list[dict]:
    """The workbook's what-if table (its plan block on the Break-even sheet) for this scenario, its labels and
    reasons in `lang`."""
    from kalkulator.workbook import whatif as sensitivity

    return sensitivity.compute(graph, _what_if_block(), scenario, columns, lang)


def _what_if_block() -> SensitivityBlock:
    return next(b for sheet in load_plan() for b in sheet.blocks if isinstance(b, SensitivityBlock))


def _what_if_text(graph: Graph, rows: list[dict], lang: str = "en", wide: bool = False) -> str:
    """The what-if table in `lang`; a text end (no break-even …) goes under its row unless `wide`."""
    block = _what_if_block()
    w = WORDS[lang]
    first, second = (graph[n] for n in block.outputs)
    banded = ", ".join(graph[n].label(lang) for n in block.bands)
    title = (
        f"{block.title(lang)}{w['band'].format(bands=banded) if banded else ''}, {w['by_effect']} {first.label(lang)}"
    )
    first_unit, second_unit = first.unit.label_in(lang), second.unit.label_in(lang)
    lines = [
        title if wide else "\n".join(textwrap.wrap(title, width())),
        f"  {w['input']:<40} {first_unit + ' ' + w['down']:>16} {w['up']:>10} "
        f"{second_unit + ' ' + w['down']:>14} {w['up']:>6}",
    ]
    for r in rows:
        ends = [r[f"{out}_{end}"] for out in block.outputs for end in ("down", "up")]
        formats = [first.unit.number_format] * 2 + [second.unit.number_format] * 2
        text = [_format(v, f, lang) for v, f in zip(ends, formats, strict=True)]
        row = f"  {r['rank']:>2}. {r['label']:<36} {text[0]:>16} {text[1]:>10}"
        months = f"{text[2]:>14} {text[3]:>6}"
        if wide or (len(text[2]) <= 14 and len(text[3]) <= 6):
            lines.append(f"{row} {months}")
            continue
        lines.append(row)
        ends_text = [("", text[2])] if text[2] == text[3] else [(f", {w['down']}", text[2]), (f", {w['up']}", text[3])]
        for end, t in ends_text:
            lines.extend(
                textwrap.wrap(f"{second_unit}{end}: {t}", width(), initial_indent=" " * 6, subsequent_indent=" " * 8)
            )
    return "\n".join(lines)
