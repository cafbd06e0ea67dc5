"""`kalkulator calibrate` and `kalkulator accuracy`: fit the speed model and publish its held-out error."""

from __future__ import annotations

import csv
import datetime as dt
import io
import tempfile
from dataclasses import dataclass
from pathlib import Path

import click

from kalkulator.calibration.fit import (
    CURRENT_ERA,
    MAX_RUN_SPREAD,
    BandFloor,
    CalibrationError,
    accuracy_table,
    apply_band_floors,
    calibrate,
    fit_row_split,
    load_band_floors,
    load_llama_bench,
    load_shipped,
    multi_gpu_residuals,
    multi_gpu_table,
    shipped_report,
    speed_rows,
    summary_line,
    uncalibrated_line,
)
from kalkulator.calibration.serving import ENGINE as SERVING_ENGINE
from kalkulator.calibration.serving import (
    KV_PARAM,
    KV_ROWS,
    MOE_PARAM,
    calibrate_concurrency,
    calibrate_moe,
    calibrate_serving,
    concurrency_summary,
    concurrency_table,
    engine_table,
    moe_engine_rows,
    moe_summary,
    moe_tpot_line,
    serving_summary,
    tensor_parallel_table,
)
from kalkulator.calibration.serving import START as SERVING_START
from kalkulator.calibration.serving import speed_row as serving_speed_row
from kalkulator.catalog import ENGINE, SPEED, Catalog, CatalogError, load_table
from kalkulator.cli.common import fail, load_catalog_or_fail
from kalkulator.io.files import OutputError, check_output, write_atomic
from kalkulator.io.paths import CATALOG_DIR

# Serving rows without a serving fit of their own that borrow the TensorRT-LLM serial share (their source says so):
# calibrate writes the new fit into them too, so one fitted value is stated once.
SERIAL_BORROWERS = ("vllm/any", "sglang/any")
# The MoE prefill share is fitted on vLLM's MoE serving runs and borrowed by SGLang (fused-MoE kernels derived from
# vLLM's; its source says so): calibrate writes the fit into both rows.
MOE_PREFILL_ROWS = ("vllm/any", "sglang/any")


def _pct(v: float) -> str:
    return "–" if v != v else f"{100 * v:.1f} %"


def format_table(rows: list[dict]) -> str:
    """The accuracy report as a Markdown table (median / p90 of |predicted ÷ measured − 1|)."""

    lines = [
        "| backend and era | devices | held out | decode rows | decode median | decode p90 | book rule median "
        "| book rule p90 | prefill rows | prefill median | prefill p90 |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['backend']} | {r['devices']} | {'yes' if r['held_out'] else 'no (in-sample)'} "
            f"| {r['decode_points']} | {_pct(r['decode_median'])} | {_pct(r['decode_p90'])} "
            f"| {_pct(r['book_median'])} | {_pct(r['book_p90'])} | {r['prefill_points']} "
            f"| {_pct(r['prefill_median'])} | {_pct(r['prefill_p90'])} |"
        )
    return "\n".join(lines)


def _markdown(columns: dict[str, str], rows: list[dict]) -> str:
    """Rows as a Markdown table: header → key of the row (median and p90 printed as percentages)."""
    cell = lambda r, key: _pct(r[key]) if key in ("median", "p90") else str(r[key])  # noqa: E731
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(cell(r, key) for key in columns.values()) + " |" for r in rows]
    return "\n".join(lines)


ERROR_COLUMNS = {"devices": "devices", "GPUs per replica": "gpus", "median": "median", "p90": "p90"}


def format_multi(rows: list[dict]) -> str:
    """The multi-GPU error table (llama.cpp layer and row split, tensor-parallel serving) as Markdown."""
    return _markdown({"split": "split", "engine": "engine", "metric": "metric", "rows": "rows"} | ERROR_COLUMNS, rows)


CONCURRENCY_COLUMNS = {
    "runs": "runs",
    "rows": "rows",
    "concurrency": "concurrency",
    "before: users × tok/s per user": "before",
    "stalls, efficiency 1": "unfitted",
    "held out": "held_out",
    "held out p90": "held_out_p90",
    "TTFT held out": "ttft",
    "ITL held out": "itl",
}


