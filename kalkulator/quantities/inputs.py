"""Scenario inputs (the yellow cells of the Asumsi sheet) and the values looked up from the catalogs."""

from __future__ import annotations

from kalkulator.engine.expr import AND, EQ, IF, IFERROR, INDEX, JOIN, MATCH, MIN, NE, NOT, OR, ROUND, Col, R, safe_div
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
        doc_id="Akselerator atau sistem memori tempat model dijalankan.",
        source_id="Katalog GPU",
    ),
    Quantity(
        "model_name",
        "Model",
        "Model",
        "The language model to run.",
        "Katalog Model",
        default="Llama-3.1-8B",
        choices=("model", "name"),
        doc_id="Model bahasa yang dijalankan.",
        source_id="Katalog Model",
    ),
    Quantity(
        "quant_name",
        "Kuantisasi bobot",
        "Weight quantization",
        "Weight format; its effective bits per weight include scales and higher-precision layers.",
        "Katalog Kuantisasi",
        default="Q4_K_M",
        choices=("quant", "name"),
        doc_id=("Format bobot; bit efektif per bobot sudah termasuk skala dan layer yang disimpan lebih presisi."),
        source_id="Katalog Kuantisasi; buku, bab 7.1–7.2",
    ),
    Quantity(
        "kv_cache_type",
        "Presisi KV cache",
        "KV-cache precision",
        "Storage format of the KV cache.",
        "Katalog presisi KV cache",
        default="F16",
        choices=("kv_cache", "name"),
        doc_id="Format penyimpanan KV cache.",
        source_id="Katalog presisi KV cache; buku, bab 10.4 (kuantisasi KV cache)",
    ),
    Quantity(
        "engine",
        "Mesin inferensi",
        "Inference engine",
        "Serving software; sets the bandwidth efficiency and fixed cost per decode step.",
        "Katalog mesin inferensi",
        default="llama.cpp",
        choices=("engine", "name"),
        doc_id=("Perangkat lunak serving; menentukan efisiensi bandwidth dan biaya tetap per langkah decode."),
        source_id="Katalog mesin inferensi",
    ),
)

SCENARIO = (
    Quantity(
        "n_gpus",
        "Jumlah GPU",
        "Number of GPUs",
        "GPUs serving one model replica.",
        BOOK,
        default=1,
        doc_id="Jumlah GPU yang bersama-sama memuat satu replika model.",
        source_id="Buku, bab 6.3 (multi-GPU)",
    ),
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
        doc_id=(
            "layer: tiap GPU memegang sebagian layer dan bekerja bergiliran (bawaan llama.cpp; "
            "bandwidth tidak bertambah); tensor: setiap layer dibagi ke semua GPU (tensor parallel "
            "vLLM/TensorRT-LLM; bandwidth dan FLOPS dijumlahkan)."
        ),
        source_id="llama.cpp --split-mode; vLLM tensor_parallel_size; buku, bab 6.3",
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
        doc_id=(
            "Token dalam prompt satu permintaan (diproses saat prefill), rata-rata langkah sebuah agen: "
            "system + definisi tool + input baru × (langkah + 1) ÷ 2 + output × (langkah − 1) ÷ 2, "
            "karena langkah ke-i mengirim ulang i − 1 langkah sebelumnya (satu langkah: input baru "
            "saja). Isi angka untuk menggantinya."
        ),
        source_id=("Buku, bab 1 (estimasi token), bab 2 (prefill) dan bagian agentic (konteks tumbuh per langkah)"),
    ),
    lookup(
        "output_tokens",
        "workload",
        "output_tokens",
        fallback=500,
        doc_id=(
            "Token yang dihasilkan per permintaan (decode), dari profil beban kerja; isi angka untuk menggantinya."
        ),
        source_id="Buku, bab 1 (estimasi token) dan bab 2 (decode)",
    ),
    lookup(
        "prefix_cache_hit_frac",
        "workload",
        "prefix_cache_hit_frac",
        fallback=0,
        doc_id=(
            "Bagian prompt yang sudah ada di KV cache (system prompt bersama, giliran chat sebelumnya): "
            "tidak perlu dihitung ulang saat prefill, walau token baru tetap memperhatikannya lewat "
            "attention; API menagihnya dengan harga cached. Bawaan dari profil beban kerja."
        ),
        source_id=(
            "vLLM automatic prefix caching; SGLang RadixAttention; prompt caching OpenAI/Anthropic; buku, bab 11.2"
        ),
    ),
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
        doc_id=(
            "Token yang disimpan di KV cache per pengguna di akhir permintaan: prompt + output; untuk "
            "agen, milik langkah terakhir, (langkah − 1) ÷ 2 × (input baru + output) di atas rata-rata "
            "langkah. Isi konteks yang lebih panjang (mis. seluruh riwayat chat) untuk menghitung "
            "kebutuhannya."
        ),
        source_id="Buku, bab 10.2 dan 15.5",
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
        doc_id=(
            "Generasi build mesin yang dijelaskan parameter kecepatan: 2025 = build terkini (llama.cpp "
            "dengan CUDA graphs, kernel matriks int8 tensor core, flash attention); 2024 = build sampai "
            "pertengahan 2024, seperti kebanyakan pengukuran lama yang diterbitkan."
        ),
        source_id="kalkulator calibrate: satu fit per mesin, backend dan era",
    ),
    Quantity(
        "cpu_offload_frac",
        "Porsi bobot di RAM sistem (offload)",
        "Share of weights in system RAM (offload)",
        "Layers kept in system memory are read at its bandwidth (llama.cpp -ngl below the layer count).",
        "llama.cpp --n-gpu-layers",
        default=0,
        doc_id=(
            "Layer yang disimpan di memori sistem dibaca dengan bandwidth RAM tersebut (llama.cpp -ngl "
            "di bawah jumlah layer)."
        ),
        source_id="llama.cpp --n-gpu-layers; buku, bab 8.3 dan 13.3",
    ),
    Quantity(
        "host_mem_bandwidth_gbs",
        "Bandwidth RAM sistem",
        "System RAM bandwidth",
        "Bandwidth of the memory holding offloaded layers (DDR5-5600 dual channel: 2 × 8 bytes × 5600 MT/s).",
        "JEDEC DDR5: 64-bit channel × transfer rate",
        default=89.6,
        doc_id=("Bandwidth memori yang menampung layer offload (DDR5-5600 dual channel: 2 × 8 byte × 5600 MT/s)."),
        source_id="JEDEC DDR5: kanal 64 bit × laju transfer; buku, bab 13.3",
    ),
    Quantity(
        "vram_overhead_gb",
        "Overhead VRAM (CUDA context, buffer)",
        "VRAM overhead (runtime context, buffers)",
        "Memory the runtime takes besides weights and KV cache.",
        f"{BOOK}, Bab VRAM: overhead ~1 GB",
        default=1.0,
        doc_id="Memori yang dipakai runtime selain bobot dan KV cache (CUDA context, buffer).",
        source_id="Buku, bab 14.1: overhead ~1 GB",
    ),
    Quantity(
        "network_overhead_ms",
        "Overhead jaringan",
        "Network overhead",
        "Round trip added to each request's end-to-end latency.",
        f"{BOOK}, Bab latency: contoh 100 ms",
        default=100,
        doc_id="Waktu pulang-pergi jaringan yang ditambahkan ke latensi end-to-end setiap permintaan.",
        source_id="Buku, bab 3: contoh E2E dengan overhead jaringan 100 ms",
    ),
)

