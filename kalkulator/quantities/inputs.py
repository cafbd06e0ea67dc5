"""Scenario inputs (the yellow cells of the Asumsi sheet) and the values looked up from the catalogs."""

from __future__ import annotations

from kalkulator.expr import R
from kalkulator.quantities.base import Quantity, lookup, row_of

BOOK = "Buku 'Kalkulasi Token Generation'"

CHOICES = (
    Quantity(
        "gpu_name",
        "GPU",
        "GPU",
        "The accelerator or memory system the model runs on.",
        "Katalog GPU",
        default="RTX 4090 24GB",
        choices=("gpu", "name"),
    ),
    Quantity(
        "model_name",
        "Model",
        "Model",
        "The language model to run.",
        "Katalog Model",
        default="Llama-3.1-8B",
        choices=("model", "name"),
    ),
    Quantity(
        "quant_name",
        "Kuantisasi bobot",
        "Weight quantization",
        "Weight format; its effective bits per weight include scales and higher-precision layers.",
        "Katalog Kuantisasi",
        default="Q4_K_M",
        choices=("quant", "name"),
    ),
    Quantity(
        "kv_cache_type",
        "Presisi KV cache",
        "KV-cache precision",
        "Storage format of the KV cache.",
        "Katalog presisi KV cache",
        default="F16",
        choices=("kv_cache", "name"),
    ),
    Quantity(
        "engine",
        "Mesin inferensi",
        "Inference engine",
        "Serving software; sets the bandwidth efficiency and fixed cost per decode step.",
        "Katalog mesin inferensi",
        default="llama.cpp",
        choices=("engine", "name"),
    ),
)

SCENARIO = (
    Quantity("n_gpus", "Jumlah GPU", "Number of GPUs", "GPUs serving one model replica.", BOOK, default=1),
    Quantity(
        "split_mode",
        "Mode multi-GPU",
        "Multi-GPU split",
        "layer: each GPU holds some layers and they run in turn (llama.cpp default; bandwidth does not add up); "
        "tensor: every layer is split across GPUs (vLLM/TensorRT-LLM tensor parallel; bandwidth and FLOPS add up).",
        "llama.cpp --split-mode; vLLM tensor_parallel_size",
        default="layer",
        options=("layer", "tensor"),
    ),
    Quantity(
        "context_tokens",
        "Panjang konteks per pengguna",
        "Context length per user",
        "Tokens held in the KV cache per user (prompt plus output so far).",
        BOOK,
        default=4096,
    ),
    Quantity(
        "prompt_tokens",
        "Token prompt",
        "Prompt tokens",
        "Tokens in one request's prompt (prefill).",
        BOOK,
        default=1000,
    ),
    Quantity(
        "output_tokens",
        "Token output",
        "Output tokens",
        "Tokens generated per request (decode).",
        BOOK,
        default=500,
    ),
    Quantity(
        "concurrent_users",
        "Pengguna bersamaan",
        "Concurrent users",
        "Requests decoded together in one batch; each holds its own KV cache.",
        BOOK,
        default=1,
    ),
    Quantity(
        "vram_overhead_gb",
        "Overhead VRAM (CUDA context, buffer)",
        "VRAM overhead (runtime context, buffers)",
        "Memory the runtime takes besides weights and KV cache.",
        f"{BOOK}, Bab VRAM: overhead ~1 GB",
        default=1.0,
    ),
    Quantity(
        "network_overhead_ms",
        "Overhead jaringan",
        "Network overhead",
        "Round trip added to each request's end-to-end latency.",
        f"{BOOK}, Bab latency: contoh 100 ms",
        default=100,
    ),
)

GPU = (
    row_of("gpu", "gpu_name", "Baris GPU di katalog", "GPU catalog row"),
    lookup(
        "gpu_mem_bandwidth_gbs",
        "gpu",
        "mem_bandwidth_gbs",
        "Bandwidth memori",
        "Memory bandwidth",
        "Peak memory bandwidth per GPU (vendor figure).",
    ),
    lookup(
        "gpu_vram_gib",
        "gpu",
        "vram_gib",
        "Memori GPU (GiB, angka pemasaran)",
        "GPU memory (GiB, as marketed)",
        "Vendors' '24 GB' is 24 GiB of memory.",
    ),
    lookup(
        "gpu_fp16_tflops",
        "gpu",
        "fp16_tflops",
        "FP16 dense",
        "FP16 dense",
        "Peak dense FP16 matrix throughput per GPU.",
    ),
    lookup("gpu_tdp_w", "gpu", "tdp_w", "Daya GPU (TDP)", "GPU power (TDP)", "Board power per GPU."),
    lookup(
        "gpu_backend",
        "gpu",
        "backend",
        "Backend",
        "Backend",
        "Compute backend: cuda, rocm, metal, sycl, cpu.",
        fallback="",
    ),
    Quantity(
        "gpu_vram_gb",
        "Memori GPU",
        "GPU memory",
        "GPU memory in GB (10^9 bytes): GiB × 1.073741824.",
        "1 GiB = 2^30 bytes",
        expr=R("gpu_vram_gib") * (2**30 / 1e9),
    ),
)

