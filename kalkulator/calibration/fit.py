"""Fit the speed model to measured tokens/s and report its error on devices held out of the fit.

Decode time per token = (weight bytes + KV bytes at the mean context) ÷ (bandwidth × η) + layers × c
+ attended layer-tokens × a, where η is the kernels' share of peak bandwidth (HBM or other memory), capped by
what the GPU's cores can feed (FP16 peak ÷ ALU work per byte). Prefill time per token = 2 × active params ÷
(peak × η_p) [+ for quantized weights in integer-kernel builds 2 × active params × ALU work ÷ FP32 peak of the
shader cores] + attention FLOPs ÷ (FP16 peak × η_attn) + layers × c_p, never faster than reading the weights once
per chunk. Rows whose repeated runs spread more than 25 % are left out. One fit per backend and engine build era;
a parameter the era's measurements cannot pin down is taken from the nearest fit (same backend, other era; else
CUDA). The formulas are the engine's own (quantities/speed.py), evaluated over the rows by
kalkulator.calibration.engine_rows.
"""

from __future__ import annotations

import io
import json
import math
import re
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd

from kalkulator.calibration import engine_rows
from kalkulator.calibration.measurements import SPLIT_MODES
from kalkulator.catalog import Catalog
from kalkulator.io.files import MB, FileReadError, read_bounded
from kalkulator.io.paths import CALIBRATION_DIR
from kalkulator.io.progress import steps

BOOK_EFFICIENCY = 0.6  # the book's rule: tok/s ≈ 0.6 × bandwidth ÷ model bytes (Bab 12.2)
BAND = (0.10, 0.90)  # quantiles of held-out residuals that make the uncertainty band
CURRENT_ERA = "2025"
# Measurement files and the engine build era of their rows: 2024 = builds up to mid-2024 (2023–24 runs),
# 2025 = builds from late 2024 on (CUDA graphs, int8 tensor-core MMQ, flash attention kernels).
SOURCES = (
    ("measured_tps.csv", "2024"),
    ("measured_2025_builds.csv", "2025"),
    ("measured_2025_prs.csv", "2025"),
    ("measured_vendors.csv", "2025"),  # AMD, Intel: ROCm, Vulkan, SYCL builds of 2025
    ("measured_apple.csv", "2025"),  # Apple: Metal builds of late 2025 and 2026 (issue 41)
)
DEVICES = "devices.csv"  # calibration device name → catalog GPU row
# Families whose speed no measurement calibrates (none of their devices held out, or none measured at all): their
# least band and why, one row per backend or backend.arch and era (issue 41). calibrate writes the floor into the
# speed rows (band at least ± the floor, band_floor_frac columns); the status says the speed is not calibrated.
UNCALIBRATED = "uncalibrated.csv"
UNCALIBRATED_FIELDS = ("family", "era", "decode_band_frac", "prefill_band_frac", "reason", "source", "as_of")
CHUNK = 512  # llama.cpp's default micro-batch (-ub)
APPLE_WIRED_SHARE = 0.7  # macOS lets the GPU keep about 2/3–3/4 of unified memory; larger models spill
# A row whose repeated runs differ by more than this share of their mean cannot score a model to the goals below
# (a swapping machine, a thermal throttle, one broken run): it is left out of fits and scores.
MAX_RUN_SPREAD = 0.25
# CUDA engines with no measurement in the shipped data, and their prefill chunk: they take the current CUDA fit
UNMEASURED_ENGINES = {"exllamav2": 2048, "mlc-llm": 2048}
# Eras whose llama.cpp builds dequantised quantized weights to FP16 for cuBLAS in prompt processing; later builds
# multiply them with integer kernels (MMQ, the default since llama.cpp PR #8075, June 2024), whose unpacking and
# scaling load the shader ALUs.
DEQUANTISING_ERAS = ("2024",)
FLOAT_QUANTS = ("F16", "BF16", "F32", "FP16", "FP32")
# llama.cpp's build number in a row's notes ("build 4426e298 (2824)", "builds ~1619-1691"); see
# engine_rows.FIRST_PIPELINED_BUILD.
BUILD_NUMBER = r"builds? (?:~|[0-9a-f]{7,8} \()(\d{3,5})"
GOALS = {"decode_median": 0.08, "decode_p90": 0.20, "prefill_median": 0.20}
# Architecture families that get speed rows of their own on a backend (engine/backend.arch@era, one per member):
# llama.cpp's kernels reach a share of bandwidth on them that the backend's other GPUs do not. Instinct GCN5 and
# CDNA1/2 cards on ROCm stream only about a third of their HBM bandwidth in decode (wave64 matrix-vector kernels
# limited by the cores, not the memory); Intel Alchemist (Xe-HPG) reaches about 35 % of its GDDR6 on SYCL and
# Vulkan, Battlemage twice that. A family is fitted on its own rows only: its bandwidth share (and prompt share),
# the other parameters from its backend's fit.
FAMILIES = {
    ("rocm", "GCN5"): "gcn-cdna",
    ("rocm", "CDNA1"): "gcn-cdna",
    ("rocm", "CDNA2"): "gcn-cdna",
    ("sycl", "Alchemist"): "alchemist",
    # Intel's Vulkan driver on both Arc generations streams 30–47 % of the GDDR6 bandwidth in decode (A770, B580;
    # llama.cpp PR #14001, ipex-llm #13309), where NVIDIA and AMD cards reach 68–87 % on Vulkan: one family, two cards.
    ("vulkan", "Alchemist"): "arc",
    ("vulkan", "Battlemage"): "arc",
    # Apple Ultra chips are two Max dies joined by UltraFusion: one llama.cpp decode stream crosses the die-to-die
    # link for half its weights and synchronises both halves of the GPU at every kernel, so it reaches a smaller
    # share of the 800 GB/s than a single-die Max (its own share and fixed cost per layer; issue 41).
    ("metal", "M1Ultra"): "ultra",
    ("metal", "M2Ultra"): "ultra",
    ("metal", "M3Ultra"): "ultra",
}
# Families whose difference is decode's alone: their prompt rows stay with the backend's (an Ultra chip's prompt is
# its cores' work, the same per core as a single die's; the die-to-die cost is per decode kernel), and their speed
# rows carry the backend's prefill fit.
DECODE_ONLY_FAMILIES = ("ultra",)


def speed_group(backend: str, arch: str) -> str:
    """The fit group of a row: backend.family for an architecture family with rows of its own, else the backend."""
    family = FAMILIES.get((backend, arch))
    return f"{backend}.{family}" if family else backend


def base_backend(group: str) -> str:
    """The backend of a fit group (rocm.gcn-cdna → rocm)."""
    return group.split(".")[0]


def family_archs(group: str) -> list[str]:
    """The architectures a family group's speed rows are written for (in FAMILIES order); [] for a backend."""
    return [a for (b, a), f in FAMILIES.items() if group == f"{b}.{f}"]


class CalibrationError(ValueError):
    """Measurements that cannot be used; the message names the file and field."""


@dataclass(frozen=True)
class DecodeParams:
    efficiency: float
    efficiency_hbm: float
    layer_overhead_ms: float
    attention_ns: float
    flop_per_byte: float = 0.0  # 0 = the cores never limit the bandwidth
    superblock_work: float = 1.0  # ALU work per byte of super-block formats (K-, I-quants) ÷ that of block formats


