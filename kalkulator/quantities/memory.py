"""Memory chain: weights, KV cache (GQA/MQA, MLA, sliding window), overhead, total VRAM and what fits."""

from __future__ import annotations

from collections.abc import Mapping

from kalkulator.expr import IF, MAX, MIN, ROUND, ROUNDDOWN, ROUNDUP, Msg, Node, R
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
}


def weights_of(params_b: Node, bits: object) -> Node:
    """Weights in GB: parameters (billions) × bits per parameter ÷ 8."""
    return params_b * bits / 8


def kv_layer_bytes(model: Mapping[str, Node]) -> Node:
    """KV-cache bytes per token and layer: K and V per KV head, or the MLA latent width, × bits ÷ 8."""
    width = IF(model["kv_latent_dim"] > 0, model["kv_latent_dim"], 2 * model["kv_heads"] * model["head_dim"])
    return width * R("kv_cache_bits") / 8


def kv_layer_tokens(model: Mapping[str, Node]) -> Node:
    """Layers × tokens cached at the scenario's context: sliding-window layers keep at most their window."""
    sliding = model["sliding_layers"]
    return (model["layers"] - sliding) * R("context_tokens") + sliding * MIN(
        R("context_tokens"), model["sliding_window"]
    )


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
        "KV cache per token (semua layer)",
        "KV cache per token (all layers)",
        "Bytes the cache grows by per token while the context fits every window.",
        BOOK_KV,
        expr=R("kv_layer_bytes_per_token") * R("model_layers"),
        doc_id="Pertambahan cache per token selama konteks masih di dalam setiap jendela.",
        source_id="Buku, bab 10.2 dan 14.1, dikoreksi: 2 × layer × kv_heads × head_dim × byte per elemen",
    ),
    Quantity(
        "kv_cache_bytes_per_user",
        "KV cache per pengguna (byte)",
        "KV cache per user (bytes)",
        "Full-attention layers keep the whole context; sliding-window layers keep at most their window.",
        BOOK_KV + "; Gemma 2/3 and gpt-oss configs (sliding window)",
        expr=R("kv_layer_bytes_per_token") * kv_layer_tokens(CHOSEN_MODEL),
        doc_id=(
            "Layer full attention menyimpan seluruh konteks; layer sliding window paling banyak sebesar jendelanya."
        ),
        source_id=(
            "Buku, bab 10.2 dan 10.4 (sliding window), dikoreksi: 2 × layer × kv_heads × head_dim × "
            "byte per elemen; config Gemma 2/3 dan gpt-oss"
        ),
    ),
    Quantity(
        "kv_cache_gb_per_user",
        "KV cache per pengguna",
        "KV cache per user",
        "KV cache of one user at the scenario's context length.",
        BOOK_KV,
        expr=R("kv_cache_bytes_per_user") / 1e9,
        doc_id="KV cache satu pengguna pada panjang konteks skenario.",
        source_id="Buku, bab 15.2, dikoreksi: 2 × layer × kv_heads × head_dim × byte per elemen × token",
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