MODEL = (
    row_of("model", "model_name", "Baris model di katalog", "Model catalog row"),
    lookup(
        "model_params_b",
        "model",
        "params_b",
        "Parameter total",
        "Total parameters",
        "All parameters held in memory (for MoE: every expert).",
    ),
    lookup(
        "model_active_params_b",
        "model",
        "active_params_b",
        "Parameter aktif per token",
        "Active parameters per token",
        "Parameters used per token (MoE: routed experts only).",
    ),
    lookup("model_layers", "model", "layers", "Jumlah layer", "Layers", "Transformer blocks."),
    lookup("model_hidden", "model", "hidden", "Dimensi hidden", "Hidden size", "Model width."),
    lookup("model_heads", "model", "heads", "Attention heads", "Attention heads", "Query heads per layer."),
    lookup(
        "model_kv_heads",
        "model",
        "kv_heads",
        "KV heads",
        "KV heads",
        "Key/value heads per layer (GQA/MQA share them across query heads).",
    ),
    lookup("model_head_dim", "model", "head_dim", "Dimensi per head", "Head dimension", "Width of one head."),
    lookup("model_vocab", "model", "vocab", "Ukuran vocab", "Vocabulary", "Tokens in the vocabulary."),
    lookup(
        "model_max_context_tokens",
        "model",
        "max_context",
        "Konteks maksimum model",
        "Model max context",
        "Longest context the model supports.",
    ),
    lookup(
        "model_kv_latent_dim",
        "model",
        "kv_latent_dim",
        "Lebar laten KV (MLA)",
        "KV latent width (MLA)",
        "MLA models cache one latent vector per layer and token instead of K and V (0 = not MLA).",
    ),
    lookup(
        "model_sliding_window_tokens",
        "model",
        "sliding_window",
        "Jendela sliding window",
        "Sliding window",
        "Tokens kept by sliding-window (local) attention layers (0 = none).",
    ),
    lookup(
        "model_sliding_layers",
        "model",
        "sliding_layers",
        "Layer sliding window",
        "Sliding-window layers",
        "Layers that keep only the window instead of the whole context.",
    ),
)

FORMATS = (
    row_of("quant", "quant_name", "Baris kuantisasi", "Quantization row"),
    lookup(
        "weight_bits_per_param",
        "quant",
        "bits_per_weight",
        "Bit per parameter",
        "Bits per parameter",
        "Effective bits per weight of the chosen format.",
    ),
    row_of("kv_cache", "kv_cache_type", "Baris presisi KV", "KV precision row"),
    lookup(
        "kv_cache_bits",
        "kv_cache",
        "bits_per_value",
        "Bit per nilai KV",
        "Bits per KV value",
        "Bits stored per cached key/value element.",
    ),
    row_of("engine", "engine", "Baris mesin inferensi", "Engine row"),
    lookup(
        "decode_efficiency_frac",
        "engine",
        "decode_efficiency_frac",
        "Efisiensi bandwidth decode",
        "Decode bandwidth efficiency",
        "Share of peak bandwidth a decode step reaches.",
    ),
    lookup(
        "decode_overhead_ms",
        "engine",
        "decode_overhead_ms",
        "Overhead tetap per langkah decode",
        "Fixed cost per decode step",
        "Kernel launches, sampling and scheduling per step.",
    ),
    lookup(
        "prefill_efficiency_frac",
        "engine",
        "prefill_efficiency_frac",
        "Efisiensi komputasi prefill",
        "Prefill compute efficiency",
        "Share of peak FP16 FLOPS reached in prefill (MFU).",
    ),
)

QUANTITIES = (*CHOICES, *SCENARIO, *GPU, *MODEL, *FORMATS)
