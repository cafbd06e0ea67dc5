"""Which engine runs on which backend and which weight format is catalog data (engine_support.csv, each pair with
its source); a pair no engine supports is a status, never an OK with speeds and costs."""

from __future__ import annotations

import shutil

import pytest

from kalkulator.catalog import CatalogError, load_catalog
from kalkulator.io.paths import CATALOG_DIR
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
        # Intel Gaudi runs its own stack (SynapseAI): no llama.cpp backend; on vLLM-Gaudi only BF16 and INC's FP8
        # (vLLM's Supported Hardware table, Intel Gaudi column: AWQ ❌, GPTQ ❌).
        ({"gpu_name": "Gaudi 3 128GB", "quant_name": "Q4_K_M"}, "llama.cpp does not run on the hpu backend"),
        ({"gpu_name": "Gaudi 3 128GB", "engine": "vllm", "quant_name": "AWQ-4bit"}, "AWQ-4bit format"),
        # vLLM's MXFP4 (gpt-oss) kernels are for NVIDIA Hopper/Blackwell and AMD MI300X/MI355X, not Gaudi or XPU.
        ({"gpu_name": "Gaudi 3 128GB", "engine": "vllm", "quant_name": "MXFP4"}, "MXFP4 format"),
        ({"gpu_name": "Arc B580 12GB", "engine": "vllm", "quant_name": "MXFP4"}, "MXFP4 format"),
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
        {"gpu_name": "Gaudi 2 96GB", "engine": "vllm", "quant_name": "FP8"},
        {"gpu_name": "H100 SXM 80GB", "engine": "vllm", "quant_name": "MXFP4"},
        {"gpu_name": "Instinct MI300X 192GB", "engine": "vllm", "quant_name": "MXFP4"},
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
    lines.insert(2, "vllm/metla,typo,2026-01-01,,documented")
    lines.insert(3, "vlm/cuda,typo,2026-01-01,,documented")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(CatalogError) as err:
        load_catalog(folder)
    text = "\n".join(err.value.messages)
    assert f"{path}:3:name: 'vllm/metla' must be engine/backend, engine/format, engine/backend/format or" in text
    assert f"{path}:4:name: 'vlm' is not an engine of engines.csv" in text


# vLLM's "Supported Hardware" quantization table (docs.vllm.ai/en/latest/features/quantization/): AWQ from Turing
# (SM 7.5), GPTQ and bitsandbytes from Volta (7.0), FP8 W8A8 from Ada (8.9) with Ampere (8.0/8.6) through Marlin
# W8A16; NVIDIA's compute capability table (developer.nvidia.com/cuda-gpus): V100 7.0, T4 7.5, A100 8.0, L4 8.9.
@pytest.mark.parametrize(
    ("gpu", "quant", "runs"),
    [
        ("V100 SXM2 32GB", "AWQ-4bit", False),  # 7.0 < 7.5
        ("T4 16GB", "AWQ-4bit", True),  # 7.5
        ("V100 SXM2 32GB", "GPTQ-4bit", True),  # 7.0
        ("V100 SXM2 32GB", "FP8", False),  # 7.0 < 8.0
        ("T4 16GB", "FP8", False),  # 7.5 < 8.0
        ("A100 SXM 80GB", "FP8", True),  # 8.0: Marlin W8A16
        ("L4 24GB", "FP8", True),  # 8.9: W8A8
    ],
)
def test_vllm_kernels_need_their_gpu_architecture(gpu, quant, runs):
    values = compute({"gpu_name": gpu, "engine": "vllm", "quant_name": quant})
    assert values["engine_format_flag"] is True  # the backend runs the format; the architecture decides
    assert values["engine_compute_capability_flag"] is runs
    if runs:
        assert "compute capability" not in values["status_text"]
    else:
        assert values["status_text"].startswith(f"The vllm kernels for the {quant} format need CUDA compute capability")
        assert values["run_check_text"] == "GPU too old for these kernels"
        # NVIDIA writes capabilities with one decimal: V100 is 7.0, not the 7 a text join makes of it
        need = {"AWQ-4bit": "7.5", "FP8": "8.0"}[quant]
        have = {"V100 SXM2 32GB": "7.0", "T4 16GB": "7.5"}[gpu]
        assert f"capability {need} or newer, this GPU has {have}:" in values["status_text"]


def test_architecture_limit_is_skipped_without_a_compute_capability():
    # A GPU outside the catalog described by its numbers (no compute capability: 0) or an AMD GPU gets no CUDA limit.
    assert compute({"gpu_name": "Instinct MI300X 192GB", "engine": "vllm", "quant_name": "FP8"})[
        "engine_compute_capability_flag"
    ]
    custom = compute(
        {"gpu_name": "V100 SXM2 32GB", "engine": "vllm", "quant_name": "AWQ-4bit", "gpu_compute_capability": 0}
    )
    assert custom["engine_compute_capability_flag"] is True


def test_the_planner_leaves_out_awq_on_a_v100_with_vllm():
    from kalkulator.catalog import load_catalog as load
    from kalkulator.engine.graph import Graph
    from kalkulator.quantities import QUANTITIES
    from kalkulator.scenario.planner import search

    base = {"model_name": "Llama-3.1-8B", "engine": "vllm", "n_gpus": 1, "split_mode": "auto"}
    scenarios = [{**base, "gpu_name": g, "quant_name": "AWQ-4bit"} for g in ("V100 SXM2 32GB", "T4 16GB")]
    plan = search(Graph(QUANTITIES), load(), scenarios)
    assert plan.excluded["GPU too old for the engine's kernels"] == 1  # the V100 (7.0 < 7.5)
    assert "V100 SXM2 32GB" not in {o.settings.get("gpu_name") for o in plan.options}


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
