"""Published measurements beside kalkulator's estimates: the ones nearest to a scenario, each with the engine's
estimate for exactly the measured setup and estimate ÷ measured.

The measurements are the shipped calibration files (assumptions/calibration/measured_*.csv: llama.cpp tg/pp runs
and TensorRT-LLM max-load runs). Their devices map to catalog GPUs through the calibration's own devices.csv, their
model names to catalog models by `match_model`. Estimates come from the quantity graph (quantities/measured.py
picks decode or prefill), so they follow the speed model wherever it goes.
"""

from __future__ import annotations

import csv
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from kalkulator.catalog import Catalog, Table
from kalkulator.catalog.numbers import number
from kalkulator.engine.expr import Value
from kalkulator.engine.graph import Graph
from kalkulator.io.files import open_atomic
from kalkulator.io.paths import CALIBRATION_DIR, CATALOG_DIR
from kalkulator.scenario import resolve

COLUMNS = (
    "source_repo_or_url",
    "source_file_or_thread",
    "engine",
    "model",
    "quant",
    "hardware",
    "n_devices",
    "batch",
    "prompt_tokens",
    "gen_tokens",
    "metric",
    "value",
    "notes",
)
METRICS = {"tg_tok_s": "tg", "pp_tok_s": "pp", "throughput_tok_s": "serve"}
METRIC_WORDS = {"tg": "decode", "pp": "prefill", "serve": "serving at max load"}
# What the engine estimates for each metric: the decode or prefill speed picked by quantities/measured.py, or the
# output throughput of a replica at full load (what trtllm-bench reports).
ESTIMATE_OF = {"tg": "measured_estimate_tok_s", "pp": "measured_estimate_tok_s", "serve": "max_throughput_tok_s"}
# A serving row with a batch ran at that fixed concurrency (vllm bench serve --max-concurrency, genai-perf
# --concurrency): its estimate is the output throughput at that concurrency, prefill stalls included.
FIXED_ESTIMATE = "fixed_throughput_tok_s"


def estimate_name(metric: str, batch: int) -> str:
    """The quantity that estimates a measured row: decode or prefill speed, max-load or fixed-concurrency
    throughput."""
    return FIXED_ESTIMATE if metric == "serve" and batch > 0 else ESTIMATE_OF[metric]


# Settings of a llama.cpp run that the published rows do not repeat: llama-bench and ./main defaults
# (F16 KV cache, every layer on the GPU with -ngl 99, layer split over several GPUs).
LLAMA_CPP_DEFAULTS = {"kv_cache_type": "F16", "split_mode": "layer", "cpu_offload_frac": 0}
# A multi-GPU llama.cpp row's split (the files' split_mode column) → the engine's split_mode. llama.cpp's row split
# (`-sm row`, and the only multi-GPU mode of builds before January 2024) divides every weight matrix across the GPUs
# and gathers each product: the engine's tensor split, with llama.cpp's exchanges per layer (engine catalog).
SPLIT_MODES = {"layer": "layer", "row": "tensor"}
# The published serving runs (serving_calibration.py fits on them): FP8 checkpoints quantized with ModelOpt, whose
# KV cache is FP8 too; NVLink all-reduce. Here, not there: serving_calibration reads this module.
SERVING_ENGINE = "tensorrt-llm"
SERVING_RUN_SETTINGS = {
    "gpu_name": "H100 SXM 80GB",
    "quant_name": "FP8",
    "kv_cache_type": "FP8",
    "engine": SERVING_ENGINE,
}
NVLINK_ALLREDUCE_US = 10  # the allreduce_us input's NVLink range is 5–10 µs


# ---- names as published → catalog names ---------------------------------------------------------------------


@cache
def device_names(folder: Path = CALIBRATION_DIR) -> dict[str, str]:
    """The calibration's device → catalog GPU table (devices.csv, which calibration.py reads too; '' = left out).

    Read with the csv module: calibration.py reads it inline with pandas, which `hitung` does not load.
    """
    with open(folder / "devices.csv", newline="", encoding="utf-8") as fh:
        return {row["hardware"]: row["catalog_gpu"].strip() for row in csv.DictReader(fh)}


def catalog_gpu_name(hardware: str, devices: Mapping[str, str]) -> str:
    """The catalog GPU name of a published device: devices.csv's, else the name without its vendor prefix
    (NVIDIA H100 SXM 80GB of the serving runs → H100 SXM 80GB); '' when devices.csv leaves the device out."""
    if hardware in devices:
        return devices[hardware]
    return re.sub(r"^(NVIDIA|AMD|Intel) (GeForce )?", "", hardware)


