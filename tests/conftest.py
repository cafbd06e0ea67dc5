"""Shared fixtures: the shipped catalog, the graph and a built workbook on disk."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from hypothesis import settings

from kalkulator.build import build
from kalkulator.catalog import load_catalog
from kalkulator.graph import Graph
from kalkulator.paths import CATALOG_DIR
from kalkulator.quantities import QUANTITIES
from kalkulator.scenario import compute

# In CI the property tests replay the same examples every run: a failure there is reproducible, never flaky.
settings.register_profile("ci", derandomize=True)
if os.environ.get("CI") == "true":
    settings.load_profile("ci")


@pytest.fixture(scope="session")
def catalog():
    return load_catalog()


@pytest.fixture(scope="session")
def graph():
    return Graph(QUANTITIES)


@pytest.fixture(scope="session")
def calc(catalog):
    """compute(settings) on the shipped catalogs."""
    return lambda **settings: compute(settings, catalog)


@pytest.fixture(scope="session")
def built_id(catalog):
    return build("id", catalog)


@pytest.fixture(scope="session")
def workbook_path(built_id, tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("wb") / "kalkulator.xlsx"
    path.write_bytes(built_id.data)
    return path


@pytest.fixture()
def catalog_copy(tmp_path) -> Path:
    """A writable copy of the shipped catalogs."""
    target = tmp_path / "assumptions"
    shutil.copytree(CATALOG_DIR, target)
    return target
