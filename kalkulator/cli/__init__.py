"""The `kalkulator` command: one click group; each module of this package holds a family of subcommands.

Subcommands are imported when they run (click's lazy-group pattern), so `kalkulator hitung` does not pay
for SciPy, pandas or the workbook writer that other commands need.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

import click

from kalkulator.textout import escape_unencodable

COMMANDS = {  # name → "module:attribute"
    "build": "kalkulator.cli.build:build_cmd",
    "verify": "kalkulator.cli.build:verify_cmd",
    "check": "kalkulator.cli.build:check_cmd",
    "hitung": "kalkulator.cli.hitung:hitung",
    "plan": "kalkulator.cli.plan:plan_cmd",
    "list": "kalkulator.cli.catalog:list_cmd",
    "catalog": "kalkulator.cli.catalog:catalog",
    "model": "kalkulator.cli.model:model",
    "calibrate": "kalkulator.cli.calibration:calibrate_cmd",
    "accuracy": "kalkulator.cli.calibration:accuracy",
    "simulate": "kalkulator.cli.simulate:simulate",
    "preview": "kalkulator.cli.simulate:preview",
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
