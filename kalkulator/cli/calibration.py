"""`kalkulator calibrate` and `kalkulator accuracy`: fit the speed model and publish its held-out error."""

from __future__ import annotations

import csv
import datetime as dt
import io
import tempfile
from pathlib import Path

import click

from kalkulator.calibration import (
    CURRENT_ERA,
    MAX_RUN_SPREAD,
    CalibrationError,
    accuracy_table,
    calibrate,
    error_stats,
    layer_split_residuals,
    load_llama_bench,
    load_shipped,
    shipped_report,
    speed_rows,
    summary_line,
)
from kalkulator.catalog import SPEED, CatalogError, load_table
from kalkulator.cli.common import fail, load_catalog_or_fail
from kalkulator.files import write_atomic
from kalkulator.paths import CATALOG_DIR
from kalkulator.serving_calibration import ENGINE as SERVING_ENGINE
from kalkulator.serving_calibration import START as SERVING_START
from kalkulator.serving_calibration import calibrate_serving, serving_summary


def format_table(rows: list[dict]) -> str:
    """The accuracy report as a Markdown table (median / p90 of |predicted ÷ measured − 1|)."""

    def pct(v: float) -> str:
        return "–" if v != v else f"{100 * v:.1f} %"

    lines = [
        "| backend and era | devices | held out | decode rows | decode median | decode p90 | book rule median "
        "| book rule p90 | prefill rows | prefill median | prefill p90 |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['backend']} | {r['devices']} | {'yes' if r['held_out'] else 'no (in-sample)'} "
            f"| {r['decode_points']} | {pct(r['decode_median'])} | {pct(r['decode_p90'])} | {pct(r['book_median'])} "
            f"| {pct(r['book_p90'])} | {r['prefill_points']} | {pct(r['prefill_median'])} | {pct(r['prefill_p90'])} |"
        )
    return "\n".join(lines)


@click.command("accuracy")
@click.option("--catalog", "catalog_dir", type=click.Path(file_okay=False, path_type=Path), default=CATALOG_DIR)
def accuracy(catalog_dir: Path) -> None:
    """Leave-one-device-out error of the speed model per backend and build era, against the book's rule."""
    catalog = load_catalog_or_fail(catalog_dir)
    report = shipped_report(catalog)
    rows = accuracy_table(report)
    click.echo(format_table(rows))
    click.echo("\n" + summary_line(rows))
    unsteady = report.data.attrs.get("unsteady_rows", 0)
    click.echo(
        f"Left out: {unsteady} measurements whose repeated runs differ by more than "
        f"{100 * MAX_RUN_SPREAD:.0f} % of their mean (not reproducible to the goals)"
    )
    multi = layer_split_residuals(report, load_shipped(catalog, multi_gpu=True))
    median, p90 = error_stats(multi)
    click.echo(
        f"\nMulti-GPU layer split (2–8 GPUs, {multi.size} decode rows, predicted by the single-GPU fit, "
        f"never fitted): median {100 * median:.1f} %, p90 {100 * p90:.1f} %"
    )
    click.echo("\n" + serving_summary(calibrate_serving(load_catalog_or_fail(catalog_dir))))


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
    try:
        serving = load_table(SPEED, catalog_dir).find(f"{SERVING_ENGINE}/any")
        serial = serving["serial_frac"] if serving else SERVING_START[1]
        new = speed_rows(report, engine, dt.date.today().isoformat(), origin, serial)
    except CalibrationError as exc:
        fail(str(exc))
    target = catalog_dir / SPEED.file
    fields = [f.name for f in SPEED.fields]
    kept = []
    if target.exists():
        names = {r["name"].lower() for r in new}
        with open(target, newline="", encoding="utf-8") as fh:
            # rows named engine/backend without an era belong to an older calibration of this engine
            old = [r for r in csv.DictReader(fh) if r["name"].lower() not in names]
            kept = [r for r in old if not (r["name"].startswith(f"{engine}/") and "@" not in r["name"])]
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
    if dry_run:
        click.echo(buf.getvalue())
        return
    write_atomic(target, buf.getvalue().encode("utf-8"))
    click.echo(f"wrote {target} ({len(new)} fitted rows, {len(kept)} kept)")
