"""`kalkulator preview`: one offline HTML page that streams up to four configurations side by side.

The page holds no formula: every number is computed here by the engine (compute()) over a curated grid of
models × GPUs × quantizations × users and embedded as JSON; the page only looks values up and paces text.
Output is deterministic (no timestamps), so the same catalogs always give the same bytes.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

from kalkulator.catalog import Catalog, load_catalog
from kalkulator.expr import XlError
from kalkulator.graph import Graph
from kalkulator.quantities import QUANTITIES
from kalkulator.scenario import ScenarioError, resolve
from kalkulator.simulate import (
    CHAT_OK_TOK_S,
    LANGS,
    READING_TOK_S,
    TOKENS_PER_WORD,
    jitter_factors,
    sample_tokens,
    stream_seconds,
)
from kalkulator.staging import write_outputs

MODELS = (
    "Llama-3.2-3B",
    "Llama-3.1-8B",
    "Qwen3-8B",
    "Gemma-3-12B",
    "Mistral-Small-24B",
    "Qwen3-30B-A3B",
    "Qwen3-32B",
    "Llama-3.3-70B",
)
GPUS = (
    "RTX 3060 12GB",
    "RTX 4060 Ti 16GB",
    "RTX 3090 24GB",
    "RTX 4090 24GB",
    "RTX 5090 32GB",
    "L4 24GB",
    "L40S 48GB",
    "A100 SXM 80GB",
    "H100 SXM 80GB",
    "DGX Spark GB10 128GB",
    "Apple M4 Max 128GB",
    "CPU DDR5-5600 dual-channel",
)
QUANTS = ("Q4_K_M", "Q8_0", "F16")
USERS = (1, 4, 16)
# Fixed for the whole grid; shown on the page.
SETTINGS = {
    "engine": "llama.cpp",
    "prompt_tokens": 1000,
    "output_tokens": 300,
    "context_tokens": 4096,
    "load_requests_per_s": 0,
}
# Engine quantities embedded per configuration, in this order; `stream_s` (TTFT + (n−1)·TPOT) is appended.
FIELDS = ("fits_in_vram", "ttft_s", "decode_tok_s", "tpot_ms", "throughput_tok_s", "vram_total_gb", "gpu_vram_gb")
JITTER, SEED = 0.15, 0
DEFAULT_PANELS = ("Llama-3.1-8B|RTX 4090 24GB|Q4_K_M|1", "Llama-3.3-70B|Apple M4 Max 128GB|Q4_K_M|1")
_PLACEHOLDER = "__KALKULATOR_DATA__"


def config_key(model: str, gpu: str, quant: str, users: int) -> str:
    """The lookup key of one configuration, also the URL-hash syntax: model|gpu|quant|users."""
    return f"{model}|{gpu}|{quant}|{users}"


def _present(catalog: Catalog, table: str, names: tuple[str, ...], what: str, notes: list[str] | None) -> list[str]:
    """The page's `names` that the catalog holds (its spelling); the others are left out with a note."""
    found = [row["name"] for row in (catalog[table].find(n) for n in names) if row is not None]
    missing = [n for n in names if catalog[table].find(n) is None]
    if not found:
        raise ScenarioError(f"preview: none of the page's {what} is in the {table} catalog ({', '.join(names)})")
    if missing and notes is not None:
        notes.append(f"preview: {what} not in the {table} catalog, left out of the page: {', '.join(missing)}")
    return found


def axes(catalog: Catalog, notes: list[str] | None = None) -> tuple[list[str], list[str], list[str]]:
    """The models, GPUs and quantizations of the page that the catalog holds.

    Raises ScenarioError when a whole axis or the page's engine is missing from the catalog.
    """
    if catalog["engine"].find(SETTINGS["engine"]) is None:
        raise ScenarioError(f"preview: the page's engine {SETTINGS['engine']!r} is not in the engine catalog")
    return (
        _present(catalog, "model", MODELS, "models", notes),
        _present(catalog, "gpu", GPUS, "GPUs", notes),
        _present(catalog, "quant", QUANTS, "quantizations", notes),
    )


def grid(catalog: Catalog, notes: list[str] | None = None) -> dict[str, list]:
    """Every configuration's FIELDS plus stream_s, keyed by config_key.

    Each row is what compute() returns for that scenario; the graph is built once instead of once per scenario.
    Models, GPUs and quantizations the catalog lacks are left out (a note in `notes` names them).
    """
    graph, columns = Graph(QUANTITIES), catalog.columns()
    models, gpus, quants = axes(catalog, notes)
    rows: dict[str, list] = {}
    n = SETTINGS["output_tokens"]
    for model in models:
        for gpu in gpus:
            for quant in quants:
                for users in USERS:
                    key = config_key(model, gpu, quant, users)
                    settings = {**SETTINGS, "model_name": model, "gpu_name": gpu, "quant_name": quant}
                    resolved = resolve(graph, catalog, {**settings, "concurrent_users": users}, f"preview {key}")
                    values = graph.evaluate(resolved, columns, names=FIELDS)
                    row = [str(values[f]) if isinstance(values[f], XlError) else values[f] for f in FIELDS]
                    if any(isinstance(v, str) for v in row):
                        shown = ", ".join(f"{f}={v}" for f, v in zip(FIELDS, row, strict=True) if isinstance(v, str))
                        raise ScenarioError(f"preview {key}: the engine gives no number ({shown})")
                    rows[key] = [*row, stream_seconds(values["ttft_s"], values["tpot_ms"], n)]
    return rows


def page_data(catalog: Catalog, notes: list[str] | None = None) -> dict:
    """Everything the page needs: the grid, sample tokens, the jitter sequence and reading-speed yardsticks."""
    n = SETTINGS["output_tokens"]
    models, gpus, quants = axes(catalog)
    rows = grid(catalog, notes)
    return {
        "models": models,
        "gpus": gpus,
        "quants": quants,
        "users": list(USERS),
        "settings": SETTINGS,
        "fields": [*FIELDS, "stream_s"],
        "rows": rows,
        "defaults": [d for d in DEFAULT_PANELS if d in rows] or [next(iter(rows))],
        "jitter": jitter_factors(n - 1, JITTER, SEED),
        "samples": {lang: sample_tokens(lang, n) for lang in LANGS},
        "tokens_per_word": TOKENS_PER_WORD,
        "reading_tok_s": list(READING_TOK_S),
        "chat_ok_tok_s": list(CHAT_OK_TOK_S),
    }


def render(catalog: Catalog | None = None, notes: list[str] | None = None) -> str:
    """The HTML page with the data embedded in a <script type="application/json"> block.

    Raises ScenarioError when the catalog lacks what the page needs; `notes` collects what was left out.
    """
    catalog = catalog or load_catalog()
    template = (resources.files("kalkulator") / "templates_preview" / "preview.html").read_text(encoding="utf-8")
    if template.count(_PLACEHOLDER) != 1:
        raise ValueError(f"preview template must contain {_PLACEHOLDER} exactly once")
    data = json.dumps(page_data(catalog, notes), ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return template.replace(_PLACEHOLDER, data.replace("<", "\\u003c"))  # no "</script>" inside the block


def write_preview(path: Path, catalog: Catalog | None = None, notes: list[str] | None = None) -> int:
    """Write the page atomically (kalkulator.staging); returns its size in bytes.

    Raises ScenarioError for a catalog the page cannot use, OutputError for a path it cannot write.
    """
    data = render(catalog, notes).encode("utf-8")
    done = write_outputs(path.parent, {path.name: data})
    if notes is not None:
        notes.extend(done)
    return len(data)
