"""Speed chain: roofline, decode (memory-bound until the ridge batch), prefill, TTFT, TPOT, E2E."""

from __future__ import annotations

from kalkulator.engine.expr import AND, EQ, IF, MAX, MIN, OR, ROUNDUP, Msg, Node, R, safe_div
from kalkulator.quantities.base import Quantity
from kalkulator.quantities.memory import CHOSEN_MODEL, layer_tokens

BOOK_TPS = "Buku, Bab token/s: tok/s ≈ bandwidth ÷ bytes dibaca per token"
# Shown instead of a latency when the load is at or above capacity.
QUEUE_UNBOUNDED = Msg("antrean tak terbatas: beban melebihi kapasitas", "unbounded queue: load above capacity")
BOOK_LAT = "Buku, Bab TTFT/TPOT: E2E = TTFT + output × TPOT + overhead"


def attended_layer_tokens(keys: Node) -> Node:
    """Layers × keys a query attends to: all `keys` in full-attention layers (at most the sparse-attention budget),
    at most the window in sliding ones, none in linear-attention/SSM and MLP-only layers."""
    return layer_tokens(CHOSEN_MODEL, keys, R("model_sparse_tokens"))


LINK = "GPU catalog: interconnect (link kind, bandwidth, latency per hop, P2P)"
ROW_SPLIT = "llama.cpp --split-mode row: ggml_cuda_op_mul_mat (ggml-cuda.cu) copies each split matrix's input"
PIPELINE = (
    "llama.cpp PR #6017 (pipeline parallelism, GGML_SCHED_MAX_COPIES = 4): ggml-backend.cpp scheduler, asynchronous "
    "copies between GPUs; refilled per llama_decode call (layer-split llama-bench rows of the calibration data)"
)


def multi_gpu(mode: str, value: Node) -> Node:
    """`value` when the replica splits the model over several GPUs in `mode` (tensor or layer), else 0."""
    return IF(AND(EQ(R("split_type"), mode), R("n_gpus") > 1), value, 0)


def pipelined() -> Node:
    """TRUE when a prompt's micro-batches flow through the GPUs' layer-split stages at once."""
    return AND(EQ(R("split_type"), "layer"), R("n_gpus") > 1, EQ(R("engine_pipeline_mode"), "ubatch"))


Q8_1_BYTES = 36 / 32  # llama.cpp's q8_1 block: 32 int8 values + FP16 scale and sum


def exchange_bytes(input_bytes: Node) -> Node:
    """Bytes one token moves between GPUs per layer in tensor parallel, the split matrices' inputs at
    `input_bytes` per value (llama.cpp row split) or all-reduces of the hidden vector."""
    n, hidden, head_dim = R("n_gpus"), R("model_hidden"), R("model_head_dim")
    inputs = (n - 1) * (5 * hidden + R("model_heads") * head_dim + R("model_ffn_hidden"))
    outputs = safe_div(n - 1, n) * (
        2 * hidden + (R("model_heads") + 2 * R("model_kv_heads")) * head_dim + 2 * R("model_ffn_hidden")
    )
    return IF(
        EQ(R("engine_tensor_exchange_type"), "gather"),
        inputs * input_bytes + outputs * R("engine_activation_bytes"),
        R("engine_allreduces_per_layer_ratio") * safe_div(2 * (n - 1), n) * hidden * R("engine_activation_bytes"),
    )


def touched_experts(sequences: Node) -> Node:
    """Distinct experts per MoE layer that `sequences` tokens routed independently to top-k of E touch:
    E × (1 − (1 − k/E)^sequences); k at one sequence, towards E as the batch grows (0 for a dense model)."""
    e, k = R("model_experts"), R("model_active_experts")
    return IF(e > 0, e * (1 - (1 - safe_div(k, e)) ** sequences), 0)


def moe_extra_gb(sequences: Node) -> Node:
    """GB of expert weights a step of `sequences` reads beyond one sequence's active share: weights × routed-expert
    share of the parameters × (experts touched − k) ÷ E (0 for a dense model and at one sequence)."""
    return safe_div(
        R("weights_gb") * R("model_expert_params_b") * (touched_experts(sequences) - R("model_active_experts")),
        R("model_params_b") * R("model_experts"),
    )


def weight_read_ms(gb: Node) -> Node:
    """Time (ms, 100 % efficiency) to read `gb` of weights: the GPUs' share at their parallel bandwidth, the
    offloaded share at system RAM bandwidth."""
    return safe_div(
        gb * (1 - R("cpu_offload_frac")) * 1000, R("gpu_mem_bandwidth_gbs") * R("parallel_gpus")
    ) + safe_div(gb * R("cpu_offload_frac") * 1000, R("host_mem_bandwidth_gbs"))


def moe_expert_gb(sequences: Node) -> Node:
    """GB of routed-expert weights a step of `sequences` reads: weights × routed-expert share of the parameters ×
    experts touched ÷ E (0 for a dense model)."""
    return safe_div(
        R("weights_gb") * R("model_expert_params_b") * touched_experts(sequences),
        R("model_params_b") * R("model_experts"),
    )


def moe_weight_read_ms(sequences: Node) -> Node:
    """Weight-read time (ms, before ÷ the decode efficiency) an MoE step of `sequences` adds to the active weights
    read at the dense kernels' rate: the extra experts the batch touches, and every touched expert's bytes again ×
    (1 − m) ÷ m for the fused-MoE kernels' share m of that rate (0 for a dense model; m = 1: the extra experts)."""
    m = R("moe_kernel_efficiency_frac")
    return weight_read_ms(moe_extra_gb(sequences)) + safe_div(weight_read_ms(moe_expert_gb(sequences)) * (1 - m), m)


def weights_touched(tokens: Node) -> Node:
    """Share of the weights a chunk of `tokens` routed independently reads: 1 − (1 − active ÷ total)^tokens (a dense
    model: 1; 0 for an empty chunk)."""
    return IF(tokens > 0, 1 - (1 - safe_div(R("model_active_params_b"), R("model_params_b"), 1)) ** tokens, 0)


def prefill_weight_read_s() -> Node:
    """Seconds one read of all the weights takes in prefill: those on the GPUs at their bandwidth, offloaded ones
    from system RAM."""
    return safe_div(
        R("gpu_weights_gb"), R("gpu_mem_bandwidth_gbs") * R("parallel_gpus") * R("decode_efficiency_frac")
    ) + safe_div(R("weights_gb") - R("gpu_weights_gb"), R("host_mem_bandwidth_gbs") * R("decode_efficiency_frac"))


def prefill_busy_s(memory_s: Node) -> Node:
    """Seconds a prompt's prefill keeps the replica busy with weight reads of `memory_s`: the longer of compute and
    memory × the pipeline's share + the GPU exchanges."""
    return MAX(R("prefill_compute_s"), memory_s) * R("prefill_pipeline_ratio") + R("prefill_exchange_s")


def decode_step(users: Node) -> Node:
    """Decode step time (ms) for `users` sequences: the larger of the memory-bound and compute-bound lines; the
    memory-bound one also reads the extra experts an MoE batch touches, at the MoE kernels' share of bandwidth."""
    return MAX(
        R("memory_bound_step_base_ms")
        + R("memory_bound_step_per_user_ms") * users
        + safe_div(moe_weight_read_ms(users), R("decode_efficiency_frac")),
        R("compute_bound_step_base_ms") + R("compute_bound_step_per_user_ms") * users,
    )


