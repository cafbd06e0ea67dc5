"""The engine's own speeds over measurement rows: what the speed parameters are fitted on.

Each measurement row is a scenario (its GPU, model and weight format; its weight size, context, prompt and depth),
evaluated by the quantity graph as arrays. Everything the fitted parameters do not move is evaluated once per set
of rows; a prediction re-evaluates only the quantities between the parameters and the speed asked for.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping

import numpy as np
import pandas as pd

from kalkulator.calibration.measurements import SPLIT_MODES
from kalkulator.catalog import Catalog
from kalkulator.engine.arrays import MISSING, ArrayEvaluate, Many, column_of, fold, is_array, quiet
from kalkulator.engine.expr import Node, names_in
from kalkulator.engine.graph import Graph, override_key

ENGINE = "llama.cpp"  # the measurements are llama-bench runs
# Builds from b2413 (PR #6017, commit f30ea47a, 2024-03-13) pipeline a layer-split prompt's micro-batches through
# the GPUs; earlier builds ran the stages in turn (a row without a build number takes the engine catalog's mode).
FIRST_PIPELINED_BUILD = 2413
TARGETS = ("decode_tok_s", "prefill_tok_s", "decode_efficiency_frac", "engine_bandwidth_efficiency_frac")
# Fitted parameter → the graph quantity it stands for (the two efficiencies go by memory type / weight kind).
DECODE_NAMES = {
    "layer_overhead_ms": "decode_layer_overhead_ms",
    "attention_ns": "decode_attention_ns",
    "flop_per_byte": "decode_alu_flop_per_byte",
    "superblock_work": "decode_superblock_work_ratio",
}
PREFILL_NAMES = {
    "layer_overhead_us": "prefill_layer_overhead_us",
    "attention_efficiency": "prefill_attention_efficiency_frac",
    "alu_work": "prefill_alu_work_ratio",
}


class EngineRows:
    """A set of measurement rows evaluated by the graph, with the parts no fitted parameter moves kept."""

    def __init__(self, graph: Graph, settings: Mapping[str, Many], n: int, columns: Mapping):
        self.graph, self.n, self.columns = graph, n, columns
        self.env = graph.evaluate_many(settings, n, columns, names=TARGETS)
        self.hbm = _as_bool(self.env["gpu_memory_type"], "hbm", n)
        self.float_weights = _as_bool(self.env["quant_kind_type"], "float", n)
        self._closures: dict[tuple[str, frozenset], tuple[list[str], list[str]]] = {}
        self._programs: dict[tuple, list[tuple[str, Node]]] = {}
        self.exprs = {name: graph.cell_expr(name) for name in graph.quantities if not graph[name].is_input}

    def evaluate(self, target: str, bound: Mapping[str, Many], pos: np.ndarray) -> np.ndarray:
        """`target` for rows `pos` with the quantities in `bound` replaced (uniform or one value per row)."""
        program = self._program(target, frozenset(bound), pos)
        env = {name: _take(v, pos) for name, v in bound.items()}
        visitor = ArrayEvaluate(env, len(pos), self.columns)
        with quiet():
            for name, node in program:
                env[name] = visitor.visit(node)
        out = env[target] if program else _take(self.env[target], pos)
        return np.broadcast_to(np.asarray(out, dtype=float), (len(pos),)).copy()

    def _program(self, target: str, bound: frozenset, pos: np.ndarray) -> list[tuple[str, Node]]:
        """The closure's formulas for rows `pos`, with every part the bound names do not reach computed once."""
        key = (target, bound, pos.tobytes())
        if key not in self._programs:
            closure, inputs = self._closure(target, bound)
            env = {name: _take(self.env[name], pos) for name in inputs}
            visitor = ArrayEvaluate(env, len(pos), self.columns)
            varying = set(closure) | set(bound)
            self._programs[key] = [(name, fold(self.exprs[name], varying, visitor)) for name in closure]
        return self._programs[key]

    def _closure(self, target: str, bound: frozenset) -> tuple[list[str], list[str]]:
        """The quantities between `bound` and `target` in evaluation order, and the kept values they read."""
        key = (target, bound)
        if key not in self._closures:
            # A quantity whose manual value is set in every row (one user, the file's weight size) cuts the chain.
            cut = set(bound) | {n for n in self.graph.quantities if n != target and self._fixed(n)}
            closure = [n for n in self.graph.row_closure(cut, [target]) if n not in cut]
            reads = set().union(*(names_in(self.graph.cell_expr(n)) for n in closure)) if closure else set()
            inputs = sorted(reads - set(closure) - set(bound))
            if target not in closure:
                inputs.append(target)
            self._closures[key] = (closure, inputs)
        return self._closures[key]

    def _fixed(self, name: str) -> bool:
        """True when every row gives `name` a manual value (its formula is never used)."""
        own = self.env.get(override_key(name))
        if own is None:
            return False
        return not is_array(own) or all(v is not None for v in own.tolist())


