"""Which engine runs on which backend and which weight format is catalog data (engine_support.csv, each pair with
its source); a pair no engine supports is a status, never an OK with speeds and costs."""

from __future__ import annotations

import shutil

import pytest

from kalkulator.catalog import CatalogError, load_catalog
from kalkulator.paths import CATALOG_DIR
from kalkulator.scenario import compute


@pytest.mark.parametrize(
    ("settings", "words"),
    [
        # vLLM, TensorRT-LLM and exllamav2 need CUDA (vLLM also ROCm): none of them runs on Apple's Metal.
        ({"gpu_name": "Apple M2 Ultra 192GB", "engine": "vllm"}, "vllm does not run on the metal backend"),
        ({"gpu_name": "Instinct MI300X 192GB", "engine": "tensorrt-llm", "quant_name": "FP8"}, "the rocm backend"),
        ({"gpu_name": "Apple M2 Max 96GB", "engine": "exllamav2", "quant_name": "EXL2-4.0bpw"}, "metal backend"),
        # llama.cpp has no NVFP4 type; vLLM's AWQ kernels are CUDA only (its hardware table: AWQ ❌ on AMD GPUs).
        ({"gpu_name": "B200 180GB", "quant_name": "NVFP4"}, "llama.cpp does not run the NVFP4 format"),
        ({"gpu_name": "Instinct MI300X 192GB", "engine": "vllm", "quant_name": "AWQ-4bit"}, "AWQ-4bit format"),
    ],
)
def test_impossible_pairs_are_a_status(settings, words):
    values = compute(settings)
    assert words in values["status_text"]
    assert values["run_check_text"] != "OK"  # every serving and money answer shows why instead of a number


@pytest.mark.parametrize(
    "settings",
    [
        {"gpu_name": "H100 SXM 80GB", "engine": "vllm", "quant_name": "FP8"},
        {"gpu_name": "H100 SXM 80GB", "engine": "vllm", "quant_name": "AWQ-4bit"},
        {"gpu_name": "Instinct MI300X 192GB", "engine": "vllm", "quant_name": "FP8"},
        {"gpu_name": "Apple M2 Max 96GB", "engine": "llama.cpp", "quant_name": "Q4_K_M"},
        {"gpu_name": "RTX 3090 24GB", "engine": "exllamav2", "quant_name": "EXL2-4.0bpw"},
    ],
)
def test_supported_pairs_stay_ok(settings):
    values = compute(settings)
    assert values["engine_backend_flag"] is True and values["engine_format_flag"] is True


def test_fp8_is_its_own_class_beside_float():
    assert compute({"quant_name": "FP8", "engine": "vllm", "gpu_name": "H100 SXM 80GB"})["quant_format_text"] == "fp8"
    assert compute({"quant_name": "BF16"})["quant_format_text"] == "float"
    assert compute({"quant_name": "Q4_K_M"})["quant_format_text"] == "gguf"


def test_a_bad_support_row_names_file_line_and_field(tmp_path):
    folder = tmp_path / "assumptions"
    shutil.copytree(CATALOG_DIR, folder)
    path = folder / "engine_support.csv"
    lines = path.read_text(encoding="utf-8").splitlines()
    lines.insert(2, "vllm/metla,typo,2026-01-01")
    lines.insert(3, "vlm/cuda,typo,2026-01-01")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(CatalogError) as err:
        load_catalog(folder)
    text = "\n".join(err.value.messages)
    assert f"{path}:3:name: 'vllm/metla' must be engine/backend, engine/format or engine/backend/format" in text
    assert f"{path}:4:name: 'vlm' is not an engine of engines.csv" in text


@pytest.mark.parametrize(
    ("engine", "split"),
    [("llama.cpp", "layer"), ("exllamav2", "layer"), ("vllm", "tensor"), ("tensorrt-llm", "tensor")],
)
def test_auto_split_is_the_engines_own_default(engine, split):
    # llama.cpp's --split-mode defaults to layer; vLLM-class engines spread a model with tensor parallelism.
    values = compute({"engine": engine, "n_gpus": 2.0, "gpu_name": "H100 SXM 80GB", "quant_name": "F16"})
    assert values["split_type"] == split
    assert values["parallel_gpus"] == (2 if split == "tensor" else 1)
    assert compute({"engine": engine, "n_gpus": 2.0, "split_mode": "layer"})["split_type"] == "layer"