GPU = (
    row_of(
        "gpu",
        "gpu_name",
        "Baris GPU di katalog",
        "GPU catalog row",
        doc_id="Posisi gpu_name yang dipilih di katalog GPU (0 = tidak ada di katalog).",
        source_id="Katalog GPU",
    ),
    lookup(
        "gpu_mem_bandwidth_gbs",
        "gpu",
        "mem_bandwidth_gbs",
        doc_id="Bandwidth memori puncak per GPU (angka vendor).",
        source_id="Katalog GPU, kolom 'Bandwidth memori (GB/s)'",
    ),
    lookup(
        "gpu_vram_gib",
        "gpu",
        "vram_gib",
        doc_id="'24 GB' menurut vendor sebenarnya 24 GiB memori.",
        source_id="Katalog GPU, kolom 'Memori (GiB)'",
    ),
    lookup(
        "gpu_fp16_tflops",
        "gpu",
        "fp16_tflops",
        doc_id="Throughput matriks FP16 dense puncak per GPU.",
        source_id="Katalog GPU, kolom 'FP16 dense (TFLOPS)'",
    ),
    lookup(
        "gpu_fp32_tflops",
        "gpu",
        "fp32_tflops",
        doc_id=("Throughput FP32 puncak ALU shader GPU (CUDA core, stream processor), bukan tensor unit-nya."),
        source_id="Katalog GPU, kolom 'FP32 non-tensor (TFLOPS)'",
    ),
    lookup(
        "gpu_fp8_tflops",
        "gpu",
        "fp8_tflops",
        doc_id="Throughput matriks FP8 dense puncak per GPU (0 = tidak punya tensor unit FP8).",
        source_id="Katalog GPU, kolom 'FP8 dense (TFLOPS)'",
    ),
    lookup(
        "gpu_fp4_tflops",
        "gpu",
        "fp4_tflops",
        doc_id="Throughput matriks FP4 dense (NVFP4/MXFP4) puncak per GPU (0 = tidak ada).",
        source_id="Katalog GPU, kolom 'FP4 dense (TFLOPS)'",
    ),
    lookup(
        "gpu_compute_capability",
        "gpu",
        "compute_capability",
        demanded=False,
        doc_id=(
            "Versi SM NVIDIA dari GPU (7.0 Volta, 7.5 Turing, 8.0/8.6 Ampere, 8.9 Ada, 9.0 Hopper, "
            "10.0/12.0 Blackwell); 0 = bukan GPU NVIDIA atau tidak diketahui, dan batas kernel mesin "
            "tidak diterapkan."
        ),
        source_id="Katalog GPU, kolom 'Kapabilitas komputasi CUDA' (tabel NVIDIA CUDA GPU Compute Capability)",
    ),
    lookup(
        "gpu_tdp_w",
        "gpu",
        "tdp_w",
        doc_id="Daya kartu per GPU.",
        source_id="Katalog GPU, kolom 'Daya (W)'",
    ),
    lookup(
        "gpu_backend",
        "gpu",
        "backend",
        fallback="",
        doc_id="Backend komputasi: cuda, rocm, metal, sycl, cpu.",
        source_id="Katalog GPU, kolom 'Backend'",
    ),
    lookup(
        "gpu_arch_text",
        "gpu",
        "arch",
        fallback="",
        demanded=False,
        doc_id=(
            "Keluarga arsitektur GPU (Ampere, Ada, RDNA3, CDNA2, GCN5, Alchemist, M4, ...): baris "
            "kecepatan engine/backend.arch@era, bila sudah dikalibrasi, menggantikan baris backend "
            "untuk GPU arsitektur ini; kosong = baris backend."
        ),
        source_id="Katalog GPU, kolom 'Arsitektur GPU'",
    ),
    lookup(
        "gpu_memory_type",
        "gpu",
        "memory_type",
        fallback="",
        doc_id=(
            "gddr, hbm, lpddr atau ddr: llama.cpp hanya mencapai porsi yang lebih kecil dari bandwidth puncak HBM."
        ),
        source_id="Katalog GPU, kolom 'Jenis memori'",
    ),
    lookup(
        "gpu_link_type",
        "gpu",
        "link_kind",
        fallback="pcie4x16",
        doc_id=(
            "PCIe generasi × lajur, jembatan NVLink, NVLink, NVSwitch, mesh all-to-all, jaringan atau memori terpadu."
        ),
        source_id="Katalog GPU: kolom link_kind",
    ),
    lookup(
        "gpu_link_bandwidth_gbs",
        "gpu",
        "link_bandwidth_gbs",
        fallback=31.5,
        doc_id=("Yang dapat dikirim satu GPU ke GPU lain per detik (PCIe 4.0 x16: 31,5 GB/s; NVLink 4: 450 GB/s)."),
        source_id="Katalog GPU: kolom link_bandwidth_gbs",
    ),
    lookup(
        "gpu_link_latency_us",
        "gpu",
        "link_latency_us",
        fallback=5,
        doc_id=(
            "Waktu satu langkah GPU-ke-GPU dalam pertukaran dengan akses peer-to-peer (mulai salin, "
            "flag, sinkronisasi)."
        ),
        source_id="Katalog GPU: kolom link_latency_us",
    ),
    lookup(
        "gpu_p2p_mode",
        "gpu",
        "p2p",
        fallback="no",
        doc_id=(
            '"yes" bila driver mengizinkan GPU saling menyalin langsung; "no" (GeForce) melewatkan '
            "setiap salinan lewat RAM host: dua salinan per lompatan."
        ),
        source_id="Katalog GPU: kolom p2p",
    ),
    lookup(
        "gpu_fp16_fp32acc_tflops",
        "gpu",
        "fp16_fp32acc_tflops",
        doc_id=(
            "Puncak FP16 dense bila hasil kali dijumlahkan dalam FP32 (GeForce: separuh puncak "
            "akumulasi FP16; 0 = angka FP16)."
        ),
        source_id="Katalog GPU: kolom fp16_fp32acc_tflops",
    ),
    lookup(
        "gpu_fp8_fp32acc_tflops",
        "gpu",
        "fp8_fp32acc_tflops",
        doc_id="Puncak FP8 dense bila hasil kali dijumlahkan dalam FP32 (GeForce: separuh; 0 = angka FP8).",
        source_id="Katalog GPU: kolom fp8_fp32acc_tflops",
    ),
    Quantity(
        "gpu_vram_gb",
        "Memori GPU",
        "GPU memory",
        "GPU memory in GB (10^9 bytes): GiB × 1.073741824.",
        "1 GiB = 2^30 bytes",
        expr=R("gpu_vram_gib") * (2**30 / 1e9),
        doc_id="Memori GPU dalam GB (10^9 byte): GiB × 1,073741824.",
        source_id="1 GiB = 2^30 byte",
    ),
)

