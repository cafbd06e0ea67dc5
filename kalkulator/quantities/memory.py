"""Memory chain: weights, KV cache (GQA/MQA, MLA, sliding window, sparse attention), the fixed state of linear-attention
and SSM layers, overhead, total VRAM and what fits."""

from __future__ import annotations

from collections.abc import Mapping

from kalkulator.engine.expr import IF, MAX, MIN, ROUND, ROUNDDOWN, ROUNDUP, Msg, Node, R
from kalkulator.quantities.base import Quantity

BOOK_VRAM = "Buku, Bab VRAM: VRAM_total = model_weights + KV_cache + overhead"
BOOK_KV = "Buku, Bab KV Cache: 2 × layers × kv_heads × head_dim × bytes per element"

# The model figures the memory formulas read, by catalog column: the chosen model's values here; a draft model
# (speculative decoding) passes its own catalog row, so each formula below is written once for both.
CHOSEN_MODEL: Mapping[str, Node] = {
    "params_b": R("model_params_b"),
    "layers": R("model_layers"),
    "kv_heads": R("model_kv_heads"),
    "head_dim": R("model_head_dim"),
    "kv_latent_dim": R("model_kv_latent_dim"),
    "sliding_window": R("model_sliding_window_tokens"),
    "sliding_layers": R("model_sliding_layers"),
    "linear_layers": R("model_linear_layers"),
    "ffn_layers": R("model_ffn_layers"),
    "state_bytes": R("model_state_bytes_per_layer"),
}


def weights_of(params_b: Node, bits: object) -> Node:
    """Weights in GB: parameters (billions) × bits per parameter ÷ 8."""
    return params_b * bits / 8


def kv_layer_bytes(model: Mapping[str, Node]) -> Node:
    """KV-cache bytes per token and layer: K and V per KV head, or the MLA latent width, × bits ÷ 8."""
    width = IF(model["kv_latent_dim"] > 0, model["kv_latent_dim"], 2 * model["kv_heads"] * model["head_dim"])
    return width * R("kv_cache_bits") / 8


def attention_layers(model: Mapping[str, Node]) -> Node:
    """Layers that attend (full or sliding window): all but the linear-attention/SSM and MLP-only ones."""
    return model["layers"] - model["linear_layers"] - model["ffn_layers"]


def layer_tokens(model: Mapping[str, Node], keys: Node, budget: Node | None = None) -> Node:
    """Layers × keys an attention layer holds or reads: full-attention layers all `keys` (at most `budget` when
    sparse attention gives one, 0 = no budget), sliding-window layers at most their window; linear-attention/SSM
    and MLP-only layers none."""
    sliding = model["sliding_layers"]
    full_keys = keys if budget is None else IF(budget > 0, MIN(keys, budget), keys)
    return (attention_layers(model) - sliding) * full_keys + sliding * MIN(keys, model["sliding_window"])


def kv_layer_tokens(model: Mapping[str, Node]) -> Node:
    """Layers × tokens cached at the scenario's context (sparse attention still caches every token)."""
    return layer_tokens(model, R("context_tokens"))


def state_bytes_of(model: Mapping[str, Node]) -> Node:
    """Bytes of fixed state one sequence keeps: linear-attention/SSM layers × state per layer."""
    return model["linear_layers"] * model["state_bytes"]