def match_model(name: str, models: Table) -> dict | None:
    """The catalog model a published model name stands for (Meta-Llama-3-8B → Llama-3-8B), or None."""
    base = re.sub(r"\s*\(.*?\)", "", name).strip().removeprefix("Meta-")
    base = re.sub(r"-(Instruct|Chat|chat|hf)$", "", base)
    return models.find(base)


_VENDOR_WORDS = re.compile(r"\b(nvidia|geforce|tesla|amd|generation|workstation edition)\b")
_VARIANT_WORDS = {"super", "ti", "d", "pcie", "sxm", "sxm2", "sxm4", "sxm5", "nvl", "max-q"}


def gpu_line(name: str) -> str:
    """A GPU's product line: lower case without memory, core count or variant words (RTX 4080 Super 16GB → rtx
    4080, A100 PCIe 80GB → a100, Apple M1 Max 24-core GPU 32GB → apple m1 max)."""
    text = re.sub(r"\[.*?\]|\(.*?\)", " ", name.lower())
    text = re.sub(r"\b\d+\s*gb\b|\b\d+-core( gpu)?\b", " ", text)
    words = _VENDOR_WORDS.sub(" ", text).split()
    while len(words) > 1 and words[-1] in _VARIANT_WORDS:
        words.pop()
    return " ".join(words)


# ---- the published rows ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Measurement:
    hardware: str  # the device as published
    gpu_name: str  # its catalog GPU (devices.csv)
    n_gpus: int
    model: str  # as published
    model_name: str  # catalog
    quant_name: str  # catalog
    engine: str
    metric: str  # tg | pp | serve
    batch: int
    prompt_tokens: int
    gen_tokens: int
    tok_s: float
    build: str
    era: int  # year of the engine build (or of the publication when the build is not dated)
    source: str  # URL
    where: str  # file, table or thread within the source
    file: str
    depth_tokens: int = 0  # context already in the KV cache before the test (llama-bench -d)
    split: str = "layer"  # how a multi-GPU run split the model: layer or row (SPLIT_MODES)

    @property
    def test(self) -> str:
        """The llama-bench name of the test: tg128, pp512, tg1023 @ d494, pp512 @ d32768; serving as prompt/output."""
        if self.metric == "pp":
            return f"pp{self.prompt_tokens}" + (f" @ d{self.depth_tokens}" if self.depth_tokens else "")
        before = self.depth_tokens + self.prompt_tokens
        if self.metric == "tg":
            return f"tg{self.gen_tokens}" + (f" @ d{before}" if before else "")
        return f"{self.prompt_tokens}/{self.gen_tokens} tokens"

    @property
    def context_tokens(self) -> float:
        """KV-cache length the speed is estimated at: tg averages its run (the context before it + half the
        output), pp ends with the context before it + the prompt."""
        before = self.depth_tokens + self.prompt_tokens
        return before + self.gen_tokens / 2 if self.metric == "tg" else before + self.gen_tokens

    @property
    def era_text(self) -> str:
        """The speed-parameter era of the build: 2025 (current builds) or 2024 (builds up to mid-2024)."""
        return "2025" if self.era >= 2025 else "2024"

    @property
    def variant_unstated(self) -> bool:
        """The source does not say which variant of the GPU it ran on (PCIe or SXM, …)."""
        return "not stated" in self.hardware.lower()

    def settings(self) -> dict[str, Value]:
        """The scenario of the measured setup."""
        if self.metric == "serve":
            return {
                **SERVING_RUN_SETTINGS,
                "build_era_text": self.era_text,
                "gpu_name": self.gpu_name,
                "model_name": self.model_name,
                "quant_name": self.quant_name,
                "n_gpus": self.n_gpus,
                "split_mode": "tensor",
                "allreduce_us": NVLINK_ALLREDUCE_US,
                "prompt_tokens": self.prompt_tokens,
                "output_tokens": self.gen_tokens,
            } | ({"concurrent_users": self.batch} if self.batch > 0 else {})
        # A prompt after `depth` tokens of context is a prompt whose first `depth` tokens are already cached.
        prompt = self.depth_tokens + self.prompt_tokens
        cached = self.depth_tokens / prompt if self.metric == "pp" and prompt else 0
        return {
            **LLAMA_CPP_DEFAULTS,
            "split_mode": SPLIT_MODES.get(self.split, "layer"),
            "gpu_name": self.gpu_name,
            "model_name": self.model_name,
            "quant_name": self.quant_name,
            "engine": self.engine,
            "n_gpus": self.n_gpus,
            "concurrent_users": self.batch,
            "prefix_cache_hit_frac": cached,
            "prompt_tokens": prompt,
            "output_tokens": self.gen_tokens,
            "context_tokens": self.context_tokens,
            "measured_metric_type": self.metric,
            "measured_tok_s": self.tok_s,
            "build_era_text": self.era_text,
        }


