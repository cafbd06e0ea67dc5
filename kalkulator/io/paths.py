"""Where the catalogs and templates are read from and where `kalkulator build` writes: the one place for it.

In a source checkout (or an editable install of one) these are the repository's assumptions/, templates/ and dist/,
the folders maintainers edit. An installed wheel carries copies of assumptions/ and templates/ as package data
under kalkulator/_data/ (pyproject.toml maps them there) and builds into ./dist of the current directory.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

_REPOSITORY = Path(__file__).resolve().parents[2]


def source_checkout() -> Path | None:
    """The repository this package runs from, or None when it runs from an installed wheel."""
    if all((_REPOSITORY / name).exists() for name in ("pyproject.toml", "assumptions", "templates")):
        return _REPOSITORY
    return None


def _shipped(folder: str) -> Path:
    """assumptions/ or templates/ of the checkout, else the copy packaged in kalkulator/_data/."""
    root = source_checkout()
    if root is not None:
        return root / folder
    packaged = resources.files("kalkulator") / "_data" / folder
    if not isinstance(packaged, Path):
        raise RuntimeError(f"kalkulator is installed as a zip archive; cannot read its {folder}/ folder")
    return packaged


CATALOG_DIR = _shipped("assumptions")
CALIBRATION_DIR = CATALOG_DIR / "calibration"
TEMPLATES_DIR = _shipped("templates")


def default_out_dir() -> Path:
    """dist/ of the source checkout, else ./dist in the current directory."""
    root = source_checkout()
    return root / "dist" if root is not None else Path.cwd() / "dist"
