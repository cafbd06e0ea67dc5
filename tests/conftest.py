"""Shared fixtures: the shipped catalog, the graph and the built workbooks (each built once per run)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from hypothesis import settings
from hypothesis import strategies as st

from kalkulator.catalog import load_catalog
from kalkulator.engine.graph import Graph
from kalkulator.io.paths import CATALOG_DIR
from kalkulator.quantities import QUANTITIES
from kalkulator.quantities.domains import domain_of, settable_numbers
from kalkulator.scenario import compute
from kalkulator.workbook.build import build

# In CI the property tests replay the same examples every run: a failure there is reproducible, never flaky.
settings.register_profile("ci", derandomize=True)
if os.environ.get("CI") == "true":
    settings.load_profile("ci")


# https://huggingface.co/meta-llama/Meta-Llama-3-8B/blob/main/config.json (the fields the importer reads)
LLAMA_3_8B = {
    "architectures": ["LlamaForCausalLM"],
    "attention_bias": False,
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "max_position_embeddings": 8192,
    "num_attention_heads": 32,
    "num_hidden_layers": 32,
    "num_key_value_heads": 8,
    "tie_word_embeddings": False,
    "vocab_size": 128256,
}


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
def built_en(catalog):
    return build("en", catalog)


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


# ---- hypothesis strategies over the declared input domain (kalkulator/quantities/domains.py) ----

TYPED = [q for q in settable_numbers(QUANTITIES) if q.is_input]


def _number(q) -> st.SearchStrategy:
    d = domain_of(q)
    low = d.low + (1 if d.integer else max(abs(d.low) * 1e-9, 1e-9)) if d.above else d.low
    if d.integer:
        inner = st.integers(int(low), int(d.high))
    else:
        inner = st.floats(low, d.high, allow_nan=False, allow_infinity=False)
    return st.one_of(st.just(low), st.just(d.high), inner)  # the edges are drawn often


def domain_scenarios(catalog) -> st.SearchStrategy:
    choices = {q.name: st.sampled_from(catalog[q.choices[0]].names) for q in QUANTITIES if q.choices and q.is_input}
    options = {q.name: st.sampled_from(q.options) for q in QUANTITIES if q.options and q.is_input}
    numbers = {q.name: _number(q) for q in TYPED}
    return st.fixed_dictionaries({}, optional={**choices, **options, **numbers})