def _build(notes: str, where: str) -> str:
    found = re.search(r"\bbuilds? (~?[\w.-]+(?: \(\w+\))?)", notes)
    if found:
        return found.group(1)
    commit = re.search(r"@([0-9a-f]{7,})", where)
    return f"docs @{commit.group(1)}" if commit else ""


def _era(notes: str, where: str, file: str) -> int:
    for text in (notes, where, file):
        found = re.search(r"(?<!\d)(20[1-3]\d)(?!\d)", text)
        if found:
            return int(found.group(1))
    return 0


def _int(text: str | None, default: int) -> int:
    try:
        return int(float(text or ""))
    except ValueError:
        return default


def _batch(metric: str, text: str | None) -> int:
    """tg: sequences per step (1 when blank); pp: one prompt (the column is the micro-batch); serve: the fixed
    concurrency, 0 when blank (a max-load run)."""
    if metric == "tg":
        return _int(text, 1)
    return _int(text, 0) if metric == "serve" else 1


def load_published(catalog: Catalog, folder: Path = CALIBRATION_DIR) -> list[Measurement]:
    """Every usable row of the measured_*.csv files: a tg/pp/serve metric on a catalog GPU, model and quantization.

    Files without the shared columns are skipped, and so are rows whose device devices.csv leaves out and rows
    whose GPU, model or quantization has no catalog row.
    """
    devices = device_names(folder)
    out = []
    for path in sorted(folder.glob("measured_*.csv")):
        with open(path, newline="", encoding="utf-8") as fh:
            reader = csv.DictReader(fh)
            if not set(COLUMNS) <= set(reader.fieldnames or ()):
                continue
            for row in reader:
                metric = METRICS.get(row["metric"])
                gpu = catalog["gpu"].find(catalog_gpu_name(row["hardware"], devices))
                model = match_model(row["model"], catalog["model"])
                quant = catalog["quant"].find(row["quant"])
                try:
                    value = float(row["value"])
                except ValueError:
                    continue
                if metric is None or gpu is None or model is None or quant is None or not value > 0:
                    continue
                out.append(
                    Measurement(
                        hardware=row["hardware"],
                        gpu_name=gpu["name"],
                        n_gpus=_int(row["n_devices"], 1),
                        model=row["model"],
                        model_name=model["name"],
                        quant_name=quant["name"],
                        engine=row["engine"],
                        metric=metric,
                        batch=_batch(metric, row["batch"]),
                        prompt_tokens=_int(row["prompt_tokens"], 0),
                        gen_tokens=_int(row["gen_tokens"], 0),
                        tok_s=value,
                        build=_build(row["notes"], row["source_file_or_thread"]),
                        era=_era(row["notes"], row["source_file_or_thread"], path.name),
                        source=row["source_repo_or_url"],
                        where=row["source_file_or_thread"],
                        file=path.name,
                        depth_tokens=_int(row.get("depth_tokens"), 0),
                        split=(row.get("split_mode") or "layer").strip(),
                    )
                )
    return out


# ---- nearest to a scenario ------------------------------------------------------------------------------------

GPU_MATCH = ("same GPU", "same GPU line", "similar GPU (same backend and memory)")
MODEL_MATCH = ("same model", "same architecture", "same family and size", "similar size")
QUANT_MATCH = ("same quantization", "same bits", "other bits")
ENGINE_MATCH = ("same engine", "other engine")
EXACT = {GPU_MATCH[0], MODEL_MATCH[0], QUANT_MATCH[0], ENGINE_MATCH[0]}


@dataclass(frozen=True)
class Nearby:
    measurement: Measurement
    tiers: tuple[int, int, int, int]  # GPU, model, quantization, engine: 0 = same, higher = further
    rank: tuple

    @property
    def match(self) -> dict[str, str]:
        g, m, q, e = self.tiers
        return {"gpu": GPU_MATCH[g], "model": MODEL_MATCH[m], "quant": QUANT_MATCH[q], "engine": ENGINE_MATCH[e]}


