"""Fit and check the serving model (quantities/capacity.py) on published max-load serving runs.

The runs are TensorRT-LLM `trtllm-bench` throughput measurements on H100 SXM (Llama-3.1-8B FP8 on one GPU,
Llama-3.3-70B FP8 on two in tensor parallel) for ten prompt/output shapes. Predictions come from the quantity
graph itself (no copy of the formulas); two parameters with a physical meaning are fitted: the share of peak
FP8 FLOPS reached (prefill efficiency) and the serial share of the shorter of memory and compute time.
"""

from __future__ import annotations

import csv
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from kalkulator.calibration.fit import SPLIT_WORDS, error_stats, gpus_text, residual_band
from kalkulator.calibration.measurements import NVLINK_ALLREDUCE_US
from kalkulator.calibration.measurements import SERVING_ENGINE as ENGINE
from kalkulator.calibration.measurements import SERVING_RUN_SETTINGS as RUN_SETTINGS
from kalkulator.catalog import Catalog
from kalkulator.engine.arrays import evaluate_many
from kalkulator.engine.graph import Graph
from kalkulator.io.paths import CALIBRATION_DIR
from kalkulator.io.progress import steps
from kalkulator.quantities import QUANTITIES
from kalkulator.scenario import resolve

SERVING_FILE = "measured_2025_builds.csv"
PARAMS = ("prefill_efficiency_frac", "serving_serial_frac")
START = (0.5, 0.5)


@dataclass(frozen=True)
class Run:
    settings: dict
    measured_tok_s: float
    shape: tuple[int, int]


@dataclass(frozen=True)
class ServingFit:
    params: dict[str, float]
    residuals: np.ndarray  # held-out predicted ÷ measured − 1, one per run
    runs: tuple[Run, ...]


