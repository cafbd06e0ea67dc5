"""`kalkulator list` and `kalkulator catalog export`: show catalog names, copy the shipped catalogs to edit them."""

from __future__ import annotations

import datetime as dt
import functools
import os
import shutil
import textwrap
from pathlib import Path

import click

from kalkulator.catalog import ENGLISH_DIR, SCHEMAS
from kalkulator.cli.common import CATALOG_OPTION, fail, load_catalog_or_fail, number, width
from kalkulator.io.paths import CATALOG_DIR
from kalkulator.io.textout import json_text
from kalkulator.quantities import QUANTITIES
from kalkulator.workbook.blocks.catalog_table import decimals_of

# What `list` shows of each catalog: the table and its key columns (the name comes first).
LISTS: dict[str, tuple[str, tuple[str, ...]]] = {
    "gpus": ("gpu", ("vram_gib", "mem_bandwidth_gbs", "fp16_tflops", "tdp_w", "price_usd")),
    "models": ("model", ("params_b", "active_params_b", "layers", "kv_heads", "max_context")),
    "quants": ("quant", ("kind", "bits_per_weight", "compute")),
    "kv-cache": ("kv_cache", ("bits_per_value",)),
    "engines": ("engine", ("max_batch",)),
    "workloads": ("workload", ("text_prompt_tokens", "output_tokens", "sla_ttft_s", "sla_tpot_ms")),
    "apis": ("api", ("provider", "input_usd_per_1m", "output_usd_per_1m", "cached_input_usd_per_1m")),
    "tariffs": ("tariff", ("kind", "idr_per_kwh")),
    "clouds": ("cloud", ("provider", "gpu", "gpus", "usd_per_hour", "region")),
    "hosting": ("hosting", ("mode", "gpu", "gpus", "idr_per_month", "kw_included")),
}
# Catalogs with prices, for `list prices`: the table, its price column and that price's unit.
PRICED: tuple[tuple[str, str, str], ...] = (
    ("gpu", "price_usd", "USD"),
    ("board", "price_usd", "USD"),
    ("cloud", "usd_per_hour", "USD/hour"),
    ("api", "output_usd_per_1m", "USD/1M output"),
    ("hosting", "idr_per_month", "Rp/month"),
)
STALE_MONTHS = 12  # the freshness caveat's cut-off (quantities/freshness.py): prices older than 12 months
DAYS_PER_MONTH = 30.42  # DESIGN.md: months are 30.42 days


def price_age_months(as_of: str, today: dt.date) -> float:
    """Months from a row's as_of (YYYY-MM-DD) to `today`, 30.42 days each."""
    return (today - dt.date.fromisoformat(as_of)).days / DAYS_PER_MONTH


def price_rows(catalog: dict, today: dt.date, stale_only: bool) -> list[dict[str, object]]:
    """Every priced catalog row with its price, as_of and age in months, oldest first; `stale_only`: only those
    older than 12 months."""
    rows = []
    for key, column, unit in PRICED:
        for rec in catalog[key].rows:
            price, as_of = rec[column], rec["as_of"]
            if key == "gpu" and rec["street_price_usd"]:  # the street price is the one used, with its own date
                price, as_of = rec["street_price_usd"], rec["street_as_of"]
            if price is None or not as_of:
                continue
            age = price_age_months(str(as_of), today)
            if stale_only and age <= STALE_MONTHS:
                continue
            rows.append(
                {"catalog": key, "name": rec["name"], "price": price, "unit": unit, "as_of": str(as_of)}
                | {"age_months": round(age, 1)}
            )
    return sorted(rows, key=lambda r: (-float(r["age_months"]), str(r["catalog"]), str(r["name"])))


LANG_OPTION = click.option(
    "--lang",
    type=click.Choice(["id", "en"]),
    default=lambda: cli_lang(),
    show_default="$KALKULATOR_LANG, else id when $LANG starts with id, else en",
    help="Language of the labels (the workbook's bilingual tables).",
)


def cli_lang() -> str:
    """The CLI's language: $KALKULATOR_LANG (id or en), else Indonesian when $LANG is Indonesian, else English."""
    chosen = os.environ.get("KALKULATOR_LANG", "").strip().lower()
    if chosen in ("id", "en"):
        return chosen
    fallback = "id" if os.environ.get("LANG", "").lower().startswith("id") else "en"
    if chosen:
        _unknown_lang(os.environ["KALKULATOR_LANG"], fallback)
    return fallback


@functools.cache
def _unknown_lang(value: str, fallback: str) -> None:
    """Say once per process that $KALKULATOR_LANG holds neither id nor en, and which language is used instead."""
    click.echo(f"note: KALKULATOR_LANG={value!r} is not id or en; using {fallback}", err=True)


def _shown(value: object, decimals: int, lang: str = "en") -> str:
    """A catalog cell as `list` shows it: numbers in `lang`'s format."""
    if value is None:
        return ""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return number(value, decimals, lang)
    return str(value)


def set_names(table_key: str) -> dict[str, str]:
    """Catalog column → the quantity `--set` takes for it (mem_bandwidth_gbs → gpu_mem_bandwidth_gbs)."""
    return {q.catalog_column[1]: q.name for q in QUANTITIES if q.catalog_column and q.catalog_column[0] == table_key}