@dataclass(frozen=True)
class PrefillParams:
    efficiency: float  # float weights (F16/BF16/F32)
    efficiency_quant: float  # quantized weights
    layer_overhead_us: float  # per layer and prompt token
    attention_efficiency: float = 0.3  # share of the FP16 peak reached by prompt attention
    alu_work: float = 0.0  # shader-ALU operations per weight-multiply FLOP of quantized weights, at the FP32 rate


DECODE_BOUNDS = {
    "efficiency": (0.05, 1.0),
    "efficiency_hbm": (0.05, 1.0),
    "layer_overhead_ms": (0.0, 5.0),
    "attention_ns": (0.0, 1e4),
    "flop_per_byte": (1.0, 1e3),
    "superblock_work": (0.5, 4.0),
}
PREFILL_BOUNDS = {
    "efficiency": (0.01, 1.0),
    "efficiency_quant": (0.01, 1.0),
    "layer_overhead_us": (0.0, 1e3),
    # FlashAttention-2 reaches at most about 70 % of an A100's peak (Dao 2023): no kernel does better
    "attention_efficiency": (0.01, 0.7),
    "alu_work": (0.0, 10.0),
}
DEFAULT_DECODE = DecodeParams(0.8, 0.6, 0.05, 10.0, 0.0)
DEFAULT_PREFILL = PrefillParams(0.4, 0.4, 1.0, 0.3)


def _model_arch(catalog: Catalog, name: str) -> dict:
    row = catalog["model"].find(name.removeprefix("Meta-"))
    if row is None:
        raise CalibrationError(f"model {name!r} is not in the model catalog")
    return row


def _quant(catalog: Catalog, name: str) -> dict:
    row = catalog["quant"].find(name)
    if row is None:
        raise CalibrationError(f"quantization {name!r} is not in the quantization catalog")
    return row


def frame(rows: pd.DataFrame, catalog: Catalog) -> pd.DataFrame:
    """The rows as scenarios of the engine's graph (engine_rows.attach), with the columns the fit's choices read:
    the catalog model, its active parameters at the row's size, the format's dequantisation kind, the context."""
    arch = [_model_arch(catalog, m) for m in rows["model"]]
    out = rows.copy()
    if "depth" not in out.columns:
        out["depth"] = 0
    if "era" not in out.columns:
        out["era"] = CURRENT_ERA
    if "group" not in out.columns:
        out["group"] = out["backend"]  # rows described by their figures alone: no architecture family
    out["catalog_model"] = [a["name"] for a in arch]
    out["dequant"] = [_quant(catalog, q)["dequant"] for q in out["quant"]]
    out["active_params_b"] = [
        p * a["active_params_b"] / a["params_b"] for p, a in zip(out["params_b"], arch, strict=True)
    ]
    decode_ctx = out["depth"] + out["prompt_tokens"] + out["gen_tokens"] / 2
    out["ctx"] = np.where(out["metric"] == "tg", decode_ctx, out["depth"] + out["prompt_tokens"] / 2)
    return engine_rows.attach(out, catalog, CHUNK)


def _catalog_specs(catalog: Catalog, name: str) -> dict:
    row = catalog["gpu"].find(name)
    if row is None:
        raise CalibrationError(f"{DEVICES}: catalog_gpu {name!r} is not in the GPU catalog")
    return row


def run_spread(notes: pd.Series) -> pd.Series:
    """(max − min) ÷ mean of the repeated runs a row's notes list ("runs: 4.09, 2.89, 2.67"); 0 where none."""

    def spread(text: str) -> float:
        found = re.search(r"runs: ([\d.]+(?:, [\d.]+)+)", text)
        if not found:
            return 0.0
        runs = [float(v) for v in found.group(1).split(", ")]
        return (max(runs) - min(runs)) / (sum(runs) / len(runs))

    return notes.fillna("").map(spread)


def split_column(m: pd.DataFrame, file: str) -> pd.Series:
    """How each multi-GPU row split the model (layer or row, the file's split_mode column; layer where the file
    has none: llama.cpp's default since January 2024); '' on one device. Any other value is an error naming the
    file, line and field."""
    multi = m["n_devices"] > 1
    given = m["split_mode"].fillna("").astype(str).str.strip() if "split_mode" in m.columns else None
    if given is None:
        return pd.Series(np.where(multi, "layer", ""), index=m.index)
    bad = multi & ~given.isin(list(SPLIT_MODES))
    if bad.any():
        line = int(bad.to_numpy().nonzero()[0][0])
        value = given[bad].iloc[0]
        raise CalibrationError(
            f"{file}:{m.index[line] + 2}:split_mode: {value!r} on a {int(m['n_devices'][bad].iloc[0])}-GPU row; "
            f"use one of {', '.join(SPLIT_MODES)}"
        )
    return given.where(multi, "")


def load_shipped(catalog: Catalog, folder: Path = CALIBRATION_DIR, multi_gpu: bool = False) -> pd.DataFrame:
    """The shipped llama.cpp measurements (single-device, or with `multi_gpu` the 2–8-GPU ones, whose `split`
    column says layer or row split). Layer-split rows of an architecture family (two Instinct MI50) count as the
    family's single-card rows: they are fitted and scored with them, through the engine's layer-split terms.

    Devices are the catalog GPUs named in devices.csv, with the catalog's bandwidth, FP16 peak and memory type
    (the figures the engine uses); devices without a catalog row are left out, and so are rows whose repeated
    runs spread more than MAX_RUN_SPREAD (counted in the result's attrs["unsteady_rows"]).
    """
    devices = pd.read_csv(folder / DEVICES, keep_default_na=False)
    to_catalog = {h: g for h, g in zip(devices["hardware"], devices["catalog_gpu"], strict=True) if g}
    frames = []
    for file, era in SOURCES:
        if not (folder / file).exists():
            continue
        m = pd.read_csv(folder / file)
        m["split"] = split_column(m, file)
        m = m[m["engine"] == "llama.cpp"].copy()
        if m.empty:
            continue
        backend = m["notes"].str.extract(r"backend=(\w+)")[0].str.lower()
        cpu_only = m["hardware"].str.contains("CPU-only", regex=False)
        backend = backend.fillna(m["hardware"].map(lambda h: "metal" if h.startswith("Apple") else "cuda"))
        m["backend"] = np.where(cpu_only, "cpu", backend)
        hardware = m["hardware"].str.replace(" [CPU-only run]", "", regex=False)
        m["device"] = hardware.map(to_catalog)
        m = m[m["device"].notna()]
        m["weights_bytes"] = m["notes"].str.extract(r"([\d.]+) GiB")[0].astype(float) * 2**30
        m["depth"] = m["depth_tokens"] if "depth_tokens" in m.columns else 0
        m["era"] = era
        m["run_spread"] = run_spread(m["notes"])
        m["build"] = m["notes"].str.extract(BUILD_NUMBER)[0].astype(float)
        frames.append(m)
    m = pd.concat(frames, ignore_index=True)
    unsteady = m["run_spread"] > MAX_RUN_SPREAD
    unsteady_here = unsteady & ((m["n_devices"] > 1) if multi_gpu else (m["n_devices"] == 1))
    m = m[~unsteady]
    specs = [_catalog_specs(catalog, d) for d in m["device"]]
    m["mem_bandwidth_gbs"] = [s["mem_bandwidth_gbs"] for s in specs]
    m["memory_gb"] = [s["vram_gib"] * 2**30 / 1e9 for s in specs]
    m["memory_type"] = [s["memory_type"] for s in specs]
    m["arch"] = [s.get("arch") or "" for s in specs]
    m["group"] = [speed_group(b, a) for b, a in zip(m["backend"], m["arch"], strict=True)]
    decode_only = m["group"].map(lambda g: "." in g and g.split(".", 1)[1] in DECODE_ONLY_FAMILIES)
    m.loc[decode_only & (m["metric"] == "pp_tok_s"), "group"] = m["backend"]
    # CPU-only runs compute on the CPU cores: the GPU's FP16 peak does not apply to them.
    m["fp16_tflops"] = np.where(m["backend"] == "cpu", np.nan, [s["fp16_tflops"] for s in specs])
    m["fp32_tflops"] = np.where(m["backend"] == "cpu", np.nan, [s["fp32_tflops"] for s in specs])
    # A layer split runs one card's stage at a time: decode reads one card's bandwidth (plus a hand-over per
    # boundary), so an architecture family's layer-split decode rows measure that card and are fitted with its
    # rows (their prompt rows stay multi-GPU: llama.cpp pipelines a prompt's micro-batches over the cards).
    family = m["group"].str.contains(".", regex=False)
    one_card = (m["n_devices"] == 1) | ((m["split"] == "layer") & family & (m["metric"] == "tg_tok_s"))
    m = m[~one_card if multi_gpu else one_card]
    m["metric"] = m["metric"].str.replace("_tok_s", "", regex=False)
    m = m.rename(columns={"value": "tok_s"})
    spills = (m["backend"] == "metal") & (m["weights_bytes"] > APPLE_WIRED_SHARE * m["memory_gb"] * 1e9)
    m = m[m["weights_bytes"].notna() & ~spills]
    cols = [
        "device",
        "backend",
        "group",
        "era",
        "memory_type",
        "mem_bandwidth_gbs",
        "fp16_tflops",
        "fp32_tflops",
        "model",
        "params_b",
        "quant",
        "weights_bytes",
        "depth",
        "prompt_tokens",
        "gen_tokens",
        "metric",
        "tok_s",
        "n_devices",
        "split",
        "build",
    ]
    out = frame(m[cols].reset_index(drop=True), catalog)
    out.attrs["unsteady_rows"] = int(unsteady_here.sum())
    return out