def _gpu_tier(m: Measurement, values: Mapping[str, Value], gpus: Table) -> int | None:
    chosen = str(values["gpu_name"])
    if m.gpu_name.lower() == chosen.lower():
        return 1 if m.variant_unstated else 0
    if gpu_line(m.gpu_name) == gpu_line(chosen):
        return 1
    row = gpus.find(m.gpu_name)
    bandwidth = values["gpu_mem_bandwidth_gbs"]
    if (
        row is not None
        and row["backend"] == values["gpu_backend"]
        and row["memory_type"] == values["gpu_memory_type"]
        and isinstance(bandwidth, int | float)
        and bandwidth > 0
        and 1 / 1.5 <= row["mem_bandwidth_gbs"] / bandwidth <= 1.5
    ):
        return 2
    return None


def _model_tier(row: dict, values: Mapping[str, Value], models: Table) -> int | None:
    if row["name"].lower() == str(values["model_name"]).lower():
        return 0
    params, active = float(values["model_params_b"] or 0), float(values["model_active_params_b"] or 0)
    if params <= 0 or active <= 0:
        return None
    shape = ("layers", "hidden", "heads", "kv_heads", "head_dim")
    same_shape = all(row[k] == values[f"model_{k}"] for k in shape)
    if same_shape and abs(row["params_b"] / params - 1) <= 0.05 and abs(row["active_params_b"] / active - 1) <= 0.05:
        return 1
    if (row["active_params_b"] < 0.9 * row["params_b"]) != (active < 0.9 * params):
        return None  # a mixture of experts is never the size class of a dense model
    if not 0.75 <= row["params_b"] / params <= 1.34:
        return None
    chosen = models.find(str(values["model_name"]))
    line = chosen["family"].split()[0].lower() if chosen else ""
    return 2 if line == row["family"].split()[0].lower() else 3


def _quant_tier(name: str, values: Mapping[str, Value], quants: Table) -> int:
    if name.lower() == str(values["quant_name"]).lower():
        return 0
    row = quants.find(name)
    bits = values["weight_bits_per_param"]
    if row is not None and isinstance(bits, int | float) and math.floor(row["bits_per_weight"]) == math.floor(bits):
        return 1
    return 2


def _distance(m: Measurement, values: Mapping[str, Value]) -> float:
    """How far the measured lengths are from the scenario's (log ratio: 512 vs 1,024 as far as 1,024 vs 2,048)."""

    def far(a: float, b: object) -> float:
        return abs(math.log((a + 1) / (float(b or 0) + 1)))

    if m.metric == "tg":
        return far(m.context_tokens, values["context_tokens"])
    if m.metric == "pp":
        return far(m.depth_tokens + m.prompt_tokens, values["prompt_tokens"])
    return far(m.prompt_tokens, values["prompt_tokens"]) + far(m.gen_tokens, values["output_tokens"])


def nearest(
    values: Mapping[str, Value], catalog: Catalog, measurements: Iterable[Measurement], limit: int = 3
) -> list[Nearby]:
    """The published measurements nearest to an evaluated scenario, best first; none when none is close.

    Order: same GPU (then its line or a variant the source leaves open, then a GPU of the same backend and memory
    within 1.5× the bandwidth), the nearest number of GPUs, same model (then same architecture, family and size,
    size), same quantization (then same bits), same engine; then newer builds, decode before prefill, and the
    lengths nearest the scenario's. One row per GPU, model, quantization, engine, metric and build year. A similar
    GPU counts only with the same model family and bits; another model family or GPU count only on the same GPU
    or its line.
    """
    found = []
    for m in measurements:
        gpu = _gpu_tier(m, values, catalog["gpu"])
        model = _model_tier(catalog["model"].find(m.model_name), values, catalog["model"])
        if gpu is None or model is None:
            continue
        quant = _quant_tier(m.quant_name, values, catalog["quant"])
        count = abs(math.log2(m.n_gpus / max(1.0, float(values["n_gpus"] or 1))))  # 2 GPUs nearer to 1 than 4
        if gpu == 2 and (model > 2 or quant > 1):
            continue
        if count and (gpu > 1 or model > 2):
            continue
        engine = int(m.engine.lower() != str(values["engine"]).lower())
        rank = (gpu, count, model, quant, engine, -m.era, ("tg", "pp", "serve").index(m.metric))
        found.append(Nearby(m, (gpu, model, quant, engine), (*rank, _distance(m, values))))
    found.sort(key=lambda n: n.rank)
    chosen: list[Nearby] = []
    seen = set()
    for n in found:
        m = n.measurement
        key = (m.gpu_name, m.model_name, m.quant_name, m.engine, m.metric, m.era)
        if key not in seen:
            seen.add(key)
            chosen.append(n)
        if len(chosen) == limit:
            break
    return chosen


