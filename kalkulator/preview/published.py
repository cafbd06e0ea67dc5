"""The published measurement beside each preview setup: for every GPU and format measured on the same GPU with the
same model or one of the same architecture, the measurement `kalkulator hitung` lists first at the default
settings, with the engine's estimate for the measured setup.

Computed when the page is built (the choice of the nearest measurement is Python, not a formula tree, so it is
not rendered to JavaScript); the page shows it when a setup's GPU, model and format match.
"""

from __future__ import annotations

from kalkulator.calibration.measurements import ESTIMATE_OF, FIXED_ESTIMATE, estimate_name, load_published, nearest
from kalkulator.catalog import Catalog
from kalkulator.engine.arrays import evaluate_many, rows
from kalkulator.engine.graph import Graph
from kalkulator.scenario import resolve

# What `nearest` reads of a scenario.
NEAREST_READS = (
    "gpu_name", "gpu_mem_bandwidth_gbs", "gpu_backend", "gpu_memory_type", "model_name", "model_params_b",
    "model_active_params_b", "model_layers", "model_hidden", "model_heads", "model_kv_heads", "model_head_dim",
    "quant_name", "weight_bits_per_param", "n_gpus", "engine", "context_tokens", "prompt_tokens", "output_tokens",
)  # fmt: skip


SHAPE = ("layers", "hidden", "heads", "kv_heads", "head_dim")


def triple_key(gpu: str, model: str, quant: str) -> str:
    return f"{gpu}|{model}|{quant}"


def published_near(catalog: Catalog, graph: Graph) -> dict[str, dict]:
    """`gpu|model|quant` → the nearest published measurement of that GPU and format (same model or architecture)."""
    published = load_published(catalog)
    on_gpu: dict[str, list] = {}
    for m in published:
        on_gpu.setdefault(m.gpu_name.lower(), []).append(m)  # only a same-GPU measurement is kept (tier 0)
    # A model can match at the same model or architecture only with the measured model's shape: a prefilter that
    # spares evaluating the others (nearest() still decides).
    models = catalog["model"]
    shape_of = {r["name"]: tuple(r[k] for k in SHAPE) for r in (models.find(n) for n in models.names)}
    by_shape: dict[tuple, list[str]] = {}
    for name, shape in shape_of.items():
        by_shape.setdefault(shape, []).append(name)
    measured_shapes = {}
    for m in published:
        measured_shapes.setdefault((m.gpu_name, m.quant_name), set()).add(shape_of[models.find(m.model_name)["name"]])
    triples = [
        (g, model, q)
        for (g, q), shapes in sorted(measured_shapes.items())
        for shape in sorted(shapes, key=str)
        for model in by_shape[shape]
    ]
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
    wanted = sorted({*ESTIMATE_OF.values(), FIXED_ESTIMATE})
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
            "estimate_tok_s": float(est[estimate_name(m.metric, m.batch)]),
            "source": m.source.split("://", 1)[-1],  # shown as text: the page links nowhere
        }
    return out
