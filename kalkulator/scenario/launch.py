"""How to run a configuration: the serving engine's launch command with the flags its numbers assume.

The numbers of an option rest on a batch per replica (`serving_batch_users`), a context per request
(`context_tokens`), the GPUs of one replica and how they split the model, and the VRAM left after the engine's own
overhead (`overhead_gb`). The command sets exactly those; the weights file or repository is the model catalog's
Hugging Face repository (a GGUF file named after it for llama.cpp), to be replaced by the checkpoint you deploy.
"""

from __future__ import annotations

import math
import re
import shlex
from collections.abc import Mapping

from kalkulator.engine.expr import Value

# The graph's names a launch command reads (the planner evaluates them with the options).
NEEDS = ("serving_batch_users", "engine_max_batch_users", "context_tokens", "overhead_gb", "gpu_vram_gb", "split_type")
# vLLM-class --quantization values by format class (float and GGUF-less formats need none: the checkpoint says).
QUANTIZATION = {"fp8": "fp8", "awq": "awq", "gptq": "gptq", "nvfp4": "modelopt_fp4", "mxfp4": "mxfp4"}


def repository(model_source: str, model_name: str) -> str:
    """The model's Hugging Face repository from its catalog source (the model name when the source names none)."""
    found = re.search(r"huggingface\.co/([\w.-]+/[\w.-]+)", model_source or "")
    return found.group(1) if found else model_name


def _whole(x: Value, low: int = 1) -> int:
    return max(low, math.floor(float(x))) if isinstance(x, int | float) and math.isfinite(float(x)) else low


def memory_share(values: Mapping[str, Value]) -> float:
    """The share of each GPU's memory the engine may take: all but the overhead the VRAM model keeps aside,
    rounded down to hundredths (vLLM --gpu-memory-utilization, SGLang --mem-fraction-static)."""
    vram, overhead = float(values["gpu_vram_gb"]), float(values["overhead_gb"])
    return math.floor(100 * max(0.5, min(0.95, 1 - overhead / vram))) / 100 if vram > 0 else 0.9


def launch_command(
    engine: str, n_gpus: int, format_class: str, quant: str, repo: str, values: Mapping[str, Value]
) -> str:
    """The command that starts one replica of this configuration ("" for an engine without a server command)."""
    batch = _whole(values["serving_batch_users"])
    context = _whole(values["context_tokens"], 16)
    split = str(values["split_type"])
    if engine == "llama.cpp":
        slots = min(batch, _whole(values["engine_max_batch_users"]))
        file = f"{repo.split('/')[-1]}-{quant}.gguf"
        parts = ["llama-server", "-m", file, "-ngl", "99", "-c", str(context * slots), "-np", str(slots)]
        if n_gpus > 1:
            parts += ["--split-mode", "row" if split == "row" else "layer", "-ts", ",".join(["1"] * n_gpus)]
        return shlex.join(parts)
    share = f"{memory_share(values):.2f}"
    if engine in ("vllm", "sglang"):
        if engine == "vllm":
            parallel = "--pipeline-parallel-size" if split == "layer" else "--tensor-parallel-size"
            parts = ["vllm", "serve", repo, parallel, str(n_gpus), "--max-num-seqs", str(batch)]
            parts += ["--max-model-len", str(context), "--gpu-memory-utilization", share]
        else:
            parallel = "--pp" if split == "layer" else "--tp"
            parts = ["python", "-m", "sglang.launch_server", "--model-path", repo, parallel, str(n_gpus)]
            parts += ["--max-running-requests", str(batch), "--context-length", str(context)]
            parts += ["--mem-fraction-static", share]
        if format_class in QUANTIZATION:
            parts += ["--quantization", QUANTIZATION[format_class]]
        return shlex.join(parts)
    if engine == "tensorrt-llm":
        parallel = "--pp_size" if split == "layer" else "--tp_size"
        parts = ["trtllm-serve", repo, parallel, str(n_gpus), "--max_batch_size", str(batch)]
        parts += ["--max_seq_len", str(context), "--kv_cache_free_gpu_memory_fraction", share]
        return shlex.join(parts)
    return ""