# ---- estimates ------------------------------------------------------------------------------------------------


def estimate(m: Measurement, graph: Graph, catalog: Catalog) -> tuple[float, float]:
    """(the engine's estimate for the measured setup, estimate ÷ measured), from the quantity graph."""
    values = graph.evaluate(resolve(graph, catalog, m.settings()), catalog.columns())
    value = float(values[estimate_name(m.metric, m.batch)])
    ratio = values["estimate_measured_ratio"] if m.metric in ("tg", "pp") else value / m.tok_s
    return value, float(ratio)


def describe(n: Nearby, graph: Graph, catalog: Catalog) -> dict[str, Value | dict]:
    """One measurement for `hitung --json`: what was measured, where it was published, and the estimate."""
    m = n.measurement
    value, ratio = estimate(m, graph, catalog)
    return {
        "metric": m.metric,
        "test": m.test,
        "hardware": m.hardware,
        "gpu_name": m.gpu_name,
        "n_gpus": m.n_gpus,
        "model": m.model,
        "model_name": m.model_name,
        "quant_name": m.quant_name,
        "engine": m.engine,
        "batch": m.batch,
        "prompt_tokens": m.prompt_tokens,
        "gen_tokens": m.gen_tokens,
        "depth_tokens": m.depth_tokens,
        "measured_tok_s": m.tok_s,
        "estimate_tok_s": value,
        "estimate_measured_ratio": ratio,
        "build": m.build,
        "build_year": m.era,
        "source": m.source,
        "source_detail": m.where,
        "match": n.match,
    }


def near_scenario(values: Mapping[str, Value], graph: Graph, catalog: Catalog, limit: int = 3) -> list[dict]:
    """`describe` of the measurements nearest to an evaluated scenario (the shipped calibration files)."""
    return [describe(n, graph, catalog) for n in nearest(values, catalog, load_published(catalog), limit)]


# The `hitung` section's words in Indonesian (English is the code's own words above).
TEXT_ID = {
    "title": "Pengukuran terpublikasi terdekat dengan skenario ini (estimasi = kalkulator untuk setup yang diukur)",
    "decode": "decode",
    "prefill": "prefill",
    "serving at max load": "layanan pada beban maksimum",
    "same GPU line": "lini GPU yang sama",
    "similar GPU (same backend and memory)": "GPU serupa (backend dan memori sama)",
    "same architecture": "arsitektur sama",
    "same family and size": "keluarga dan ukuran sama",
    "similar size": "ukuran serupa",
    "same bits": "bit sama",
    "other bits": "bit lain",
    "other engine": "mesin lain",
    "build": "build",
    "build not stated": "build tidak disebut",
    "measured": "terukur",
    "estimate": "estimasi",
    "estimate ÷ measured": "estimasi ÷ terukur",
}
# Words of the sources' own detail column, in the other language ("kolom master" under English, "table" under id).
DETAIL_WORDS = {"en": ((re.compile(r"\bkolom (\w+)"), r"\1 column"),), "id": ((re.compile(r"\btable\b"), "tabel"),)}


def text_block(found: list[dict], lang: str = "en") -> str:
    """The `hitung` section: each measurement on three lines (setup, numbers, source); empty when none is close."""
    if not found:
        return ""

    def w(words: str) -> str:
        return TEXT_ID.get(words, words) if lang == "id" else words

    title = "Published measurements nearest to this scenario (estimate = kalkulator for the measured setup)"
    lines = [w(title) if lang == "en" else TEXT_ID["title"]]
    for f in found:
        count = f"{f['n_gpus']}× " if f["n_gpus"] > 1 else ""
        build = f", {w('build')} {f['build']}" if f["build"] else f", {w('build not stated')}"
        year = f", {f['build_year']}" if f["build_year"] else ""
        lines.append(
            f"  {w(METRIC_WORDS[f['metric']])} {f['test']} · {count}{f['gpu_name']} · {f['model_name']} "
            f"{f['quant_name']} · {f['engine']}{build}{year}"
        )
        differs = [w(word) for word in f["match"].values() if word not in EXACT]
        nearness = f" — {', '.join(differs)}" if differs else ""
        lines.append(
            f"    {w('measured')} {number(f['measured_tok_s'], 1, lang)} tok/s, "
            f"{w('estimate')} {number(f['estimate_tok_s'], 1, lang)} tok/s, "
            f"{w('estimate ÷ measured')} {number(f['estimate_measured_ratio'], 2, lang)}{nearness}"
        )
        detail = f["source_detail"]
        for pattern, replacement in DETAIL_WORDS[lang]:
            detail = pattern.sub(replacement, detail)
        lines.append(f"    {f['source']} ({detail})")
    return "\n".join(lines)


