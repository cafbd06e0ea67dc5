"""`kalkulator preview`: one offline HTML page that streams up to four setups side by side.

The page computes every number it shows in the browser, from the same formula trees as the engine rendered to
JavaScript (kalkulator/engine/js.py), with the catalog columns they read embedded: any catalog model, GPU, format,
engine, GPU count and workload can be chosen. Output is deterministic, so the same catalogs give the same bytes.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from importlib import resources
from pathlib import Path

from kalkulator.catalog import Catalog, load_catalog
from kalkulator.catalog.domain import Domain
from kalkulator.engine.expr import AND, EQ, IF, MAX, Node, R, names_in, safe_div
from kalkulator.engine.graph import Graph
from kalkulator.engine.js import columns_js, program_js, runtime_js, to_js
from kalkulator.io.staging import check_outputs, write_output
from kalkulator.preview.published import published_near
from kalkulator.preview.simulate import (
    CHAT_OK_TOK_S,
    LANGS,
    READING_TOK_S,
    TOKENS_PER_WORD,
    jitter_factors,
    load_sample,
    tokenize,
)
from kalkulator.quantities import QUANTITIES
from kalkulator.quantities.domains import domain_of
from kalkulator.quantities.speed import moe_weight_read_ms
from kalkulator.scenario import ScenarioError, resolve

# What a person chooses, as (URL-fragment key, quantity); blank numbers mean "from the workload preset".
PICKS = (
    ("model", "model_name"),
    ("gpu", "gpu_name"),
    ("quant", "quant_name"),
    ("engine", "engine"),
    ("n_gpus", "n_gpus"),
    ("split", "split_mode"),
    ("workload", "workload_name"),
    ("users", "concurrent_users"),
    ("prompt", "prompt_tokens"),
    ("output", "output_tokens"),
    ("offload", "cpu_offload_frac"),
)
NUMBER_PICKS = ("n_gpus", "concurrent_users", "prompt_tokens", "output_tokens", "cpu_offload_frac")
# The quantities each panel shows (each with data-name and data-value): the key figures of its card first (what
# one person feels on an idle replica, and the money beside it), then the folded table.
KEY_SHOWN = (
    "ttft_idle_s",
    "decode_tok_s",
    "tpot_ms",
    "answer_cost_idr_per_1m_tokens",
    "api_cost_idr_per_1m_tokens",
)
SHOWN = (
    *KEY_SHOWN,
    "api_name",
    "ttft_s",
    "e2e_latency_s",
    "prefill_s",
    "prefill_tok_s",
    "throughput_tok_s",
    "concurrent_users",
    "prompt_tokens",
    "output_tokens",
    "context_tokens",
    "weights_gb",
    "kv_cache_gb_per_user",
    "vram_total_gb",
    "gpu_vram_gb",
    "fits_in_vram",
    "max_concurrent_users",
)
USERS = R("concurrent_users")
# The decode step's parts (ms): its bound (weight and KV reads, or compute), the offloaded weights read from system
# RAM, the engine's fixed cost (per layer, and attention per user) and the multi-GPU exchanges; they add up to
# decode_step_ms (kalkulator.quantities.speed.decode_step).
_MEMORY_LINE = (
    R("memory_bound_step_base_ms")
    + R("memory_bound_step_per_user_ms") * USERS
    + safe_div(moe_weight_read_ms(USERS), R("decode_efficiency_frac"))
)
_COMPUTE_LINE = R("compute_bound_step_base_ms") + R("compute_bound_step_per_user_ms") * USERS
_LINK_MS = R("multi_gpu_step_ms") + USERS * R("multi_gpu_per_user_ms")
_HOST_MS = IF(
    _MEMORY_LINE >= _COMPUTE_LINE,
    safe_div(
        R("weights_read_gb_per_token") * R("cpu_offload_frac") * 1000,
        R("host_mem_bandwidth_gbs") * R("decode_efficiency_frac"),
    ),
    0,
)
_BOUND_MS = R("decode_step_ms") - R("decode_overhead_ms") - _LINK_MS - _HOST_MS
_PREFILL_BUSY = MAX(R("prefill_compute_s"), R("prefill_memory_s")) * R("prefill_pipeline_ratio")
_PREFILL_ALL = _PREFILL_BUSY + R("prefill_exchange_s")
# Page-only values, written as trees over the graph like any formula: the stream's own length (first token at
# TTFT, then n−1 gaps of TPOT; kalkulator.preview.simulate.stream_seconds), on an idle replica and with the queue at the
# workload's load; whether the setup can run at all (a missed latency target still streams, so it can be felt);
# the page's status (a refusal or an input out of range, else OK: fleet and price caveats are `plan`'s); and the
# share of the decode step and of the prefill each bound takes.
PAGE_EXPRS: dict[str, Node] = {
    "stream_s": R("ttft_idle_s") + MAX(R("output_tokens") - 1, 0) * R("tpot_ms") / 1000,
    "ttft_load_s": R("ttft_s") + R("network_overhead_ms") / 1000,
    "queue_wait_s": R("ttft_s") + R("network_overhead_ms") / 1000 - R("ttft_idle_s"),
    "stream_load_s": R("ttft_s")
    + R("network_overhead_ms") / 1000
    + MAX(R("output_tokens") - 1, 0) * R("tpot_at_load_ms") / 1000,
    "streams_flag": AND(
        R("usable_hardware_flag"), R("engine_backend_flag"), R("engine_format_flag"), R("fits_in_vram")
    ),
    "page_status_text": IF(
        AND(
            R("usable_hardware_flag"),
            R("engine_backend_flag"),
            R("engine_format_flag"),
            R("fits_in_vram"),
            EQ(R("input_check_text"), "OK"),
        ),
        "OK",
        R("status_text"),
    ),
    "decode_memory_frac": IF(_MEMORY_LINE >= _COMPUTE_LINE, safe_div(_BOUND_MS, R("decode_step_ms")), 0),
    "decode_compute_frac": IF(_MEMORY_LINE >= _COMPUTE_LINE, 0, safe_div(_BOUND_MS, R("decode_step_ms"))),
    "decode_host_frac": safe_div(_HOST_MS, R("decode_step_ms")),
    "decode_engine_frac": safe_div(R("decode_overhead_ms"), R("decode_step_ms")),
    "decode_link_frac": safe_div(_LINK_MS, R("decode_step_ms")),
    "prefill_compute_frac": IF(
        R("prefill_compute_s") >= R("prefill_memory_s"), safe_div(_PREFILL_BUSY, _PREFILL_ALL), 0
    ),
    "prefill_memory_frac": IF(
        R("prefill_compute_s") >= R("prefill_memory_s"), 0, safe_div(_PREFILL_BUSY, _PREFILL_ALL)
    ),
    "prefill_link_frac": safe_div(R("prefill_exchange_s"), _PREFILL_ALL),
}
JITTER, SEED, JITTER_GAPS = 0.15, 0, 1000
DEFAULT_PANELS = (
    {"model": "Llama-3.1-8B", "gpu": "RTX 4090 24GB", "quant": "Q4_K_M", "engine": "llama.cpp"},
    {"model": "Llama-3.3-70B", "gpu": "L40S 48GB", "quant": "FP8", "engine": "vllm", "n_gpus": "2", "users": "16"},
)
_PLACEHOLDERS = ("__KALKULATOR_DATA__", "__KALKULATOR_PROGRAM__")


def base_settings(catalog: Catalog, graph: Graph, notes: list[str] | None = None) -> dict:
    """The engine's default choices in catalog spelling; a default the catalog lacks becomes its first row."""
    chosen = {}
    for q in graph.inputs:
        if (
            q.choices
            and not q.optional
            and isinstance(q.default, str)
            and catalog[q.choices[0]].find(q.default) is None
        ):
            chosen[q.name] = catalog[q.choices[0]].names[0]
            if notes is not None:
                notes.append(
                    f"preview: the default {q.name} {q.default!r} is not in the catalog; the page starts "
                    f"with {chosen[q.name]!r}"
                )
    return resolve(graph, catalog, chosen)