MODEL = (
    row_of(
        "model",
        "model_name",
        "Baris model di katalog",
        "Model catalog row",
        doc_id="Posisi model_name yang dipilih di katalog model (0 = tidak ada di katalog).",
        source_id="Katalog Model",
    ),
    lookup(
        "model_params_b",
        "model",
        "params_b",
        doc_id="Semua parameter yang disimpan di memori (MoE: setiap expert).",
        source_id="Katalog Model, kolom 'Parameter total (miliar)'",
    ),
    lookup(
        "model_active_params_b",
        "model",
        "active_params_b",
        doc_id="Parameter yang dipakai per token (MoE: hanya expert yang dipilih router).",
        source_id="Katalog Model, kolom 'Parameter aktif (miliar)'",
    ),
    lookup(
        "model_layers",
        "model",
        "layers",
        doc_id="Jumlah blok transformer.",
        source_id="Katalog Model, kolom 'Jumlah layer'",
    ),
    lookup(
        "model_hidden",
        "model",
        "hidden",
        doc_id="Lebar model.",
        source_id="Katalog Model, kolom 'Dimensi hidden'",
    ),
    lookup(
        "model_heads",
        "model",
        "heads",
        doc_id="Head query per layer.",
        source_id="Katalog Model, kolom 'Jumlah attention head'",
    ),
    lookup(
        "model_kv_heads",
        "model",
        "kv_heads",
        doc_id="Head key/value per layer (GQA/MQA membaginya ke beberapa head query).",
        source_id="Katalog Model, kolom 'Jumlah KV head'",
    ),
    lookup(
        "model_head_dim",
        "model",
        "head_dim",
        doc_id="Lebar satu head.",
        source_id="Katalog Model, kolom 'Dimensi per head'",
    ),
    lookup(
        "model_vocab",
        "model",
        "vocab",
        doc_id="Jumlah token dalam vocabulary.",
        source_id="Katalog Model, kolom 'Ukuran vocab'",
    ),
    lookup(
        "model_max_context_tokens",
        "model",
        "max_context",
        doc_id="Konteks terpanjang yang didukung model.",
        source_id="Katalog Model, kolom 'Konteks maksimum (token)'",
    ),
    lookup(
        "model_kv_latent_dim",
        "model",
        "kv_latent_dim",
        doc_id="Model MLA menyimpan satu vektor laten per layer dan token, bukan K dan V (0 = bukan MLA).",
        source_id="Katalog Model, kolom 'Lebar laten KV (MLA)'",
    ),
    lookup(
        "model_sliding_window_tokens",
        "model",
        "sliding_window",
        doc_id="Token yang disimpan oleh layer attention sliding window (lokal) (0 = tidak ada).",
        source_id="Katalog Model, kolom 'Sliding window (token)'",
    ),
    lookup(
        "model_sliding_layers",
        "model",
        "sliding_layers",
        doc_id="Layer yang hanya menyimpan jendela, bukan seluruh konteks.",
        source_id="Katalog Model, kolom 'Layer sliding window'",
    ),
    lookup(
        "model_linear_layers",
        "model",
        "linear_layers",
        doc_id="Layer yang menyimpan state berukuran tetap per sekuens, bukan KV cache (Gated DeltaNet, Mamba-2).",
        source_id="Katalog Model, kolom 'Layer linear attention / SSM'",
    ),
    lookup(
        "model_ffn_layers",
        "model",
        "ffn_layers",
        doc_id="Layer tanpa attention maupun state (blok MLP saja di Nemotron-H); tidak menyimpan cache.",
        source_id="Katalog Model, kolom 'Layer tanpa attention (MLP saja)'",
    ),
    lookup(
        "model_state_bytes_per_layer",
        "model",
        "state_bytes",
        doc_id=(
            "Byte state rekuren (dan jendela konvolusi) yang disimpan satu sekuens di setiap layer linear "
            "attention atau SSM, berapa pun panjang konteksnya."
        ),
        source_id="Katalog Model, kolom 'State per sekuens per layer linear'",
    ),
    lookup(
        "model_sparse_tokens",
        "model",
        "sparse_tokens",
        doc_id=(
            "Token lampau yang dibaca setiap query di layer full attention dengan sparse attention "
            "(index_topk DeepSeek-V3.2; 0 = dense: semuanya)."
        ),
        source_id="Katalog Model, kolom 'Anggaran token sparse attention'",
    ),
    lookup(
        "model_experts",
        "model",
        "experts",
        doc_id="Expert terarah yang dipilih setiap layer MoE (0 = model dense).",
        source_id="Katalog model: kolom experts",
    ),
    lookup(
        "model_active_experts",
        "model",
        "active_experts",
        doc_id=(
            "Expert terarah yang dipakai setiap token (top-k; expert bersama selalu dibaca dan dihitung "
            "di bagian lain)."
        ),
        source_id="Katalog model: kolom active_experts",
    ),
    lookup(
        "model_expert_params_b",
        "model",
        "expert_params_b",
        doc_id=(
            "Semua expert terarah dari semua layer; sisanya (attention, embedding, expert bersama) "
            "dibaca setiap langkah."
        ),
        source_id="Katalog model: kolom expert_params_b",
    ),
)