def _as_bool(v: Many, word: str, n: int) -> np.ndarray:
    return np.array([x == word for x in v.tolist()] if is_array(v) else [v == word] * n, dtype=bool)


def _take(v: Many, pos: np.ndarray) -> Many:
    return v[pos] if is_array(v) else v


_GRAPH: list[Graph] = []
_REGISTRY: dict[int, EngineRows] = {}
_IDS = itertools.count(1)


def graph() -> Graph:
    """The engine's quantity graph (built once per process)."""
    if not _GRAPH:
        from kalkulator.quantities import QUANTITIES

        _GRAPH.append(Graph(QUANTITIES))
    return _GRAPH[0]


def attach(rows: pd.DataFrame, catalog: Catalog, chunk_tokens: int) -> pd.DataFrame:
    """`rows` with columns `_frame`/`_pos` pointing at their graph evaluation (see `settings_of`)."""
    out = rows.copy()
    n = len(out)
    frame_id = next(_IDS)
    _REGISTRY[frame_id] = EngineRows(graph(), settings_of(out, chunk_tokens), n, catalog.columns())
    out["_frame"] = frame_id
    out["_pos"] = np.arange(n)
    out["float_weights"] = _REGISTRY[frame_id].float_weights
    return out


def settings_of(rows: pd.DataFrame, chunk_tokens: int) -> dict[str, Many]:
    """Scenario settings of measurement rows: catalog GPU/model/format names, the device figures the rows carry,
    the file's weight size and parameter count, one user; decode at the mean context of the generated tokens,
    a prompt of `prompt_tokens` new tokens after `depth` cached ones (llama-bench -d)."""

    def col(values) -> Many:
        return column_of(list(values))

    def known(series: pd.Series) -> Many:
        return column_of([MISSING if pd.isna(v) else float(v) for v in series])

    depth = rows["depth"].astype(float).to_numpy()
    prompt = rows["prompt_tokens"].astype(float).to_numpy()
    tokens = depth + prompt
    settings: dict[str, Many] = {
        "gpu_name": col(rows["device"]),
        "model_name": col(rows["catalog_model"]),
        "quant_name": col(rows["quant"]),
        "engine": ENGINE,
        "kv_cache_type": "F16",
        "gpu_backend": col(rows["backend"]),
        "build_era_text": col(rows["era"].astype(str)),
        "gpu_memory_type": col(rows["memory_type"]),
        "gpu_mem_bandwidth_gbs": col(rows["mem_bandwidth_gbs"].astype(float)),
        "gpu_fp16_tflops": known(rows["fp16_tflops"]),
        "weights_gb": col(rows["weights_bytes"].astype(float) / 1e9),
        "model_params_b": col(rows["params_b"].astype(float)),
        "model_active_params_b": col(rows["active_params_b"].astype(float)),
        "n_gpus": col(rows["n_devices"].astype(float)) if "n_devices" in rows.columns else 1.0,
        "split_mode": col(rows["split"].map(lambda v: SPLIT_MODES.get(v, "layer"))) if "split" in rows else "layer",
        "concurrent_users": 1.0,
        "cpu_offload_frac": 0.0,
        "context_tokens": col(rows["ctx"].astype(float)),
        "prompt_tokens": col(np.where(tokens > 0, tokens, 1.0)),
        "prefix_cache_hit_frac": col(np.where(tokens > 0, depth / np.where(tokens > 0, tokens, 1.0), 0.0)),
        "prefill_chunk_tokens": float(chunk_tokens),
        "engine_fp8_fp4_units_flag": 0.0,
    }
    if "build" in rows.columns:
        settings["engine_pipeline_mode"] = column_of(
            [MISSING if pd.isna(b) else ("none" if b < FIRST_PIPELINED_BUILD else "ubatch") for b in rows["build"]]
        )
    if "fp32_tflops" in rows.columns:
        settings["gpu_fp32_tflops"] = known(rows["fp32_tflops"])
    return settings


def _groups(x: pd.DataFrame) -> list[tuple[EngineRows, np.ndarray, np.ndarray]]:
    """(evaluation, row positions in it, positions in x) per set of rows x draws from."""
    frames = x["_frame"].to_numpy()
    out = []
    for frame_id in pd.unique(frames):
        mine = np.flatnonzero(frames == frame_id)
        out.append((_REGISTRY[int(frame_id)], x["_pos"].to_numpy()[mine], mine))
    return out


def evaluate(target: str, x: pd.DataFrame, bind) -> np.ndarray:
    """`target` for the rows of x, with `bind(rows)` → {quantity: value} giving the fitted parameters."""
    out = np.empty(len(x))
    for rows, pos, mine in _groups(x):
        out[mine] = rows.evaluate(target, bind(rows), pos)
    return out
