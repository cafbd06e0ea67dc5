"""Fit the speed model to measured tokens/s and report its error on devices held out of the fit.

Decode time per token = (weight bytes + KV bytes at the mean context) ÷ (bandwidth × η) + layers × c
+ layers × context × a, with η per memory technology (HBM vs the rest), all per backend. Prefill rate =
FP16 FLOPS × η_p ÷ (2 × params + causal attention FLOPs per token). The same formulas live in
quantities/speed.py; the vectorised copies here exist only to fit their parameters.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from kalkulator.catalog import Catalog
from kalkulator.paths import CALIBRATION_DIR

BOOK_EFFICIENCY = 0.6  # the book's rule: tok/s ≈ 0.6 × bandwidth ÷ model bytes (Bab 12.2)
BAND = (0.10, 0.90)  # quantiles of held-out residuals that make the uncertainty band


class CalibrationError(ValueError):
    """Measurements that cannot be used; the message names the file and field."""


@dataclass(frozen=True)
class PrefillParams:
    efficiency: float  # float weights (F16/BF16/F32)
    efficiency_quant: float  # quantized weights
    layer_overhead_us: float  # per layer and prompt token


FLOAT_QUANTS = ("F16", "BF16", "F32", "FP16", "FP32")


@dataclass(frozen=True)
class DecodeParams:
    efficiency: float
    efficiency_hbm: float
    layer_overhead_ms: float
    attention_ns: float


def _model_arch(catalog: Catalog, name: str) -> dict:
    row = catalog["model"].find(name.removeprefix("Meta-"))
    if row is None:
        raise CalibrationError(f"model {name!r} is not in the model catalog")
    return row


def frame(rows: pd.DataFrame, catalog: Catalog) -> pd.DataFrame:
    """Add the architecture columns the fit needs (layers, KV bytes per token at F16, attention width)."""
    arch = [_model_arch(catalog, m) for m in rows["model"]]
    out = rows.copy()
    out["layers"] = [a["layers"] for a in arch]
    out["kv_bytes_per_token"] = [2 * a["layers"] * a["kv_heads"] * a["head_dim"] * 2 for a in arch]
    out["attn_dim"] = [a["heads"] * a["head_dim"] for a in arch]
    out["ctx"] = np.where(out["metric"] == "tg", out["prompt_tokens"] + out["gen_tokens"] / 2, out["prompt_tokens"] / 2)
    return out


def load_shipped(catalog: Catalog, folder: Path = CALIBRATION_DIR, multi_gpu: bool = False) -> pd.DataFrame:
    """The shipped llama.cpp measurements (single-device, or with `multi_gpu` the 2–8-GPU layer-split ones)."""
    m = pd.read_csv(folder / "measured_tps.csv")
    specs = pd.read_csv(folder / "gpu_specs.csv")
    m = (m[m["n_devices"] > 1] if multi_gpu else m[m["n_devices"] == 1]).copy()
    backend = m["notes"].str.extract(r"backend=(\w+)")[0].str.lower()
    cpu_only = m["hardware"].str.contains("CPU-only", regex=False)
    backend = backend.fillna(m["hardware"].map(lambda h: "metal" if h.startswith("Apple") else "cuda"))
    m["backend"] = np.where(cpu_only, "cpu", backend)
    m["device"] = m["hardware"].str.replace(" [CPU-only run]", "", regex=False)
    m = m.merge(
        specs[["hardware", "mem_bandwidth_gbs", "fp16_tflops_dense", "memory_type"]].rename(
            columns={"hardware": "device", "fp16_tflops_dense": "fp16_tflops"}
        ),
        on="device",
        how="inner",
    )
    m["weights_bytes"] = m["notes"].str.extract(r"model_file=([\d.]+) GiB")[0].astype(float) * 2**30
    m["metric"] = m["metric"].str.replace("_tok_s", "", regex=False)
    m = m.rename(columns={"value": "tok_s"})
    m = m[m["mem_bandwidth_gbs"].notna() & m["weights_bytes"].notna()]
    cols = [
        "device",
        "backend",
        "memory_type",
        "mem_bandwidth_gbs",
        "fp16_tflops",
        "model",
        "params_b",
        "quant",
        "weights_bytes",
        "prompt_tokens",
        "gen_tokens",
        "metric",
        "tok_s",
        "n_devices",
    ]
    return frame(m[cols].reset_index(drop=True), catalog)


def load_llama_bench(path: Path, catalog: Catalog, gpu: str, model: str) -> pd.DataFrame:
    """Rows of `llama-bench -o csv` or `-o json` output, run on catalog GPU `gpu` with catalog model `model`."""
    gpu_row = catalog["gpu"].find(gpu)
    if gpu_row is None:
        raise CalibrationError(f"--gpu: {gpu!r} is not in the GPU catalog")
    try:
        if path.suffix.lower() == ".json":
            records = json.loads(path.read_text(encoding="utf-8"))
            raw = pd.DataFrame(records if isinstance(records, list) else [records])
        else:
            raw = pd.read_csv(path)
    except (ValueError, pd.errors.ParserError) as exc:
        raise CalibrationError(f"{path}: not llama-bench CSV or JSON ({exc})") from None
    needed = ["model_size", "model_n_params", "n_prompt", "n_gen", "avg_ts"]
    missing = [c for c in needed if c not in raw.columns]
    if missing:
        raise CalibrationError(f"{path}: missing llama-bench field(s) {', '.join(missing)}")
    depth = raw["n_depth"] if "n_depth" in raw.columns else 0
    rows = pd.DataFrame(
        {
            "device": gpu_row["name"],
            "backend": gpu_row["backend"],
            "memory_type": gpu_row["memory_type"],
            "mem_bandwidth_gbs": gpu_row["mem_bandwidth_gbs"],
            "fp16_tflops": gpu_row["fp16_tflops"],
            "model": model,
            "params_b": raw["model_n_params"].astype(float) / 1e9,
            "quant": raw.get("model_type", ""),
            "weights_bytes": raw["model_size"].astype(float),
            "prompt_tokens": np.where(raw["n_gen"] > 0, depth, raw["n_prompt"] + depth),
            "gen_tokens": raw["n_gen"],
            "metric": np.where(raw["n_gen"] > 0, "tg", "pp"),
            "tok_s": raw["avg_ts"].astype(float),
        }
    )
    return frame(rows, catalog)


# ---- the model, vectorised ----------------------------------------------------------------------------------


def predict_decode(p: DecodeParams, x: pd.DataFrame) -> np.ndarray:
    eta = np.where(x["memory_type"] == "hbm", p.efficiency_hbm, p.efficiency)
    seconds = (x["weights_bytes"] + x["kv_bytes_per_token"] * x["ctx"]) / (x["mem_bandwidth_gbs"] * 1e9 * eta)
    seconds = seconds + x["layers"] * p.layer_overhead_ms / 1e3 + x["layers"] * x["ctx"] * p.attention_ns / 1e9
    return 1 / seconds.to_numpy()


def predict_prefill(p: PrefillParams, x: pd.DataFrame) -> np.ndarray:
    eta = np.where(x["quant"].str.upper().isin(FLOAT_QUANTS), p.efficiency, p.efficiency_quant)
    flops_per_token = 2 * x["params_b"] * 1e9 + 2 * x["layers"] * x["prompt_tokens"] * x["attn_dim"]
    seconds = flops_per_token / (x["fp16_tflops"] * 1e12 * eta) + x["layers"] * p.layer_overhead_us / 1e6
    return 1 / seconds.to_numpy()


def fit_decode(x: pd.DataFrame) -> DecodeParams:
    """Least squares on log(tok/s), so every measurement weighs by its relative error."""
    from scipy.optimize import least_squares  # imported here: only fitting needs SciPy

    hbm = bool((x["memory_type"] == "hbm").any())
    other = bool((x["memory_type"] != "hbm").any())

    def params(v: np.ndarray) -> DecodeParams:
        eta, eta_hbm = (v[0], v[1]) if hbm and other else (v[0], v[0])
        return DecodeParams(eta, eta_hbm, v[-2], v[-1])

    start = [0.8, 0.7, 0.05, 1.0] if hbm and other else [0.8, 0.05, 1.0]
    low = [0.05] * (len(start) - 2) + [0.0, 0.0]
    high = [1.0] * (len(start) - 2) + [5.0, 1e4]
    res = least_squares(
        lambda v: np.log(predict_decode(params(v), x)) - np.log(x["tok_s"].to_numpy()), start, bounds=(low, high)
    )
    return params(res.x)


def fit_prefill(x: pd.DataFrame) -> PrefillParams:
    from scipy.optimize import least_squares  # imported here: only fitting needs SciPy

    x = x[x["fp16_tflops"].notna()]
    is_float = x["quant"].str.upper().isin(FLOAT_QUANTS)
    both = bool(is_float.any()) and bool((~is_float).any())

    def params(v: np.ndarray) -> PrefillParams:
        return PrefillParams(v[0], v[1] if both else v[0], v[-1])

    start = [0.3, 0.3, 1.0] if both else [0.3, 1.0]
    res = least_squares(
        lambda v: np.log(predict_prefill(params(v), x)) - np.log(x["tok_s"].to_numpy()),
        start,
        bounds=([0.01] * (len(start) - 1) + [0.0], [1.0] * (len(start) - 1) + [1e3]),
    )
    return params(res.x)


def held_out(x: pd.DataFrame, metric: str) -> np.ndarray:
    """measured ÷ predicted − 1 for each row, predicted by a fit that never saw the row's device.

    With a single device there is nothing to hold out: the residuals are in-sample.
    """
    ratios = np.empty(len(x))
    single = x["device"].nunique() == 1
    for device in x["device"].unique():
        test = (x["device"] == device).to_numpy()
        train = x if single else x[~test]
        if metric == "tg":
            pred = predict_decode(fit_decode(train), x[test])
        else:
            pred = predict_prefill(fit_prefill(train), x[test])
        ratios[test] = x[test]["tok_s"].to_numpy() / pred - 1
    return ratios


@dataclass(frozen=True)
class BackendFit:
    backend: str
    decode: DecodeParams
    prefill: PrefillParams | None
    decode_residuals: np.ndarray  # held-out, measured ÷ predicted − 1
    prefill_residuals: np.ndarray
    book_residuals: np.ndarray  # the book's rule on the same decode rows
    devices: int
    points: int


def calibrate(data: pd.DataFrame, min_devices: int = 3) -> list[BackendFit]:
    """Fit each backend with measurements from at least `min_devices` devices."""
    fits = []
    for backend, rows in data.groupby("backend"):
        tg, pp = rows[rows["metric"] == "tg"], rows[rows["metric"] == "pp"]
        pp = pp[pp["fp16_tflops"].notna()]
        if tg["device"].nunique() < min_devices:
            continue
        book = BOOK_EFFICIENCY * tg["mem_bandwidth_gbs"] * 1e9 / tg["weights_bytes"]
        enough_pp = pp["device"].nunique() >= min_devices
        fits.append(
            BackendFit(
                str(backend),
                fit_decode(tg),
                fit_prefill(pp) if enough_pp else None,
                held_out(tg, "tg"),
                held_out(pp, "pp") if enough_pp else np.array([]),
                (tg["tok_s"] / book - 1).to_numpy(),
                int(tg["device"].nunique()),
                len(tg) + len(pp),
            )
        )
    return fits


def layer_split_residuals(fits: list[BackendFit], multi: pd.DataFrame) -> np.ndarray:
    """measured ÷ predicted − 1 on multi-GPU layer-split decode rows, predicted by the single-GPU fit.

    With layer split each token passes the GPUs in turn, so the step reads all weights at one GPU's
    bandwidth: the single-GPU formula applies unchanged. These rows are never used in a fit.
    """
    by_backend = {f.backend: f.decode for f in fits}
    rows = multi[(multi["metric"] == "tg") & multi["backend"].isin(list(by_backend))]
    out = [
        rows[rows["backend"] == b]["tok_s"].to_numpy() / predict_decode(p, rows[rows["backend"] == b]) - 1
        for b, p in by_backend.items()
    ]
    return np.concatenate(out) if out else np.array([])


def error_stats(residuals: np.ndarray) -> tuple[float, float]:
    """Median and 90th percentile of |predicted ÷ measured − 1|."""
    if residuals.size == 0:
        return float("nan"), float("nan")
    errors = np.abs(1 / (1 + residuals) - 1)
    return float(np.median(errors)), float(np.quantile(errors, 0.9))


def accuracy_table(fits: list[BackendFit]) -> list[dict]:
    """Rows of the accuracy report: per backend and overall, decode and prefill, plus the book's rule."""
    rows = []
    groups = [(f.backend, [f]) for f in fits] + [("all", fits)]
    for name, members in groups:
        dec = np.concatenate([f.decode_residuals for f in members])
        pre = np.concatenate([f.prefill_residuals for f in members])
        book = np.concatenate([f.book_residuals for f in members])
        rows.append(
            {
                "backend": name,
                "devices": sum(f.devices for f in members),
                "decode_points": int(dec.size),
                "decode_median": error_stats(dec)[0],
                "decode_p90": error_stats(dec)[1],
                "book_median": error_stats(book)[0],
                "book_p90": error_stats(book)[1],
                "prefill_points": int(pre.size),
                "prefill_median": error_stats(pre)[0],
                "prefill_p90": error_stats(pre)[1],
            }
        )
    return rows