# The engine-support rows that admit the chosen format: engine/format (any backend) and engine/backend/format.
SUPPORT_FORMAT_ROW = MATCH(JOIN(R("engine"), "/", R("quant_format_text")), Col("support", "name"))
SUPPORT_BACKEND_FORMAT_ROW = MATCH(
    JOIN(R("engine"), "/", R("gpu_backend"), "/", R("quant_format_text")), Col("support", "name")
)
SUPPORT_ARCH_ROW = MATCH(
    JOIN(R("engine"), "/", R("gpu_backend"), "/", R("quant_format_text"), ".", R("gpu_arch_key_text")),
    Col("support", "name"),
)
FORMATS = (
    row_of(
        "quant",
        "quant_name",
        "Baris kuantisasi",
        "Quantization row",
        doc_id="Posisi quant_name yang dipilih di katalog kuantisasi (0 = tidak ada di katalog).",
        source_id="Katalog Kuantisasi",
    ),
    lookup(
        "weight_bits_per_param",
        "quant",
        "bits_per_weight",
        doc_id="Bit efektif per bobot dari format yang dipilih.",
        source_id="Katalog kuantisasi, kolom 'Bit per bobot'",
    ),
    lookup(
        "quant_kind_type",
        "quant",
        "kind",
        fallback="",
        doc_id=(
            "float, int, gguf, awq, gptq, exl2, mxfp4 atau nf4: bobot terkuantisasi punya efisiensi "
            "prefill yang berbeda."
        ),
        source_id="Katalog kuantisasi, kolom 'Jenis format'",
    ),
    lookup(
        "quant_compute_type",
        "quant",
        "compute",
        fallback="fp16",
        doc_id=(
            "fp16, fp8 atau fp4: unit matriks yang dipakai format ini untuk menghitung (format W4A16 "
            "seperti Q4_K_M atau AWQ: fp16)."
        ),
        source_id="Katalog kuantisasi, kolom 'Presisi komputasi'",
    ),
    lookup(
        "quant_dequant_type",
        "quant",
        "dequant",
        fallback="block",
        doc_id=(
            "none (bobot float), block (satu skala per blok: Q4_0, Q8_0, AWQ…) atau superblock "
            "(K-quant, I-quant): format super-blok menuntut kerja core lebih banyak per byte bobot saat "
            "decode."
        ),
        source_id="Katalog kuantisasi, kolom 'Dekuantisasi'",
    ),
    Quantity(
        "quant_quality_loss_frac",
        "Penurunan kualitas vs 16-bit",
        "Quality loss vs 16-bit",
        "The format's published quality loss against 16-bit weights (quality_loss_pct of the quantization catalog ÷ "
        "100): perplexity increase or 100 − benchmark recovery, by quant_quality_metric_type; 0 when none is "
        "published. Measured on an 8B model: smaller models lose more, larger ones less.",
        "Quantization catalog: column quality_loss_pct (its source in quality_source)",
        expr=IF(R("quant_row") > 0, INDEX(Col("quant", "quality_loss_pct"), R("quant_row")) / 100, 0),
        overridable=True,
        doc_id="Penurunan kualitas format yang dipublikasikan terhadap bobot 16-bit (quality_loss_pct katalog "
        "kuantisasi ÷ 100): kenaikan perplexity atau 100 − pemulihan benchmark, menurut quant_quality_metric_type; "
        "0 bila tidak dipublikasikan. Diukur pada model 8B: model lebih kecil kehilangan lebih banyak.",
        source_id="Katalog kuantisasi: kolom quality_loss_pct (sumbernya di quality_source)",
    ),
    lookup(
        "quant_quality_metric_type",
        "quant",
        "quality_metric",
        fallback="none",
        source_id="Katalog kuantisasi, kolom 'Dasar angka kualitas'",
    ),
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
        doc_id=(
            "Puncak FP16 akumulasi FP32 bila kernel mesin mengakumulasi FP32 (vLLM, TensorRT-LLM, "
            "SGLang: 165 TFLOPS di RTX 4090), selain itu puncak akumulasi FP16 (llama.cpp: 330 TFLOPS)."
        ),
        source_id=("Whitepaper NVIDIA Ada/Ampere (laju akumulasi FP32 GeForce = separuh); katalog mesin: accumulate"),
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
        doc_id=(
            "Puncak FP4 untuk format fp4 di GPU yang punya unit FP4, puncak FP8 untuk format fp8 di GPU "
            "yang punya unit FP8, selain itu puncak FP16 (bobot diperlebar ke FP16 sebelum perkalian "
            "matriks)."
        ),
        source_id=("Arsitektur NVIDIA Hopper/Blackwell (tensor core FP8/FP4); kernel FP8 W8A8 vLLM/TensorRT-LLM"),
    ),
    row_of(
        "kv_cache",
        "kv_cache_type",
        "Baris presisi KV",
        "KV precision row",
        doc_id="Posisi kv_cache_type yang dipilih di katalog presisi KV cache (0 = tidak ada di katalog).",
        source_id="Katalog presisi KV cache",
    ),
    lookup(
        "kv_cache_bits",
        "kv_cache",
        "bits_per_value",
        doc_id="Bit yang disimpan per elemen key/value di cache.",
        source_id="Katalog presisi KV cache, kolom 'Bit per nilai'",
    ),
    row_of(
        "engine",
        "engine",
        "Baris mesin inferensi",
        "Engine row",
        doc_id="Posisi engine yang dipilih di katalog mesin inferensi (0 = tidak ada di katalog).",
        source_id="Katalog mesin inferensi",
    ),
    lookup(
        "engine_allreduces_per_layer_ratio",
        "engine",
        "allreduces_per_layer",
        fallback=2,
        doc_id=(
            "Pertukaran per layer per langkah bila layer dibagi ke beberapa GPU: 2 all-reduce "
            "(Megatron: setelah attention dan setelah MLP); llama.cpp '--split-mode row' mengumpulkan "
            "hasil setiap matriks bobot yang dibagi (7 per layer)."
        ),
        source_id="Katalog mesin: kolom allreduces_per_layer",
    ),
    lookup(
        "engine_stage_boundary_us",
        "engine",
        "stage_boundary_us",
        fallback=0,
        doc_id=(
            "Biaya tetap setiap kali satu langkah berpindah dari layer satu GPU ke GPU berikutnya "
            "(sinkronisasi, serah terima aktivasi)."
        ),
        source_id="Katalog mesin: kolom stage_boundary_us",
    ),
    lookup(
        "engine_exchange_us",
        "engine",
        "exchange_us",
        fallback=0,
        doc_id=(
            "Biaya tetap setiap pertukaran tensor parallel di atas lompatan interkoneksi: mesin "
            "menyinkronkan GPU dan meluncurkan bagian setiap GPU (llama.cpp '--split-mode row': per "
            "matriks bobot yang dibagi)."
        ),
        source_id="Katalog mesin: kolom exchange_us",
    ),
    lookup(
        "engine_exchange_bandwidth_frac",
        "engine",
        "exchange_bandwidth_frac",
        fallback=1,
        doc_id=(
            "Porsi bandwidth interkoneksi efektif yang dicapai salinan tensor parallel mesin saat "
            "prompt (llama.cpp '--split-mode row': di-fit oleh kalkulator calibrate pada baris prompt "
            "'--split-mode row'; 1 = laju link)."
        ),
        source_id="Katalog mesin: kolom exchange_bandwidth_frac",
    ),
    lookup(
        "engine_tensor_exchange_type",
        "engine",
        "tensor_exchange",
        fallback="allreduce",
        doc_id=(
            "allreduce: setiap pertukaran meng-all-reduce satu vektor hidden per token (mesin gaya "
            "Megatron); gather: input setiap matriks yang dibagi dikirim dari GPU utama ke setiap GPU "
            "lain dan irisan output setiap GPU kembali (llama.cpp '--split-mode row')."
        ),
        source_id="Katalog mesin: kolom tensor_exchange",
    ),
    lookup(
        "engine_activation_bytes",
        "engine",
        "activation_bytes",
        fallback=2,
        doc_id=(
            "Byte setiap nilai aktivasi yang disalin antar-GPU: 4 bila graf mesin membawa aktivasi FP32 "
            "(llama.cpp), 2 untuk FP16/BF16 (mesin kelas vLLM)."
        ),
        source_id="Katalog mesin: kolom activation_bytes",
    ),
    lookup(
        "engine_pipeline_mode",
        "engine",
        "pipeline",
        fallback="none",
        doc_id=(
            "ubatch: pada layer split, micro-batch sebuah prompt mengalir melalui tahap-tahap GPU "
            "bersamaan (llama.cpp sejak Maret 2024, build b2413); none: tahap berjalan bergantian."
        ),
        source_id="Katalog mesin: kolom pipeline",
    ),
    lookup(
        "engine_batch_tokens",
        "engine",
        "batch_tokens",
        fallback=0,
        doc_id=(
            "Token prompt yang diambil mesin per panggilan (llama.cpp n_batch 2.048, dipotong menjadi "
            "micro-batch n_ubatch); 0 = seluruh prompt dalam satu panggilan."
        ),
        source_id="Katalog mesin: kolom batch_tokens",
    ),
    lookup(
        "engine_accumulate_type",
        "engine",
        "accumulate",
        fallback="fp16",
        doc_id=(
            "fp32: kernel FP16/FP8 mesin menjumlahkan dalam FP32 (kelas vLLM), pada separuh laju "
            "GeForce; fp16: menjumlahkan dalam FP16 (jalur cuBLAS llama.cpp), pada laju penuh."
        ),
        source_id="Katalog mesin: kolom accumulate",
    ),
    lookup(
        "engine_max_batch_users",
        "engine",
        "max_batch",
        fallback=1,
        doc_id=(
            "Jumlah sekuens maksimum yang di-decode satu replika (batas bawaan mesin; naikkan di pengaturan mesin)."
        ),
        source_id="Katalog mesin inferensi, kolom 'Batch maksimum'",
    ),
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
        doc_id="Mode yang dipilih, atau dengan auto mode bawaan mesin (katalog mesin).",
        source_id="Katalog mesin (kolom default_split)",
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
        doc_id=(
            "Format bobot seperti yang didukung mesin: jenis kuantisasi (gguf, awq, gptq, exl2, mxfp4, "
            "nvfp4, int, nf4), float untuk bobot 16/32 bit, dan fp8 untuk bobot float yang dihitung "
            "dalam FP8."
        ),
        source_id="Katalog kuantisasi (kolom jenis dan presisi komputasi)",
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
        doc_id=(
            "TRUE bila mesin mendukung backend GPU ini (baris mesin/backend di katalog dukungan mesin), "
            "atau bila mesin tidak ada di katalog."
        ),
        source_id="Katalog dukungan mesin (assumptions/engine_support.csv)",
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
        doc_id=(
            "TRUE bila mesin menjalankan format bobot ini di semua backend (mesin/format) atau di "
            "backend ini (mesin/backend/format), atau bila mesin atau format tidak ada di katalog."
        ),
        source_id="Katalog dukungan mesin (assumptions/engine_support.csv)",
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
        doc_id=(
            "Kapabilitas komputasi CUDA terendah tempat kernel mesin untuk format ini berjalan (baris "
            "mesin/backend/format, selain itu mesin/format; 0 = tanpa batas): AWQ di vLLM butuh 7.5 "
            "(Turing), FP8-nya 8.0 (Ampere lewat Marlin)."
        ),
        source_id=(
            "Katalog dukungan mesin (assumptions/engine_support.csv, kolom min_compute_capability): "
            "tabel Supported Hardware vLLM"
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
        doc_id=(
            "TRUE bila kapabilitas komputasi GPU mencapai batas minimum mesin untuk format ini, atau "
            "bila salah satunya 0 (tanpa batas, atau bukan GPU NVIDIA)."
        ),
        source_id="Katalog GPU (compute_capability) dan dukungan mesin (min_compute_capability)",
    ),
    Quantity(
        "gpu_arch_key_text",
        "Kunci arsitektur GPU",
        "GPU architecture key",
        "The architecture as engine-support rows name it: smNN from the CUDA compute capability (sm120 for GeForce "
        "and RTX PRO Blackwell, sm100 for B200), else the architecture family (RDNA3, M2 …).",
        "GPU catalog (compute_capability and arch columns)",
        expr=IF(
            R("gpu_compute_capability") > 0, JOIN("sm", ROUND(R("gpu_compute_capability") * 10, 0)), R("gpu_arch_text")
        ),
        doc_id="Arsitektur seperti yang dipakai baris dukungan mesin: smNN dari kapabilitas komputasi CUDA (sm120 "
        "untuk GeForce dan RTX PRO Blackwell, sm100 untuk B200), selain itu keluarga arsitektur (RDNA3, M2 …).",
        source_id="Katalog GPU (kolom compute_capability dan arch)",
    ),
    Quantity(
        "engine_evidence_text",
        "Bukti dukungan mesin",
        "Evidence the engine runs it",
        "What stands behind this engine running this format on this GPU architecture: the engine/backend/format.arch "
        "row of the support catalog, else engine/backend/format, else engine/format (measured, documented, "
        "reported-broken, unsupported; blank when no row names the pair).",
        "Engine-support catalog (assumptions/engine_support.csv, evidence column)",
        expr=IFERROR(
            INDEX(Col("support", "evidence"), SUPPORT_ARCH_ROW),
            IFERROR(
                INDEX(Col("support", "evidence"), SUPPORT_BACKEND_FORMAT_ROW),
                IFERROR(INDEX(Col("support", "evidence"), SUPPORT_FORMAT_ROW), ""),
            ),
        ),
        doc_id="Yang mendasari mesin ini menjalankan format ini di arsitektur GPU ini: baris "
        "engine/backend/format.arch di katalog dukungan, selain itu engine/backend/format, selain itu engine/format "
        "(measured, documented, reported-broken, unsupported; kosong bila tidak ada baris).",
        source_id="Katalog dukungan mesin (assumptions/engine_support.csv, kolom evidence)",
    ),
    Quantity(
        "engine_evidence_flag",
        "Tidak ada laporan gagal untuk pasangan ini?",
        "No report that this pair fails?",
        "FALSE when the support catalog says this engine, format and architecture is reported broken (an open issue, "
        "cited) or unsupported by the engine's docs: the setup is left out.",
        "Engine-support catalog (assumptions/engine_support.csv, evidence column)",
        expr=NOT(OR(EQ(R("engine_evidence_text"), "reported-broken"), EQ(R("engine_evidence_text"), "unsupported"))),
        doc_id="FALSE bila katalog dukungan menyatakan mesin, format dan arsitektur ini dilaporkan gagal (laporan "
        "masalah terbuka, dikutip) atau tidak didukung dokumentasi mesin: konfigurasi ini ditinggalkan.",
        source_id="Katalog dukungan mesin (assumptions/engine_support.csv, kolom evidence)",
    ),
    Quantity(
        "speed_arch_key_text",
        "Kunci parameter kecepatan arsitektur",
        "Architecture speed-parameter key",
        "engine/backend.arch@era: the speed parameters fitted to the GPU's architecture family on this backend "
        "(Instinct GCN5/CDNA cards on ROCm, Alchemist on SYCL, Arc on Vulkan), used before the backend's row.",
        "Katalog GPU (kolom arch) dan katalog parameter kecepatan",
        expr=JOIN(R("engine"), "/", R("gpu_backend"), ".", R("gpu_arch_text"), "@", R("build_era_text")),
        doc_id=(
            "engine/backend.arch@era: parameter kecepatan yang di-fit untuk keluarga arsitektur GPU ini "
            "pada backend ini (kartu Instinct GCN5/CDNA di ROCm, Alchemist di SYCL, Arc di Vulkan), "
            "dipakai sebelum baris backend."
        ),
    ),
    Quantity(
        "speed_key_text",
        "Kunci parameter kecepatan",
        "Speed-parameter key",
        "engine/backend@era: the speed parameters wanted when the architecture has no row of its own "
        "(engine/any@era, engine/backend or engine/any when that row was not calibrated).",
        "Katalog parameter kecepatan",
        expr=JOIN(R("engine"), "/", R("gpu_backend"), "@", R("build_era_text")),
        doc_id=(
            "engine/backend@era: baris parameter kecepatan yang dicari bila arsitekturnya tidak punya "
            "baris sendiri (engine/any@era, engine/backend atau engine/any bila baris itu belum "
            "dikalibrasi)."
        ),
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
        doc_id=(
            "Baris engine/backend.arch@era di parameter kecepatan, atau engine/backend@era, "
            "engine/any@era, engine/backend, engine/any (0 = tidak ada)."
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
        doc_id="Nama baris parameter kecepatan yang dipakai skenario ini.",
        source_id="Katalog parameter kecepatan",
    ),
    Quantity(
        "speed_measured_flag",
        "Kecepatan mesin ini terukur di backend ini?",
        "Engine's speed measured on this backend?",
        "TRUE when a shipped measurement ran this engine with this weight format on this GPU architecture (support "
        "evidence 'measured') and the speed parameters rest on measurements of this engine on this backend: a row "
        "with fit points, named for the backend (or its architecture family), or an engine-wide row on CUDA, where "
        "the engine-wide rows are fitted. FALSE: the speed is borrowed or assumed, and the status says so.",
        "Katalog parameter kecepatan (kolom name, fit_points)",
        expr=IF(
            AND(R("speed_row") > 0, EQ(R("engine_evidence_text"), "measured")),
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
        doc_id="TRUE bila ada pengukuran yang dikirim proyek untuk mesin, format bobot dan arsitektur GPU ini (bukti "
        "'measured') dan parameter kecepatan berdasar pengukuran mesin ini di backend ini: baris dengan titik fit "
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
        doc_id=(
            "Porsi bandwidth puncak yang dicapai kernel decode mesin ini di jenis memori ini (HBM atau "
            "lainnya), bila core GPU sanggup mengeluarkan permintaan baca secepat itu."
        ),
        source_id=(
            "Katalog parameter kecepatan, kolom 'Efisiensi bandwidth decode (0–1)' / 'Efisiensi decode di HBM (0–1)'"
        ),
    ),
    lookup(
        "decode_alu_flop_per_byte",
        "speed",
        "decode_flop_per_byte",
        doc_id=(
            "FLOPS FP16 puncak yang dibutuhkan GPU per byte yang dibaca saat decode (perintah baca, "
            "dekuantisasi, perkalian titik): GPU dengan sedikit core untuk bandwidth-nya tidak mencapai "
            "efisiensi kernel (0 = tanpa batas ini)."
        ),
        source_id="Katalog parameter kecepatan, kolom 'Kerja ALU decode (FLOP/byte)'",
    ),
    lookup(
        "decode_superblock_work_ratio",
        "speed",
        "decode_superblock_work_ratio",
        fallback=1,
        doc_id=(
            "Kerja ALU per byte format super-blok (K-quant seperti Q4_K_M, I-quant) ÷ kerja format blok "
            "seperti Q4_0: skala dan codebook-nya butuh lebih banyak instruksi per bobot."
        ),
        source_id="Katalog parameter kecepatan, kolom 'Rasio kerja format super-blok'",
    ),
    Quantity(
        "decode_weight_work_ratio",
        "Kerja ALU format bobot ini",
        "ALU work of this weight format",
        "Core work per byte of the chosen format relative to block formats such as Q4_0: the super-block ratio for "
        "K- and I-quants, else 1 (float weights cost the same: loads and dot products dominate).",
        "Quantization catalog (Dequantisation column) and the fitted super-block ratio",
        expr=IF(EQ(R("quant_dequant_type"), "superblock"), R("decode_superblock_work_ratio"), 1),
        doc_id=(
            "Kerja core per byte format terpilih dibanding format blok seperti Q4_0: rasio super-blok "
            "untuk K-quant dan I-quant, selain itu 1 (bobot float sama: perintah baca dan perkalian "
            "titik yang dominan)."
        ),
        source_id="Katalog kuantisasi (kolom Dekuantisasi) dan rasio super-blok hasil fit",
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
        doc_id=(
            "FLOPS FP16 puncak ÷ (kerja ALU per byte × rasio kerja format × bandwidth): porsi bandwidth "
            "puncak yang sanggup dijaga sibuk oleh core GPU (GPU Apple dengan sedikit core, kartu Tesla "
            "lama)."
        ),
        source_id=(
            "Di-fit oleh kalkulator calibrate (Apple seri M: bandwidth yang tercapai naik dengan jumlah "
            "core GPU dan turun dengan K-quant)"
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
        doc_id=(
            "Porsi bandwidth puncak yang dicapai satu langkah decode: efisiensi kernel, atau lebih "
            "rendah bila core GPU tidak sanggup melayaninya. Ketik porsi terukur di sel kuning untuk "
            "memakainya."
        ),
        source_id="Di-fit oleh kalkulator calibrate (lihat Katalog Model: parameter kecepatan)",
    ),
    lookup(
        "decode_layer_overhead_ms",
        "speed",
        "layer_overhead_ms",
        doc_id="Peluncuran kernel dan sinkronisasi per layer di setiap langkah decode.",
        source_id="Katalog parameter kecepatan, kolom 'Overhead per layer (ms)'",
    ),
    lookup(
        "decode_attention_ns",
        "speed",
        "attention_ns",
        doc_id=("Waktu tambahan per layer untuk setiap token di konteks (attention tanpa fused kernel ikut membesar)."),
        source_id="Katalog parameter kecepatan, kolom 'Attention per token konteks (ns)'",
    ),
    lookup(
        "prefill_efficiency_frac",
        "speed",
        "prefill_efficiency_frac",
        "Efisiensi komputasi prefill",
        "Prefill compute efficiency",
        "Share of peak FP16 FLOPS reached in prefill (MFU), for float or quantized weights.",
        instead=(NE(R("quant_kind_type"), "float"), "prefill_efficiency_quant_frac"),
        doc_id=("Porsi FLOPS FP16 puncak yang dicapai saat prefill (MFU), untuk bobot float atau terkuantisasi."),
        source_id=(
            "Katalog parameter kecepatan, kolom 'Efisiensi prefill (0–1)' / 'Efisiensi prefill terkuantisasi (0–1)'"
        ),
    ),
    lookup(
        "prefill_attention_efficiency_frac",
        "speed",
        "prefill_attention_efficiency_frac",
        doc_id=(
            "Porsi FLOPS FP16 puncak yang dicapai attention prompt (Q × K dan softmax × V atas "
            "konteks): lebih rendah dari perkalian matriks bobot, dan inilah yang membuat prompt "
            "setelah konteks panjang lambat."
        ),
        source_id="Katalog parameter kecepatan, kolom 'Efisiensi attention prefill (0–1)'",
    ),
    lookup(
        "prefill_alu_work_ratio",
        "speed",
        "prefill_alu_work_ratio",
        fallback=0,
        doc_id=(
            "Operasi ALU shader per FLOP perkalian bobot saat prompt dengan bobot terkuantisasi "
            "(dekuantisasi, pengemasan integer, skala): berjalan pada laju FP32 core biasa, di samping "
            "tensor unit."
        ),
        source_id="Katalog parameter kecepatan, kolom 'Kerja ALU prefill terkuantisasi (op/FLOP)'",
    ),
    lookup(
        "prefill_chunk_tokens",
        "speed",
        "prefill_chunk_tokens",
        doc_id=(
            "Token prompt yang diproses mesin per langkah (micro-batch llama.cpp -ub 512; anggaran "
            "token vLLM/TensorRT-LLM): setiap potongan membaca bobot yang dibutuhkannya sekali."
        ),
        source_id="Katalog parameter kecepatan, kolom 'Potongan prefill (token)'",
    ),
    lookup(
        "engine_fp8_fp4_units_flag",
        "speed",
        "fp8_fp4_units",
        doc_id=(
            "1 bila mesin menghitung format FP8/FP4 dengan unit FP8/FP4 GPU; 0 bila format itu "
            "dilebarkan dulu ke FP16 (llama.cpp menghitung MXFP4 dengan kernel integer)."
        ),
        source_id="Katalog parameter kecepatan, kolom 'Unit FP8/FP4 (0/1)'",
    ),
    lookup(
        "prefill_layer_overhead_us",
        "speed",
        "prefill_layer_overhead_us",
        doc_id="Biaya tetap per layer untuk setiap token prompt (peluncuran kernel).",
        source_id="Katalog parameter kecepatan, kolom 'Overhead prefill per layer (µs)'",
    ),
    lookup(
        "serving_serial_frac",
        "speed",
        "serial_frac",
        doc_id=(
            "Satu langkah serving memakan waktu memori atau komputasi yang lebih lama, ditambah porsi "
            "ini dari yang lebih singkat (0 = tumpang tindih sempurna, roofline; 1 = tidak tumpang "
            "tindih)."
        ),
        source_id="Katalog parameter kecepatan, kolom 'Porsi serial (0–1)'",
    ),
    lookup(
        "moe_kernel_efficiency_frac",
        "speed",
        "moe_kernel_efficiency_frac",
        fallback=1,
        doc_id=(
            "Porsi laju bandwidth kernel dense yang dicapai kernel fused-MoE (grouped GEMM) mesin ini "
            "pada bobot expert saat decode; 1 = tanpa penalti MoE."
        ),
        source_id=("Katalog parameter kecepatan, kolom 'Efisiensi kernel MoE (0–1)'"),
    ),
    lookup(
        "kv_read_efficiency_frac",
        "speed",
        "kv_read_efficiency_frac",
        fallback=1,
        doc_id=(
            "Porsi bandwidth decode perkalian bobot yang dicapai kernel attention mesin ini saat membaca KV cache "
            "pada konkurensi tetap (fixed_step_ms: banyak pengguna × konteks panjang); di-fit pada pengujian NIM "
            "TensorRT-LLM dengan 1–250 permintaan berjalan. Fit serving beban maksimum membaca KV secepat bobot."
        ),
        source_id="Katalog parameter kecepatan, kolom 'Efisiensi baca KV cache (0–1)'",
    ),
    lookup(
        "moe_prefill_efficiency_frac",
        "speed",
        "moe_prefill_efficiency_frac",
        fallback=1,
        doc_id=(
            "Porsi FLOPS perkalian bobot dense yang dicapai kernel grouped GEMM mesin ini pada expert "
            "terarah saat prefill (setiap expert hanya mengalikan token yang dirutekan kepadanya); 1 = "
            "tanpa penalti MoE."
        ),
        source_id=(
            "Katalog parameter kecepatan, kolom 'Efisiensi kernel MoE saat prefill (0–1)'; di-fit oleh "
            "kalkulator calibrate pada pengujian serving MoE"
        ),
    ),
    lookup(
        "speed_error_low_frac",
        "speed",
        "error_low_frac",
        doc_id="Persentil ke-10 dari terukur ÷ prediksi − 1 pada perangkat yang tidak ikut di-fit.",
        source_id="Katalog parameter kecepatan, kolom 'Galat bawah (0–1)'",
    ),
    lookup(
        "speed_error_high_frac",
        "speed",
        "error_high_frac",
        doc_id="Persentil ke-90 dari terukur ÷ prediksi − 1 pada perangkat yang tidak ikut di-fit.",
        source_id="Katalog parameter kecepatan, kolom 'Galat atas (0–1)'",
    ),
    lookup(
        "prefill_error_low_frac",
        "speed",
        "prefill_error_low_frac",
        doc_id=("Persentil ke-10 dari kecepatan prompt terukur ÷ prediksi − 1 pada perangkat yang tidak ikut di-fit."),
        source_id="Katalog parameter kecepatan, kolom 'Galat bawah prefill (0–1)'",
    ),
    lookup(
        "prefill_error_high_frac",
        "speed",
        "prefill_error_high_frac",
        doc_id=("Persentil ke-90 dari kecepatan prompt terukur ÷ prediksi − 1 pada perangkat yang tidak ikut di-fit."),
        source_id="Katalog parameter kecepatan, kolom 'Galat atas prefill (0–1)'",
    ),
    lookup(
        "speed_band_floor_frac",
        "speed",
        "band_floor_frac",
        fallback=0,
        doc_id="Setengah lebar minimum pita decode bila tidak ada pengukuran yang mengkalibrasi keluarga ini "
        "(0 = terkalibrasi).",
        source_id="Katalog parameter kecepatan, kolom 'Pita minimum decode (belum terkalibrasi)'; "
        "assumptions/calibration/uncalibrated.csv",
    ),
    lookup(
        "prefill_band_floor_frac",
        "speed",
        "prefill_band_floor_frac",
        fallback=0,
        doc_id="Setengah lebar minimum pita prefill bila tidak ada pengukuran yang mengkalibrasi keluarga ini "
        "(0 = terkalibrasi).",
        source_id="Katalog parameter kecepatan, kolom 'Pita minimum prefill (belum terkalibrasi)'; "
        "assumptions/calibration/uncalibrated.csv",
    ),
)

QUANTITIES = (*CHOICES, *SCENARIO, *GPU, *MODEL, *FORMATS)