def load_runs(folder: Path = CALIBRATION_DIR) -> list[Run]:
    """The TensorRT-LLM max-load rows of the shipped 2025 measurements, as scenario settings."""
    runs = []
    with open(folder / SERVING_FILE, newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            if row["engine"] != ENGINE or row["metric"] != "throughput_tok_s":
                continue
            n = int(row["n_devices"])
            model = "Llama-3.1-8B" if row["model"].startswith("Llama-3.1-8B") else "Llama-3.3-70B"
            shape = (int(row["prompt_tokens"]), int(row["gen_tokens"]))
            settings = {
                **RUN_SETTINGS,
                "model_name": model,
                "n_gpus": n,
                "split_mode": "tensor",
                "allreduce_us": NVLINK_ALLREDUCE_US,
                "prompt_tokens": shape[0],
                "output_tokens": shape[1],
            }
            runs.append(Run(settings, float(row["value"]), shape))
    return runs


class Predictor:
    """Maximum output throughput of runs under given parameters, through the quantity graph (the runs evaluated
    together as arrays, only the quantities the throughput reads)."""

    TARGET = "max_throughput_tok_s"

    def __init__(self, catalog: Catalog):
        self.graph = Graph(QUANTITIES)
        self.catalog = catalog
        self.columns = catalog.columns()
        self._resolved: dict[int, dict] = {}

    def __call__(self, runs: list[Run], params: dict[str, float]) -> np.ndarray:
        scenarios = [{**self._resolve(run), **params} for run in runs]
        values = evaluate_many(self.graph, scenarios, self.columns, names=[self.TARGET])[self.TARGET]
        return np.broadcast_to(np.asarray(values, dtype=float), (len(runs),)).copy()

    def _resolve(self, run: Run) -> dict:
        if id(run) not in self._resolved:
            self._resolved[id(run)] = resolve(self.graph, self.catalog, run.settings)
        return self._resolved[id(run)]


def fit(runs: list[Run], predict: Predictor) -> dict[str, float]:
    """Least squares on log(predicted ÷ measured) over the runs."""
    from scipy.optimize import least_squares  # imported here: only fitting needs SciPy

    measured = np.array([r.measured_tok_s for r in runs])

    def residuals(theta: np.ndarray) -> np.ndarray:
        return np.log(predict(runs, dict(zip(PARAMS, theta, strict=True))) / measured)

    result = least_squares(residuals, START, bounds=([0.05, 0.0], [1.0, 1.0]), x_scale=[0.1, 0.1])
    return {name: round(float(v), 4) for name, v in zip(PARAMS, result.x, strict=True)}


def calibrate_serving(catalog: Catalog, folder: Path = CALIBRATION_DIR) -> ServingFit:
    """Fit on all runs; residuals from leaving one prompt/output shape out (both models) at a time."""
    runs = load_runs(folder)
    predict = Predictor(catalog)
    residuals = np.empty(len(runs))
    for shape in steps(sorted({r.shape for r in runs}), "serving fits (one shape left out)"):
        train = [r for r in runs if r.shape != shape]
        test = [i for i, r in enumerate(runs) if r.shape == shape]
        params = fit(train, predict)
        pred = predict([runs[i] for i in test], params)
        residuals[test] = pred / np.array([runs[i].measured_tok_s for i in test]) - 1
    return ServingFit(fit(runs, predict), residuals, tuple(runs))


def serving_summary(result: ServingFit) -> str:
    """The accuracy line docs/accuracy.md quotes."""
    median, p90 = error_stats(-result.residuals / (1 + result.residuals))
    shapes = len({r.shape for r in result.runs})
    fitted = ", ".join(f"{k} = {v}" for k, v in result.params.items())
    return (
        f"Serving model (TensorRT-LLM max-load runs, H100 SXM, {len(result.runs)} runs, {shapes} prompt/output "
        f"shapes, leave one shape out): median {100 * median:.1f} %, p90 {100 * p90:.1f} % "
        f"(fitted on all: {fitted})"
    )


def _group(mine: list[int], result: ServingFit) -> dict:
    """Runs, devices, GPUs per replica and held-out error (leave one shape out) of the runs `mine`."""
    r = result.residuals[mine]
    median, p90 = error_stats(-r / (1 + r))  # measured ÷ predicted − 1
    runs = [result.runs[i] for i in mine]
    return {
        "rows": len(runs),
        "shapes": len({run.shape for run in runs}),
        "devices": len({run.settings["gpu_name"] for run in runs}),
        "gpus": gpus_text(run.settings["n_gpus"] for run in runs),
        "median": median,
        "p90": p90,
    }


def engine_table(result: ServingFit) -> list[dict]:
    """The serving runs' held-out error per engine."""
    engines = sorted({r.settings["engine"] for r in result.runs})
    return [
        {"engine": e, **_group([i for i, r in enumerate(result.runs) if r.settings["engine"] == e], result)}
        for e in engines
    ]


def tensor_parallel_table(result: ServingFit) -> list[dict]:
    """The multi-GPU serving runs (tensor parallel) per engine, as rows of the multi-GPU error table."""
    out = []
    for engine in sorted({r.settings["engine"] for r in result.runs}):
        mine = [i for i, r in enumerate(result.runs) if r.settings["engine"] == engine and r.settings["n_gpus"] > 1]
        if mine:
            out.append({"split": SPLIT_WORDS["tensor"], "engine": engine, "metric": "serving", **_group(mine, result)})
    return out


def speed_row(old: dict, result: ServingFit, as_of: str) -> dict:
    """The engine's speed_params.csv row `old` with the serving fit written in: prefill share of peak FLOPS, serial
    share, and the band (10th/90th percentile of measured ÷ predicted − 1 with each shape left out) for decode and
    prefill alike (no prompt-only run of this engine in the data). The decode parameters stay as they are."""
    low, high = residual_band(1 / (1 + result.residuals) - 1)
    runs = result.runs
    gpus = " dan ".join(f"TP{n}" for n in sorted({int(r.settings["n_gpus"]) for r in runs}))
    return {
        **old,
        "prefill_efficiency_frac": result.params["prefill_efficiency_frac"],
        "serial_frac": result.params["serving_serial_frac"],
        "error_low_frac": low,
        "error_high_frac": high,
        "prefill_error_low_frac": low,
        "prefill_error_high_frac": high,
        "fit_points": len(runs),
        "source": f"kalkulator calibrate pada data kalibrasi {SERVING_FILE}: prefill_efficiency_frac (porsi FLOPS "
        f"FP8 puncak) dan serial_frac di-fit pada {len(runs)} pengujian {ENGINE} beban maksimum di "
        f"{RUN_SETTINGS['gpu_name']} ({gpus}, {len({r.shape for r in runs})} kombinasi prompt/output); pita decode "
        "dan prefill = persentil ke-10/ke-90 residu uji dengan satu kombinasi prompt/output disisihkan (belum ada "
        "pengukuran prompt saja mesin ini); efisiensi bandwidth decode dan biaya per layer dari baris vllm (H200 "
        "dengan CUDA graphs)",
        "as_of": as_of,
    }


# ---- MoE serving: the engine's grouped-GEMM share in prefill; the fused-MoE kernels' share in decode -----------

MOE_FILE = "serving_moe.csv"
MOE_PARAM = "moe_prefill_efficiency_frac"  # fitted on the max-load runs (mostly prefill) and shipped
MOE_DECODE_PARAM = "moe_kernel_efficiency_frac"  # not identified by the data (the TPOT sweep is shown at two values)
MOE_BOUNDS = (0.05, 1.0)


@dataclass(frozen=True)
class MoeFit:
    engine: str
    fit: ServingFit  # the fitted MoE prefill efficiency; residuals with one prompt shape (both models) left out
    today: np.ndarray  # predicted ÷ measured − 1 with the efficiency at 1 (no MoE penalty), one per run


def load_moe_runs(folder: Path = CALIBRATION_DIR) -> list[Run]:
    """The MoE max-load serving rows (serving_moe.csv) as scenario settings; tokens per request are the runs' means,
    the shape is the rounded mean prompt and output."""
    runs = []
    for row, setup in _moe_rows(folder, "throughput_tok_s"):
        prompt, output = float(row["prompt_tokens"]), float(row["gen_tokens"])
        settings = setup | {"prompt_tokens": prompt, "output_tokens": output}
        runs.append(Run(settings, float(row["value"]), (round(prompt), round(output))))
    return runs


def _moe_rows(folder: Path, metric: str) -> list[tuple[dict, dict]]:
    """The serving_moe.csv rows of `metric`, each with the scenario settings every MoE run shares: the catalog GPU
    and model (Qwen3-Coder-30B-A3B is Qwen3-30B-A3B's architecture), format, engine, GPUs in tensor parallel."""
    with open(folder / MOE_FILE, newline="", encoding="utf-8") as fh:
        rows = [row for row in csv.DictReader(fh) if row["metric"] == metric]
    return [
        (
            row,
            {
                "gpu_name": row["hardware"].removeprefix("AMD ").removeprefix("NVIDIA "),
                "model_name": "Qwen3-30B-A3B" if row["model"].startswith("Qwen3-Coder-30B-A3B") else row["model"],
                "quant_name": row["quant"],
                "engine": row["engine"],
                "n_gpus": int(row["n_devices"]),
                "split_mode": "tensor",
            },
        )
        for row in rows
    ]


def fit_moe(runs: list[Run], predict: Predictor, fixed: Mapping[str, float] | None = None) -> float:
    """The MoE prefill efficiency by least squares on log(predicted ÷ measured) over the runs (other parameters as
    the catalog has them, or as `fixed` gives them)."""
    from scipy.optimize import least_squares  # imported here: only fitting needs SciPy

    measured = np.array([r.measured_tok_s for r in runs])

    def residuals(theta: np.ndarray) -> np.ndarray:
        return np.log(predict(runs, {**(fixed or {}), MOE_PARAM: float(theta[0])}) / measured)

    result = least_squares(residuals, [0.5], bounds=([MOE_BOUNDS[0]], [MOE_BOUNDS[1]]), x_scale=[0.1])
    return round(float(result.x[0]), 4)


def calibrate_moe(catalog: Catalog, folder: Path = CALIBRATION_DIR, fixed: Mapping[str, float] | None = None) -> MoeFit:
    """Fit on all MoE runs; residuals from leaving one prompt shape (both models) out at a time, and those without
    an MoE penalty. `fixed`: parameters a calibration in progress has just fitted (the serial share)."""
    fixed = dict(fixed or {})
    runs = load_moe_runs(folder)
    (engine,) = {r.settings["engine"] for r in runs}
    predict = Predictor(catalog)
    measured = np.array([r.measured_tok_s for r in runs])
    residuals = np.empty(len(runs))
    prompts = [r.shape[0] for r in runs]
    for prompt in sorted(set(prompts)):
        test = [i for i, p in enumerate(prompts) if p == prompt]
        m = fit_moe([r for r, p in zip(runs, prompts, strict=True) if p != prompt], predict, fixed)
        residuals[test] = predict([runs[i] for i in test], {**fixed, MOE_PARAM: m}) / measured[test] - 1
    today = predict(runs, {**fixed, MOE_PARAM: 1.0}) / measured - 1
    return MoeFit(engine, ServingFit({MOE_PARAM: fit_moe(runs, predict, fixed)}, residuals, tuple(runs)), today)


def _moe_words(result: MoeFit) -> str:
    runs = result.fit.runs
    models = "/".join(sorted({r.settings["model_name"] for r in runs}))
    gpus = ", ".join(sorted({r.settings["gpu_name"] for r in runs}))
    return f"{result.engine} max-load runs, {models} on one {gpus}, {len(runs)} runs"


def moe_summary(result: MoeFit) -> str:
    """The MoE accuracy line docs/accuracy.md quotes: the held-out error of the fitted prefill share (shipped in the
    engine's row) and the error without it."""
    median, p90 = error_stats(-result.fit.residuals / (1 + result.fit.residuals))
    before, before90 = error_stats(-result.today / (1 + result.today))
    prompts = len({r.shape[0] for r in result.fit.runs})
    return (
        f"MoE serving ({_moe_words(result)}, {prompts} prompt shapes, leave one shape out): median "
        f"{100 * median:.1f} %, p90 {100 * p90:.1f} % (fitted on all: {MOE_PARAM} = {result.fit.params[MOE_PARAM]}, "
        f"shipped in {result.engine}/any); without it, {MOE_PARAM} = 1 (no MoE penalty): median {100 * before:.1f} %, "
        f"p90 {100 * before90:.1f} %"
    )


def moe_engine_rows(result: MoeFit) -> list[dict]:
    """The MoE runs as rows of the per-engine serving table: the held-out error of the fitted prefill share (shipped)
    and the error without it (efficiency 1)."""
    everything = list(range(len(result.fit.runs)))
    today = _group(everything, ServingFit({}, result.today, result.fit.runs))
    return [
        {
            **_group(everything, result.fit),
            "engine": f"{result.engine}, MoE, {MOE_PARAM} fitted, shipped",
            "how": "shape held out",
        },
        {**today, "engine": f"{result.engine}, MoE, {MOE_PARAM} = 1", "how": "nothing fitted"},
    ]


class TpotPredictor(Predictor):
    """TPOT (ms) of runs at their concurrency, through the quantity graph."""

    TARGET = "tpot_ms"


def load_moe_tpot_runs(folder: Path = CALIBRATION_DIR) -> list[Run]:
    """The MoE TPOT-by-concurrency rows (serving_moe.csv, metric tpot_ms) as scenarios: the concurrency as the
    batch, the context at the middle of the answer. The measured value is the TPOT (ms)."""
    runs = []
    for row, setup in _moe_rows(folder, "tpot_ms"):
        prompt, output = int(row["prompt_tokens"]), int(row["gen_tokens"])
        settings = setup | {
            "kv_cache_type": "F16",
            "concurrent_users": int(row["batch"]),
            "prompt_tokens": prompt,
            "output_tokens": output,
            "context_tokens": prompt + output // 2,
        }
        runs.append(Run(settings, float(row["value"]), (prompt, output)))
    return runs


def moe_tpot_line(catalog: Catalog, folder: Path = CALIBRATION_DIR) -> str:
    """Predicted ÷ measured TPOT of the MoE concurrency sweep, with the MoE kernel efficiency at 1 and at 0.3: a
    flat ratio means the batch's extra expert reads are charged at the rate the data shows."""
    runs = load_moe_tpot_runs(folder)
    predict = TpotPredictor(catalog)
    measured = np.array([r.measured_tok_s for r in runs])
    r0 = runs[0].settings
    parts = []
    for m in (1.0, 0.3):
        ratio = predict(runs, {MOE_DECODE_PARAM: m}) / measured
        pairs = ", ".join(f"{int(r.settings['concurrent_users'])}: {x:.2f}" for r, x in zip(runs, ratio, strict=True))
        parts.append(f"{MOE_DECODE_PARAM} = {m}: {pairs}")
    return (
        f"MoE decode at batch ({r0['engine']}, {r0['model_name']} {r0['quant_name']} on {r0['n_gpus']}× "
        f"{r0['gpu_name']}, tensor parallel, {len(runs)} concurrencies): predicted ÷ measured TPOT by concurrency, "
        + "; ".join(parts)
    )


# ---- fixed concurrency: prefill stalls and long-context KV reads (issue 39) -------------------------------------

CONCURRENCY_FILE = "serving_concurrency.csv"
KV_PARAM = "kv_read_efficiency_frac"  # fitted on the fixed-concurrency runs and shipped in the serving engines' rows
KV_ROWS = ("tensorrt-llm/any", "vllm/any", "sglang/any")  # the fit's engine and the engines that borrow it
KV_BOUNDS = (0.05, 1.0)
LONG_PROMPT_TOKENS = 2000  # runs with prompts at least this long are reported as long-context runs
CONCURRENCY_TARGETS = {
    "throughput_tok_s": "fixed_throughput_tok_s",
    "ttft_ms": "fixed_ttft_s",
    "itl_ms": "fixed_itl_ms",
}
BEFORE_TARGET = "throughput_tok_s"  # what the engine said at a fixed concurrency before: users × tok/s per user


@dataclass(frozen=True)
class ConcurrencyRun:
    settings: dict
    measured: dict[str, float]  # metric (throughput_tok_s, ttft_ms, itl_ms) → value
    shape: tuple[int, int]
    concurrency: int


@dataclass(frozen=True)
class ConcurrencyFit:
    kv_read_efficiency_frac: float  # fitted on all runs
    runs: tuple[ConcurrencyRun, ...]
    held_out: dict[str, np.ndarray]  # metric → predicted ÷ measured, the efficiency fitted with the run's shape out
    before: np.ndarray  # predicted ÷ measured throughput: users × tok/s per user (no prefill stalls, no fit)
    unfitted: np.ndarray  # predicted ÷ measured throughput: the fixed-concurrency model with the efficiency at 1


def load_concurrency_runs(folder: Path = CALIBRATION_DIR) -> list[ConcurrencyRun]:
    """The fixed-concurrency runs (serving_concurrency.csv) as scenarios: the catalog GPU and model, the format, an
    FP16 KV cache (the NIM profiles of 2024 kept it in FP16; an assumption the file's notes state), the engine, the
    concurrency as the users kept in flight."""
    runs: dict[tuple, ConcurrencyRun] = {}
    with open(folder / CONCURRENCY_FILE, newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            key = (row["model"], row["quant"], row["hardware"], row["n_devices"], row["batch"])
            key += (row["prompt_tokens"], row["gen_tokens"])
            if key not in runs:
                prompt, output, users = int(row["prompt_tokens"]), int(row["gen_tokens"]), int(row["batch"])
                settings = {
                    "gpu_name": row["hardware"].removeprefix("NVIDIA "),
                    "model_name": "Llama-3-8B" if row["model"].startswith("Llama-3-8B") else row["model"],
                    "quant_name": row["quant"],
                    "kv_cache_type": "F16",
                    "engine": row["engine"],
                    "n_gpus": int(row["n_devices"]),
                    "split_mode": "tensor",
                    "prompt_tokens": prompt,
                    "output_tokens": output,
                    "concurrent_users": users,
                }
                runs[key] = ConcurrencyRun(settings, {}, (prompt, output), users)
            runs[key].measured[row["metric"]] = float(row["value"])
    return list(runs.values())


class ManyPredictor(Predictor):
    """Several quantities of runs under given parameters, through the quantity graph."""

    def values(self, runs: list, params: Mapping[str, float], names: list[str]) -> dict[str, np.ndarray]:
        scenarios = [{**self._resolve(run), **params} for run in runs]
        got = evaluate_many(self.graph, scenarios, self.columns, names=names)
        return {n: np.broadcast_to(np.asarray(got[n], dtype=float), (len(runs),)).copy() for n in names}


def _measured(runs: list[ConcurrencyRun], metric: str) -> np.ndarray:
    return np.array([r.measured.get(metric, np.nan) for r in runs])


def _predicted(runs: list[ConcurrencyRun], predict: ManyPredictor, kv: float) -> dict[str, np.ndarray]:
    """Predicted metric values (throughput tok/s, TTFT ms, ITL ms) of the runs at KV-read efficiency `kv`."""
    got = predict.values(runs, {KV_PARAM: kv}, list(CONCURRENCY_TARGETS.values()))
    return {
        "throughput_tok_s": got["fixed_throughput_tok_s"],
        "ttft_ms": 1000 * got["fixed_ttft_s"],
        "itl_ms": got["fixed_itl_ms"],
    }


def fit_kv(runs: list[ConcurrencyRun], predict: ManyPredictor) -> float:
    """The KV-read efficiency by least squares on log(predicted ÷ measured output throughput) over the runs."""
    from scipy.optimize import least_squares  # imported here: only fitting needs SciPy

    measured = _measured(runs, "throughput_tok_s")

    def residuals(theta: np.ndarray) -> np.ndarray:
        return np.log(_predicted(runs, predict, float(theta[0]))["throughput_tok_s"] / measured)

    result = least_squares(residuals, [0.5], bounds=([KV_BOUNDS[0]], [KV_BOUNDS[1]]), x_scale=[0.1])
    return round(float(result.x[0]), 4)


def calibrate_concurrency(catalog: Catalog, folder: Path = CALIBRATION_DIR) -> ConcurrencyFit:
    """Fit the KV-read efficiency on all fixed-concurrency runs; held-out predictions with one prompt/output shape
    (both formats, every concurrency) left out at a time; the engine as it was (users × tok/s per user) and the
    fixed-concurrency model without the fit (efficiency 1) beside them."""
    runs = load_concurrency_runs(folder)
    predict = ManyPredictor(catalog)
    held = {m: np.empty(len(runs)) for m in CONCURRENCY_TARGETS}
    for shape in sorted({r.shape for r in runs}):
        test = [i for i, r in enumerate(runs) if r.shape == shape]
        kv = fit_kv([r for r in runs if r.shape != shape], predict)
        got = _predicted([runs[i] for i in test], predict, kv)
        for m in held:
            held[m][test] = got[m] / _measured([runs[i] for i in test], m)
    throughput = _measured(runs, "throughput_tok_s")
    before = predict.values(runs, {KV_PARAM: 1.0}, [BEFORE_TARGET])[BEFORE_TARGET] / throughput
    unfitted = _predicted(runs, predict, 1.0)["throughput_tok_s"] / throughput
    return ConcurrencyFit(fit_kv(runs, predict), tuple(runs), held, before, unfitted)


def _ratio_stats(ratio: np.ndarray) -> tuple[float, float]:
    """Median and 90th percentile of |predicted ÷ measured − 1|."""
    return error_stats(1 / ratio - 1)


def concurrency_table(result: ConcurrencyFit, serving: ServingFit | None = None) -> list[dict]:
    """Rows of the fixed-concurrency error table: long-context and short-prompt runs, output throughput before
    (users × tok/s per user), with the stalls and the efficiency at 1, held out (efficiency fitted without the run's
    shape); TTFT and ITL held out; and, when given, the long-prompt max-load runs of the serving fit (held out)."""
    rows = []
    long_ = np.array([r.shape[0] >= LONG_PROMPT_TOKENS for r in result.runs])
    for name, mine in ((f"prompts ≥ {LONG_PROMPT_TOKENS:,} tokens", long_), ("prompts of 200 tokens", ~long_)):
        runs = [r for r, m in zip(result.runs, mine, strict=True) if m]
        shapes = sorted({r.shape for r in runs})
        row = {
            "runs": f"{name} ({', '.join(f'{p:,}/{o:,}' for p, o in shapes)})",
            "rows": int(mine.sum()),
            "concurrency": f"{min(r.concurrency for r in runs)}–{max(r.concurrency for r in runs)}",
        }
        for key, ratio in (
            ("before", result.before[mine]),
            ("unfitted", result.unfitted[mine]),
            ("held_out", result.held_out["throughput_tok_s"][mine]),
            ("ttft", result.held_out["ttft_ms"][mine]),
            ("itl", result.held_out["itl_ms"][mine]),
        ):
            row[key], row[key + "_p90"] = _ratio_stats(ratio)
        rows.append(row)
    if serving is not None:
        mine = [i for i, r in enumerate(serving.runs) if r.shape[0] >= 5000]
        if mine:
            ratio = 1 + serving.residuals[mine]
            median, p90 = _ratio_stats(ratio)
            shapes = sorted({serving.runs[i].shape for i in mine})
            rows.append(
                {
                    "runs": "TensorRT-LLM max load, H100 SXM, "
                    + ", ".join(f"{p:,}/{o:,}" for p, o in shapes)
                    + " (8B TP1, 70B TP2)",
                    "rows": len(mine),
                    "concurrency": "max load",
                    "held_out": median,
                    "held_out_p90": p90,
                }
            )
    return rows


def concurrency_summary(result: ConcurrencyFit) -> str:
    """The fixed-concurrency accuracy line docs/accuracy.md quotes."""
    long_ = np.array([r.shape[0] >= LONG_PROMPT_TOKENS for r in result.runs])
    h = result.held_out["throughput_tok_s"]
    median, p90 = _ratio_stats(h[long_])
    before, before90 = _ratio_stats(result.before[long_])
    r0 = result.runs[0].settings
    return (
        f"Fixed concurrency ({r0['engine']} (NIM), {r0['model_name']} on one {r0['gpu_name']}, FP8 and FP16, "
        f"{len(result.runs)} runs at 1–{max(r.concurrency for r in result.runs)} requests in flight, "
        f"{len({r.shape for r in result.runs})} prompt/output shapes, leave one shape out): long-context runs "
        f"(prompts ≥ {LONG_PROMPT_TOKENS:,} tokens) output throughput median {100 * median:.1f} %, p90 "
        f"{100 * p90:.1f} % (before: users × tok/s per user, median {100 * before:.1f} %, p90 {100 * before90:.1f} "
        f"%); fitted on all: {KV_PARAM} = {result.kv_read_efficiency_frac}"
    )
