"""The `kalkulator` command: one click group; each module of this package holds a family of subcommands."""

from __future__ import annotations

import click

from kalkulator.cli import build, calibration, catalog, hitung, model, simulate


@click.group()
@click.version_option(package_name="kalkulator")
def main() -> None:
    """LLM inference sizing: VRAM, tokens/s, latency — as a live Excel workbook and in the terminal."""


for command in (
    build.build_cmd,
    build.verify_cmd,
    hitung.hitung,
    catalog.list_cmd,
    catalog.catalog,
    model.model,
    calibration.calibrate_cmd,
    calibration.accuracy,
    simulate.simulate,
    simulate.preview,
):
    main.add_command(command)
