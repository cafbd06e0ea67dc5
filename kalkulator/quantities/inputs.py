"""Scenario inputs (the yellow cells of the Asumsi sheet) and the values looked up from the catalogs."""

from __future__ import annotations

from kalkulator.expr import AND, EQ, IF, IFERROR, INDEX, JOIN, MATCH, MIN, NE, OR, Col, R, safe_div
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
        "auto: the engine's own default (llama.cpp and exllamav2 layer, vLLM-class engines tensor); layer: each GPU "
        "holds some layers and they run in turn (bandwidth does not add up); tensor: every layer is split across "
        "GPUs (tensor parallel; bandwidth and FLOPS add up, each layer exchanges activations over the link).",
        "llama.cpp --split-mode; vLLM tensor_parallel_size",
        default="auto",
        options=("auto", "layer", "tensor"),
    ),
    Quantity(
        "prompt_tokens",
        "Token prompt",
        "Prompt tokens",
        "Tokens in one request's prompt (prefill), the mean over an agent's steps: system + tool definitions + "
        "new input × (steps + 1) ÷ 2 + output × (steps − 1) ÷ 2, since step i re-sends the i − 1 earlier steps "
        "(one step: the new input). Type a count to replace it.",
        "Buku, bab 1 (estimasi token), bab 2 (prefill) dan bagian agentic (konteks tumbuh per langkah)",
        expr=R("tool_definition_tokens")
        + R("step_input_tokens") * (R("session_steps") + 1) / 2
        + R("output_tokens") * (R("session_steps") - 1) / 2,
        overridable=True,
    ),
    lookup("output_tokens", "workload", "output_tokens", fallback=500),
    lookup("prefix_cache_hit_frac", "workload", "prefix_cache_hit_frac", fallback=0),
    Quantity(
        "context_tokens",
        "Panjang konteks per pengguna",
        "Context length per user",
        "Tokens held in the KV cache per user at the end of a request: prompt + output; for an agent the "
        "last step's, (steps − 1) ÷ 2 × (new input + output) above the mean step. Type a longer context "
        "(e.g. a chat's full history) to size for it.",
        BOOK,
        expr=R("prompt_tokens")
        + R("output_tokens")
        + (R("session_steps") - 1) * (R("step_input_tokens") + R("output_tokens")) / 2,
        overridable=True,
    ),
    Quantity(
        "build_era_text",
        "Generasi build mesin",
        "Engine build era",
        "Which builds the speed parameters describe: 2025 = current builds (llama.cpp with CUDA graphs, int8 "
        "tensor-core matrix kernels, flash attention); 2024 = builds up to mid-2024, as most older published "
        "measurements were made.",
        "kalkulator calibrate: one fit per engine, backend and era",
        default="2025",
        options=("2025", "2024"),
    ),
    Quantity(
        "cpu_offload_frac",
        "Porsi bobot di RAM sistem (offload)",
        "Share of weights in system RAM (offload)",
        "Layers kept in system memory are read at its bandwidth (llama.cpp -ngl below the layer count).",
        "llama.cpp --n-gpu-layers",
        default=0,
    ),
    Quantity(
        "host_mem_bandwidth_gbs",
        "Bandwidth RAM sistem",
        "System RAM bandwidth",
        "Bandwidth of the memory holding offloaded layers (DDR5-5600 dual channel: 2 × 8 bytes × 5600 MT/s).",
        "JEDEC DDR5: 64-bit channel × transfer rate",
        default=89.6,
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
    lookup("gpu_mem_bandwidth_gbs", "gpu", "mem_bandwidth_gbs"),
    lookup("gpu_vram_gib", "gpu", "vram_gib"),
    lookup("gpu_fp16_tflops", "gpu", "fp16_tflops"),
    lookup("gpu_fp32_tflops", "gpu", "fp32_tflops"),
    lookup("gpu_fp8_tflops", "gpu", "fp8_tflops"),
    lookup("gpu_fp4_tflops", "gpu", "fp4_tflops"),
    lookup("gpu_compute_capability", "gpu", "compute_capability", demanded=False),
    lookup("gpu_tdp_w", "gpu", "tdp_w"),
    lookup("gpu_backend", "gpu", "backend", fallback=""),
    lookup("gpu_arch_text", "gpu", "arch", fallback="", demanded=False),
    lookup("gpu_memory_type", "gpu", "memory_type", fallback=""),
    lookup("gpu_link_type", "gpu", "link_kind", fallback="pcie4x16"),
    lookup("gpu_link_bandwidth_gbs", "gpu", "link_bandwidth_gbs", fallback=31.5),
    lookup("gpu_link_latency_us", "gpu", "link_latency_us", fallback=5),
    lookup("gpu_p2p_mode", "gpu", "p2p", fallback="no"),
    lookup("gpu_fp16_fp32acc_tflops", "gpu", "fp16_fp32acc_tflops"),
    lookup("gpu_fp8_fp32acc_tflops", "gpu", "fp8_fp32acc_tflops"),
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
    lookup("model_params_b", "model", "params_b"),
    lookup("model_active_params_b", "model", "active_params_b"),
    lookup("model_layers", "model", "layers"),
    lookup("model_hidden", "model", "hidden"),
    lookup("model_heads", "model", "heads"),
    lookup("model_kv_heads", "model", "kv_heads"),
    lookup("model_head_dim", "model", "head_dim"),
    lookup("model_vocab", "model", "vocab"),
    lookup("model_max_context_tokens", "model", "max_context"),
    lookup("model_kv_latent_dim", "model", "kv_latent_dim"),
    lookup("model_sliding_window_tokens", "model", "sliding_window"),
    lookup("model_sliding_layers", "model", "sliding_layers"),
    lookup("model_experts", "model", "experts"),
    lookup("model_active_experts", "model", "active_experts"),
    lookup("model_expert_params_b", "model", "expert_params_b"),
)