BENCH_LIMIT_BYTES = 64 * MB  # llama-bench output is a few kB per run
# The llama-bench fields read, and what each must be: (whole number?, lowest value, lowest is excluded)
BENCH_FIELDS = {
    "model_size": (False, 0.0, True),
    "model_n_params": (False, 0.0, True),
    "n_prompt": (True, 0.0, False),
    "n_gen": (True, 0.0, False),
    "avg_ts": (False, 0.0, True),
}


def _json_constant(word: str) -> float:
    raise ValueError(f"{word} is not a measurement")


def read_bench_rows(path: Path) -> pd.DataFrame:
    """The rows of a `llama-bench -o csv|json` file, read within bounds (a regular file of at most
    BENCH_LIMIT_BYTES, JSON not nested past Python's limit) and checked like a catalog: every needed field a finite
    number in its range, else a CalibrationError naming file:row:field (row: the CSV line, or the JSON record)."""
    try:
        text = read_bounded(path, BENCH_LIMIT_BYTES, "llama-bench output").decode("utf-8")
    except FileReadError as exc:
        raise CalibrationError(str(exc)) from None
    except UnicodeDecodeError:
        raise CalibrationError(f"{path}: not UTF-8 text (is this llama-bench output?)") from None
    first_row = 1
    try:
        if path.suffix.lower() == ".json":
            records = json.loads(text, parse_constant=_json_constant)
            records = records if isinstance(records, list) else [records]
            if not all(isinstance(r, dict) for r in records):
                raise ValueError("expected a JSON object or a list of objects, one per run")
            raw = pd.DataFrame(records)
        else:
            raw, first_row = pd.read_csv(io.StringIO(text)), 2
    except RecursionError:
        raise CalibrationError(f"{path}: JSON nested too deeply to be llama-bench output") from None
    except (ValueError, pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise CalibrationError(f"{path}: not llama-bench CSV or JSON ({exc})") from None
    missing = [c for c in BENCH_FIELDS if c not in raw.columns]
    if missing:
        raise CalibrationError(f"{path}: missing llama-bench field(s) {', '.join(missing)}")
    if raw.empty:
        raise CalibrationError(f"{path}: no llama-bench rows")
    errors = []
    for i, record in enumerate(raw[list(BENCH_FIELDS)].to_dict("records")):
        for name, (whole, low, above) in BENCH_FIELDS.items():
            problem = _bench_problem(record[name], whole, low, above)
            if problem:
                errors.append(f"{path}:{first_row + i}:{name}: {record[name]!r} {problem}")
    if errors:
        raise CalibrationError("\n".join(errors[:20]) + (f"\n… {len(errors) - 20} more" if len(errors) > 20 else ""))
    for name in BENCH_FIELDS:
        raw[name] = [float(v) for v in raw[name]]
    return raw


def _bench_problem(value: object, whole: bool, low: float, above: bool) -> str | None:
    """Why one llama-bench field is not a measurement (None when it is one)."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return "is not a number"
    try:
        number = float(value)
    except ValueError:
        return "is not a number"
    if not math.isfinite(number):
        return "is not a finite number"
    if whole and not number.is_integer():
        return "is not a whole number"
    if number < low or (above and number == low):
        return f"must be {'above' if above else 'at least'} {low:g}"
    return None


def load_llama_bench(path: Path, catalog: Catalog, gpu: str, model: str, era: str = CURRENT_ERA) -> pd.DataFrame:
    """Rows of `llama-bench -o csv` or `-o json` output, run on catalog GPU `gpu` with catalog model `model`."""
    gpu_row = catalog["gpu"].find(gpu)
    if gpu_row is None:
        raise CalibrationError(f"--gpu: {gpu!r} is not in the GPU catalog")
    raw = read_bench_rows(path)
    depth = raw["n_depth"] if "n_depth" in raw.columns else 0
    rows = pd.DataFrame(
        {
            "device": gpu_row["name"],
            "backend": gpu_row["backend"],
            "group": speed_group(gpu_row["backend"], gpu_row.get("arch") or ""),
            "era": era,
            "memory_type": gpu_row["memory_type"],
            "mem_bandwidth_gbs": gpu_row["mem_bandwidth_gbs"],
            "fp16_tflops": gpu_row["fp16_tflops"],
            "fp32_tflops": gpu_row["fp32_tflops"],
            "model": model,
            "params_b": raw["model_n_params"].astype(float) / 1e9,
            "quant": raw.get("model_type", pd.Series([""] * len(raw))).astype(str).str.split().str[-1],
            "weights_bytes": raw["model_size"].astype(float),
            "depth": depth,
            "prompt_tokens": np.where(raw["n_gen"] > 0, 0, raw["n_prompt"]),
            "gen_tokens": raw["n_gen"],
            "metric": np.where(raw["n_gen"] > 0, "tg", "pp"),
            "tok_s": raw["avg_ts"].astype(float),
        }
    )
    return frame(rows, catalog)


# ---- the engine's speeds with trial parameters -------------------------------------------------------------


def _prefill_values(q: PrefillParams, rows: engine_rows.EngineRows) -> dict:
    values = {"prefill_efficiency_frac": np.where(rows.float_weights, q.efficiency, q.efficiency_quant)}
    values.update({name: getattr(q, field) for field, name in engine_rows.PREFILL_NAMES.items()})
    return values


def _bound(p: DecodeParams, q: PrefillParams | None, rows: engine_rows.EngineRows) -> dict:
    """The graph values of trial decode (and prefill) parameters; decode's compute line reads the prefill ones."""
    values = {"engine_bandwidth_efficiency_frac": np.where(rows.hbm, p.efficiency_hbm, p.efficiency)}
    values.update({name: getattr(p, field) for field, name in engine_rows.DECODE_NAMES.items()})
    values.update(_prefill_values(q or DEFAULT_PREFILL, rows))
    return values


def decode_efficiency(p: DecodeParams, x: pd.DataFrame) -> np.ndarray:
    """Share of peak bandwidth decode reaches (the engine's decode_efficiency_frac under `p`)."""
    return engine_rows.evaluate("decode_efficiency_frac", x, lambda rows: _bound(p, None, rows))


def predict_decode(p: DecodeParams, x: pd.DataFrame, prefill: PrefillParams | None = None) -> np.ndarray:
    """Decode tokens/s of one user: the engine's decode_tok_s under `p`."""
    return engine_rows.evaluate("decode_tok_s", x, lambda rows: _bound(p, prefill, rows))


def predict_prefill(p: PrefillParams, x: pd.DataFrame, decode: DecodeParams | None = None) -> np.ndarray:
    """Prompt tokens/s: the engine's prefill_tok_s under `p` (and `decode`, whose bandwidth share reads the
    weights once per chunk)."""
    return engine_rows.evaluate("prefill_tok_s", x, lambda rows: _bound(decode or DEFAULT_DECODE, p, rows))


def _fit(kind: str, x: pd.DataFrame, free: list[str], base, predict) -> object:
    """Least squares on log(tok/s) over the `free` parameters, the others held at `base`."""
    from scipy.optimize import least_squares  # imported here: only fitting needs SciPy

    if not free:
        return base
    bounds = DECODE_BOUNDS if kind == "decode" else PREFILL_BOUNDS
    start = [min(max(getattr(base, f), bounds[f][0]), bounds[f][1]) for f in free]
    measured = np.log(x["tok_s"].to_numpy())

    def params(v: np.ndarray):
        return replace(base, **dict(zip(free, (float(a) for a in v), strict=True)))

    res = least_squares(
        lambda v: np.log(predict(params(v), x)) - measured,
        start,
        bounds=([bounds[f][0] for f in free], [bounds[f][1] for f in free]),
        xtol=1e-12,
        ftol=1e-12,
    )
    return params(res.x)


def fit_decode(x: pd.DataFrame, base: DecodeParams = DEFAULT_DECODE, superblock: bool = False) -> DecodeParams:
    """Fit what the rows can pin down; hold the rest at `base`.

    HBM and other memory need rows of both; the attention cost needs contexts spread over 1,000 tokens or more;
    the cores' limit needs the FP16 peak of every device and three devices or more. With `superblock` the
    super-block formats' work ratio is fitted too (it needs rows of block and super-block formats).
    """
    hbm = x["memory_type"] == "hbm"
    free = ["layer_overhead_ms"]
    if (~hbm).any():
        free.insert(0, "efficiency")
    if hbm.any():
        free.insert(0, "efficiency_hbm")
    if x["ctx"].max() - x["ctx"].min() >= 1000:
        free.append("attention_ns")
    if x["fp16_tflops"].notna().all() and x["device"].nunique() >= 3:
        free.append("flop_per_byte")
        base = replace(base, flop_per_byte=base.flop_per_byte or 30.0)
        if superblock and {"block", "superblock"} <= set(x["dequant"]):
            free.append("superblock_work")
    if x["device"].nunique() == 1 and x["weights_bytes"].nunique() == 1 and "efficiency" in free:
        free.remove("layer_overhead_ms")  # one device and one model: bandwidth share and fixed cost are one number
    p = _fit("decode", x, free, base, predict_decode)
    eta = np.where(x["memory_type"] == "hbm", p.efficiency_hbm, p.efficiency)
    limited = decode_efficiency(p, x) < eta - 1e-9
    if "flop_per_byte" in free and not limited.any():
        p = replace(p, flop_per_byte=0.0)  # the cores never limit these devices: no value can be told
    if "superblock_work" in free and not (limited & (x["dequant"] == "superblock").to_numpy()).any():
        p = replace(p, superblock_work=DEFAULT_DECODE.superblock_work)  # nor the super-block ratio
    if not hbm.any() and not (base is not DEFAULT_DECODE and base.efficiency_hbm):
        p = replace(p, efficiency_hbm=p.efficiency)
    return p


def fit_prefill(
    x: pd.DataFrame,
    base: PrefillParams = DEFAULT_PREFILL,
    decode: DecodeParams | None = None,
    integer_kernels: bool = True,
):
    """Fit what the rows can pin down (float and quantized efficiencies, attention, per-layer cost, and with
    `integer_kernels` the ALU work of quantized weights where FP16 and FP32 peaks vary apart across devices)."""
    x = x[x["fp16_tflops"].notna()]
    default = base is DEFAULT_PREFILL
    is_float = x["float_weights"]
    free = []
    if is_float.any():
        free.append("efficiency")
    if (~is_float).any():
        free.append("efficiency_quant")
    keys = x["depth"] + x["prompt_tokens"] / 2
    if keys.max() - keys.min() >= 1000:
        free.append("attention_efficiency")
    if x["device"].nunique() >= 3:
        free.append("layer_overhead_us")
    quant = x[~is_float]
    ratio = np.log(quant["fp16_tflops"] / quant["fp32_tflops"]) if "fp32_tflops" in x.columns else pd.Series([0.0])
    if not integer_kernels:
        base = replace(base, alu_work=0.0)
    elif quant["device"].nunique() >= 3 and ratio.max() - ratio.min() > np.log(1.5):
        free.append("alu_work")  # tensor peak and ALU rate vary apart: the two terms can be told apart
        base = replace(base, alu_work=base.alu_work or 0.3)
    if is_float.any() and not (~is_float).any() and default:
        base = replace(base, efficiency_quant=0.0)
    p = _fit("prefill", x, free, base, lambda q, rows: predict_prefill(q, rows, decode))
    if p.efficiency_quant == 0.0:
        p = replace(p, efficiency_quant=p.efficiency)
    if not is_float.any() and default:
        p = replace(p, efficiency=p.efficiency_quant)
    return p


# ---- fits per backend and era ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class GroupFit:
    backend: str
    era: str
    decode: DecodeParams
    prefill: PrefillParams | None
    donor: str  # the fit whose values stand for parameters these measurements cannot pin down ("" = none)
    devices: int
    points: int


def _order(data: pd.DataFrame, min_devices: int) -> list[tuple[str, str]]:
    """Groups to fit, those with the most devices first (donors before the groups that borrow from them)."""
    tg = data[data["metric"] == "tg"]
    counts = tg.groupby(["group", "era"])["device"].nunique()
    # A group on fewer devices is fitted only when a larger group can lend what its rows cannot pin down; an
    # architecture family after every backend (its backend's fit lends it all but its bandwidth share).
    big = [g for g, n in counts.items() if n >= min_devices]
    groups = [g for g in counts.index if g in big or big]
    return sorted(groups, key=lambda g: ("." in g[0], g not in big, g[0] != "cuda", g[1] != "2024", -counts[g]))


def _donor(group: tuple[str, str], done: dict) -> GroupFit | None:
    """The fit that lends a group what its rows cannot pin down: an architecture family's own fit of another era
    (the same chips), else its backend's of the same era; a backend's fit of another era; else CUDA's."""
    backend, era = group
    eras = [(backend, e) for e in sorted({e for _, e in done}, reverse=True) if e != era]
    family = eras + [(base_backend(backend), era)] if "." in backend else []
    for other in (
        family
        + eras
        + [
            ("cuda", era),
            ("cuda", "2024"),
            ("cuda", CURRENT_ERA),
        ]
    ):
        if other in done and other != group:
            return done[other]
    return None


def _with_superblock(tg: pd.DataFrame, first: DecodeParams) -> DecodeParams:
    """Refit `first` with the super-block formats' work ratio free, when these rows can tell it.

    The ratio (ALU work per byte of Q4_K_M, IQ… ÷ that of Q4_0, Q8_0) shows only where the cores limit decode
    and both kinds of format were measured (Apple GPUs with few cores for their bandwidth). The limit is a
    minimum, flat where it does not bind (there the ratio cannot move from 1): the refit starts well above 1 and
    is kept when it fits better.
    """
    if first.flop_per_byte <= 0 or not {"block", "superblock"} <= set(tg["dequant"]):
        return first
    measured = np.log(tg["tok_s"].to_numpy())
    fits = [first, fit_decode(tg, replace(first, superblock_work=1.6), superblock=True)]
    return min(fits, key=lambda p: float(np.sum((np.log(predict_decode(p, tg)) - measured) ** 2)))


def _has_depth(data: pd.DataFrame, group: tuple[str, str]) -> bool:
    """True when the group's decode rows span contexts enough for fit_decode to fit the attention cost."""
    tg = data[(data["group"] == group[0]) & (data["era"] == group[1]) & (data["metric"] == "tg")]
    return not tg.empty and tg["ctx"].max() - tg["ctx"].min() >= 1000


def _fit_family(rows: pd.DataFrame, group: tuple[str, str], donor: GroupFit, backend: GroupFit | None) -> GroupFit:
    """An architecture family's fit: its donor's parameters (the family's own fit of another era, else its
    backend's) with the family's own share of peak bandwidth (HBM or other memory, whichever its rows have), its
    fixed cost per layer where three model sizes or more were measured, its attention cost where its rows span
    contexts, and, where it has prompt rows, its own share of peak FLOPs; without prompt rows, the prefill of its
    backend's fit of the same era (`backend`)."""
    tg, pp = rows[rows["metric"] == "tg"], rows[(rows["metric"] == "pp") & rows["fp16_tflops"].notna()]
    decode = donor.decode
    if not tg.empty:
        free = ["efficiency_hbm"] if (tg["memory_type"] == "hbm").all() else ["efficiency"]
        if (tg["memory_type"] == "hbm").any() and free == ["efficiency"]:
            free.append("efficiency_hbm")
        if tg["weights_bytes"].nunique() >= 3:
            free.append("layer_overhead_ms")  # several model sizes: the fixed cost per layer apart from the share
        if tg["ctx"].max() - tg["ctx"].min() >= 1000:
            free.append("attention_ns")  # decode at depth measured on the family's cards
        decode = _fit("decode", tg, free, decode, predict_decode)
    prefill = backend.prefill if pp.empty and backend is not None and backend.prefill else donor.prefill
    if not pp.empty and prefill is not None:
        free = ["efficiency_quant"] if (~pp["float_weights"]).any() else []
        free += ["efficiency"] if pp["float_weights"].any() else []
        prefill = _fit("prefill", pp, free, prefill, lambda q, r: predict_prefill(q, r, decode))
    label = f"{donor.backend}@{donor.era}"
    return GroupFit(group[0], group[1], decode, prefill, label, int(rows["device"].nunique()), len(rows))


def _fit_group(data: pd.DataFrame, group: tuple[str, str], done: dict, ratio: float | None, min_devices: int):
    rows = data[(data["group"] == group[0]) & (data["era"] == group[1])]
    tg, pp = rows[rows["metric"] == "tg"], rows[(rows["metric"] == "pp") & rows["fp16_tflops"].notna()]
    donor = _donor(group, done)
    if "." in group[0] and donor is not None:
        return _fit_family(rows, group, donor, done.get((base_backend(group[0]), group[1])))
    decode_base = donor.decode if donor else DEFAULT_DECODE
    if donor is not None and base_backend(donor.backend) != group[0]:
        decode_base = replace(decode_base, flop_per_byte=0.0)  # the cores' limit is a property of the backend
    if ratio is not None:
        decode_base = replace(decode_base, superblock_work=ratio)
    few = tg["device"].nunique() == 1 or (tg["device"].nunique() < 3 and tg["weights_bytes"].nunique() < 3)
    if few and donor is not None and donor.backend == group[0]:
        # One device of a backend fitted in another era, or two with fewer than three model sizes: their decode rows
        # cannot tell the era's bandwidth share and per-layer cost from those devices' and that model's own (one
        # Llama-3.1-8B run on an M1 Max and on an M4): they test the other era's decode fit instead. Prefill's share
        # of peak FLOPs is the kernels' and is fitted. The attention cost at depth is the era's kernels' (flash
        # attention by default in current builds streams the KV cache once): it comes from the era's CUDA fit where
        # that saw decode at depth.
        decode = decode_base
        era_cuda = done.get(("cuda", group[1]))
        if era_cuda is not None and _has_depth(data, ("cuda", group[1])):
            decode = replace(decode, attention_ns=era_cuda.decode.attention_ns)
    else:
        decode = fit_decode(tg, decode_base)
    if ratio is None and tg["device"].nunique() >= min_devices:
        decode = _with_superblock(tg, decode)
    prefill = None
    if pp["device"].nunique() >= min_devices or (donor and donor.prefill and not pp.empty):
        base = donor.prefill if donor and donor.prefill else DEFAULT_PREFILL
        prefill = fit_prefill(pp, base, decode, group[1] not in DEQUANTISING_ERAS)
    elif donor is not None:
        prefill = donor.prefill
    label = f"{donor.backend}@{donor.era}" if donor else ""
    return GroupFit(group[0], group[1], decode, prefill, label, int(tg["device"].nunique()), len(rows))


def fit_groups(data: pd.DataFrame, min_devices: int = 3) -> dict[tuple[str, str], GroupFit]:
    """One fit per (backend, era) with measurements from at least `min_devices` devices.

    The super-block work ratio is a property of the formats, shared by every backend: the first group that can
    tell it sets it for all; a group fitted before with super-block rows the cores limit is fitted again.
    """
    done: dict[tuple[str, str], GroupFit] = {}
    ratio: float | None = None
    for group in _order(data, min_devices):
        done[group] = _fit_group(data, group, done, ratio, min_devices)
        if ratio is None and done[group].decode.superblock_work != DEFAULT_DECODE.superblock_work:
            ratio = done[group].decode.superblock_work
            for other, f in list(done.items()):
                if other == group:
                    continue
                rows = data[(data["group"] == other[0]) & (data["era"] == other[1]) & (data["metric"] == "tg")]
                if f.decode.flop_per_byte > 0 and (rows["dequant"] == "superblock").any():
                    done[other] = _fit_group(
                        data, other, {k: v for k, v in done.items() if k != other}, ratio, min_devices
                    )
                else:
                    done[other] = replace(f, decode=replace(f.decode, superblock_work=ratio))
    return done


def _predict(fit: GroupFit, x: pd.DataFrame) -> np.ndarray:
    out = np.full(len(x), np.nan)
    tg = (x["metric"] == "tg").to_numpy()
    pp = (x["metric"] == "pp").to_numpy() & x["fp16_tflops"].notna().to_numpy()
    if tg.any():
        out[tg] = predict_decode(fit.decode, x[tg], fit.prefill)
    if pp.any() and fit.prefill is not None:
        out[pp] = predict_prefill(fit.prefill, x[pp], fit.decode)
    return out


@dataclass
class Report:
    """Held-out residuals (measured ÷ predicted − 1) per row of the shipped data, with the fits on all rows."""

    data: pd.DataFrame
    fits: dict[tuple[str, str], GroupFit]
    residual: np.ndarray = field(default_factory=lambda: np.array([]))
    held_out: np.ndarray = field(default_factory=lambda: np.array([], dtype=bool))


def calibrate(data: pd.DataFrame, min_devices: int = 3) -> Report:
    """Fit every group on all rows, then predict each device's rows from fits that never saw that device.

    A group measured on fewer than three devices cannot be held out: its residuals are in-sample and marked.
    """
    fits = fit_groups(data, min_devices)
    residual = np.full(len(data), np.nan)
    held = np.zeros(len(data), dtype=bool)
    for device in steps(data["device"].unique(), "held-out fits (one device left out)"):
        mine = (data["device"] == device).to_numpy()
        others = fit_groups(data[~mine], min_devices)
        for group in {(b, e) for b, e in zip(data[mine]["group"], data[mine]["era"], strict=True)}:
            rows = mine & (data["group"] == group[0]).to_numpy() & (data["era"] == group[1]).to_numpy()
            fit, out = others.get(group), True
            if fit is None or group not in fits:
                fit, out = fits.get(group) or _fallback(fits, group), False
            if fit is None:
                continue
            residual[rows] = data[rows]["tok_s"].to_numpy() / _predict(fit, data[rows]) - 1
            held[rows] = out
    return Report(data, fits, residual, held)


_REPORTS: dict[tuple, Report] = {}


def shipped_report(catalog: Catalog, folder: Path = CALIBRATION_DIR) -> Report:
    """calibrate(load_shipped(catalog, folder)), remembered in this process while the catalog rows and the
    measurement files stay the same (the leave-one-device-out fits take about a minute)."""
    files = tuple((f.name, f.stat().st_mtime_ns, f.stat().st_size) for f in sorted(folder.glob("*.csv")))
    rows = repr([catalog[t].rows for t in ("gpu", "model", "quant")])
    key = (str(folder), files, rows)
    if key not in _REPORTS:
        _REPORTS[key] = calibrate(load_shipped(catalog, folder))
    return _REPORTS[key]


def _fallback(fits: dict, group: tuple[str, str]) -> GroupFit | None:
    for other in ((base_backend(group[0]), group[1]), ("cuda", group[1]), ("cuda", CURRENT_ERA)):
        if other in fits:
            return fits[other]
    return None


def multi_gpu_residuals(report: Report, multi: pd.DataFrame) -> np.ndarray:
    """measured ÷ predicted − 1 on the multi-GPU rows (decode and prompt), one per row of `multi` (NaN where no
    fit applies), predicted by the single-GPU fit of their backend and era through the engine's multi-GPU terms:
    layer split runs the GPUs' stages in turn (one GPU's bandwidth, a hand-over per boundary); row split divides
    every weight matrix (bandwidth adds up, llama.cpp's exchanges per layer). These rows are never fitted."""
    out = np.full(len(multi), np.nan)
    for (backend, era), fit in report.fits.items():
        mine = ((multi["group"] == backend) & (multi["era"] == era)).to_numpy()
        if mine.any():
            out[mine] = multi[mine]["tok_s"].to_numpy() / _predict(fit, multi[mine]) - 1
    return out


def _linear_in(rows: pd.DataFrame, fit: GroupFit, target: str, bound: dict, name: str) -> tuple:
    """(t₀, x) with the step time of `target` (1 ÷ tok/s) = t₀ + x·v for the value v of quantity `name`."""

    def step_s(v: float) -> np.ndarray:
        bind = lambda r: _bound(fit.decode, fit.prefill, r) | bound | {name: v}  # noqa: E731
        return 1 / engine_rows.evaluate(target, rows, bind)

    t0 = step_s(0.0)
    return t0, step_s(1.0) - t0


def _fit_linear(report: Report, rows: pd.DataFrame, target: str, bound: dict, name: str, high: float) -> float:
    """v in [0, high] minimising Σ(ln(t₀ + x·v) − ln t)² over the measured step times t of `rows`."""
    from scipy.optimize import minimize_scalar  # imported here: only fitting needs SciPy

    base, slope, measured = [], [], []
    for (backend, era), fit in report.fits.items():
        mine = rows[((rows["backend"] == backend) & (rows["era"] == era)).to_numpy()]
        if mine.empty:
            continue
        t0, x = _linear_in(mine, fit, target, bound, name)
        base.append(t0)
        slope.append(x)
        measured.append(1 / mine["tok_s"].to_numpy())
    if not base:
        raise CalibrationError(f"no row-split {target} measurement to fit {name} on")
    t0, x, t = (np.concatenate(v) for v in (base, slope, measured))
    best = minimize_scalar(lambda v: float(np.sum((np.log(t0 + x * v) - np.log(t)) ** 2)), bounds=(0, high))
    return float(best.x)


def _row_split(multi: pd.DataFrame, metric: str) -> pd.DataFrame:
    return multi[((multi["split"] == "row") & (multi["metric"] == metric)).to_numpy()]


def fit_exchange_us(report: Report, multi: pd.DataFrame, bandwidth_frac: float | None = None) -> tuple[float, int]:
    """llama.cpp's fixed cost per row-split exchange (engines.csv `exchange_us`, µs) and the rows it rests on.

    A row-split decode step pays, per layer, one exchange per split weight matrix: the link's hops and this fixed
    cost (synchronise the GPUs, launch each one's share). The step time is linear in it, t = t₀ + x·e, with t₀ and
    x from the engine (e = 0 and e = 1 µs) under each row's single-GPU fit; e minimises Σ(ln(t₀ + x·e) − ln t)²
    over the measured step times t, the error measure of the other fits. `bandwidth_frac`: the copies' share of
    the link bandwidth (None = the engine catalog's). No other parameter is refitted."""
    rows = _row_split(multi, "tg")
    bound = {} if bandwidth_frac is None else {"engine_exchange_bandwidth_frac": bandwidth_frac}
    return _fit_linear(report, rows, "decode_tok_s", bound, "engine_exchange_us", 1000), len(rows)


def fit_exchange_bandwidth_frac(report: Report, multi: pd.DataFrame, exchange_us: float) -> tuple[float, int]:
    """Share of the link bandwidth llama.cpp's row-split copies reach (engines.csv `exchange_bandwidth_frac`) and
    the prompt rows it rests on. A row-split prompt copies every split matrix's FP32 input to each other GPU and
    the output slices back: its time is linear in 1 ÷ share, fitted like `fit_exchange_us` on the row-split
    prompt rows (with `exchange_us` held)."""
    rows = _row_split(multi, "pp")
    bound = {"engine_exchange_us": exchange_us}
    name = "engine_exchange_bandwidth_frac"
    # time = t₀ + x ÷ share: fit w = 1 ÷ share through the engine evaluated at share = 1 and 1/2
    base, slope, measured = [], [], []
    for (backend, era), fit in report.fits.items():
        mine = rows[((rows["group"] == backend) & (rows["era"] == era)).to_numpy()]
        if mine.empty:
            continue

        def step_s(share: float, fit: GroupFit = fit, mine: pd.DataFrame = mine) -> np.ndarray:
            bind = lambda r: _bound(fit.decode, fit.prefill, r) | bound | {name: share}  # noqa: E731
            return 1 / engine_rows.evaluate("prefill_tok_s", mine, bind)

        one, half = step_s(1.0), step_s(0.5)
        base.append(2 * one - half)
        slope.append(half - one)
        measured.append(1 / mine["tok_s"].to_numpy())
    if not base:
        raise CalibrationError("no row-split prompt measurement to fit the copies' bandwidth share on")
    from scipy.optimize import minimize_scalar  # imported here: only fitting needs SciPy

    t0, x, t = (np.concatenate(v) for v in (base, slope, measured))
    best = minimize_scalar(lambda w: float(np.sum((np.log(t0 + x * w) - np.log(t)) ** 2)), bounds=(1, 1000))
    return float(1 / best.x), len(rows)


def fit_row_split(report: Report, multi: pd.DataFrame, rounds: int = 3) -> tuple[float, float, int, int]:
    """llama.cpp's row-split `exchange_us` (decode rows) and `exchange_bandwidth_frac` (prompt rows), fitted in
    turn (each holds the other), and the decode and prompt rows they rest on."""
    share, n_pp = 1.0, 0
    exchange_us, n_tg = fit_exchange_us(report, multi, share)
    for _ in range(rounds):
        share, n_pp = fit_exchange_bandwidth_frac(report, multi, exchange_us)
        exchange_us, n_tg = fit_exchange_us(report, multi, share)
    return exchange_us, share, n_tg, n_pp


def error_stats(residuals: np.ndarray) -> tuple[float, float]:
    """Median and 90th percentile of |predicted ÷ measured − 1|."""
    residuals = residuals[~np.isnan(residuals)]
    if residuals.size == 0:
        return float("nan"), float("nan")
    errors = np.abs(1 / (1 + residuals) - 1)
    return float(np.median(errors)), float(np.quantile(errors, 0.9))


def accuracy_table(report: Report) -> list[dict]:
    """Rows of the accuracy report per backend and era, and over all held-out rows, plus the book's rule."""
    d = report.data
    book = d["tok_s"] / (BOOK_EFFICIENCY * d["mem_bandwidth_gbs"] * 1e9 / d["weights_bytes"]) - 1
    rows = []
    keys = sorted({(b, e) for b, e in zip(d["group"], d["era"], strict=True)})
    groups = [(f"{b} {e}", (d["group"] == b) & (d["era"] == e)) for b, e in keys]
    groups.append(("all held out", pd.Series(report.held_out, index=d.index)))
    for name, mask in groups:
        mask = mask.to_numpy() & ~np.isnan(report.residual)
        tg = mask & (d["metric"] == "tg").to_numpy()
        pp = mask & (d["metric"] == "pp").to_numpy()
        dec, pre = error_stats(report.residual[tg]), error_stats(report.residual[pp])
        rows.append(
            {
                "backend": name,
                "devices": int(d[mask]["device"].nunique()),
                "held_out": bool(report.held_out[mask].all()) if mask.any() else False,
                "decode_points": int(tg.sum()),
                "decode_median": dec[0],
                "decode_p90": dec[1],
                "book_median": error_stats(book.to_numpy()[tg])[0],
                "book_p90": error_stats(book.to_numpy()[tg])[1],
                "prefill_points": int(pp.sum()),
                "prefill_median": pre[0],
                "prefill_p90": pre[1],
            }
        )
    return rows


SPLIT_WORDS = {"layer": "layer split", "row": "row split", "tensor": "tensor parallel"}


def gpus_text(counts) -> str:
    """GPUs per replica as a list of the counts present (2, 4, 8)."""
    return ", ".join(str(int(n)) for n in sorted(set(counts)))


def multi_gpu_table(multi: pd.DataFrame, residuals: np.ndarray) -> list[dict]:
    """Error rows of the multi-GPU llama.cpp measurements per split and metric (decode, prompt): rows, devices,
    GPUs per replica, median and p90 of |predicted ÷ measured − 1|."""
    out = []
    for split in ("layer", "row"):
        for metric, word in (("tg", "decode"), ("pp", "prefill")):
            mask = ((multi["split"] == split) & (multi["metric"] == metric)).to_numpy() & ~np.isnan(residuals)
            if not mask.any():
                continue
            median, p90 = error_stats(residuals[mask])
            out.append(
                {
                    "split": SPLIT_WORDS[split],
                    "engine": "llama.cpp",
                    "metric": word,
                    "rows": int(mask.sum()),
                    "devices": int(multi[mask]["device"].nunique()),
                    "gpus": gpus_text(multi[mask]["n_devices"]),
                    "median": median,
                    "p90": p90,
                }
            )
    return out


def summary_line(rows: list[dict]) -> str:
    """One sentence with the overall held-out error and which groups meet the goals (docs/accuracy.md quotes it)."""
    total = next(r for r in rows if r["backend"] == "all held out")
    met, missed = [], []
    for r in rows:
        if r["backend"] == "all held out" or not r["held_out"]:
            continue
        ok = r["decode_median"] <= GOALS["decode_median"] and r["decode_p90"] <= GOALS["decode_p90"]
        if r["prefill_points"]:
            ok = ok and r["prefill_median"] <= GOALS["prefill_median"]
        (met if ok else missed).append(r["backend"])
    pct = lambda v: "–" if v != v else f"{100 * v:.1f} %"  # noqa: E731
    return (
        f"Summary (leave one device out, {total['devices']} devices): decode median {pct(total['decode_median'])}, "
        f"p90 {pct(total['decode_p90'])} on {total['decode_points']} rows; prefill median "
        f"{pct(total['prefill_median'])}, p90 {pct(total['prefill_p90'])} on {total['prefill_points']} rows; "
        f"goal (decode median ≤ 8 %, p90 ≤ 20 %, prefill median ≤ 20 %) met by {', '.join(met) or 'none'}"
        f"{'; not met by ' + ', '.join(missed) if missed else ''}"
    )


def speed_rows(report: Report, engine: str, as_of: str, origin: str, serial_frac: float) -> list[dict]:
    """speed_params.csv rows: one per fitted backend and era of `engine` (name engine/backend@era), plus
    engine/any@era for the other backends.

    `serial_frac` (the serving model's overlap share) is not fitted here: it is carried over from the serving fit.
    engine/any@era takes the CUDA fit of the era (else the group with the most devices) and the band of all
    held-out residuals of that era pooled; the CUDA engines without measurements take the CUDA fit and its band.
    """
    d = report.data
    rows = []
    eras = sorted({e for _, e in report.fits})

    def bands(era: str, backend: str | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Held-out decode and prefill residuals of a group (backend None: the era pooled); a group whose
        devices were not held out takes its era's pooled band (in-sample residuals say nothing of other devices)."""
        out = []
        for metric in ("tg", "pp"):
            mask = ((d["era"] == era) & (d["metric"] == metric)).to_numpy()
            mine = mask & (d["group"] == backend).to_numpy() if backend else mask & report.held_out
            if not mine.any() or not report.held_out[mine].all():
                mine = mask & report.held_out
            out.append(report.residual[mine])
        return out[0], out[1]

    for (backend, era), f in sorted(report.fits.items()):
        band = bands(era, backend)
        for name in [f"{base_backend(backend)}.{a}" for a in family_archs(backend)] or [backend]:
            rows.append(_row(f"{engine}/{name}@{era}", f, band, origin, as_of, serial_frac))
    for era in eras:
        members = [f for (b, e), f in report.fits.items() if e == era and "." not in b]
        main = report.fits.get(("cuda", era)) or max(members, key=lambda f: f.devices)
        if main.prefill is None:
            raise CalibrationError("no prefill measurements to fit: include prompt-processing rows (llama-bench -p)")
        note = f"backend lain memakai fit {main.backend}@{era} dengan pita gabungan semua backend era ini"
        rows.append(_row(f"{engine}/any@{era}", main, bands(era), origin, as_of, serial_frac, note))
    current = report.fits.get(("cuda", CURRENT_ERA))
    if engine == "llama.cpp" and current is not None:
        for other, chunk in UNMEASURED_ENGINES.items():
            note = f"asumsi: fit llama.cpp/cuda@{CURRENT_ERA}; belum ada pengukuran {other} di data kalibrasi"
            row = _row(f"{other}/any", current, bands(CURRENT_ERA, "cuda"), origin, as_of, serial_frac, note, chunk)
            rows.append(row | {"fit_points": 0})
    return rows


@dataclass(frozen=True)
class BandFloor:
    """The least band of a family no measurement calibrates (a row of uncalibrated.csv)."""

    family: str  # backend or backend.arch (rocm.RDNA2)
    era: str
    decode: float  # least half-width of the decode band (0–1)
    prefill: float  # of the prompt band
    reason: str


def load_band_floors(folder: Path = CALIBRATION_DIR) -> list[BandFloor]:
    """The rows of uncalibrated.csv ([] without the file); a bad row names the file, line and field."""
    path = folder / UNCALIBRATED
    if not path.exists():
        return []
    table = pd.read_csv(path, dtype=str, keep_default_na=False)
    missing = [f for f in UNCALIBRATED_FIELDS if f not in table.columns]
    if missing:
        raise CalibrationError(f"{path}: missing column(s) {', '.join(missing)}")
    floors = []
    for line, row in enumerate(table.to_dict("records"), start=2):
        for name in ("family", "era", "reason", "source", "as_of"):
            if not row[name].strip():
                raise CalibrationError(f"{path}:{line}: {name}: blank")
        values = []
        for name in ("decode_band_frac", "prefill_band_frac"):
            try:
                value = float(row[name])
            except ValueError:
                raise CalibrationError(f"{path}:{line}: {name}: {row[name]!r} is not a number") from None
            if not 0 <= value <= 1:
                raise CalibrationError(f"{path}:{line}: {name}: {value} is not in 0–1")
            values.append(value)
        floors.append(BandFloor(row["family"].strip(), row["era"].strip(), values[0], values[1], row["reason"]))
    return floors


def uncalibrated_line(floors: list[BandFloor]) -> str:
    """One line naming the families no measurement calibrates and their least band (accuracy's output)."""
    if not floors:
        return "Not calibrated: none (every family's band comes from its held-out residuals)"
    parts = [
        f"{f.family.replace('.', ' ')} {f.era} (±{100 * f.decode:.0f} % decode, ±{100 * f.prefill:.0f} % prompt)"
        for f in floors
    ]
    return f"Not calibrated, band widened to at least ({UNCALIBRATED}): " + "; ".join(parts)


def apply_band_floors(rows: list[dict], floors: list[BandFloor], engine: str) -> list[dict]:
    """The speed rows with each uncalibrated family's band widened to at least ± its floor. A family without a row
    of its own (backend.arch) gets a copy of its backend's row for that era, fit_points 0: no measurement of it."""
    out = {r["name"]: dict(r) for r in rows}
    for floor in floors:
        name = f"{engine}/{floor.family}@{floor.era}"
        row = out.get(name)
        if row is None:
            base = out.get(f"{engine}/{base_backend(floor.family)}@{floor.era}")
            if base is None:
                raise CalibrationError(
                    f"{UNCALIBRATED}: family {floor.family!r}, era {floor.era}: no speed row "
                    f"{engine}/{base_backend(floor.family)}@{floor.era} to copy"
                )
            row = base | {"name": name, "fit_points": 0, "source": f"salinan {base['name']}; {base['source']}"}
        row["error_low_frac"] = min(float(row["error_low_frac"]), -floor.decode)
        row["error_high_frac"] = max(float(row["error_high_frac"]), floor.decode)
        row["prefill_error_low_frac"] = min(float(row["prefill_error_low_frac"]), -floor.prefill)
        row["prefill_error_high_frac"] = max(float(row["prefill_error_high_frac"]), floor.prefill)
        row["band_floor_frac"], row["prefill_band_floor_frac"] = floor.decode, floor.prefill
        row["source"] = f"{row['source']}; belum terkalibrasi, pita minimum (uncalibrated.csv): {floor.reason}"
        out[name] = row
    return list(out.values())


def residual_band(residuals: np.ndarray) -> tuple[float, float]:
    """10th and 90th percentile of measured ÷ predicted − 1, at most 0 and at least 0."""
    residuals = residuals[~np.isnan(residuals)]
    low, high = np.quantile(residuals, BAND) if residuals.size else (0.0, 0.0)
    return round(min(0.0, float(low)), 4), round(max(0.0, float(high)), 4)


def _row(name, f: GroupFit, residuals, origin, as_of, serial_frac, note: str = "", chunk: int = CHUNK) -> dict:
    """A speed_params.csv row; `residuals` = (held-out decode, held-out prefill) residuals behind its bands."""
    (low, high), (pre_low, pre_high) = residual_band(residuals[0]), residual_band(residuals[1])
    prefill = f.prefill or DEFAULT_PREFILL
    what = note or f"{f.points} pengukuran pada {f.devices} perangkat (build era {f.era})"
    borrowed = f"; nilai yang tidak bisa ditentukan data ini dari fit {f.donor}" if f.donor else ""
    return {
        "name": name,
        "decode_efficiency_frac": round(f.decode.efficiency, 4),
        "decode_efficiency_hbm_frac": round(f.decode.efficiency_hbm, 4),
        "layer_overhead_ms": round(f.decode.layer_overhead_ms, 5),
        "attention_ns": round(f.decode.attention_ns, 3),
        "prefill_efficiency_frac": round(prefill.efficiency, 4),
        "prefill_efficiency_quant_frac": round(prefill.efficiency_quant, 4),
        "prefill_layer_overhead_us": round(prefill.layer_overhead_us, 4),
        "decode_flop_per_byte": round(f.decode.flop_per_byte, 2),
        "decode_superblock_work_ratio": round(f.decode.superblock_work, 3),
        "prefill_attention_efficiency_frac": round(prefill.attention_efficiency, 4),
        "prefill_alu_work_ratio": round(prefill.alu_work, 4),
        "prefill_chunk_tokens": chunk,
        "fp8_fp4_units": 0,
        "serial_frac": serial_frac,
        "moe_kernel_efficiency_frac": 1.0,  # no MoE measurement of llama.cpp's kernels in the data: no penalty
        "moe_prefill_efficiency_frac": 1.0,
        "kv_read_efficiency_frac": 1.0,  # the decode-at-depth rows fit the KV reads at the weights' rate (accuracy.md)
        "error_low_frac": low,
        "error_high_frac": high,
        "prefill_error_low_frac": pre_low,
        "prefill_error_high_frac": pre_high,
        "band_floor_frac": 0.0,  # calibrated; apply_band_floors widens the families uncalibrated.csv names
        "prefill_band_floor_frac": 0.0,
        "fit_points": f.points,
        "source": f"kalkulator calibrate pada {origin}: {what}; pita decode dan prefill = persentil ke-10/ke-90 "
        f"residu uji dengan satu perangkat disisihkan{borrowed}; serial_frac: fit serving tensorrt-llm (asumsi)",
        "as_of": as_of,
    }
