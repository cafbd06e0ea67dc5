"""Recalculate a workbook in headless LibreOffice and read every cell's value back: a second oracle."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path

import openpyxl

from kalkulator.engine.expr import Value, XlError
from kalkulator.quantities.base import BOOLEAN_FORMAT

# Always recalculate on load: LibreOffice's default for .xlsx keeps cached values (formulas-probe.md §4).
_PROFILE = """<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema"
 xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="OOXMLRecalcMode" oor:op="fuse">\
<value>0</value></prop></item>
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="ODFRecalcMode" oor:op="fuse">\
<value>0</value></prop></item>
</oor:items>
"""
ERROR_TEXTS = ("#N/A", "#VALUE!", "#REF!", "#DIV/0!", "#NUM!", "#NAME?", "#NULL!", "Err:")


def soffice() -> str | None:
    """Path of the soffice binary, or None when LibreOffice is not installed."""
    return shutil.which("soffice") or shutil.which("libreoffice")


def _convert(path: Path, work: Path, target: str, recalc: bool = True, env: Mapping[str, str] | None = None) -> Path:
    """Run soffice --convert-to with a private profile; return the output file.

    `recalc`: the profile forces recalculation on load; without it the profile is LibreOffice's default (cached
    values are shown), as a user's first start would be. `env`: more environment variables (FONTCONFIG_FILE: the
    fonts LibreOffice may use).
    """
    binary = soffice()
    if binary is None:
        raise FileNotFoundError("LibreOffice (soffice) is not installed")
    profile = work / "profile" / "user"
    profile.mkdir(parents=True, exist_ok=True)
    if recalc:
        (profile / "registrymodifications.xcu").write_text(_PROFILE, encoding="utf-8")
    out = work / "out"
    env = dict(os.environ, LC_ALL="en_US.UTF-8", LANG="en_US.UTF-8") | dict(env or {})
    subprocess.run(
        [
            binary,
            f"-env:UserInstallation=file://{work / 'profile'}",
            "--headless",
            "--norestore",
            "--convert-to",
            target,
            "--outdir",
            str(out),
            str(path.resolve()),
        ],
        check=True,
        capture_output=True,
        timeout=300,
        env=env,
    )
    return out / f"{path.stem}.{target.split(':')[0]}"


def render_pdf(path: Path, work: Path, recalc: bool = True, env: Mapping[str, str] | None = None) -> Path:
    """Print every sheet of the workbook to PDF with LibreOffice (charts included); see `_convert`."""
    return _convert(path, work, "pdf", recalc, env)


def recalculate(path: Path) -> dict[tuple[str, str], Value]:
    """Open `path` in LibreOffice (en-US, full recalculation), save a copy, return (sheet, cell) → value."""
    with tempfile.TemporaryDirectory(prefix="kalkulator-lo-") as tmp:
        converted = _convert(path, Path(tmp), "xlsx")
        book = openpyxl.load_workbook(converted, data_only=True)
        values: dict[tuple[str, str], Value] = {}
        flags: list[tuple[str, str]] = []  # 1/0 under the TRUE/FALSE format: a boolean, or a 0/1 number
        for ws in book.worksheets:
            for row in ws.iter_rows():
                for cell in row:
                    v = cell.value
                    if isinstance(v, str) and v.startswith(ERROR_TEXTS):
                        v = XlError(v)
                    elif cell.number_format == BOOLEAN_FORMAT and type(v) is int and v in (0, 1):
                        flags.append((ws.title, cell.coordinate))
                    values[(ws.title, cell.coordinate)] = v
        if flags:  # LibreOffice keeps a boolean as 1/0 once its cell has a number format: the file says which it is
            original = openpyxl.load_workbook(path, data_only=True)
            for sheet, coord in flags:
                if isinstance(original[sheet][coord].value, bool):
                    values[(sheet, coord)] = bool(values[(sheet, coord)])
        return values
