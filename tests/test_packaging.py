"""Packaging: a wheel carries the catalogs and templates, and an installed `kalkulator` builds from any folder.

The wheel is built offline from a copy of the working tree (`pip wheel --no-build-isolation`) and installed into a
fresh venv that borrows the dependencies from the interpreter running the tests (a .pth file naming its
site-packages), so the installed command runs from site-packages, away from the checkout's assumptions/ and
templates/. `--system-site-packages` would not do: run from inside a virtualenv, it lends the *base* interpreter's
packages, not the virtualenv's.
"""

from __future__ import annotations

import csv
import os
import shutil
import site
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import openpyxl
import pytest
from click.testing import CliRunner

from kalkulator.catalog import SCHEMAS, load_catalog
from kalkulator.cli import main
from kalkulator.io.paths import CALIBRATION_DIR, CATALOG_DIR, TEMPLATES_DIR, default_out_dir, source_checkout

ROOT = Path(__file__).resolve().parent.parent
GPU, PRICE = "RTX 4090 24GB", 1777


def test_checkout_uses_its_own_folders():
    assert source_checkout() == ROOT
    assert (CATALOG_DIR, CALIBRATION_DIR, TEMPLATES_DIR) == (
        ROOT / "assumptions",
        ROOT / "assumptions" / "calibration",
        ROOT / "templates",
    )
    assert default_out_dir() == ROOT / "dist"


def test_every_code_package_is_listed_for_the_wheel():
    """A subpackage missing from pyproject's explicit list installs without its modules (CI caught
    kalkulator.workbook.blocks only in the slow wheel test); this quick check names the missing one."""
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    on_disk = {".".join(init.parent.relative_to(ROOT).parts) for init in (ROOT / "kalkulator").rglob("__init__.py")} | {
        ".".join(folder.relative_to(ROOT).parts)
        for folder in (ROOT / "kalkulator").rglob("*")
        if folder.is_dir() and folder.name != "__pycache__" and any(folder.glob("*.py"))
    }
    assert on_disk - listed == set()


def test_catalog_export_copies_every_catalog_and_refuses_to_overwrite(tmp_path):
    folder = tmp_path / "mine"
    result = CliRunner().invoke(main, ["catalog", "export", str(folder)])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in folder.iterdir()) == sorted([s.file for s in SCHEMAS] + ["english"])
    assert all((folder / s.file).read_bytes() == (CATALOG_DIR / s.file).read_bytes() for s in SCHEMAS)
    assert load_catalog(folder)["gpu"].names == load_catalog()["gpu"].names

    (folder / "gpus.csv").write_text("edited", encoding="utf-8")
    again = CliRunner().invoke(main, ["catalog", "export", str(folder)])
    assert again.exit_code == 2
    assert "gpus.csv" in again.output and "--force" in again.output
    assert (folder / "gpus.csv").read_text(encoding="utf-8") == "edited"
    forced = CliRunner().invoke(main, ["catalog", "export", str(folder), "--force"])
    assert forced.exit_code == 0, forced.output
    assert (folder / "gpus.csv").read_bytes() == (CATALOG_DIR / "gpus.csv").read_bytes()


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """A wheel built from a copy of the working tree (tests/ and dist/ included, so excluding them is tested)."""
    tmp = tmp_path_factory.mktemp("wheel")
    source = tmp / "src"
    junk = shutil.ignore_patterns(".git", "__pycache__", "*.egg-info", "build", ".*cache", ".hypothesis", ".benchmarks")
    shutil.copytree(ROOT, source, ignore=junk)
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "--no-build-isolation", "--no-index"]
        + ["-q", "-w", str(tmp / "out")],
        check=True,
        env=_env(),
    )
    (built,) = (tmp / "out").glob("kalkulator-*.whl")
    return built


@pytest.fixture(scope="module")
def kalkulator_bin(wheel, tmp_path_factory) -> Path:
    """The `kalkulator` script of a fresh venv holding only the wheel (dependencies come from this environment)."""
    venv = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    _borrow_site_packages(python)
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index", "--ignore-installed", str(wheel)],
        check=True,
        env=_env(),
    )
    where = _python_says(python, "import kalkulator.io.paths as p; print(p.__file__); print(p.source_checkout())", venv)
    where = where.split("\n")
    assert Path(where[0]).is_relative_to(venv) and where[1] == "None", where  # the installed copy, not the checkout
    return venv / "bin" / "kalkulator"


