"""The `kalkulator` command (console script `kalkulator.cli:main`)."""

from kalkulator.cli.hitung import main

__all__ = ["main"]