QUANTITIES = (
    Quantity(
        "weights_gb",
        "Bobot model",
        "Model weights",
        "Parameters × bits per parameter ÷ 8 (MoE: all experts are held in memory). "
        "Type the real file size in the yellow cell to use it instead.",
        "Buku, Bab VRAM: params × bytes per param",
        expr=weights_of(CHOSEN_MODEL["params_b"], R("weight_bits_per_param")),
        overridable=True,
        doc_id=(
            "Parameter × bit per parameter ÷ 8 (MoE: semua expert disimpan di memori). Isi ukuran file "
            "sebenarnya di sel kuning untuk memakainya."
        ),
        source_id="Buku, bab 14.1: model_weights = jumlah_params × bytes_per_param",
    ),
    Quantity(
        "gpu_weights_gb",
        "Bobot di memori GPU",
        "Weights in GPU memory",
        "Weights × (1 − share offloaded to system RAM).",
        "llama.cpp --n-gpu-layers",
        expr=R("weights_gb") * (1 - R("cpu_offload_frac")),
        doc_id="Bobot × (1 − porsi yang di-offload ke RAM sistem).",
        source_id="llama.cpp --n-gpu-layers",
    ),
    Quantity(
        "kv_layer_bytes_per_token",
        "KV cache per token per layer",
        "KV cache per token per layer",
        "K and V for each KV head (2 × kv_heads × head_dim values), or the MLA latent width, × bits ÷ 8.",
        BOOK_KV + "; DeepSeek-V3 paper (MLA)",
        expr=kv_layer_bytes(CHOSEN_MODEL),
        doc_id=("K dan V untuk setiap KV head (2 × kv_heads × head_dim nilai), atau lebar laten MLA, × bit ÷ 8."),
        source_id="Buku, bab 10.2 dan 14.1, dikoreksi: kv_heads, bukan jumlah head; paper DeepSeek-V3 (MLA)",
    ),
    Quantity(
        "kv_cache_bytes_per_token",
        "KV cache per token (semua layer attention)",
        "KV cache per token (all attention layers)",
        "Bytes the cache grows by per token while the context fits every window: per-layer bytes × attention "
        "layers (linear-attention/SSM and MLP-only layers keep no KV).",
        BOOK_KV,
        expr=R("kv_layer_bytes_per_token") * attention_layers(CHOSEN_MODEL),
        doc_id=(
            "Pertambahan cache per token selama konteks masih di dalam setiap jendela: byte per layer × layer "
            "attention (layer linear attention/SSM dan MLP saja tidak menyimpan KV)."
        ),
        source_id="Buku, bab 10.2 dan 14.1, dikoreksi: 2 × layer × kv_heads × head_dim × byte per elemen",
    ),
    Quantity(
        "state_bytes_per_user",
        "State tetap per pengguna (byte)",
        "Fixed state per user (bytes)",
        "Linear-attention/SSM layers × the state one sequence keeps in each: the same at any context length.",
        "Qwen3-Next (Gated DeltaNet) and Nemotron-H (Mamba-2) configs; vLLM's per-sequence mamba cache",
        expr=state_bytes_of(CHOSEN_MODEL),
        doc_id=(
            "Layer linear attention/SSM × state yang disimpan satu sekuens di setiap layer: sama pada "
            "panjang konteks berapa pun."
        ),
        source_id="Config Qwen3-Next (Gated DeltaNet) dan Nemotron-H (Mamba-2); cache mamba per sekuens di vLLM",
    ),
    Quantity(
        "kv_cache_bytes_per_user",
        "KV cache dan state per pengguna (byte)",
        "KV cache and state per user (bytes)",
        "Full-attention layers keep the whole context; sliding-window layers keep at most their window; "
        "linear-attention/SSM layers keep their fixed state instead.",
        BOOK_KV + "; Gemma 2/3 and gpt-oss configs (sliding window); Qwen3-Next and Nemotron-H configs (state)",
        expr=R("kv_layer_bytes_per_token") * kv_layer_tokens(CHOSEN_MODEL) + R("state_bytes_per_user"),
        doc_id=(
            "Layer full attention menyimpan seluruh konteks; layer sliding window paling banyak sebesar "
            "jendelanya; layer linear attention/SSM menyimpan state tetapnya."
        ),
        source_id=(
            "Buku, bab 10.2 dan 10.4 (sliding window), dikoreksi: 2 × layer × kv_heads × head_dim × "
            "byte per elemen; config Gemma 2/3 dan gpt-oss; config Qwen3-Next dan Nemotron-H (state)"
        ),
    ),
    Quantity(
        "kv_cache_gb_per_user",
        "KV cache per pengguna",
        "KV cache per user",
        "KV cache (and fixed state) of one user at the scenario's context length.",
        BOOK_KV,
        expr=R("kv_cache_bytes_per_user") / 1e9,
        doc_id="KV cache (dan state tetap) satu pengguna pada panjang konteks skenario.",
        source_id="Buku, bab 15.2, dikoreksi: 2 × layer × kv_heads × head_dim × byte per elemen × token",
    ),
    Quantity(
        "kv_read_gb_per_user",
        "KV dan state dibaca per pengguna per langkah",
        "KV and state read per user and step",
        "What one decode step reads of a user's cache: the KV of the tokens each attention layer attends to (under "
        "sparse attention at most its token budget) plus the fixed state.",
        "Book, chapters 12.1 and 10.3; DeepSeek-V3.2-Exp config (index_topk, sparse attention)",
        expr=(
            R("kv_layer_bytes_per_token") * layer_tokens(CHOSEN_MODEL, R("context_tokens"), R("model_sparse_tokens"))
            + R("state_bytes_per_user")
        )
        / 1e9,
        doc_id=(
            "Yang dibaca satu langkah decode dari cache seorang pengguna: KV token yang diperhatikan setiap "
            "layer attention (dengan sparse attention paling banyak anggaran tokennya) ditambah state tetap."
        ),
        source_id="Buku, bab 12.1 dan 10.3; config DeepSeek-V3.2-Exp (index_topk, sparse attention)",
    ),
    Quantity(
        "kv_cache_gb",
        "KV cache semua pengguna",
        "KV cache, all users",
        "Per-user KV cache × concurrent users.",
        BOOK_VRAM,
        expr=R("kv_cache_gb_per_user") * R("concurrent_users"),
        doc_id="KV cache per pengguna × pengguna bersamaan.",
        source_id="Buku, bab 14.1: VRAM_total = model_weights + KV_cache + overhead",
    ),
    Quantity(
        "overhead_gb",
        "Overhead semua GPU",
        "Overhead, all GPUs",
        "Runtime overhead on each GPU × number of GPUs.",
        BOOK_VRAM,
        expr=R("vram_overhead_gb") * R("n_gpus"),
        doc_id="Overhead runtime per GPU × jumlah GPU.",
        source_id="Buku, bab 14.1: VRAM_total = model_weights + KV_cache + overhead",
    ),
    Quantity(
        "vram_total_gb",
        "Total VRAM dibutuhkan",
        "Total VRAM needed",
        "Weights + KV cache + overhead (+ a vision encoder's weights).",
        BOOK_VRAM,
        expr=R("gpu_weights_gb") + R("kv_cache_gb") + R("overhead_gb") + R("vision_encoder_weights_gb"),
        doc_id="Bobot + KV cache + overhead (+ bobot encoder visi).",
        source_id="Buku, bab 14.1: VRAM_total = model_weights + KV_cache + overhead",
    ),
    Quantity(
        "vram_available_gb",
        "VRAM tersedia",
        "VRAM available",
        "GPU memory × number of GPUs.",
        BOOK_VRAM,
        expr=R("gpu_vram_gb") * R("n_gpus"),
        doc_id="Memori GPU × jumlah GPU.",
        source_id="Buku, bab 14.1",
    ),
    Quantity(
        "fits_in_vram",
        "Muat di VRAM?",
        "Fits in VRAM?",
        "TRUE when the total fits in the memory of the GPUs.",
        BOOK_VRAM,
        expr=R("vram_total_gb") <= R("vram_available_gb"),
        doc_id="TRUE bila total kebutuhan muat di memori GPU.",
        source_id="Buku, bab 14.1: VRAM_total = model_weights + KV_cache + overhead",
    ),
    Quantity(
        "vram_headroom_gb",
        "Sisa VRAM",
        "VRAM headroom",
        "Available minus needed; negative means it does not fit.",
        BOOK_VRAM,
        expr=R("vram_available_gb") - R("vram_total_gb"),
        doc_id="VRAM tersedia dikurangi yang dibutuhkan; negatif berarti tidak muat.",
        source_id="Buku, bab 14.1",
    ),
    Quantity(
        "kv_budget_gb",
        "Memori untuk KV cache",
        "Memory for the KV cache",
        "VRAM available − weights on the GPUs (a vision encoder's too) − overhead.",
        BOOK_VRAM,
        expr=R("vram_available_gb") - R("gpu_weights_gb") - R("vision_encoder_weights_gb") - R("overhead_gb"),
        doc_id="VRAM tersedia − bobot di GPU (termasuk encoder visi) − overhead.",
        source_id="Buku, bab 15.2: max_users = (total_VRAM − model_weights − overhead) / KV_cache_per_user",
    ),
    Quantity(
        "max_concurrent_users",
        "Pengguna bersamaan maksimum",
        "Max concurrent users",
        "(VRAM available − weights − overhead) ÷ KV cache per user, rounded down.",
        "Buku, Bab concurrency: max_users = (total_VRAM − model_weights − overhead) / KV_cache_per_user",
        expr=IF(
            R("kv_cache_gb_per_user") > 0,
            MAX(
                0,
                ROUNDDOWN(
                    ROUND(R("kv_budget_gb") / R("kv_cache_gb_per_user"), 9),
                    0,
                ),
            ),
            Msg("tidak dibatasi KV cache (konteks 0)", "not limited by the KV cache (context 0)"),
        ),
        doc_id="(VRAM tersedia − bobot − overhead) ÷ KV cache per pengguna, dibulatkan ke bawah.",
        source_id="Buku, bab 15.2: max_users = (total_VRAM − model_weights − overhead) / KV_cache_per_user",
    ),
    Quantity(
        "required_gpus",
        "GPU yang dibutuhkan",
        "GPUs needed",
        "Weights and KV cache spread over GPUs, each losing its runtime overhead; rounded up.",
        BOOK_VRAM,
        expr=IF(
            R("gpu_vram_gb") > R("vram_overhead_gb"),
            ROUNDUP(ROUND((R("gpu_weights_gb") + R("kv_cache_gb")) / (R("gpu_vram_gb") - R("vram_overhead_gb")), 9), 0),
            Msg("memori GPU tidak lebih besar dari overhead", "GPU memory is not larger than the overhead"),
        ),
        doc_id=(
            "Bobot dan KV cache dibagi ke beberapa GPU, masing-masing kehilangan overhead runtime-nya; "
            "dibulatkan ke atas."
        ),
        source_id="Buku, bab 14.1 dan 10.2 (contoh 4× A100 untuk konteks 128K)",
    ),
)