def names_lines(lang: str, as_json: bool = False) -> list[str]:
    """The names contract, one quantity a line: name, unit, kind and label (docs/names.md is this, in English)."""
    lines = []
    for q in QUANTITIES:
        kind = "input" if q.is_input else ("formula, settable" if q.overridable else "formula")
        unit = q.unit.label_in(lang)
        if as_json:
            lines.append(json_text({"name": q.name, "unit": unit, "kind": kind, "label": q.label(lang)}))
        else:
            lines.append(f"{q.name:<43} {unit:<19} {kind:<17} {q.label(lang)}".rstrip())
    return lines


@click.command("list")
@click.argument("what", type=click.Choice([*LISTS, "names", "prices"]))
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help='One JSON object per row: CSV field names as keys, and under "set" the names --set takes.',
)
@click.option("--wide", is_flag=True, help="Headers on one line, whatever the terminal width.")
@click.option("--stale", is_flag=True, help="prices: only those older than 12 months (what to refresh).")
@click.option(
    "--on",
    "on_date",
    type=click.DateTime(formats=["%Y-%m-%d"]),
    default=None,
    help="prices: count ages to this date (YYYY-MM-DD; default today).",
)
@LANG_OPTION
@CATALOG_OPTION
def list_cmd(
    what: str, as_json: bool, wide: bool, stale: bool, on_date: dt.datetime | None, lang: str, catalog_dir: Path | None
) -> None:
    """List a catalog with its key numbers, every quantity name with its unit, or every price with its age."""
    if what == "names":
        for line in names_lines(lang, as_json):
            click.echo(line)
        return
    if what == "prices":
        today = on_date.date() if on_date else dt.date.today()
        rows = price_rows(load_catalog_or_fail(catalog_dir), today, stale)
        if as_json:
            for row in rows:
                click.echo(json_text(row, ensure_ascii=False))
            return
        headers = ["Catalog", "Name", "Price", "Unit", "As of", "Age (months)"]
        body = [
            [str(r["catalog"]), str(r["name"]), _shown(r["price"], 2, lang), str(r["unit"]), str(r["as_of"])]
            + [number(float(r["age_months"]), 1, lang)]
            for r in rows
        ]
        numeric = [False, False, True, False, False, True]
        for line in table_lines(headers, body, numeric, None if wide else width()):
            click.echo(line)
        return
    key, columns = LISTS[what]
    table = load_catalog_or_fail(catalog_dir)[key]
    fields = ("name", *columns)
    rows = [{f: rec[f] for f in fields} for rec in table.rows]
    if as_json:
        settable = set_names(key)
        for row in rows:
            sets = {settable[f]: row[f] for f in columns if f in settable}
            click.echo(json_text({**row, "set": sets} if sets else row, ensure_ascii=False))
        return
    places = {f: min(4, max((decimals_of(r[f]) for r in rows if isinstance(r[f], float)), default=0)) for f in fields}
    headers = [table.schema.header(f, lang) for f in fields]
    body = [[_shown(r[f], places[f], lang) for f in fields] for r in rows]
    numeric = [all(isinstance(r[f], int | float) or r[f] is None for r in rows) for f in fields]
    for line in table_lines(headers, body, numeric, None if wide else width()):
        click.echo(line)


def table_lines(headers: list[str], body: list[list[str]], numeric: list[bool], limit: int | None) -> list[str]:
    """A text table, numbers right-aligned; within `limit` columns a long header wraps onto more lines (each column
    as wide as its widest cell, at least 10)."""
    cells = [headers, *body]
    widths = [max(len(line[i]) for line in cells) for i in range(len(headers))]
    if limit is not None and sum(widths) + 2 * (len(widths) - 1) > limit:
        widths = [max(10, *(len(line[i]) for line in body)) for i in range(len(headers))]
    wrapped = [
        textwrap.wrap(h, w, break_long_words=False, break_on_hyphens=False) or [""]
        for h, w in zip(headers, widths, strict=True)
    ]
    widths = [max(w, *(len(part) for part in parts)) for w, parts in zip(widths, wrapped, strict=True)]
    depth = max(len(parts) for parts in wrapped)
    head = [[""] * (depth - len(parts)) + parts for parts in wrapped]  # a header's last line sits on the table
    lines = []
    for line in [*zip(*head, strict=True), *body]:
        parts = [v.rjust(w) if num else v.ljust(w) for v, w, num in zip(line, widths, numeric, strict=True)]
        lines.append("  ".join(parts).rstrip())
    return lines


@click.group("catalog")
def catalog() -> None:
    """Work on your own copy of the catalogs (prices, GPUs, models …)."""


@catalog.command("export")
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path))
@click.option("--force", is_flag=True, help="Overwrite catalog files that already exist in FOLDER.")
def export(folder: Path, force: bool) -> None:
    """Copy the shipped catalog CSVs (and their English, english/) to FOLDER; edit them and build with
    `kalkulator build --catalog FOLDER`."""
    sources = [CATALOG_DIR / schema.file for schema in SCHEMAS]
    sources += [CATALOG_DIR / ENGLISH_DIR / s.file for s in SCHEMAS if (CATALOG_DIR / ENGLISH_DIR / s.file).exists()]
    targets = [folder / source.relative_to(CATALOG_DIR) for source in sources]
    existing = [str(t.relative_to(folder)) for t in targets if t.exists()]
    if existing and not force:
        fail(f"{folder} already holds {', '.join(existing)}; use --force to overwrite")
    try:
        for source, target in zip(sources, targets, strict=True):
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)  # content only: the copy is writable
    except OSError as exc:
        fail(f"{folder}: cannot write ({exc.strerror or exc})")
    click.echo(
        f"wrote {len(SCHEMAS)} catalogs and their English ({ENGLISH_DIR}/) to {folder}; edit them, then: "
        f"kalkulator build --catalog {folder}"
    )
