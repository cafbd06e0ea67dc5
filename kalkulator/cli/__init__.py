"""The `kalkulator` command: one click group; each module of this package holds a family of subcommands.

Subcommands are imported when they run (click's lazy-group pattern), so `kalkulator hitung` does not pay
for SciPy, pandas or the workbook writer that other commands need.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

import click

from kalkulator.io.textout import escape_unencodable

COMMANDS = {  # name → "module:attribute"
    "build": "kalkulator.cli.build_commands:build_cmd",
    "verify": "kalkulator.cli.build_commands:verify_cmd",
    "check": "kalkulator.cli.build_commands:check_cmd",
    "hitung": "kalkulator.cli.hitung_commands:hitung",
    "plan": "kalkulator.cli.plan_commands:plan_cmd",
    "list": "kalkulator.cli.catalog_commands:list_cmd",
    "catalog": "kalkulator.cli.catalog_commands:catalog",
    "model": "kalkulator.cli.model_commands:model",
    "calibrate": "kalkulator.cli.calibration_commands:calibrate_cmd",
    "accuracy": "kalkulator.cli.calibration_commands:accuracy",
    "simulate": "kalkulator.cli.simulate_commands:simulate",
    "preview": "kalkulator.cli.simulate_commands:preview",
}


class LazyGroup(click.Group):
    def main(self, *args: Any, **kwargs: Any) -> Any:
        """Run the command line; first, output the terminal's encoding cannot hold is escaped, never a crash."""
        escape_unencodable(sys.stdout, sys.stderr)
        return super().main(*args, **kwargs)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in COMMANDS:
            return None
        module, attribute = COMMANDS[name].split(":")
        return getattr(importlib.import_module(module), attribute)


@click.group(cls=LazyGroup)
@click.version_option(package_name="kalkulator")
def main() -> None:
    """LLM inference sizing: VRAM, tokens/s, latency — as a live Excel workbook and in the terminal."""
