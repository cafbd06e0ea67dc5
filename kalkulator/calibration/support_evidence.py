"""Which engine × backend × weight format × GPU architecture a shipped measurement has run.

engine_support.csv carries one row per such set with evidence `measured` (named
engine/backend/format.arch); `speed_measured_flag` is TRUE only on them. This module derives the set from the
shipped measurements so that a test holds the catalog to the data (a row without a run, or a run without its row,
is an error), and `scripts/support_rows.py` prints the rows to add.
"""

from __future__ import annotations

import csv
import re
from collections import defaultdict
from pathlib import Path

from kalkulator.catalog import Catalog
from kalkulator.io.paths import CALIBRATION_DIR, CATALOG_DIR

# The shipped runs: the calibration files (llama.cpp, TensorRT-LLM, vLLM MoE) and the published-measurement table.
CALIBRATION_FILES = (
    "measured_tps.csv",
    "measured_2025_builds.csv",
    "measured_2025_prs.csv",
    "measured_vendors.csv",
    "measured_apple.csv",
    "serving_moe.csv",
)
CPU_ONLY = " [CPU-only run]"


def arch_key(gpu: dict) -> str:
    """The architecture as support rows name it: the CUDA compute capability as smNN (sm120 for GeForce Blackwell,
    sm100 for B200), else the architecture family (RDNA3, Apple M3 …) — the graph's `gpu_arch_key_text`."""
    cc = float(gpu.get("compute_capability") or 0)
    return f"sm{round(cc * 10)}" if cc > 0 else str(gpu.get("arch") or "")


def format_class(quant: dict) -> str:
    """The format as engines support it (the graph's `quant_format_text`)."""
    if quant["kind"] == "float":
        return "fp8" if quant["compute"] == "fp8" else "float"
    return str(quant["kind"])


def _backend(row: dict, gpu: dict) -> str:
    if CPU_ONLY in row["hardware"]:
        return "cpu"
    found = re.search(r"backend=(\w+)", row.get("notes") or "")
    return found.group(1).lower() if found else str(gpu["backend"])


def measured_keys(
    catalog: Catalog, folder: Path = CALIBRATION_DIR, table: Path = CATALOG_DIR / "measurements.csv"
) -> dict[str, list[str]]:
    """engine/backend/format.arch → the files whose runs measured it."""
    with open(folder / "devices.csv", newline="", encoding="utf-8") as fh:
        devices = {r["hardware"]: r["catalog_gpu"] for r in csv.DictReader(fh) if r["catalog_gpu"]}
    gpus, quants = catalog["gpu"], catalog["quant"]
    found: dict[str, set[str]] = defaultdict(set)

    def add(engine: str, backend: str, gpu: dict, quant: dict | None, where: str) -> None:
        if quant is not None and backend == gpu["backend"]:
            found[f"{engine}/{backend}/{format_class(quant)}.{arch_key(gpu)}"].add(where)

    for name in CALIBRATION_FILES:
        path = folder / name
        if not path.exists():
            continue
        with open(path, newline="", encoding="utf-8") as fh:
            for row in csv.DictReader(fh):
                hardware = row["hardware"].replace(CPU_ONLY, "")
                gpu = gpus.find(devices.get(hardware) or re.sub(r"^(NVIDIA|AMD|Intel) ", "", hardware))
                if gpu is not None:
                    add(row["engine"], _backend(row, gpu), gpu, quants.find(row["quant"]), name)
    with open(table, newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            gpu = gpus.find(row["gpu_name"])
            if gpu is not None:
                add(row["engine"], str(gpu["backend"]), gpu, quants.find(row["quant_name"]), table.name)
    return {k: sorted(v) for k, v in sorted(found.items())}
