"""One Field per catalog column: a bound or label changed in its one place reaches every reader of the column."""

from __future__ import annotations

import json

from click.testing import CliRunner
from test_import import LLAMA_3_8B  # the published config.json, field for field

from kalkulator.catalog import load_catalog
from kalkulator.catalog.domain import Domain
from kalkulator.catalog.importers import limits
from kalkulator.catalog.schema import MODEL, SCHEMAS
from kalkulator.cli import main
from kalkulator.engine.graph import Graph
from kalkulator.quantities import QUANTITIES
from kalkulator.quantities.domains import DOMAINS, PLAUSIBLE, domain_of
from kalkulator.workbook.layout import build_layout, override_key


def test_one_model_field_sets_the_cli_the_importer_and_the_workbook(monkeypatch, tmp_path):
    # The shipped catalog's widest head is 256 (Gemma); a bound of 512 keeps it valid and refuses 1,024.
    runner = CliRunner()
    config = tmp_path / "config.json"  # Llama 3 8B with an explicit head_dim of 1,024 (4 × its 4096 / 32)
    config.write_text(json.dumps(LLAMA_3_8B | {"head_dim": 1024}), encoding="utf-8")
    q = next(q for q in QUANTITIES if q.name == "model_head_dim")
    assert domain_of(q).problem(1024) is None and limits()["head_dim"] >= 1024  # the shipped bound is 100,000
    head_dim = MODEL.field("head_dim")
    monkeypatch.setattr(head_dim, "domain", Domain(1, 512, integer=True))
    monkeypatch.setattr(head_dim, "label_en", "Width of one head")

    result = runner.invoke(main, ["hitung", "--set", "model_head_dim=1024"])
    assert result.exit_code == 2
    assert "model_head_dim must be a whole number from 1 to 512, got '1024'" in result.stderr

    result = runner.invoke(main, ["hitung", "--config", str(config)])
    assert result.exit_code == 2
    assert "head_dim: 1,024 is more than any model has (at most 512)" in result.stderr

    layout = build_layout(Graph(QUANTITIES), load_catalog(), "en")
    cell = layout.inputs[override_key("model_head_dim")]  # the manual-value cell beside the looked-up value
    assert layout.domains[cell] == Domain(1, 512, integer=True)
    headers = [c.value for c in layout.cells if c.sheet == "Model Catalog" and c.style == "header"]
    assert "Width of one head" in headers


def test_no_catalog_column_keeps_a_second_bound():
    # A quantity reading a catalog column takes the column's domain and plausible range; the tables hold the rest.
    read = {q.name for q in QUANTITIES if q.catalog_column}
    assert not read & set(DOMAINS), read & set(DOMAINS)
    assert not read & set(PLAUSIBLE), read & set(PLAUSIBLE)
    q = next(q for q in QUANTITIES if q.name == "model_hidden")
    assert domain_of(q) == Domain(1, 1_000_000, integer=True)  # hidden ≤ 10⁶ (the importer allowed 10⁷)


def test_the_measurement_table_bounds_its_scenario_columns_as_the_scenario_does():
    """A published measurement is a scenario: its GPU count, batch, offload share and context obey the typed
    scenario's bounds; its prompt and output may be 0 (a tg row has no prompt, a pp row no output) below the same
    upper bounds."""
    from kalkulator.catalog.schema import MEASURED

    scenario = {q.name: q for q in QUANTITIES}
    for name in ("n_gpus", "concurrent_users", "cpu_offload_frac", "prefix_cache_hit_frac", "context_tokens"):
        assert MEASURED.field(name).domain == domain_of(scenario[name]), name
    for name in ("prompt_tokens", "output_tokens"):
        measured, typed = MEASURED.field(name).domain, domain_of(scenario[name])
        assert (measured.low, measured.high, measured.integer) == (0, typed.high, True), name
    assert domain_of(scenario["n_gpus"]) == Domain(1, 1024, integer=True)  # a server's worth, not 10¹⁵


def test_every_field_is_described_and_cited_by_a_text_column():
    for schema in SCHEMAS:
        names = {f.name: f for f in schema.fields}
        for f in schema.fields:
            assert f.label_id and f.label_en, (schema.key, f.name)
            assert (f.domain is not None) == (f.kind in ("number", "int")), (schema.key, f.name)
            assert f.kind != "int" or f.domain.integer, (schema.key, f.name)
            assert names[f.source].kind == "text", (schema.key, f.name, f.source)
            if f.plausible:
                low, high, why = f.plausible
                assert f.domain.problem(low) is None and f.domain.problem(high) is None and why


# Lookups that are not simply their column keep their own words: a pick between two columns, a row's name.
OWN_WORDS = {
    "engine_bandwidth_efficiency_frac",
    "prefill_efficiency_frac",
    "speed_params_name",
    "vision_encode_efficiency_frac",  # the prefill column read for the vision encoder
}
API_PRICES = ("input_usd_per_1m", "output_usd_per_1m", "cached_input_usd_per_1m", "batch_discount_frac")


def test_every_lookup_is_labelled_by_its_field():
    """Every quantity that simply reads a catalog column (in any chain: deployment, cost, energy, TCO, API) carries
    its Field's label and doc; the two API price chains add which API they price."""
    from kalkulator.catalog.schema import field_of

    checked = 0
    for q in QUANTITIES:
        if q.catalog_column is None or q.name in OWN_WORDS:
            continue
        if q.source != "Katalog {}: kolom {}".format(*q.catalog_column):
            continue  # a formula that also reads the column (image_tokens, gpus_per_server), not a lookup
        f = field_of(*q.catalog_column)
        if q.catalog_column[0] == "api" and q.catalog_column[1] in API_PRICES:
            what_id, what_en = (
                ("premium", "premium") if q.name.startswith("premium_") else ("model yang sama", "same model")
            )
            assert (q.label_id, q.label_en) == (f"{f.label_id} ({what_id})", f"{f.label_en} ({what_en})"), q.name
            assert q.doc == f.doc, q.name
        else:
            assert (q.label_id, q.label_en, q.doc) == (f.label_id, f.label_en, f.doc), q.name
        checked += 1
    assert checked >= 40, checked  # the GPU, model, workload, deployment, cloud, hosting, tariff and API lookups