def format_concurrency(rows: list[dict]) -> str:
    """The fixed-concurrency and long-context error table as Markdown (median |predicted ÷ measured − 1|)."""
    lines = ["| " + " | ".join(CONCURRENCY_COLUMNS) + " |", "|" + "---|" * len(CONCURRENCY_COLUMNS)]
    for r in rows:
        cells = [
            str(r.get(k, "")) if k in ("runs", "rows", "concurrency") else _pct(r.get(k, float("nan")))
            for k in CONCURRENCY_COLUMNS.values()
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def format_engines(rows: list[dict]) -> str:
    """The serving error table per engine as Markdown."""
    return _markdown({"engine": "engine", "runs": "rows", "prompt/output shapes": "shapes"} | ERROR_COLUMNS, rows)


@dataclass(frozen=True)
class Accuracy:
    """Everything `kalkulator accuracy` prints, computed once."""

    single: list[dict]  # per backend and era, held out by device
    multi: list[dict]  # per split (never fitted; tensor parallel: serving runs held out by shape)
    engines: list[dict]  # serving runs per engine, held out by shape
    unsteady: int
    serving_line: str
    moe_lines: tuple[str, str]  # the MoE max-load fit (not shipped) and the MoE TPOT-by-concurrency check
    concurrency_line: str  # the fixed-concurrency fit (KV-read efficiency) and its long-context held-out error
    concurrency: list[dict]  # fixed-concurrency runs (long-context, short) and long-prompt max-load runs, held out
    floors: list[BandFloor]  # families no measurement calibrates: their least band (uncalibrated.csv)


def accuracy_tables(catalog_dir: Path = CATALOG_DIR) -> Accuracy:
    """The held-out error tables of the shipped data (the leave-one-device-out fits take minutes)."""
    catalog = load_catalog_or_fail(catalog_dir)
    try:
        report = shipped_report(catalog)
        multi = load_shipped(catalog, multi_gpu=True)
        floors = load_band_floors()
    except CalibrationError as exc:
        fail(str(exc))
    serving = calibrate_serving(catalog)
    moe = calibrate_moe(catalog)
    fixed = calibrate_concurrency(catalog)
    return Accuracy(
        accuracy_table(report),
        multi_gpu_table(multi, multi_gpu_residuals(report, multi)) + tensor_parallel_table(serving),
        engine_table(serving) + moe_engine_rows(moe),
        report.data.attrs.get("unsteady_rows", 0),
        serving_summary(serving),
        (moe_summary(moe), moe_tpot_line(catalog)),
        concurrency_summary(fixed),
        concurrency_table(fixed, serving),
        floors,
    )


def readme_table(a: Accuracy) -> str:
    """The README's short table: one line per group (rows, median, p90 of |predicted ÷ measured − 1|)."""
    lines = ["| group | rows | median | p90 |", "|---|---|---|---|"]
    for r in a.single:
        held = "held out" if r["held_out"] else "in-sample"
        name = "1 GPU, all backends" if r["backend"] == "all held out" else f"1 GPU, {r['backend']}"
        lines.append(
            f"| {name}, decode ({held}) | {r['decode_points']} | {_pct(r['decode_median'])} | {_pct(r['decode_p90'])} |"
        )
        if r["backend"] == "all held out":
            lines.append(
                f"| {name}, prefill ({held}) | {r['prefill_points']} | {_pct(r['prefill_median'])} "
                f"| {_pct(r['prefill_p90'])} |"
            )
    for r in a.multi:
        lines.append(
            f"| {r['gpus']} GPUs, {r['split']}, {r['engine']}, {r['metric']} | {r['rows']} "
            f"| {_pct(r['median'])} | {_pct(r['p90'])} |"
        )
    for r in a.engines:
        lines.append(
            f"| serving, {r['engine']} ({r.get('how', 'shape held out')}) | {r['rows']} | {_pct(r['median'])} "
            f"| {_pct(r['p90'])} |"
        )
    for r in a.concurrency:
        where = r["runs"] if r["concurrency"] == "max load" else f"fixed concurrency {r['concurrency']}, {r['runs']}"
        lines.append(
            f"| {where}, throughput (shape held out) | {r['rows']} | {_pct(r['held_out'])} "
            f"| {_pct(r['held_out_p90'])} |"
        )
    return "\n".join(lines)


@click.command("accuracy")
@click.option("--catalog", "catalog_dir", type=click.Path(file_okay=False, path_type=Path), default=CATALOG_DIR)
def accuracy(catalog_dir: Path) -> None:
    """Held-out error of the speed model: per backend and build era (one device left out, against the book's
    rule), on multi-GPU rows per split, and of the serving model per engine (one prompt/output shape left out)."""
    a = accuracy_tables(catalog_dir)
    click.echo(format_table(a.single))
    click.echo("\n" + summary_line(a.single))
    click.echo(
        f"Left out: {a.unsteady} measurements whose repeated runs differ by more than "
        f"{100 * MAX_RUN_SPREAD:.0f} % of their mean (not reproducible to the goals)"
    )
    click.echo(uncalibrated_line(a.floors))
    click.echo("\nMulti-GPU rows (llama.cpp rows predicted by the single-GPU fit, never fitted):\n")
    click.echo(format_multi(a.multi))
    click.echo("\n" + a.serving_line + "\n" + "\n".join(a.moe_lines) + "\n")
    click.echo(format_engines(a.engines))
    click.echo("\nLong contexts and fixed concurrency:\n\n    " + a.concurrency_line + "\n")
    click.echo(format_concurrency(a.concurrency))
    click.echo("\nREADME summary:\n\n" + readme_table(a))


# Decode rows a user's llama-bench file needs: more than the decode parameters a fit frees (share of bandwidth, fixed
# cost per layer, attention cost, ALU work per byte), so that the in-sample residuals behind the band are not ~0.
MIN_BAND_ROWS = 6


@click.command("calibrate")
@click.argument("measurements", type=click.Path(exists=True, dir_okay=False, path_type=Path), required=False)
@click.option("--gpu", help="Catalog GPU the measurements ran on (needed for llama-bench files).")
@click.option("--model", "model_name", help="Catalog model that was measured (needed for llama-bench files).")
@click.option("--engine", default="llama.cpp", show_default=True, help="Engine the measurements come from.")
@click.option("--era", default=CURRENT_ERA, show_default=True, help="Build era of a llama-bench file's engine.")
@click.option("--catalog", "catalog_dir", type=click.Path(file_okay=False, path_type=Path), default=CATALOG_DIR)
@click.option("--dry-run", is_flag=True, help="Print the fitted rows and the report; write nothing.")
def calibrate_cmd(
    measurements: Path | None,
    gpu: str | None,
    model_name: str | None,
    engine: str,
    era: str,
    catalog_dir: Path,
    dry_run: bool,
) -> None:
    """Fit the speed parameters (shipped data, or `llama-bench -o csv|json` output) into speed_params.csv."""
    catalog = load_catalog_or_fail(catalog_dir)
    if not dry_run:  # before the fits: the catalog files rewritten must be regular files, none of them the input
        written = [catalog_dir / SPEED.file] + ([catalog_dir / ENGINE.file] if measurements is None else [])
        try:
            for path in written:
                check_output(path, (measurements,))
        except OutputError as exc:
            fail(f"--catalog: {exc}")
    try:
        if measurements is None:
            data, origin, min_devices = load_shipped(catalog), "data kalibrasi (measured_*.csv)", 3
        else:
            if not gpu or not model_name:
                fail("--gpu and --model are required with a llama-bench file")
            if catalog["model"].find(model_name) is None:
                fail(f"--model: {model_name!r} is not in the model catalog")
            data, origin, min_devices = (
                load_llama_bench(measurements, catalog, gpu, model_name, era),
                measurements.name,
                1,
            )
    except CalibrationError as exc:
        fail(str(exc))
        return
    # The shipped data's report is remembered in this process (`accuracy` run after it reuses the fits).
    report = shipped_report(catalog) if measurements is None else calibrate(data, min_devices=min_devices)
    if not report.fits:
        fail("no backend has measurements of both decode and enough devices to fit")
    if measurements is not None:
        decode_rows = int((data["metric"] == "tg").sum())
        if decode_rows < MIN_BAND_ROWS:
            fail(
                f"{measurements}: {decode_rows} decode measurement(s) cannot fit the speed parameters and an error "
                f"band (its 10th–90th percentile would be 0 %): give at least {MIN_BAND_ROWS} (llama-bench -n 128 "
                "with several -p or -d depths, or several models)"
            )
    today = dt.date.today().isoformat()
    target = catalog_dir / SPEED.file
    fields = [f.name for f in SPEED.fields]
    old = []
    if target.exists():
        with open(target, newline="", encoding="utf-8") as fh:
            old = list(csv.DictReader(fh))
    serving_name = f"{SERVING_ENGINE}/any"
    serving_row = next((r for r in old if r["name"] == serving_name), None)
    serial = float(serving_row["serial_frac"]) if serving_row else SERVING_START[1]
    if measurements is None and serving_row is not None:
        # the shipped data: the serving fit, its held-out band and its serial share (which the rows below carry)
        serving_row.update(serving_speed_row(serving_row, calibrate_serving(catalog), today))
        serial = float(serving_row["serial_frac"])
        for row in old:
            if row["name"] in SERIAL_BORROWERS:
                row["serial_frac"] = str(serial)  # their source says: serial_frac is the serving fit's (an assumption)
        moe_prefill = calibrate_moe(catalog, fixed={"serving_serial_frac": serial}).fit.params[MOE_PARAM]
        for row in old:
            if row["name"] in MOE_PREFILL_ROWS:
                row[MOE_PARAM] = str(moe_prefill)
        kv = calibrate_concurrency(catalog).kv_read_efficiency_frac
        for row in old:
            if row["name"] in KV_ROWS:
                row[KV_PARAM] = str(kv)
    try:
        new = speed_rows(report, engine, today, origin, serial)
        if measurements is None:  # the shipped data: families it does not calibrate get their least band
            new = apply_band_floors(new, load_band_floors(), engine)
    except CalibrationError as exc:
        fail(str(exc))
    names = {r["name"].lower() for r in new}
    # rows named engine/backend without an era belong to an older calibration of this engine
    kept = [
        r
        for r in old
        if r["name"].lower() not in names and not (r["name"].startswith(f"{engine}/") and "@" not in r["name"])
    ]
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=fields, lineterminator="\n")
    writer.writeheader()
    writer.writerows(sorted(kept + new, key=lambda r: r["name"].lower()))
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / SPEED.file).write_text(buf.getvalue(), encoding="utf-8")
        try:
            load_table(SPEED, Path(tmp))
        except CatalogError as exc:
            fail("fitted parameters are out of range\n" + "\n".join(exc.messages))
    click.echo(format_table(accuracy_table(report)))
    exchange = _exchange_row(catalog, catalog_dir, report) if measurements is None else None
    if dry_run:
        click.echo(buf.getvalue())
        return
    write_atomic(target, buf.getvalue().encode("utf-8"))
    click.echo(f"wrote {target} ({len(new)} fitted rows, {len(kept)} kept)")
    if exchange is not None:
        write_atomic(catalog_dir / ENGINE.file, exchange.encode("utf-8"))
        click.echo(f"wrote {catalog_dir / ENGINE.file} (llama.cpp exchange_us, exchange_bandwidth_frac)")


def _exchange_row(catalog: Catalog, catalog_dir: Path, report) -> str:
    """engines.csv with llama.cpp's row-split cost per exchange and its copies' bandwidth share refitted on the
    shipped row-split rows (decode and prompt)."""
    try:
        exchange_us, share, n_tg, n_pp = fit_row_split(report, load_shipped(catalog, multi_gpu=True))
    except CalibrationError as exc:
        fail(str(exc))
    path = catalog_dir / ENGINE.file
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    row = next(r for r in rows if r["name"] == "llama.cpp")
    click.echo(
        f"llama.cpp row split: {exchange_us:.1f} µs per exchange on {n_tg} decode rows (was {row['exchange_us']}), "
        f"copies at {share:.4f} of the link bandwidth on {n_pp} prompt rows (was {row['exchange_bandwidth_frac']})"
    )
    row["exchange_us"] = f"{exchange_us:.0f}"  # whole µs: one device left out moves it by several
    row["exchange_bandwidth_frac"] = f"{share:.2f}"  # two digits: one device left out moves it by more
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buf.getvalue()