def domain_data(domain: Domain) -> dict:
    """A typed number's domain as the page checks it (the CLI's bounds, and its English wording of them)."""
    return {
        "low": domain.low,
        "high": domain.high,
        "integer": domain.integer,
        "above": domain.above,
        "describe": domain.describe(),
    }


def page_data(catalog: Catalog, graph: Graph, notes: list[str] | None = None) -> dict:
    """Everything the page needs besides the compiled formulas: choices, labels, defaults and pacing data."""
    base = base_settings(catalog, graph, notes)
    options = {}
    for key, name in PICKS:
        q = graph[name]
        if q.choices:
            options[key] = list(catalog[q.choices[0]].names)
        elif q.options:
            options[key] = list(q.options)
    return {
        "picks": [[key, name] for key, name in PICKS],
        "number_picks": list(NUMBER_PICKS),
        "from_preset": [name for _, name in PICKS if graph[name].overridable],  # blank = what the preset gives
        "options": options,
        "base": {k: v for k, v in base.items() if k in graph and graph[k].is_input},
        "shown": list(SHOWN),
        "key_shown": list(KEY_SHOWN),
        "page_values": list(PAGE_EXPRS),
        "domains": {name: domain_data(domain_of(graph[name])) for name in NUMBER_PICKS},
        "labels": {n: {"id": graph[n].label_id, "en": graph[n].label_en, "unit": graph[n].unit.label} for n in SHOWN},
        "pick_labels": {key: {"id": graph[n].label_id, "en": graph[n].label_en} for key, n in PICKS},
        "defaults": [d for d in DEFAULT_PANELS if all(d[k] in options[k] for k in ("model", "gpu", "quant", "engine"))],
        "measured": published_near(catalog, graph),
        "jitter": jitter_factors(JITTER_GAPS, JITTER, SEED),
        "samples": {lang: tokenize(load_sample(lang), TOKENS_PER_WORD[lang]) for lang in LANGS},
        "reading_tok_s": list(READING_TOK_S),
        "chat_ok_tok_s": list(CHAT_OK_TOK_S),
    }


