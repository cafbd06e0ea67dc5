"""Fonts for the print tests: LibreOffice with a private fontconfig, once without Carlito and once with it.

Calibri (the workbook's font) is missing on Linux; LibreOffice then takes the metric-compatible Carlito when it is
installed (Debian's libreoffice recommends fonts-crosextra-carlito) and DejaVu Sans otherwise, whose wider letters
lay the same columns out wider. The printout must be readable either way, so the print tests run under both:
FONTCONFIG_FILE points LibreOffice at a fonts.conf that includes the system's configuration and either rejects
Carlito or adds a folder holding it (the system's copy, else the Debian package unpacked into a temporary folder by
`apt-get download` and `dpkg -x`). Nothing is installed or removed system-wide.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

FONT_SETUPS = ("fallback", "carlito")
_CONF = """<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig>
  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>
  {dirs}
  <cachedir>{cache}</cachedir>
  {reject}
</fontconfig>
"""
_REJECT = """<selectfont><rejectfont><glob>*Carlito*</glob><glob>*carlito*</glob>
    <pattern><patelt name="family"><string>Carlito</string></patelt></pattern></rejectfont></selectfont>"""


def system_carlito() -> list[Path]:
    """Carlito's files known to the system's fontconfig (empty when it is not installed)."""
    if shutil.which("fc-list") is None:
        return []
    out = subprocess.run(["fc-list", "Carlito", "file"], capture_output=True, text=True).stdout
    return [Path(line.split(":")[0]) for line in out.splitlines() if line.strip()]


def unpacked_carlito(work: Path) -> Path | None:
    """fonts-crosextra-carlito unpacked into `work` (apt-get download + dpkg -x), or None when apt cannot get it."""
    if shutil.which("apt-get") is None or shutil.which("dpkg") is None:
        return None
    work.mkdir(parents=True, exist_ok=True)
    try:
        subprocess.run(
            ["apt-get", "download", "fonts-crosextra-carlito"], cwd=work, capture_output=True, timeout=120, check=True
        )
        (deb,) = work.glob("fonts-crosextra-carlito_*.deb")
        subprocess.run(["dpkg", "-x", str(deb), str(work / "root")], capture_output=True, timeout=60, check=True)
    except (subprocess.SubprocessError, ValueError, OSError):
        return None
    fonts = sorted((work / "root").rglob("Carlito-Regular.ttf"))
    return fonts[0].parent if fonts else None


def font_env(setup: str, work: Path) -> dict[str, str] | None:
    """The environment that gives LibreOffice the font `setup` (fallback: no Carlito; carlito: Carlito), or None
    when Carlito is neither installed nor obtainable."""
    work.mkdir(parents=True, exist_ok=True)
    dirs, reject = "", ""
    if setup == "fallback":
        reject = _REJECT
    elif not system_carlito():
        folder = unpacked_carlito(work / "carlito")
        if folder is None:
            return None
        dirs = f"<dir>{folder}</dir>"
    conf = work / "fonts.conf"
    conf.write_text(_CONF.format(dirs=dirs, cache=work / "fc-cache", reject=reject), encoding="utf-8")
    return {"FONTCONFIG_FILE": str(conf)}


def fonts_used(pdf: Path) -> set[str]:
    """The font names embedded in a PDF (pdffonts), e.g. {"Carlito", "DejaVuSans"}."""
    out = subprocess.run(["pdffonts", str(pdf)], capture_output=True, text=True, check=True).stdout
    return {line.split()[0].split("+")[-1].split("-")[0] for line in out.splitlines()[2:] if line.strip()}