def _borrow_site_packages(python: Path) -> None:
    """Let the venv of `python` import what the running interpreter can (its site-packages, after the venv's own).

    The folders are listed plainly, so their own .pth files are not run: an editable install of the checkout stays
    out of the venv, and the installed wheel is the only kalkulator it sees.
    """
    own = _python_says(python, "import site; print(site.getsitepackages()[0])").strip()
    lent = [*site.getsitepackages(), *([site.getusersitepackages()] if site.ENABLE_USER_SITE else [])]
    Path(own, "borrowed.pth").write_text("".join(f"{p}\n" for p in lent if Path(p).is_dir()), encoding="utf-8")


def _python_says(python: Path, code: str, cwd: Path | None = None) -> str:
    """What `python -c code` prints."""
    return subprocess.run(
        [str(python), "-c", code], capture_output=True, text=True, check=True, env=_env(), cwd=cwd
    ).stdout


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    return env | {"PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_ROOT_USER_ACTION": "ignore"}


def _run(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    result = subprocess.run(list(args), capture_output=True, text=True, cwd=cwd, env=_env())
    assert result.returncode == 0, result.stdout + result.stderr
    return result


def _gpu_rows(path: Path, gpu: str) -> list[tuple]:
    """The values of every workbook row, on any sheet, that names the GPU (its catalog row among them)."""
    wb = openpyxl.load_workbook(path)
    return [row for ws in wb.worksheets for row in ws.iter_rows(values_only=True) if gpu in row]


def test_wheel_holds_catalogs_and_templates_but_no_tests_or_dist(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    for schema in SCHEMAS:
        assert f"kalkulator/_data/assumptions/{schema.file}" in names
    for name in ("calibration/measured_tps.csv", "calibration/measured_2025_builds.csv", "english/gpus.csv"):
        assert f"kalkulator/_data/assumptions/{name}" in names
    for name in ("workbook.toml", "guide.toml"):
        assert f"kalkulator/_data/templates/{name}" in names
    assert "kalkulator/cli/__init__.py" in names and "kalkulator/preview/templates/preview.html" in names
    assert "kalkulator/preview/templates/runtime.js" in names  # the preview page's formula runtime
    tops = {n.split("/")[0] for n in names}
    assert tops == {"kalkulator", wheel.name.split("-py")[0] + ".dist-info"}, tops  # no tests/, dist/, scripts/
    assert not [n for n in names if n.endswith(".xlsx") or "/tests/" in n or n.startswith("tests/")]


@pytest.mark.slow
def test_installed_command_builds_and_computes_outside_the_checkout(kalkulator_bin, tmp_path):
    out = tmp_path / "x"
    _run(tmp_path, str(kalkulator_bin), "build", "--out", str(out))
    assert sorted(p.name for p in out.iterdir()) == ["kalkulator-en.xlsx", "kalkulator.xlsx", "preview.html"]
    shipped = load_catalog()["gpu"].find(GPU)["price_usd"]
    assert shipped != PRICE
    rows = _gpu_rows(out / "kalkulator.xlsx", GPU)
    assert any(shipped in row for row in rows) and not any(PRICE in row for row in rows)
    result = _run(tmp_path, str(kalkulator_bin), "hitung", "--model", "Llama-3.1-8B", "--gpu", GPU, "--quant", "Q4_K_M")
    assert "decode_tok_s" in result.stdout


@pytest.mark.slow
def test_installed_user_edits_a_price_and_rebuilds(kalkulator_bin, tmp_path):
    mine = tmp_path / "mine"
    _run(tmp_path, str(kalkulator_bin), "catalog", "export", str(mine))
    with open(mine / "gpus.csv", newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        fields, rows = reader.fieldnames, list(reader)
    (row,) = [r for r in rows if r["name"] == GPU]
    row.update(price_usd=str(PRICE), source="quote from a local reseller", as_of="2025-11-30")
    with open(mine / "gpus.csv", "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=fields, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    _run(tmp_path, str(kalkulator_bin), "build", "--lang", "id", "--catalog", str(mine))  # default out: ./dist
    assert sorted(p.name for p in (tmp_path / "dist").iterdir()) == ["kalkulator.xlsx"]
    rows = _gpu_rows(tmp_path / "dist" / "kalkulator.xlsx", GPU)
    assert any(PRICE in row and "quote from a local reseller" in row for row in rows), rows
