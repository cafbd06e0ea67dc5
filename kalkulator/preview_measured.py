"""The published measurement beside each preview setup: for every GPU and format measured on the same GPU with the
same model or one of the same architecture, the measurement `kalkulator hitung` lists first at the default
settings, with the engine's estimate for the measured setup.

Computed when the page is built (the choice of the nearest measurement is Python, not a formula tree, so it is
not rendered to JavaScript); the page shows it when a setup's GPU, model and format match.
"""

from __future__ import annotations

from kalkulator.arrays import evaluate_many, rows
from kalkulator.catalog import Catalog
from kalkulator.graph import Graph
from kalkulator.measurements import ESTIMATE_OF, load_published, nearest
from kalkulator.scenario import resolve

# What `nearest` reads of a scenario.
NEAREST_READS = (
    "gpu_name", "gpu_mem_bandwidth_gbs", "gpu_backend", "gpu_memory_type", "model_name", "model_params_b",
    "model_active_params_b", "model_layers", "model_hidden", "model_heads", "model_kv_heads", "model_head_dim",
    "quant_name", "weight_bits_per_param", "n_gpus", "engine", "context_tokens", "prompt_tokens", "output_tokens",
)  # fmt: skip


def triple_key(gpu: str, model: str, quant: str) -> str:
    return f"{gpu}|{model}|{quant}"


def published_near(catalog: Catalog, graph: Graph) -> dict[str, dict]:
    """`gpu|model|quant` → the nearest published measurement of that GPU and format (same model or architecture)."""
    published = load_published(catalog)
    on_gpu: dict[str, list] = {}
    for m in published:
        on_gpu.setdefault(m.gpu_name.lower(), []).append(m)  # only a same-GPU measurement is kept (tier 0)
    pairs = sorted({(m.gpu_name, m.quant_name) for m in published})
    triples = [(g, model, q) for g, q in pairs for model in catalog["model"].names]
    scenarios = [resolve(graph, catalog, {"gpu_name": g, "model_name": m, "quant_name": q}) for g, m, q in triples]
    columns = catalog.columns()
    values = rows(evaluate_many(graph, scenarios, columns, names=NEAREST_READS), len(scenarios), NEAREST_READS)
    chosen = {}
    for triple, v in zip(triples, values, strict=True):
        found = nearest(v, catalog, on_gpu[triple[0].lower()], 1)
        if found and found[0].tiers[0] == 0 and found[0].tiers[1] <= 1 and found[0].tiers[2] == 0:
            chosen[triple] = found[0].measurement
    measured = list(chosen.values())
    settings = [resolve(graph, catalog, m.settings()) for m in measured]
    wanted = sorted(set(ESTIMATE_OF.values()))
    estimates = rows(evaluate_many(graph, settings, columns, names=wanted), len(settings), wanted)
    out = {}
    for (g, mo, q), m, est in zip(chosen, measured, estimates, strict=True):
        out[triple_key(g, mo, q)] = {
            "test": m.test,
            "model_name": m.model_name,
            "metric": m.metric,
            "engine": m.engine,
            "n_gpus": m.n_gpus,
            "batch": m.batch,
            "build_year": m.era,
            "measured_tok_s": m.tok_s,
            "estimate_tok_s": float(est[ESTIMATE_OF[m.metric]]),
            "source": m.source.split("://", 1)[-1],  # shown as text: the page links nowhere
        }
    return out