def program(catalog: Catalog, graph: Graph) -> str:
    """The JavaScript that computes the shown quantities: upstream formulas in dependency order, page values,
    the catalog columns they read and the runtime."""
    steps, used = program_js(graph, (*SHOWN, *sorted(set().union(*map(names_in, PAGE_EXPRS.values())))))
    extra = ",".join(f"{json.dumps(name)}:{to_js(expr)}" for name, expr in PAGE_EXPRS.items())
    return "\n".join(
        [
            runtime_js(),
            f"const PROGRAM={steps};",
            f"const PAGE_EXPRS={{{extra}}};",
            f"const COLUMNS={columns_js(catalog.columns(), used)};",
        ]
    )


def render(catalog: Catalog | None = None, notes: list[str] | None = None) -> str:
    """The HTML page with the data (JSON) and the compiled formulas (JavaScript) embedded.

    Raises ScenarioError when the catalog lacks the engine's default choices (the page starts from them).
    """
    catalog = catalog or load_catalog()
    graph = Graph(QUANTITIES)
    template = (resources.files("kalkulator") / "preview" / "templates" / "preview.html").read_text(encoding="utf-8")
    for placeholder in _PLACEHOLDERS:
        if template.count(placeholder) != 1:
            raise ValueError(f"preview template must contain {placeholder} exactly once")
    try:
        data = page_data(catalog, graph, notes)
    except ScenarioError as exc:
        raise ScenarioError(f"preview: {exc}") from None
    if not data["defaults"] and notes is not None:
        notes.append("preview: the default setups are not in the catalogs; the page opens with the first choices")
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False).replace("<", "\\u003c")
    code = program(catalog, graph)
    if "</" in code:
        raise ValueError("compiled formulas must not close the <script> block")
    return template.replace(_PLACEHOLDERS[0], text).replace(_PLACEHOLDERS[1], code)


def write_preview(
    path: Path, catalog: Catalog | None = None, notes: list[str] | None = None, inputs: Iterable[Path | None] = ()
) -> int:
    """Write the page atomically (kalkulator.io.staging.write_output); returns its size in bytes.

    Raises ScenarioError for a catalog the page cannot use, OutputError for a path it cannot or must not write
    (checked before the page is made; `inputs` are the files it was made from).
    """
    inputs = tuple(inputs)
    check_outputs(path.parent, (path.name,), inputs)
    data = render(catalog, notes).encode("utf-8")
    done = write_output(path, data, inputs)
    if notes is not None:
        notes.extend(done)
    return len(data)