def speed_rows(fits: list[BackendFit], engine: str, as_of: str, origin: str, serial_frac: float) -> list[dict]:
    """speed_params.csv rows: one per fitted backend of `engine`, plus `engine/any` for the others.

    `serial_frac` (the serving model's overlap share) is not fitted here: it is carried over from the serving fit.
    `engine/any` takes the parameters of the backend with the most measurements and the band of all
    backends' held-out residuals pooled; a backend without prefill data borrows that backend's prefill.
    """
    main = max(fits, key=lambda f: f.points)
    if main.prefill is None:
        raise CalibrationError("no prefill measurements to fit: include prompt-processing rows (llama-bench -p)")
    pooled = np.concatenate([f.decode_residuals for f in fits])

    def row(name: str, f: BackendFit, residuals: np.ndarray, note: str) -> dict:
        low, high = np.quantile(residuals, BAND)
        prefill = f.prefill or main.prefill
        borrowed = "" if f.prefill else f"; prefill borrowed from {main.backend}"
        return {
            "name": name,
            "decode_efficiency_frac": round(f.decode.efficiency, 4),
            "decode_efficiency_hbm_frac": round(f.decode.efficiency_hbm, 4),
            "layer_overhead_ms": round(f.decode.layer_overhead_ms, 5),
            "attention_ns": round(f.decode.attention_ns, 3),
            "prefill_efficiency_frac": round(prefill.efficiency, 4),
            "prefill_efficiency_quant_frac": round(prefill.efficiency_quant, 4),
            "prefill_layer_overhead_us": round(prefill.layer_overhead_us, 4),
            "serial_frac": serial_frac,
            "error_low_frac": round(min(0.0, float(low)), 4),
            "error_high_frac": round(max(0.0, float(high)), 4),
            "fit_points": f.points,
            "source": f"kalkulator calibrate on {origin}: {note}; band = 10th/90th percentile of "
            f"leave-one-device-out residuals{borrowed}; serial_frac: the serving fit (assumption)",
            "as_of": as_of,
        }

    rows = [
        row(f"{engine}/{f.backend}", f, f.decode_residuals, f"{f.points} measurements on {f.devices} devices")
        for f in fits
    ]
    rows.append(
        row(
            f"{engine}/any",
            main,
            pooled,
            f"backends without measurements use the {main.backend} fit with the pooled band of all backends",
        )
    )
    return rows