QUANTITIES = (
    Quantity(
        "parallel_gpus",
        "GPU yang bekerja paralel",
        "GPUs working in parallel",
        "Tensor parallel: all GPUs read and compute at once; layer split: one at a time.",
        "llama.cpp --split-mode layer; vLLM tensor parallel",
        expr=IF(EQ(R("split_type"), "tensor"), R("n_gpus"), 1),
        doc_id=(
            "Tensor parallel: semua GPU membaca dan menghitung bersamaan; split per layer: satu GPU pada satu waktu."
        ),
        source_id="llama.cpp --split-mode layer; vLLM tensor parallel; buku, bab 6.3",
    ),
    Quantity(
        "usable_hardware_flag",
        "Angka hardware lengkap?",
        "Hardware figures complete?",
        "FALSE when bandwidth, FLOPS or an efficiency is 0: speeds are then shown as 0 (see the status).",
        "Consistency check",
        expr=AND(
            R("gpu_mem_bandwidth_gbs") * R("parallel_gpus") > 0,
            R("gpu_compute_tflops") * R("parallel_gpus") * R("prefill_efficiency_frac") > 0,
            R("gpu_fp32_tflops") > 0,
            R("decode_efficiency_frac") > 0,
        ),
        doc_id=(
            "FALSE bila bandwidth, FLOPS atau salah satu efisiensi bernilai 0: kecepatan lalu "
            "ditampilkan 0 (lihat status)."
        ),
        source_id="Pemeriksaan konsistensi",
    ),
    Quantity(
        "weights_read_gb_per_token",
        "Bobot dibaca per token",
        "Weights read per token",
        "Weights × active ÷ total parameters (MoE reads only the routed experts).",
        BOOK_TPS,
        expr=safe_div(R("weights_gb") * R("model_active_params_b"), R("model_params_b")),
        doc_id="Bobot × parameter aktif ÷ parameter total (MoE hanya membaca expert yang dipilih router).",
        source_id="Buku, bab 12.1: tok/s = bandwidth ÷ byte yang dibaca per token",
    ),
    Quantity(
        "decode_touched_experts",
        "Expert tersentuh per layer per langkah",
        "Experts touched per layer and step",
        "E × (1 − (1 − k/E)^users): each of the batch's sequences picks k of E experts, so a batch reads more "
        "experts than one sequence, all of them once the batch is large (0 for a dense model).",
        "Expected distinct experts hit by B tokens routed independently (Mixtral, Jiang et al. 2024)",
        expr=touched_experts(R("concurrent_users")),
        doc_id=(
            "E × (1 − (1 − k/E)^pengguna): setiap sekuens dalam batch memilih k dari E expert, sehingga "
            "batch membaca lebih banyak expert daripada satu sekuens, semuanya bila batch besar (0 "
            "untuk model dense)."
        ),
        source_id=(
            "Harapan jumlah expert berbeda yang dikenai B token yang dirutekan bebas (Mixtral, Jiang dkk. 2024)"
        ),
    ),
    Quantity(
        "moe_batch_extra_gb_per_step",
        "Bobot expert tambahan dibaca per langkah",
        "Extra expert weights read per step",
        "Weights × routed-expert share of the parameters × (experts touched − k) ÷ E: what the batch reads beyond "
        "one sequence's active weights.",
        "Expected distinct experts hit by B tokens (Mixtral, Jiang et al. 2024); model catalog: experts",
        expr=moe_extra_gb(R("concurrent_users")),
        doc_id=(
            "Bobot × porsi parameter expert terarah × (expert tersentuh − k) ÷ E: yang dibaca batch di "
            "luar bobot aktif satu sekuens."
        ),
        source_id=(
            "Harapan jumlah expert berbeda yang dikenai B token (Mixtral, Jiang dkk. 2024); katalog model: experts"
        ),
    ),
    Quantity(
        "decode_read_gb_per_step",
        "Data dibaca per langkah decode",
        "Bytes read per decode step",
        "Weights once per step (with the extra experts an MoE batch touches) plus what every user's step reads of "
        "its KV cache and state at the current context.",
        BOOK_TPS,
        expr=R("weights_read_gb_per_token")
        + R("moe_batch_extra_gb_per_step")
        + R("kv_read_gb_per_user") * R("concurrent_users"),
        doc_id=(
            "Bobot sekali per langkah ditambah yang dibaca langkah setiap pengguna dari KV cache dan state-nya "
            "pada konteks saat itu."
        ),
        source_id="Buku, bab 12.1 dan 10.3 (KV cache ikut dibaca)",
    ),
    Quantity(
        "arithmetic_intensity_flop_per_byte",
        "Intensitas aritmetika decode",
        "Decode arithmetic intensity",
        "FLOPs per byte read in one decode step: 2 × active params × users ÷ bytes read.",
        "Roofline model (Williams et al. 2009); Buku, Bab arithmetic intensity",
        expr=safe_div(2 * R("model_active_params_b") * R("concurrent_users"), R("decode_read_gb_per_step")),
        doc_id=(
            "FLOP per byte yang dibaca dalam satu langkah decode: 2 × parameter aktif × pengguna ÷ byte yang dibaca."
        ),
        source_id="Model roofline (Williams dkk. 2009); buku, bab 9.3 (arithmetic intensity)",
    ),
    Quantity(
        "ridge_flop_per_byte",
        "Titik ridge GPU",
        "GPU ridge point",
        "Peak FLOPS ÷ bandwidth: above this intensity a step is compute-bound.",
        "Roofline model",
        expr=safe_div(R("gpu_compute_tflops") * 1000, R("gpu_mem_bandwidth_gbs")),
        doc_id="FLOPS puncak ÷ bandwidth: di atas intensitas ini satu langkah menjadi compute-bound.",
        source_id="Model roofline; buku, bab 13.4",
    ),
    Quantity(
        "ridge_batch_users",
        "Batch saat decode jadi compute-bound",
        "Batch where decode turns compute-bound",
        "Users per step at which weight reads stop being the bottleneck (KV reads ignored).",
        "Roofline model",
        expr=safe_div(R("ridge_flop_per_byte") * R("weights_read_gb_per_token"), 2 * R("model_active_params_b")),
        doc_id=(
            "Jumlah pengguna per langkah saat pembacaan bobot berhenti menjadi bottleneck (pembacaan KV diabaikan)."
        ),
        source_id="Model roofline; buku, bab 13.4 (dikoreksi, lihat errata di Panduan)",
    ),
    Quantity(
        "decode_fixed_memory_ms",
        "Waktu baca bobot per langkah",
        "Weight-read time per step",
        "Active weights on the GPUs ÷ their parallel bandwidth + offloaded weights ÷ system RAM bandwidth "
        "(100 % efficiency); paid once per step whatever the batch.",
        BOOK_TPS + "; llama.cpp partial offload",
        expr=weight_read_ms(R("weights_read_gb_per_token")),
        doc_id=(
            "Bobot aktif di GPU ÷ bandwidth paralelnya + bobot offload ÷ bandwidth RAM sistem "
            "(efisiensi 100 %); dibayar sekali per langkah berapa pun ukuran batch."
        ),
        source_id=("Buku, bab 12.1: tok/s = bandwidth ÷ byte yang dibaca per token; offload sebagian di llama.cpp"),
    ),
    Quantity(
        "decode_user_memory_ms",
        "Waktu baca KV cache per pengguna",
        "KV-cache read time per user",
        "What a step reads of one user's KV cache and state ÷ the GPUs' parallel bandwidth (100 % efficiency): "
        "what each extra user adds to a step.",
        BOOK_TPS,
        expr=safe_div(R("kv_read_gb_per_user") * 1000, R("gpu_mem_bandwidth_gbs") * R("parallel_gpus")),
        doc_id=(
            "KV cache satu pengguna ÷ bandwidth paralel GPU (efisiensi 100 %): tambahan waktu per "
            "langkah untuk setiap pengguna."
        ),
        source_id="Buku, bab 12.1 dan 10.3",
    ),
    Quantity(
        "decode_step_memory_ms",
        "Waktu baca memori per langkah",
        "Memory time per step",
        "Weight-read time + users × KV-cache read time per user (100 % efficiency).",
        BOOK_TPS,
        expr=R("decode_fixed_memory_ms") + R("concurrent_users") * R("decode_user_memory_ms"),
        doc_id="Waktu baca bobot + pengguna × waktu baca KV cache per pengguna (efisiensi 100 %).",
        source_id="Buku, bab 12.1 dan 10.3",
    ),
    Quantity(
        "matmul_tflops",
        "FLOPS terpakai untuk perkalian bobot",
        "Usable FLOPS for weight multiplies",
        "1 ÷ (1 ÷ (peak FLOPS of the format × GPUs in parallel × compute efficiency) + for quantized weights ALU "
        "work per FLOP ÷ (FP32 rate of the shader cores × GPUs)). Integer and dequantising kernels unpack, scale "
        "and convert weights on the ordinary cores beside the tensor units: cards with few cores for their tensor "
        "peak (A100/H100, Turing, Volta) reach a smaller share of it.",
        "Fitted by kalkulator calibrate (llama.cpp prompt speeds across GeForce, workstation and datacenter cards)",
        expr=safe_div(
            1,
            safe_div(1, R("gpu_compute_tflops") * R("parallel_gpus") * R("prefill_efficiency_frac"))
            + IF(
                EQ(R("quant_dequant_type"), "none"),
                0,
                safe_div(R("prefill_alu_work_ratio"), R("gpu_fp32_tflops") * R("parallel_gpus")),
            ),
        ),
        doc_id=(
            "1 ÷ (1 ÷ (FLOPS puncak format × GPU paralel × efisiensi komputasi) + untuk bobot "
            "terkuantisasi kerja ALU per FLOP ÷ (laju FP32 core shader × GPU)). Kernel integer dan "
            "dekuantisasi membongkar, menskala dan mengonversi bobot di core biasa di samping tensor "
            "unit: kartu dengan sedikit core untuk puncak tensornya (A100/H100, Turing, Volta) mencapai "
            "porsi yang lebih kecil."
        ),
        source_id=(
            "Di-fit oleh kalkulator calibrate (kecepatan prompt llama.cpp di kartu GeForce, workstation dan datacenter)"
        ),
    ),
    Quantity(
        "decode_user_compute_ms",
        "Waktu komputasi per pengguna per langkah",
        "Compute time per user and step",
        "2 × active params ÷ usable FLOPS for weight multiplies + 4 × layers × context × heads × head_dim "
        "attention FLOPs ÷ (peak × GPUs × compute efficiency); sliding-window layers attend to at most their window.",
        "Kaplan et al. 2020 (2N FLOPs per token); Buku, Bab arithmetic intensity",
        expr=safe_div(2 * R("model_active_params_b") * 1e9 * 1000, R("matmul_tflops") * 1e12)
        + safe_div(
            4 * attended_layer_tokens(R("context_tokens")) * R("model_heads") * R("model_head_dim") * 1000,
            R("gpu_compute_tflops") * 1e12 * R("parallel_gpus") * R("prefill_efficiency_frac"),
        ),
        doc_id=(
            "2 × parameter aktif ÷ FLOPS terpakai untuk perkalian bobot + FLOP attention 4 × layer × "
            "konteks × head × head_dim ÷ (FLOPS puncak × GPU × efisiensi komputasi)."
        ),
        source_id="Kaplan dkk. 2020 (2N FLOP per token); buku, bab 9.3",
    ),
    Quantity(
        "decode_step_compute_ms",
        "Waktu komputasi per langkah",
        "Compute time per step",
        "Users × compute time per user.",
        "Kaplan et al. 2020 (2N FLOPs per token); Buku, Bab arithmetic intensity",
        expr=R("concurrent_users") * R("decode_user_compute_ms"),
        doc_id="Pengguna × waktu komputasi per pengguna.",
        source_id="Kaplan dkk. 2020 (2N FLOP per token); buku, bab 9.3",
    ),
    Quantity(
        "decode_tok_s_ideal",
        "Token/s ideal per pengguna",
        "Ideal tok/s per user",
        "1 ÷ memory time per step: 100 % of peak bandwidth, no fixed costs.",
        BOOK_TPS,
        expr=safe_div(1000, R("decode_step_memory_ms")),
        doc_id="1 ÷ waktu baca memori per langkah: 100 % bandwidth puncak, tanpa biaya tetap.",
        source_id="Buku, bab 12.1–12.2: tok/s ideal = bandwidth ÷ ukuran bobot",
    ),
    Quantity(
        "decode_user_overhead_ms",
        "Biaya attention per pengguna per langkah",
        "Attention cost per user and step",
        "Layers × context × attention cost per context token (sliding-window layers: at most their window).",
        "Fitted by kalkulator calibrate (see Katalog Model: parameter kecepatan)",
        expr=attended_layer_tokens(R("context_tokens")) * R("decode_attention_ns") / 1e6,
        doc_id="Layer × konteks × biaya attention per token konteks.",
        source_id="Di-fit oleh kalkulator calibrate (lihat Katalog Model: parameter kecepatan)",
    ),
    Quantity(
        "decode_overhead_ms",
        "Biaya tetap per langkah decode",
        "Fixed costs per decode step",
        "Layers × cost per layer + users × attention cost per user.",
        "Fitted by kalkulator calibrate (see Katalog Model: parameter kecepatan)",
        expr=R("model_layers") * R("decode_layer_overhead_ms") + R("concurrent_users") * R("decode_user_overhead_ms"),
        doc_id="Layer × biaya per layer + pengguna × biaya attention per pengguna.",
        source_id=("Di-fit oleh kalkulator calibrate (lihat Katalog Model: parameter kecepatan); buku, bab 12.4"),
    ),
    Quantity(
        "link_hop_us",
        "Waktu satu lompatan antar-GPU",
        "Time of one GPU-to-GPU hop",
        "Latency per hop with peer-to-peer access; without it (GeForce) each copy goes GPU → host memory → GPU: "
        "two copies, twice the latency.",
        LINK,
        expr=IF(EQ(R("gpu_p2p_mode"), "yes"), R("gpu_link_latency_us"), 2 * R("gpu_link_latency_us")),
        doc_id=(
            "Latensi per lompatan dengan akses peer-to-peer; tanpa P2P (GeForce) setiap salinan lewat "
            "RAM host: GPU → RAM host → GPU, dua salinan, latensi dua kali."
        ),
        source_id="Katalog GPU: interkoneksi (jenis, bandwidth, latensi per lompatan, P2P)",
    ),
    Quantity(
        "link_effective_bandwidth_gbs",
        "Bandwidth interkoneksi efektif",
        "Effective link bandwidth",
        "Link bandwidth per direction; half of it without peer-to-peer access (every byte is copied twice, through "
        "host memory).",
        LINK,
        expr=IF(EQ(R("gpu_p2p_mode"), "yes"), R("gpu_link_bandwidth_gbs"), R("gpu_link_bandwidth_gbs") / 2),
        doc_id=("Bandwidth interkoneksi per arah; tanpa P2P separuhnya (setiap byte disalin dua kali lewat RAM host)."),
        source_id="Katalog GPU: interkoneksi",
    ),
    Quantity(
        "allreduce_steps",
        "Lompatan per all-reduce",
        "Hops per all-reduce",
        "Ring all-reduce: 2 × (GPUs − 1) steps (reduce-scatter then all-gather); through a switch or a full mesh "
        "(NVSwitch, Infinity Fabric, RoCE all-to-all) every GPU reaches the others in one hop: 2 steps.",
        "Patarasuk & Yuan 2009 (bandwidth-optimal ring all-reduce); NCCL/vLLM one-shot all-reduce on NVSwitch",
        expr=IF(
            R("n_gpus") > 1,
            IF(
                OR(
                    EQ(R("gpu_link_type"), "nvswitch"),
                    EQ(R("gpu_link_type"), "xgmi-mesh"),
                    EQ(R("gpu_link_type"), "roce-mesh"),
                ),
                2,
                2 * (R("n_gpus") - 1),
            ),
            0,
        ),
        doc_id=(
            "All-reduce ring: 2 × (GPU − 1) langkah (reduce-scatter lalu all-gather); lewat switch atau "
            "mesh penuh (NVSwitch, Infinity Fabric, RoCE all-to-all) setiap GPU mencapai yang lain "
            "dalam satu lompatan: 2 langkah."
        ),
        source_id="Patarasuk & Yuan 2009 (all-reduce ring); all-reduce one-shot NCCL/vLLM pada NVSwitch",
    ),
    Quantity(
        "allreduce_us",
        "Waktu satu all-reduce (bagian latensi)",
        "Time of one all-reduce (latency part)",
        "Hops × time per hop: what one exchange costs whatever its size. Type a time measured with nccl-tests "
        "all_reduce_perf at small sizes to use it.",
        LINK + "; Hockney model (latency × hops + bytes ÷ bandwidth)",
        expr=R("allreduce_steps") * R("link_hop_us"),
        overridable=True,
        doc_id=(
            "Lompatan × waktu per lompatan: biaya satu pertukaran berapa pun ukurannya. Ketik waktu "
            "terukur dari all_reduce_perf (nccl-tests) pada ukuran kecil untuk memakainya."
        ),
        source_id=("Katalog GPU: interkoneksi; model Hockney (latensi × lompatan + byte ÷ bandwidth); buku, bab 6.3"),
    ),
    Quantity(
        "allreduce_user_us",
        "Waktu all-reduce per sekuens",
        "All-reduce time per sequence",
        "2 × (GPUs − 1) ÷ GPUs × hidden × bytes per activation (one sequence's activations: 2 for FP16/BF16) ÷ "
        "effective link bandwidth: what each sequence of the batch (or prompt token) adds to one all-reduce.",
        LINK
        + "; ring all-reduce volume 2(n − 1)/n × message (Patarasuk & Yuan 2009); engine catalog: activation_bytes",
        expr=safe_div(
            safe_div(2 * (R("n_gpus") - 1), R("n_gpus")) * R("model_hidden") * R("engine_activation_bytes"),
            R("link_effective_bandwidth_gbs") * 1000,
        ),
        doc_id=(
            "2 × (GPU − 1) ÷ GPU × hidden × byte per aktivasi (aktivasi satu sekuens: 2 untuk "
            "FP16/BF16) ÷ bandwidth efektif: tambahan setiap sekuens dalam batch (atau token prompt) "
            "pada satu all-reduce."
        ),
        source_id="Volume all-reduce ring 2(n − 1)/n × pesan (Patarasuk & Yuan 2009)",
    ),
    Quantity(
        "model_ffn_hidden",
        "Lebar FFN (dari jumlah parameter)",
        "FFN width (from the parameter count)",
        "Active parameters less the input and output embeddings (2 × vocab × hidden), per layer, less the attention "
        "matrices (2 × hidden × (heads + KV heads) × head_dim), ÷ (3 × hidden): a gated MLP holds 3 matrices of "
        "hidden × FFN width (LLaMA-7B: 11,013 against the published 11,008; an MoE model: its active experts' width).",
        "Touvron et al. 2023 (LLaMA: SwiGLU MLP with 3 matrices); model catalog: parameters and shape",
        expr=MAX(
            0,
            safe_div(
                safe_div(R("model_active_params_b") * 1e9 - 2 * R("model_vocab") * R("model_hidden"), R("model_layers"))
                - 2 * R("model_hidden") * (R("model_heads") + R("model_kv_heads")) * R("model_head_dim"),
                3 * R("model_hidden"),
            ),
        ),
        doc_id=(
            "Parameter aktif dikurangi embedding input dan output (2 × vocab × hidden), per layer, "
            "dikurangi matriks attention (2 × hidden × (head + KV head) × dimensi head), ÷ (3 × "
            "hidden): MLP bergerbang memuat 3 matriks hidden × lebar FFN (LLaMA-7B: 11.013 terhadap "
            "11.008 yang dipublikasikan; model MoE: lebar expert aktifnya)."
        ),
        source_id=("Touvron dkk. 2023 (LLaMA: MLP SwiGLU dengan 3 matriks); katalog model: parameter dan bentuk"),
    ),
    Quantity(
        "tensor_copy_bandwidth_gbs",
        "Bandwidth salinan tensor parallel",
        "Tensor-parallel copy bandwidth",
        "Effective link bandwidth × the share the engine's tensor-parallel copies of a prompt's activations reach "
        "(llama.cpp row split: megabytes per split matrix, copied in 128-column pieces; fitted on the row-split "
        "prompt rows; 1 for all-reduce engines).",
        LINK + "; engine catalog: exchange_bandwidth_frac",
        expr=R("link_effective_bandwidth_gbs") * R("engine_exchange_bandwidth_frac"),
        doc_id=(
            "Bandwidth interkoneksi efektif × porsi yang dicapai salinan tensor parallel aktivasi "
            "prompt (llama.cpp '--split-mode row': megabyte per matriks yang dibagi, disalin per 128 "
            "kolom; di-fit pada baris prompt '--split-mode row'; 1 untuk mesin all-reduce)."
        ),
        source_id="Katalog GPU: interkoneksi; katalog mesin: exchange_bandwidth_frac",
    ),
    Quantity(
        "tensor_parallel_layer_bytes_per_token",
        "Byte antar-GPU per token per layer (tensor parallel, decode)",
        "Bytes between GPUs per token and layer (tensor parallel, decode)",
        "All-reduce engines: exchanges per layer × 2 (GPUs − 1) ÷ GPUs × hidden × bytes per activation. llama.cpp "
        "row split (gather): each of the 7 split matrices copies its whole input from the main GPU to every other "
        "GPU, (GPUs − 1) × (5 × hidden + heads × head_dim + FFN width) values, and each GPU's slice of the output "
        "back, (GPUs − 1) ÷ GPUs × (2 × hidden + heads × head_dim + 2 × KV heads × head_dim + 2 × FFN width) "
        "values, 4 bytes each (FP32); in decode, quantized weights take their input as 8-bit blocks (q8_1: 36 "
        "bytes per 32 values).",
        ROW_SPLIT + " from the main GPU (cudaMemcpyPeerAsync; quantized matrix-vector kernels copy the q8_1 input) "
        "and its output slices back (cudaMemcpy2DAsync); ring all-reduce volume (Patarasuk & Yuan 2009); engine "
        "catalog: tensor_exchange, activation_bytes",
        expr=exchange_bytes(IF(EQ(R("quant_kind_type"), "float"), R("engine_activation_bytes"), Q8_1_BYTES)),
        doc_id=(
            "Mesin all-reduce: pertukaran per layer × 2 (GPU − 1) ÷ GPU × hidden × byte per aktivasi. "
            "llama.cpp '--split-mode row' (gather): setiap 7 matriks yang dibagi menyalin seluruh "
            "inputnya dari GPU utama ke setiap GPU lain, (GPU − 1) × (5 × hidden + head × dimensi head "
            "+ lebar FFN) nilai, dan irisan output setiap GPU kembali, (GPU − 1) ÷ GPU × (2 × hidden + "
            "head × dimensi head + 2 × KV head × dimensi head + 2 × lebar FFN) nilai, 4 byte (FP32); "
            "saat decode, bobot terkuantisasi menerima input sebagai blok 8-bit (q8_1: 36 byte per 32 "
            "nilai)."
        ),
        source_id=(
            "llama.cpp '--split-mode row': ggml_cuda_op_mul_mat (ggml-cuda.cu); volume all-reduce ring "
            "(Patarasuk & Yuan 2009); katalog mesin: tensor_exchange, activation_bytes"
        ),
    ),
    Quantity(
        "prefill_tensor_layer_bytes_per_token",
        "Byte antar-GPU per token prompt per layer (tensor parallel)",
        "Bytes between GPUs per prompt token and layer (tensor parallel)",
        "As in decode, with every input copied at the engine's activation width (llama.cpp multiplies a prompt "
        "through cuBLAS with FP32 inputs): 227 kB per token and layer for LLaMA-7B on 2 GPUs.",
        ROW_SPLIT + " (prompts: FP32 input for the cuBLAS path); engine catalog: tensor_exchange, activation_bytes",
        expr=exchange_bytes(R("engine_activation_bytes")),
        doc_id=(
            "Seperti saat decode, dengan setiap input disalin pada lebar aktivasi mesin (llama.cpp "
            "mengalikan prompt lewat cuBLAS dengan input FP32): 227 kB per token per layer untuk "
            "LLaMA-7B pada 2 GPU."
        ),
        source_id=(
            "llama.cpp '--split-mode row': ggml_cuda_op_mul_mat (ggml-cuda.cu); katalog mesin: "
            "tensor_exchange, activation_bytes"
        ),
    ),
    Quantity(
        "tensor_parallel_ms",
        "Pertukaran tensor parallel per langkah",
        "Tensor-parallel exchange per step",
        "Layers × exchanges per layer × (all-reduce latency + the engine's cost per exchange), when layers are split "
        "across GPUs in tensor parallel.",
        "Megatron-LM tensor parallelism (Shoeybi et al. 2019): 2 all-reduces per layer; llama.cpp row split; "
        "engine catalog: exchange_us",
        expr=multi_gpu(
            "tensor",
            R("model_layers")
            * R("engine_allreduces_per_layer_ratio")
            * (R("allreduce_us") + R("engine_exchange_us"))
            / 1000,
        ),
        doc_id=(
            "Layer × pertukaran per layer × (latensi all-reduce + biaya mesin per pertukaran), bila "
            "layer dibagi ke beberapa GPU secara tensor parallel."
        ),
        source_id=(
            "Tensor parallelism Megatron-LM (Shoeybi dkk. 2019): 2 all-reduce per layer; llama.cpp "
            "'--split-mode row'; katalog mesin: exchange_us; buku, bab 6.3"
        ),
    ),
    Quantity(
        "tensor_parallel_per_user_ms",
        "Pertukaran tensor parallel per pengguna",
        "Tensor-parallel exchange per user",
        "Layers × bytes between GPUs per token and layer ÷ effective link bandwidth: what each user adds to a step "
        "(one token's copies are small: they go at the link's rate, their time is mostly the hops).",
        "Megatron-LM tensor parallelism (Shoeybi et al. 2019); ring all-reduce volume; " + ROW_SPLIT,
        expr=multi_gpu(
            "tensor",
            safe_div(
                R("model_layers") * R("tensor_parallel_layer_bytes_per_token"), R("link_effective_bandwidth_gbs") * 1e6
            ),
        ),
        doc_id=(
            "Layer × byte antar-GPU per token per layer ÷ bandwidth interkoneksi efektif: yang "
            "ditambahkan setiap pengguna pada satu langkah (salinan satu token kecil: berjalan pada "
            "laju link, waktunya sebagian besar lompatan)."
        ),
        source_id="Tensor parallelism Megatron-LM (Shoeybi dkk. 2019); volume all-reduce ring",
    ),
    Quantity(
        "layer_split_ms",
        "Serah terima layer split per langkah",
        "Layer-split hand-overs per step",
        "(GPUs − 1) boundaries × (the engine's cost per boundary + one hop): the stages run one after another.",
        "llama.cpp --split-mode layer (ggml backend scheduler); engine catalog: stage_boundary_us",
        expr=multi_gpu("layer", (R("n_gpus") - 1) * (R("engine_stage_boundary_us") + R("link_hop_us")) / 1000),
        doc_id=("(GPU − 1) batas × (biaya mesin per batas + satu lompatan): tahap-tahap berjalan bergantian."),
        source_id="llama.cpp --split-mode layer (penjadwal backend ggml); katalog mesin: stage_boundary_us",
    ),
    Quantity(
        "layer_split_per_user_ms",
        "Serah terima layer split per pengguna",
        "Layer-split hand-over per user",
        "(GPUs − 1) × hidden × bytes per activation ÷ effective link bandwidth: each user's activations cross every "
        "boundary.",
        "llama.cpp --split-mode layer; engine catalog: activation_bytes",
        expr=multi_gpu(
            "layer",
            (R("n_gpus") - 1)
            * safe_div(R("model_hidden") * R("engine_activation_bytes"), R("link_effective_bandwidth_gbs") * 1000)
            / 1000,
        ),
        doc_id=(
            "(GPU − 1) × hidden × byte per aktivasi ÷ bandwidth efektif: aktivasi setiap pengguna "
            "melewati setiap batas."
        ),
        source_id="llama.cpp --split-mode layer",
    ),
    Quantity(
        "multi_gpu_step_ms",
        "Biaya multi-GPU per langkah",
        "Multi-GPU cost per step",
        "Tensor-parallel exchange + layer-split hand-overs (0 on one GPU).",
        LINK,
        expr=R("tensor_parallel_ms") + R("layer_split_ms"),
        doc_id="Pertukaran tensor parallel + serah terima layer split (0 pada satu GPU).",
        source_id="Katalog GPU: interkoneksi",
    ),
    Quantity(
        "multi_gpu_per_user_ms",
        "Biaya multi-GPU per pengguna",
        "Multi-GPU cost per user",
        "Tensor-parallel exchange per user + layer-split hand-over per user (0 on one GPU).",
        LINK,
        expr=R("tensor_parallel_per_user_ms") + R("layer_split_per_user_ms"),
        doc_id=("Pertukaran tensor parallel per pengguna + serah terima layer split per pengguna (0 pada satu GPU)."),
        source_id="Katalog GPU: interkoneksi",
    ),
    Quantity(
        "memory_bound_step_base_ms",
        "Langkah memory-bound: bagian tetap",
        "Memory-bound step: fixed part",
        "Weight-read time ÷ efficiency + layers × cost per layer + the multi-GPU cost per step.",
        BOOK_TPS + "; fitted by kalkulator calibrate",
        expr=safe_div(R("decode_fixed_memory_ms"), R("decode_efficiency_frac"))
        + R("model_layers") * R("decode_layer_overhead_ms")
        + R("multi_gpu_step_ms"),
        doc_id="Waktu baca bobot ÷ efisiensi + layer × biaya per layer + pertukaran tensor parallel.",
        source_id="Buku, bab 12.1 dan 12.4; di-fit oleh kalkulator calibrate",
    ),
    Quantity(
        "memory_bound_step_per_user_ms",
        "Langkah memory-bound: tambahan per pengguna",
        "Memory-bound step: added per user",
        "KV-cache read time ÷ efficiency + attention cost per user + the multi-GPU cost per user.",
        BOOK_TPS + "; fitted by kalkulator calibrate",
        expr=safe_div(R("decode_user_memory_ms"), R("decode_efficiency_frac"))
        + R("decode_user_overhead_ms")
        + R("multi_gpu_per_user_ms"),
        doc_id="Waktu baca KV cache ÷ efisiensi + biaya attention per pengguna.",
        source_id="Buku, bab 12.1 dan 10.3; di-fit oleh kalkulator calibrate",
    ),
    Quantity(
        "compute_bound_step_base_ms",
        "Langkah compute-bound: bagian tetap",
        "Compute-bound step: fixed part",
        "Layers × cost per layer + the multi-GPU cost per step.",
        "Roofline model; fitted by kalkulator calibrate",
        expr=R("model_layers") * R("decode_layer_overhead_ms") + R("multi_gpu_step_ms"),
        doc_id="Layer × biaya per layer + pertukaran tensor parallel.",
        source_id="Model roofline; di-fit oleh kalkulator calibrate",
    ),
    Quantity(
        "compute_bound_step_per_user_ms",
        "Langkah compute-bound: tambahan per pengguna",
        "Compute-bound step: added per user",
        "Compute time per user + attention cost per user + the multi-GPU cost per user.",
        "Roofline model; fitted by kalkulator calibrate",
        expr=R("decode_user_compute_ms") + R("decode_user_overhead_ms") + R("multi_gpu_per_user_ms"),
        doc_id="Waktu komputasi per pengguna + biaya attention per pengguna.",
        source_id="Model roofline; di-fit oleh kalkulator calibrate",
    ),
    Quantity(
        "decode_step_ms",
        "Waktu per langkah decode",
        "Time per decode step",
        "Max(memory time ÷ efficiency, compute time) + fixed costs + tensor-parallel exchange, for the concurrent "
        "users: the larger of the memory-bound and compute-bound lines.",
        BOOK_TPS + "; fitted by kalkulator calibrate",
        expr=decode_step(R("concurrent_users")),
        doc_id=(
            "Maks(waktu memori ÷ efisiensi, waktu komputasi) + biaya tetap + pertukaran tensor "
            "parallel, untuk pengguna bersamaan: yang lebih besar dari garis memory-bound dan "
            "compute-bound."
        ),
        source_id="Buku, bab 12.1, 12.4 dan 13.4; di-fit oleh kalkulator calibrate",
    ),
    Quantity(
        "decode_tok_s",
        "Token/s per pengguna (realistis)",
        "Tok/s per user (realistic)",
        "Tokens each user receives per second. Type a measured speed in the yellow cell to use it.",
        BOOK_TPS,
        expr=IF(R("usable_hardware_flag"), safe_div(1000, R("decode_step_ms")), 0),
        overridable=True,
        doc_id=(
            "Token yang diterima setiap pengguna per detik. Isi kecepatan hasil ukur Anda di sel kuning "
            "untuk memakainya."
        ),
        source_id="Buku, bab 12.1–12.2: tok/s realistis = tok/s ideal × efisiensi",
    ),
    Quantity(
        "decode_tok_s_low",
        "Token/s per pengguna, batas bawah",
        "Tok/s per user, low",
        "Realistic speed × (1 + lower error bound): 9 in 10 held-out devices were at least this fast (for a family "
        "no measurement calibrates, the least band of assumptions/calibration/uncalibrated.csv).",
        "kalkulator accuracy (leave-one-device-out)",
        expr=R("decode_tok_s") * (1 + R("speed_error_low_frac")),
        doc_id=(
            "Kecepatan realistis × (1 + batas bawah galat): 9 dari 10 perangkat uji setidaknya secepat ini (untuk "
            "keluarga yang belum dikalibrasi pengukuran, pita minimum di assumptions/calibration/uncalibrated.csv)."
        ),
        source_id="kalkulator accuracy (uji dengan satu perangkat disisihkan)",
    ),
    Quantity(
        "decode_tok_s_high",
        "Token/s per pengguna, batas atas",
        "Tok/s per user, high",
        "Realistic speed × (1 + upper error bound): 9 in 10 held-out devices were at most this fast; never above "
        "the ideal speed (100 % of peak bandwidth), which no device exceeds (unless the speed itself is typed above "
        "it).",
        "kalkulator accuracy (leave-one-device-out)",
        expr=MIN(R("decode_tok_s") * (1 + R("speed_error_high_frac")), MAX(R("decode_tok_s"), R("decode_tok_s_ideal"))),
        doc_id=(
            "Kecepatan realistis × (1 + batas atas galat): 9 dari 10 perangkat uji paling cepat sebesar ini; tidak "
            "pernah di atas kecepatan ideal (100 % bandwidth puncak), yang tidak dilampaui perangkat mana pun "
            "(kecuali kecepatannya sendiri diketik di atasnya)."
        ),
        source_id="kalkulator accuracy (uji dengan satu perangkat disisihkan)",
    ),
    Quantity(
        "tpot_ms",
        "TPOT (waktu per token output)",
        "TPOT (time per output token)",
        "1000 ÷ tok/s per user.",
        BOOK_LAT,
        expr=safe_div(1000, R("decode_tok_s")),
        doc_id="1000 ÷ tok/s per pengguna.",
        source_id="Buku, bab 3 (TPOT) dan bab 4: tok/s = 1 ÷ TPOT",
    ),
    Quantity(
        "throughput_tok_s",
        "Throughput total",
        "Total throughput",
        "Output tokens per second of the users served at this concurrency: the fixed-concurrency throughput "
        "(prefill stalls and long-context KV reads included; fixed_throughput_tok_s), scaled by a typed tok/s per "
        "user ÷ the engine's own (1 unless a measured speed is typed).",
        "Book, chapters 4 and 15.1 (throughput); chunked prefill stalls decode (Sarathi-Serve, Agrawal et al. 2024)",
        expr=R("fixed_throughput_tok_s") * R("decode_tok_s") * R("decode_step_ms") / 1000,
        doc_id=(
            "Token output per detik dari pengguna yang dilayani pada konkurensi ini: throughput konkurensi tetap "
            "(termasuk jeda prefill dan pembacaan KV konteks panjang; fixed_throughput_tok_s), diskalakan dengan "
            "tok/s per pengguna yang diketik ÷ milik mesin (1 kecuali kecepatan terukur diketik)."
        ),
        source_id="Buku, bab 4 (throughput) dan bab 15.1; jeda prefill (Sarathi-Serve, Agrawal dkk. 2024)",
    ),
    Quantity(
        "prefill_cached_tokens",
        "Token prompt dari prefix cache",
        "Prompt tokens from the prefix cache",
        "Prompt tokens × prefix-cache share: already in the KV cache, no prefill compute.",
        "vLLM automatic prefix caching",
        expr=R("prompt_tokens") * R("prefix_cache_hit_frac"),
        doc_id="Token prompt × porsi prefix cache: sudah ada di KV cache, tanpa komputasi prefill.",
        source_id="vLLM automatic prefix caching",
    ),
    Quantity(
        "prefill_new_tokens",
        "Token prompt yang diproses",
        "Prompt tokens to process",
        "Prompt tokens − cached ones.",
        "Buku, Bab prefill",
        expr=R("prompt_tokens") - R("prefill_cached_tokens"),
        doc_id="Token prompt − token yang sudah di-cache.",
        source_id="Buku, bab 2 (prefill)",
    ),
    Quantity(
        "prefill_matmul_tflop",
        "Komputasi prefill: perkalian bobot",
        "Prefill compute: weight multiplies",
        "2 × active params × new prompt tokens.",
        "Kaplan et al. 2020 (2N FLOPs per token); Buku, Bab prefill",
        expr=2 * R("model_active_params_b") * 1e9 * R("prefill_new_tokens") / 1e12,
        doc_id="2 × parameter aktif × token prompt baru.",
        source_id="Kaplan dkk. 2020 (2N FLOP per token); Buku, Bab prefill",
    ),
    Quantity(
        "prefill_expert_tflop",
        "Komputasi prefill: expert terarah",
        "Prefill compute: routed experts",
        "2 × routed-expert params × active ÷ all experts × new prompt tokens: the part of the weight multiplies the "
        "experts do (0 for a dense model).",
        "Kaplan et al. 2020 (2N FLOPs per token); model catalog: experts, active_experts, expert_params_b",
        expr=2
        * safe_div(R("model_expert_params_b") * R("model_active_experts"), R("model_experts"))
        * 1e9
        * R("prefill_new_tokens")
        / 1e12,
        doc_id=(
            "2 × parameter expert terarah × expert aktif ÷ semua expert × token prompt baru: bagian "
            "perkalian bobot yang dikerjakan expert (0 untuk model dense)."
        ),
        source_id="Kaplan dkk. 2020 (2N FLOP per token); katalog model: experts, active_experts, expert_params_b",
    ),
    Quantity(
        "prefill_attention_tflop",
        "Komputasi prefill: attention",
        "Prefill compute: attention",
        "New prompt tokens n after c cached ones: 4 × heads × head_dim × n × layers × (c + n/2) (causal; each new "
        "token attends to the cache and to the new tokens before it; sliding-window layers to at most their window).",
        "Vaswani et al. 2017; FlashAttention (Dao et al. 2022) FLOP count",
        expr=4
        * R("model_heads")
        * R("model_head_dim")
        * R("prefill_new_tokens")
        * attended_layer_tokens(R("prefill_cached_tokens") + R("prefill_new_tokens") / 2)
        / 1e12,
        doc_id=(
            "Untuk n token prompt baru setelah c token di cache: 4 × head × dimensi head × n × layer × "
            "(c + n/2) (kausal; tiap token baru memperhatikan cache dan token baru sebelumnya; layer "
            "sliding window paling banyak jendelanya)."
        ),
        source_id="Vaswani dkk. 2017; hitungan FLOP FlashAttention (Dao dkk. 2022)",
    ),
    Quantity(
        "prefill_tflop",
        "Komputasi prefill",
        "Prefill compute",
        "Weight multiplies + attention.",
        "Kaplan et al. 2020; Buku, Bab prefill",
        expr=R("prefill_matmul_tflop") + R("prefill_attention_tflop"),
        doc_id="Perkalian bobot + attention.",
        source_id="Kaplan dkk. 2020; buku, bab 2 (prefill) dan bab 9.3",
    ),
    Quantity(
        "prefill_compute_s",
        "Waktu komputasi prefill",
        "Prefill compute time",
        "Weight multiplies ÷ their usable FLOPS (the routed experts' share ÷ the MoE prefill kernel efficiency) + "
        "attention ÷ (FP16 peak × GPUs × attention efficiency) + prompt × layers × cost per layer.",
        "Buku, Bab prefill; fitted by kalkulator calibrate",
        expr=safe_div(R("prefill_matmul_tflop"), R("matmul_tflops"))
        + safe_div(R("prefill_expert_tflop") * (1 - R("moe_prefill_efficiency_frac")), R("matmul_tflops"))
        / R("moe_prefill_efficiency_frac")
        + safe_div(
            R("prefill_attention_tflop"),
            R("gpu_fp16_engine_tflops") * R("parallel_gpus") * R("prefill_attention_efficiency_frac"),
        )
        + R("prefill_new_tokens") * R("model_layers") * R("prefill_layer_overhead_us") / 1e6,
        doc_id=(
            "Perkalian bobot ÷ FLOPS terpakainya (porsi expert terarah ÷ efisiensi kernel MoE saat "
            "prefill) + attention ÷ (FLOPS FP16 puncak × GPU × efisiensi attention) + prompt × layer × "
            "biaya per layer."
        ),
        source_id="Buku, bab 2 (prefill bersifat compute-bound); di-fit oleh kalkulator calibrate",
    ),
    Quantity(
        "prefill_chunks_ratio",
        "Jumlah potongan prefill",
        "Prefill chunks",
        "New prompt tokens ÷ chunk size, rounded up (1 when the engine takes the whole prompt at once).",
        "llama.cpp n_ubatch; vLLM max_num_batched_tokens",
        expr=IF(
            R("prefill_chunk_tokens") > 0, ROUNDUP(safe_div(R("prefill_new_tokens"), R("prefill_chunk_tokens")), 0), 1
        ),
        doc_id=(
            "Token prompt baru ÷ ukuran potongan, dibulatkan ke atas (1 bila mesin mengambil seluruh prompt sekaligus)."
        ),
        source_id="llama.cpp n_ubatch; vLLM max_num_batched_tokens",
    ),
    Quantity(
        "prefill_weights_touched_frac",
        "Porsi bobot yang dibaca per potongan",
        "Share of weights read per chunk",
        "1 − (1 − active ÷ total params)^(tokens per chunk): a dense model reads every weight; an MoE chunk reads "
        "the experts its tokens are routed to, all of them once a chunk holds a few hundred tokens.",
        "Expected distinct experts hit by m tokens routed independently (Mixtral, Jiang et al. 2024)",
        expr=weights_touched(
            MIN(
                R("prefill_new_tokens"),
                IF(R("prefill_chunk_tokens") > 0, R("prefill_chunk_tokens"), R("prefill_new_tokens")),
            )
        ),
        doc_id=(
            "1 − (1 − parameter aktif ÷ total)^(token per potongan): model dense membaca semua bobot; "
            "satu potongan MoE membaca expert yang dituju token-tokennya, semuanya begitu potongan "
            "berisi beberapa ratus token."
        ),
        source_id=(
            "Jumlah expert berbeda yang diharapkan dari m token yang dirutekan secara independen "
            "(Mixtral, Jiang dkk. 2024)"
        ),
    ),
    Quantity(
        "prefill_memory_s",
        "Waktu baca bobot saat prefill",
        "Prefill weight-read time",
        "Every chunk reads the weights its tokens need (offloaded ones from system RAM): chunks × share read × "
        "weights ÷ bandwidth.",
        "Roofline model; llama.cpp micro-batches",
        expr=R("prefill_chunks_ratio") * R("prefill_weights_touched_frac") * prefill_weight_read_s(),
        doc_id=(
            "Setiap potongan membaca bobot yang dibutuhkan token-tokennya (bobot offload dari RAM "
            "sistem): potongan × porsi yang dibaca × bobot ÷ bandwidth."
        ),
        source_id="Model roofline; micro-batch llama.cpp",
    ),
    Quantity(
        "prefill_calls_ratio",
        "Panggilan mesin per prompt",
        "Engine calls per prompt",
        "New prompt tokens ÷ the engine's batch per call, rounded up, at most one per chunk (llama.cpp: 2,048 "
        "tokens per llama_decode call, each cut into micro-batches); 1 when the engine takes the whole prompt in "
        "one call.",
        "llama.cpp n_batch (common.h, llama-bench -b: 2048) and n_ubatch (512); engine catalog: batch_tokens",
        expr=IF(
            R("engine_batch_tokens") > 0,
            MAX(
                1,
                MIN(
                    ROUNDUP(safe_div(R("prefill_new_tokens"), R("engine_batch_tokens")), 0),
                    R("prefill_chunks_ratio"),
                ),
            ),
            1,
        ),
        doc_id=(
            "Token prompt baru ÷ batch mesin per panggilan, dibulatkan ke atas, paling banyak satu per "
            "potongan (llama.cpp: 2.048 token per panggilan llama_decode, masing-masing dipotong "
            "menjadi micro-batch); 1 bila mesin mengambil seluruh prompt dalam satu panggilan."
        ),
        source_id=(
            "llama.cpp n_batch (common.h, llama-bench -b: 2048) dan n_ubatch (512); katalog mesin: batch_tokens"
        ),
    ),
    Quantity(
        "prefill_pipeline_ratio",
        "Porsi waktu tahap dengan pipeline micro-batch",
        "Share of the stages' time with a micro-batch pipeline",
        "Layer split with a micro-batch pipeline: the U micro-batches of a call flow through n stages in U + n − 1 "
        "stage times of 1 ÷ n of a micro-batch, and the pipeline refills at each call, so (U + calls × (n − 1)) "
        "÷ (U × n) of the time the stages take in turn (1 micro-batch: 1; 4 GPUs, 4 micro-batches per call: "
        "7/16); 1 otherwise.",
        PIPELINE,
        expr=IF(
            AND(pipelined(), R("prefill_chunks_ratio") > 0),
            safe_div(
                R("prefill_chunks_ratio") + R("prefill_calls_ratio") * (R("n_gpus") - 1),
                R("prefill_chunks_ratio") * R("n_gpus"),
            ),
            1,
        ),
        doc_id=(
            "Layer split dengan pipeline micro-batch: U micro-batch satu panggilan mengalir melalui n "
            "tahap dalam U + n − 1 waktu tahap sebesar 1 ÷ n micro-batch, dan pipeline terisi ulang "
            "setiap panggilan, sehingga (U + panggilan × (n − 1)) ÷ (U × n) dari waktu tahap bergantian "
            "(1 micro-batch: 1; 4 GPU, 4 micro-batch per panggilan: 7/16); selain itu 1."
        ),
        source_id=("llama.cpp PR #6017 (pipeline parallelism, GGML_SCHED_MAX_COPIES = 4): penjadwal ggml-backend.cpp"),
    ),
    Quantity(
        "prefill_handover_us",
        "Serah terima per batas per potongan prefill",
        "Hand-over per boundary and prefill chunk",
        "Layer split: the engine's cost per boundary + one hop + the chunk's tokens × hidden × bytes per activation "
        "÷ effective link bandwidth.",
        "llama.cpp --split-mode layer; engine catalog: stage_boundary_us, activation_bytes; " + LINK,
        expr=R("engine_stage_boundary_us")
        + R("link_hop_us")
        + safe_div(
            safe_div(R("prefill_new_tokens"), R("prefill_chunks_ratio"))
            * R("model_hidden")
            * R("engine_activation_bytes"),
            R("link_effective_bandwidth_gbs") * 1000,
        ),
        doc_id=(
            "Layer split: biaya mesin per batas + satu lompatan + token potongan × hidden × byte per "
            "aktivasi ÷ bandwidth interkoneksi efektif."
        ),
        source_id=(
            "llama.cpp --split-mode layer; katalog mesin: stage_boundary_us, activation_bytes; katalog "
            "GPU: interkoneksi"
        ),
    ),
    Quantity(
        "prefill_handover_steps",
        "Serah terima di jalur kritis prefill",
        "Hand-overs on the prefill's critical path",
        "Layer split: stages in turn hand every chunk over at each of the (GPUs − 1) boundaries, U × (n − 1); a "
        "micro-batch pipeline overlaps them, per call the first chunk's n − 1 then one per later chunk: U + calls "
        "× (n − 2).",
        PIPELINE,
        expr=multi_gpu(
            "layer",
            IF(
                pipelined(),
                R("prefill_chunks_ratio") + R("prefill_calls_ratio") * (R("n_gpus") - 2),
                R("prefill_chunks_ratio") * (R("n_gpus") - 1),
            ),
        ),
        doc_id=(
            "Layer split: tahap bergantian menyerahkan setiap potongan pada setiap (GPU − 1) batas, U × "
            "(n − 1); pipeline micro-batch menumpangkannya, per panggilan n − 1 untuk potongan pertama "
            "lalu satu per potongan berikutnya: U + panggilan × (n − 2)."
        ),
        source_id="llama.cpp PR #6017 (pipeline parallelism): penjadwal ggml-backend.cpp",
    ),
    Quantity(
        "prefill_exchange_s",
        "Pertukaran antar-GPU saat prefill",
        "GPU exchanges in prefill",
        "Tensor parallel: layers × (exchanges per layer × chunks × (all-reduce latency + the engine's cost per "
        "exchange) + prompt tokens × bytes per token and layer ÷ tensor-parallel copy bandwidth); layer split: "
        "hand-overs on the critical path × hand-over per boundary and chunk. The prompt's activations cross the link "
        "like a batch of that many sequences.",
        LINK + "; Megatron-LM (Shoeybi et al. 2019); " + ROW_SPLIT,
        expr=multi_gpu(
            "tensor",
            R("model_layers")
            * (
                R("engine_allreduces_per_layer_ratio")
                * R("prefill_chunks_ratio")
                * (R("allreduce_us") + R("engine_exchange_us"))
                / 1e6
                + safe_div(
                    R("prefill_new_tokens") * R("prefill_tensor_layer_bytes_per_token"),
                    R("tensor_copy_bandwidth_gbs") * 1e9,
                )
            ),
        )
        + R("prefill_handover_steps") * R("prefill_handover_us") / 1e6,
        doc_id=(
            "Tensor parallel: layer × (pertukaran per layer × potongan × (latensi all-reduce + biaya "
            "mesin per pertukaran) + token prompt × byte per token per layer ÷ bandwidth salinan tensor "
            "parallel); layer split: serah terima di jalur kritis × serah terima per batas per "
            "potongan. Aktivasi prompt melewati interkoneksi seperti batch sebanyak tokennya."
        ),
        source_id="Katalog GPU: interkoneksi; Megatron-LM (Shoeybi dkk. 2019)",
    ),
    Quantity(
        "prefill_tok_s",
        "Kecepatan prefill",
        "Prefill speed",
        "New prompt tokens ÷ (the longer of compute and weight-read time × the pipeline's share + the GPU "
        "exchanges). Type a measured speed to use it.",
        "Buku, Bab prefill; " + PIPELINE,
        overridable=True,
        expr=IF(
            R("usable_hardware_flag"),
            safe_div(
                R("prefill_new_tokens"),
                prefill_busy_s(R("prefill_memory_s")),
            ),
            0,
        ),
        doc_id=(
            "Token prompt baru ÷ (waktu komputasi atau waktu baca bobot, mana yang lebih lama, × porsi "
            "pipeline + pertukaran antar-GPU). Isi kecepatan hasil ukur untuk memakainya."
        ),
        source_id="Buku, bab 2 (prefill)",
    ),
    Quantity(
        "prefill_s",
        "Waktu prefill (tanpa antrean)",
        "Prefill time (no queue)",
        "New prompt tokens ÷ prefill speed (+ encoding its images): the time to first token of a request that "
        "finds the GPU idle.",
        "Buku, Bab TTFT: TTFT ≈ waktu prefill",
        expr=safe_div(R("prefill_new_tokens"), R("prefill_tok_s")) + R("vision_encode_s"),
        doc_id=(
            "Token prompt baru ÷ kecepatan prefill (+ encode gambarnya): waktu ke token pertama bagi "
            "permintaan yang mendapati GPU sedang menganggur."
        ),
        source_id="Buku, bab 3: TTFT ≈ waktu prefill + overhead jaringan + antrean",
    ),
    Quantity(
        "prefill_fast_s",
        "Waktu prefill, ujung cepat",
        "Prefill time, fast end",
        "Prefill time ÷ (1 + upper prompt-speed error): 9 in 10 held-out devices took at least this long.",
        "kalkulator accuracy (leave-one-device-out, prompt rows)",
        expr=safe_div(R("prefill_s"), 1 + R("prefill_error_high_frac")),
        doc_id=(
            "Waktu prefill ÷ (1 + batas atas galat kecepatan prompt): 9 dari 10 perangkat uji butuh "
            "setidaknya selama ini."
        ),
        source_id="kalkulator accuracy (uji dengan satu perangkat disisihkan, baris prompt)",
    ),
    Quantity(
        "prefill_slow_s",
        "Waktu prefill, ujung lambat",
        "Prefill time, slow end",
        "Prefill time ÷ (1 + lower prompt-speed error): 9 in 10 held-out devices took at most this long. Compare "
        "it with the TTFT target: the queue comes on top.",
        "kalkulator accuracy (leave-one-device-out, prompt rows)",
        expr=safe_div(R("prefill_s"), 1 + R("prefill_error_low_frac")),
        doc_id=(
            "Waktu prefill ÷ (1 + batas bawah galat kecepatan prompt): 9 dari 10 perangkat uji butuh "
            "paling lama selama ini. Bandingkan dengan target TTFT: antrean datang di atasnya."
        ),
        source_id="kalkulator accuracy (uji dengan satu perangkat disisihkan, baris prompt)",
    ),
    Quantity(
        "e2e_latency_s",
        "Latensi end-to-end",
        "End-to-end latency",
        "TTFT + output tokens × TPOT at load + network overhead.",
        BOOK_LAT,
        expr=IF(
            R("utilization_frac") < 1,
            R("ttft_s") + R("output_tokens") * R("tpot_at_load_ms") / 1000 + R("network_overhead_ms") / 1000,
            QUEUE_UNBOUNDED,
        ),
        doc_id="TTFT + token output × TPOT + overhead jaringan.",
        source_id="Buku, bab 3: E2E = TTFT + jumlah_token_output × TPOT + overhead_komunikasi",
    ),
)
