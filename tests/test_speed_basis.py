"""Whether a scenario's speed rests on a shipped measurement of its engine, weight format and GPU architecture, and
the status that says so.

Expected values follow from what the shipped calibration files hold (assumptions/calibration/): llama.cpp GGUF runs
on Ada (RTX 4090), Ampere, Hopper …, ROCm GCN5 (MI50/MI60), RDNA3/4, but none on CDNA2 (MI210); TensorRT-LLM FP8 runs
on H100; vLLM only MoE runs (MXFP4 on H100, GPTQ on MI100): no vLLM FP8 run on an H100; no SGLang run at all; no vLLM
run on Intel GPUs.
"""

from __future__ import annotations

import pytest

from kalkulator.scenario import compute


@pytest.mark.parametrize(
    ("settings", "measured"),
    [
        ({"gpu_name": "RTX 4090 24GB", "engine": "llama.cpp", "quant_name": "Q4_K_M"}, True),
        ({"gpu_name": "Instinct MI210 64GB", "engine": "llama.cpp", "quant_name": "Q4_K_M"}, False),  # CDNA2: none
        ({"gpu_name": "H100 SXM 80GB", "engine": "vllm", "quant_name": "FP8"}, False),  # vLLM FP8: no run ships
        ({"gpu_name": "H100 SXM 80GB", "engine": "vllm", "quant_name": "MXFP4", "model_name": "gpt-oss-20b"}, True),
        ({"gpu_name": "H100 SXM 80GB", "engine": "tensorrt-llm", "quant_name": "FP8"}, True),
        ({"gpu_name": "H100 SXM 80GB", "engine": "sglang", "quant_name": "FP8"}, False),  # no SGLang row measured
        ({"gpu_name": "Instinct MI300X 192GB", "engine": "vllm", "quant_name": "FP8"}, False),  # CUDA fit borrowed
        ({"gpu_name": "Arc A770 16GB", "engine": "vllm", "quant_name": "AWQ-4bit"}, False),
    ],
)
def test_speed_measured_on_this_backend(settings, measured):
    values = compute({"model_name": "Llama-3.1-8B", **settings})
    assert values["speed_measured_flag"] is measured
    said = f"No measurement of {settings['engine']} with the " in values["status_text"]
    assert said is not measured
    if not measured:
        assert values["status_text"].endswith("(borrowed or assumed): measure before you buy.")
        assert values["run_check_text"] == "OK"  # a warning: the estimate still stands, with its caveat


@pytest.mark.parametrize(
    ("stale_before", "caveats"),
    [
        ("2099-01-01", "speed not measured; quality not measured; old prices"),
        ("1900-01-01", "speed not measured; quality not measured"),
    ],
)
def test_every_caveat_is_listed_not_only_the_first(stale_before, caveats):
    # vLLM on an Arc A770 has no measured speed; every catalog price counts as old before 2099 and none before 1900;
    # AWQ-4bit has no public quality measurement (quants.csv).
    settings = {"model_name": "Llama-3.1-8B", "gpu_name": "Arc A770 16GB", "engine": "vllm", "quant_name": "AWQ-4bit"}
    values = compute({**settings, "prices_stale_before_text": stale_before})
    assert values["caveats_text"] == caveats
    assert values["status_text"].startswith("No measurement of vllm with the awq format on sycl")  # the first


def test_no_caveat_is_an_empty_list():
    settings = {
        "model_name": "Llama-3.1-8B",
        "gpu_name": "H100 SXM 80GB",
        "engine": "tensorrt-llm",
        "quant_name": "FP8",
    }
    values = compute({**settings, "prices_stale_before_text": "1900-01-01"})
    assert (values["status_text"], values["caveats_text"]) == ("OK", "")