# ---- the workbook's reference table (assumptions/measurements.csv) --------------------------------------------

SCOREBOARD = "measured_2025_builds.csv"
SCOREBOARD_READ = "2026-12-01"  # the day the living scoreboard was copied into assumptions/calibration/
# Other common setups beside the scoreboard: (file, catalog GPU, catalog model, quantization, tests).
REFERENCE_EXTRAS = (
    ("measured_tps.csv", "RTX 4090 24GB", "Llama-3-8B", "Q4_K_M", ("tg512", "pp512")),
    ("measured_tps.csv", "Apple M2 Ultra 192GB", "Llama-3-8B", "Q4_K_M", ("tg512", "pp512")),
    ("measured_tps.csv", "H100 PCIe 80GB", "Llama-3-70B", "Q4_K_M", ("tg512", "pp512")),
)
REFERENCE_FIELDS = (
    "name",
    "gpu_name",
    "model_name",
    "quant_name",
    "kv_cache_type",
    "engine",
    "n_gpus",
    "concurrent_users",
    "cpu_offload_frac",
    "prefix_cache_hit_frac",
    "prompt_tokens",
    "output_tokens",
    "context_tokens",
    "measured_metric_type",
    "measured_tok_s",
    "build",
    "build_era_text",
    "hardware",
    "source",
    "as_of",
)


def _whole(value: Value) -> Value:
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _reference_row(m: Measurement, name: str) -> dict[str, Value]:
    settings = m.settings()
    date = re.search(r"\((20\d\d-\d\d-\d\d)", m.where)
    detail = "diskusi papan skor llama.cpp CUDA" if m.file == SCOREBOARD else m.where
    build = m.build or "tidak disebut"
    commit = re.match(r"[0-9a-f]{7,}\b", build)
    if m.engine == "llama.cpp" and commit:
        build = f"ggml-org/llama.cpp@{commit.group(0)}"  # the commit of the llama.cpp repository it was built from
    return {
        "name": name,
        **{k: _whole(settings[k]) for k in REFERENCE_FIELDS[1:15]},
        "build": build,
        "build_era_text": m.era_text,
        "hardware": m.hardware.replace("not stated", "tidak disebut"),
        "source": f"{m.source} ({detail})",
        "as_of": date.group(1) if date else SCOREBOARD_READ,
    }


def reference_rows(catalog: Catalog, folder: Path = CALIBRATION_DIR) -> list[dict[str, Value]]:
    """The rows of assumptions/measurements.csv: the 2025 llama.cpp CUDA scoreboard (Llama-2-7B Q4_0, tg128 and
    pp512) on every device devices.csv maps to a catalog GPU, then REFERENCE_EXTRAS from the 2024 tables."""
    published = [m for m in load_published(catalog, folder) if m.n_gpus == 1]
    scoreboard = [m for m in published if m.file == SCOREBOARD and m.engine == "llama.cpp"]
    order = {name: i for i, name in enumerate(dict.fromkeys(m.gpu_name for m in scoreboard))}
    scoreboard.sort(key=lambda m: (order[m.gpu_name], m.metric != "tg"))  # file order, tg before pp
    rows = [_reference_row(m, f"{m.gpu_name} {m.test}") for m in scoreboard]
    for file, gpu, model, quant, tests in REFERENCE_EXTRAS:
        for test in tests:
            m = next(
                m
                for m in published
                if (m.file, m.gpu_name, m.model_name, m.quant_name, m.test) == (file, gpu, model, quant, test)
            )
            rows.append(_reference_row(m, f"{gpu} {test} {model}"))
    return rows


def write_reference_csv(catalog: Catalog, path: Path = CATALOG_DIR / "measurements.csv") -> int:
    """Regenerate assumptions/measurements.csv from the calibration files; returns the number of rows."""
    rows = reference_rows(catalog)
    with open_atomic(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=REFERENCE_FIELDS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return len(rows)