# The engine-support rows that admit the chosen format: engine/format (any backend) and engine/backend/format.
SUPPORT_FORMAT_ROW = MATCH(JOIN(R("engine"), "/", R("quant_format_text")), Col("support", "name"))
SUPPORT_BACKEND_FORMAT_ROW = MATCH(
    JOIN(R("engine"), "/", R("gpu_backend"), "/", R("quant_format_text")), Col("support", "name")
)
FORMATS = (
    row_of("quant", "quant_name", "Baris kuantisasi", "Quantization row"),
    lookup("weight_bits_per_param", "quant", "bits_per_weight"),
    lookup("quant_kind_type", "quant", "kind", fallback=""),
    lookup("quant_compute_type", "quant", "compute", fallback="fp16"),
    lookup("quant_dequant_type", "quant", "dequant", fallback="block"),
    Quantity(
        "gpu_fp16_engine_tflops",
        "FP16 dense untuk akumulasi mesin ini",
        "FP16 dense at this engine's accumulation",
        "The FP32-accumulate FP16 peak when the engine's kernels accumulate in FP32 (vLLM, TensorRT-LLM, SGLang: "
        "165 TFLOPS on an RTX 4090), else the FP16-accumulate peak (llama.cpp: 330 TFLOPS).",
        "NVIDIA Ada/Ampere whitepapers (GeForce FP32-accumulate rate = half); engine catalog: accumulate",
        expr=IF(
            AND(EQ(R("engine_accumulate_type"), "fp32"), R("gpu_fp16_fp32acc_tflops") > 0),
            R("gpu_fp16_fp32acc_tflops"),
            R("gpu_fp16_tflops"),
        ),
    ),
    Quantity(
        "gpu_compute_tflops",
        "Puncak komputasi untuk format ini",
        "Peak compute for this format",
        "FP4 peak for fp4 formats on GPUs with FP4 units when the engine's kernels use them, FP8 peak (at the "
        "engine's accumulation) for fp8 formats on GPUs with FP8 units; else the FP16 peak at the engine's "
        "accumulation (weights are widened before the matrix multiply: llama.cpp computes MXFP4 with its integer "
        "kernels).",
        "NVIDIA Hopper/Blackwell architecture (FP8/FP4 tensor cores); vLLM/TensorRT-LLM FP8 W8A8 kernels",
        expr=IF(
            AND(EQ(R("quant_compute_type"), "fp4"), R("gpu_fp4_tflops") > 0, R("engine_fp8_fp4_units_flag") > 0),
            R("gpu_fp4_tflops"),
            IF(
                AND(EQ(R("quant_compute_type"), "fp8"), R("gpu_fp8_tflops") > 0),
                IF(
                    AND(EQ(R("engine_accumulate_type"), "fp32"), R("gpu_fp8_fp32acc_tflops") > 0),
                    R("gpu_fp8_fp32acc_tflops"),
                    R("gpu_fp8_tflops"),
                ),
                R("gpu_fp16_engine_tflops"),
            ),
        ),
    ),
    row_of("kv_cache", "kv_cache_type", "Baris presisi KV", "KV precision row"),
    lookup("kv_cache_bits", "kv_cache", "bits_per_value"),
    row_of("engine", "engine", "Baris mesin inferensi", "Engine row"),
    lookup("engine_allreduces_per_layer_ratio", "engine", "allreduces_per_layer", fallback=2),
    lookup("engine_stage_boundary_us", "engine", "stage_boundary_us", fallback=0),
    lookup("engine_exchange_us", "engine", "exchange_us", fallback=0),
    lookup("engine_exchange_bandwidth_frac", "engine", "exchange_bandwidth_frac", fallback=1),
    lookup("engine_tensor_exchange_type", "engine", "tensor_exchange", fallback="allreduce"),
    lookup("engine_activation_bytes", "engine", "activation_bytes", fallback=2),
    lookup("engine_pipeline_mode", "engine", "pipeline", fallback="none"),
    lookup("engine_batch_tokens", "engine", "batch_tokens", fallback=0),
    lookup("engine_accumulate_type", "engine", "accumulate", fallback="fp16"),
    lookup("engine_max_batch_users", "engine", "max_batch", fallback=1),
    Quantity(
        "split_type",
        "Mode multi-GPU yang dipakai",
        "Multi-GPU split used",
        "The split chosen, or with auto the engine's default split (engine catalog).",
        "Engine catalog (default_split column)",
        expr=IF(
            EQ(R("split_mode"), "auto"),
            IF(R("engine_row") > 0, INDEX(Col("engine", "default_split"), R("engine_row")), "layer"),
            R("split_mode"),
        ),
    ),
    Quantity(
        "quant_format_text",
        "Kelas format bobot",
        "Weight-format class",
        "The format as engines support it: the quantization kind (gguf, awq, gptq, exl2, mxfp4, nvfp4, int, "
        "nf4), float for 16/32-bit weights and fp8 for float weights computed in FP8.",
        "Katalog kuantisasi (kolom jenis dan presisi komputasi)",
        expr=IF(
            EQ(R("quant_kind_type"), "float"),
            IF(EQ(R("quant_compute_type"), "fp8"), "fp8", "float"),
            R("quant_kind_type"),
        ),
    ),
    Quantity(
        "engine_backend_flag",
        "Mesin berjalan di backend ini?",
        "Engine runs on this backend?",
        "TRUE when the engine supports the GPU's backend (engine/backend in the engine-support catalog), or "
        "when the engine is not in the catalog.",
        "Katalog dukungan mesin (assumptions/engine_support.csv)",
        expr=OR(
            EQ(R("engine_row"), 0),
            IFERROR(MATCH(JOIN(R("engine"), "/", R("gpu_backend")), Col("support", "name")), 0) > 0,
        ),
    ),
    Quantity(
        "engine_format_flag",
        "Mesin menjalankan format ini?",
        "Engine runs this format?",
        "TRUE when the engine runs the weight format on any backend (engine/format) or on this one "
        "(engine/backend/format), or when the engine or the format is not in the catalog.",
        "Katalog dukungan mesin (assumptions/engine_support.csv)",
        expr=OR(
            EQ(R("engine_row"), 0),
            EQ(R("quant_row"), 0),
            IFERROR(SUPPORT_FORMAT_ROW, 0) > 0,
            IFERROR(SUPPORT_BACKEND_FORMAT_ROW, 0) > 0,
        ),
    ),
    Quantity(
        "engine_min_compute_capability",
        "Kapabilitas komputasi minimum kernel mesin",
        "Minimum compute capability of the engine's kernels",
        "The lowest CUDA compute capability the engine's kernels for this format run on (engine/backend/format "
        "row, else engine/format; 0 = no limit): vLLM's AWQ needs 7.5 (Turing), its FP8 8.0 (Ampere via Marlin).",
        "Katalog dukungan mesin (assumptions/engine_support.csv, kolom min_compute_capability): tabel Supported "
        "Hardware vLLM",
        expr=IFERROR(
            INDEX(Col("support", "min_compute_capability"), SUPPORT_BACKEND_FORMAT_ROW),
            IFERROR(INDEX(Col("support", "min_compute_capability"), SUPPORT_FORMAT_ROW), 0),
        ),
    ),
    Quantity(
        "engine_compute_capability_flag",
        "GPU cukup baru untuk kernel mesin?",
        "GPU new enough for the engine's kernels?",
        "TRUE when the GPU's compute capability reaches the engine's minimum for this format, or when either is "
        "0 (no limit, or not an NVIDIA GPU).",
        "Katalog GPU (compute_capability) dan dukungan mesin (min_compute_capability)",
        expr=OR(
            R("gpu_compute_capability") <= 0,
            R("gpu_compute_capability") >= R("engine_min_compute_capability"),
        ),
    ),
    Quantity(
        "speed_arch_key_text",
        "Kunci parameter kecepatan arsitektur",
        "Architecture speed-parameter key",
        "engine/backend.arch@era: the speed parameters fitted to the GPU's architecture family on this backend "
        "(Instinct GCN5/CDNA cards on ROCm, Alchemist on SYCL or Vulkan), used before the backend's row.",
        "Katalog GPU (kolom arch) dan katalog parameter kecepatan",
        expr=JOIN(R("engine"), "/", R("gpu_backend"), ".", R("gpu_arch_text"), "@", R("build_era_text")),
    ),
    Quantity(
        "speed_key_text",
        "Kunci parameter kecepatan",
        "Speed-parameter key",
        "engine/backend@era: the speed parameters wanted when the architecture has no row of its own "
        "(engine/any@era, engine/backend or engine/any when that row was not calibrated).",
        "Katalog parameter kecepatan",
        expr=JOIN(R("engine"), "/", R("gpu_backend"), "@", R("build_era_text")),
    ),
    Quantity(
        "speed_row",
        "Baris parameter kecepatan",
        "Speed-parameter row",
        "Row of engine/backend.arch@era in the speed parameters, else of engine/backend@era, engine/any@era, "
        "engine/backend or engine/any (0 = none).",
        "Katalog parameter kecepatan",
        expr=IFERROR(
            MATCH(R("speed_arch_key_text"), Col("speed", "name")),
            IFERROR(
                MATCH(R("speed_key_text"), Col("speed", "name")),
                IFERROR(
                    MATCH(JOIN(R("engine"), "/any@", R("build_era_text")), Col("speed", "name")),
                    IFERROR(
                        MATCH(JOIN(R("engine"), "/", R("gpu_backend")), Col("speed", "name")),
                        IFERROR(MATCH(JOIN(R("engine"), "/any"), Col("speed", "name")), 0),
                    ),
                ),
            ),
        ),
    ),
    lookup(
        "speed_params_name",
        "speed",
        "name",
        "Parameter kecepatan yang dipakai",
        "Speed parameters used",
        "Name of the speed-parameter row the scenario uses.",
        fallback="",
    ),
    Quantity(
        "speed_measured_flag",
        "Kecepatan mesin ini terukur di backend ini?",
        "Engine's speed measured on this backend?",
        "TRUE when the speed parameters rest on measurements of this engine on this backend: a row with fit points, "
        "named for the backend (or its architecture family), or an engine-wide row on CUDA, where the engine-wide "
        "rows are fitted. FALSE: the speed is borrowed or assumed, and the status says so.",
        "Katalog parameter kecepatan (kolom name, fit_points)",
        expr=IF(
            R("speed_row") > 0,
            AND(
                INDEX(Col("speed", "fit_points"), R("speed_row")) > 0,
                OR(
                    EQ(R("gpu_backend"), "cuda"),
                    EQ(R("speed_params_name"), R("speed_key_text")),
                    EQ(R("speed_params_name"), R("speed_arch_key_text")),
                    EQ(R("speed_params_name"), JOIN(R("engine"), "/", R("gpu_backend"))),
                ),
            ),
            False,
        ),
        doc_id="TRUE bila parameter kecepatan berdasar pengukuran mesin ini di backend ini: baris dengan titik fit "
        "yang dinamai untuk backend ini (atau keluarga arsitekturnya), atau baris umum mesin di CUDA, tempat baris "
        "umum di-fit. FALSE: kecepatannya pinjaman atau asumsi, dan status menyebutkannya.",
        source_id="Katalog parameter kecepatan (kolom name, fit_points)",
    ),
    lookup(
        "engine_bandwidth_efficiency_frac",
        "speed",
        "decode_efficiency_frac",
        "Efisiensi bandwidth kernel decode",
        "Decode kernels' bandwidth efficiency",
        "Share of peak bandwidth the engine's decode kernels reach on this memory type (HBM or other) when the "
        "GPU's cores can issue the loads fast enough.",
        instead=(EQ(R("gpu_memory_type"), "hbm"), "decode_efficiency_hbm_frac"),
    ),
    lookup("decode_alu_flop_per_byte", "speed", "decode_flop_per_byte"),
    lookup("decode_superblock_work_ratio", "speed", "decode_superblock_work_ratio", fallback=1),
    Quantity(
        "decode_weight_work_ratio",
        "Kerja ALU format bobot ini",
        "ALU work of this weight format",
        "Core work per byte of the chosen format relative to block formats such as Q4_0: the super-block ratio for "
        "K- and I-quants, else 1 (float weights cost the same: loads and dot products dominate).",
        "Quantization catalog (Dequantisation column) and the fitted super-block ratio",
        expr=IF(EQ(R("quant_dequant_type"), "superblock"), R("decode_superblock_work_ratio"), 1),
    ),
    Quantity(
        "decode_alu_limit_frac",
        "Batas bandwidth dari kemampuan core",
        "Bandwidth share the cores can feed",
        "FP16 peak ÷ (ALU work per byte × the format's work ratio × bandwidth): the share of peak bandwidth the "
        "cores can keep busy (Apple GPUs with few cores, old Tesla cards).",
        "Fitted by kalkulator calibrate (Apple M-series: achieved bandwidth grows with the GPU core count and "
        "falls with K-quants)",
        expr=IF(
            R("decode_alu_flop_per_byte") * R("decode_weight_work_ratio") > 0,
            safe_div(
                R("gpu_fp16_tflops") * 1000,
                R("decode_alu_flop_per_byte") * R("decode_weight_work_ratio") * R("gpu_mem_bandwidth_gbs"),
                1,
            ),
            1,
        ),
    ),
    Quantity(
        "decode_efficiency_frac",
        "Efisiensi bandwidth decode",
        "Decode bandwidth efficiency",
        "Share of peak bandwidth a decode step reaches: the kernels' efficiency, or less when the cores cannot "
        "feed it. Type a measured share in the yellow cell to use it.",
        "Fitted by kalkulator calibrate (see Katalog Model: parameter kecepatan)",
        expr=MIN(R("engine_bandwidth_efficiency_frac"), R("decode_alu_limit_frac")),
        overridable=True,
    ),
    lookup("decode_layer_overhead_ms", "speed", "layer_overhead_ms"),
    lookup("decode_attention_ns", "speed", "attention_ns"),
    lookup(
        "prefill_efficiency_frac",
        "speed",
        "prefill_efficiency_frac",
        "Efisiensi komputasi prefill",
        "Prefill compute efficiency",
        "Share of peak FP16 FLOPS reached in prefill (MFU), for float or quantized weights.",
        instead=(NE(R("quant_kind_type"), "float"), "prefill_efficiency_quant_frac"),
    ),
    lookup("prefill_attention_efficiency_frac", "speed", "prefill_attention_efficiency_frac"),
    lookup("prefill_alu_work_ratio", "speed", "prefill_alu_work_ratio", fallback=0),
    lookup("prefill_chunk_tokens", "speed", "prefill_chunk_tokens"),
    lookup("engine_fp8_fp4_units_flag", "speed", "fp8_fp4_units"),
    lookup("prefill_layer_overhead_us", "speed", "prefill_layer_overhead_us"),
    lookup("serving_serial_frac", "speed", "serial_frac"),
    lookup("moe_kernel_efficiency_frac", "speed", "moe_kernel_efficiency_frac", fallback=1),
    lookup("speed_error_low_frac", "speed", "error_low_frac"),
    lookup("speed_error_high_frac", "speed", "error_high_frac"),
    lookup("prefill_error_low_frac", "speed", "prefill_error_low_frac"),
    lookup("prefill_error_high_frac", "speed", "prefill_error_high_frac"),
)

QUANTITIES = (*CHOICES, *SCENARIO, *GPU, *MODEL, *FORMATS)
