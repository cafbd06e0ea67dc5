"""Speculative decoding: a small draft model proposes tokens, the chosen model checks them in one step.

A separate answer beside the plain decode speed (TPOT, capacity and money stay without a draft): the gain is
largest for one user and shrinks at large batches, where the checking step turns compute-bound.
"""

from __future__ import annotations

from kalkulator.engine.expr import IF, IFERROR, INDEX, MATCH, MAX, Col, R, safe_div
from kalkulator.quantities.base import NO_CHOICE, Quantity
from kalkulator.quantities.memory import kv_layer_bytes, kv_layer_tokens, state_bytes_of, weights_of

LEVIATHAN = "Leviathan et al. 2023, Fast Inference from Transformers via Speculative Decoding"
BOOK_SPEC = "Buku, Bab 3, Skenario B (spekulasi 3 token per langkah)"

ROW = R("draft_model_row")
ON = ROW > 0
# The draft model's catalog figures, by column (read only when a draft is chosen: INDEX of row 0 is a column).
DRAFT = {
    column: INDEX(Col("model", column), ROW)
    for column in (
        "params_b",
        "active_params_b",
        "layers",
        "kv_heads",
        "head_dim",
        "kv_latent_dim",
        "sliding_window",
        "sliding_layers",
        "linear_layers",
        "ffn_layers",
        "state_bytes",
    )
}

QUANTITIES = (
    Quantity(
        "draft_model_name",
        "Model draf (speculative decoding)",
        "Draft model (speculative decoding)",
        f"A small model of the same family (same tokenizer) that proposes tokens; {NO_CHOICE} or blank = off.",
        LEVIATHAN,
        default=NO_CHOICE,
        choices=("model", "name"),
        optional=True,
        doc_id=(
            "Model kecil dari keluarga yang sama (tokenizer sama) yang mengusulkan token; none atau kosong = mati."
        ),
        source_id="Leviathan dkk. 2023, 'Fast Inference from Transformers via Speculative Decoding'",
    ),
    Quantity(
        "spec_draft_tokens",
        "Token usulan per langkah (k)",
        "Tokens proposed per step (k)",
        "Tokens the draft proposes before the chosen model checks them all in one step.",
        BOOK_SPEC,
        default=3,
        doc_id=("Jumlah token yang diusulkan model draf sebelum model utama memeriksa semuanya dalam satu langkah."),
        source_id="Buku, bab 3, Skenario B (spekulasi 3 token per langkah)",
    ),
    Quantity(
        "spec_acceptance_frac",
        "Tingkat penerimaan token draf (α)",
        "Draft acceptance rate (α)",
        "Chance that the chosen model accepts a proposed token; it depends on the task and how well the draft "
        "matches (often 0.6–0.9 for chat and code with a draft of the same family).",
        LEVIATHAN,
        default=0.7,
        doc_id=(
            "Peluang model utama menerima satu token usulan; bergantung pada tugas dan kecocokan model "
            "draf (sering 0,6–0,9 untuk chat dan kode dengan model draf sekeluarga)."
        ),
        source_id="Leviathan dkk. 2023",
    ),
    Quantity(
        "draft_model_row",
        "Baris model draf di katalog",
        "Draft model catalog row",
        "Position of the draft model in the model catalog (0 = no draft).",
        "Katalog (assumptions/)",
        expr=IFERROR(MATCH(R("draft_model_name"), Col("model", "name")), 0),
        doc_id="Posisi model draf di katalog model (0 = tanpa model draf).",
        source_id="Katalog (assumptions/)",
    ),
    Quantity(
        "draft_weights_gb",
        "Bobot model draf",
        "Draft model weights",
        "Draft parameters × bits per parameter of the chosen quantization ÷ 8 (the formula of the model weights).",
        "Buku, Bab VRAM: params × bytes per param",
        expr=IF(ON, weights_of(DRAFT["params_b"], R("weight_bits_per_param")), 0),
        doc_id=(
            "Parameter model draf × bit per parameter kuantisasi terpilih ÷ 8 (rumus bobot model yang "
            "sama). 0 bila tidak ada model draf."
        ),
        source_id="Buku, bab 14.1: model_weights = jumlah_params × bytes_per_param",
    ),
    Quantity(
        "draft_kv_cache_gb",
        "KV cache model draf, semua pengguna",
        "Draft KV cache, all users",
        "The draft keeps its own KV cache for every user: the KV-cache formula with the draft's layers and heads, "
        "× concurrent users.",
        "Buku, Bab KV Cache: 2 × layers × kv_heads × head_dim × bytes per element",
        expr=IF(
            ON,
            (kv_layer_bytes(DRAFT) * kv_layer_tokens(DRAFT) + state_bytes_of(DRAFT)) / 1e9 * R("concurrent_users"),
            0,
        ),
        doc_id=(
            "Model draf menyimpan KV cache sendiri untuk setiap pengguna: rumus KV cache dengan layer "
            "dan head model draf, × pengguna bersamaan."
        ),
        source_id="Buku, bab 10.2 dan 14.1 (rumus KV cache, dengan K dan V sekali)",
    ),
    Quantity(
        "vram_with_draft_gb",
        "Total VRAM dengan model draf",
        "Total VRAM with the draft model",
        "Total VRAM needed + draft weights + draft KV cache: compare with the VRAM available.",
        "Buku, Bab VRAM: VRAM_total = model_weights + KV_cache + overhead",
        expr=R("vram_total_gb") + R("draft_weights_gb") + R("draft_kv_cache_gb"),
        doc_id=("Total VRAM dibutuhkan + bobot model draf + KV cache model draf; bandingkan dengan VRAM tersedia."),
        source_id="Buku, bab 14.1: VRAM_total = model_weights + KV_cache + overhead",
    ),
    Quantity(
        "spec_tokens_per_step",
        "Token diharapkan per langkah model utama (E)",
        "Expected tokens per step of the chosen model (E)",
        "E = (1 − α^(k+1)) ÷ (1 − α): the accepted proposals plus the one token the check always yields "
        "(k + 1 when α = 1).",
        LEVIATHAN + ", eq. 1",
        expr=IF(
            R("spec_acceptance_frac") < 1,
            (1 - R("spec_acceptance_frac") ** (R("spec_draft_tokens") + 1)) / (1 - R("spec_acceptance_frac")),
            R("spec_draft_tokens") + 1,
        ),
        doc_id=(
            "E = (1 − α^(k+1)) ÷ (1 − α): token usulan yang diterima ditambah satu token yang selalu "
            "dihasilkan pemeriksaan (k + 1 bila α = 1)."
        ),
        source_id="Leviathan dkk. 2023, persamaan 1",
    ),
    Quantity(
        "draft_step_ms",
        "Waktu per langkah model draf",
        "Time per draft step",
        "Like the chosen model's memory-bound step: (draft active weights + draft KV cache) ÷ (bandwidth × GPUs "
        "in parallel × efficiency) + draft layers × cost per layer.",
        "Buku, Bab token/s: tok/s ≈ bandwidth ÷ bytes dibaca per token",
        expr=IF(
            ON,
            safe_div(
                (safe_div(R("draft_weights_gb") * DRAFT["active_params_b"], DRAFT["params_b"]) + R("draft_kv_cache_gb"))
                * 1000,
                R("gpu_mem_bandwidth_gbs") * R("parallel_gpus") * R("decode_efficiency_frac"),
            )
            + DRAFT["layers"] * R("decode_layer_overhead_ms"),
            0,
        ),
        doc_id=(
            "Seperti langkah memory-bound model utama: (bobot aktif model draf + KV cache model draf) ÷ "
            "(bandwidth × GPU paralel × efisiensi) + layer model draf × biaya per layer."
        ),
        source_id="Buku, bab 12.1: tok/s ≈ bandwidth ÷ byte dibaca per token",
    ),
    Quantity(
        "spec_verify_step_ms",
        "Waktu per langkah pemeriksaan model utama",
        "Time per checking step of the chosen model",
        "The decode step with k + 1 tokens per user: weights and KV cache are read once, the compute is k + 1 "
        "times larger, so at large batches the step turns compute-bound.",
        LEVIATHAN + "; roofline model",
        expr=MAX(
            R("memory_bound_step_base_ms") + R("memory_bound_step_per_user_ms") * R("concurrent_users"),
            R("compute_bound_step_base_ms")
            + R("compute_bound_step_per_user_ms") * R("concurrent_users") * (R("spec_draft_tokens") + 1),
        ),
        doc_id=(
            "Langkah decode dengan k + 1 token per pengguna: bobot dan KV cache dibaca sekali, "
            "komputasinya k + 1 kali lipat, sehingga pada batch besar langkah ini menjadi compute-bound "
            "dan percepatannya mengecil."
        ),
        source_id="Leviathan dkk. 2023; model roofline",
    ),
    Quantity(
        "spec_speedup_ratio",
        "Percepatan speculative decoding",
        "Speculative decoding speed-up",
        "E × decode step ÷ (checking step + k × draft step): how many times faster each user receives tokens "
        "(1 without a draft model; below 1 the draft does not pay).",
        LEVIATHAN + "; " + BOOK_SPEC,
        expr=IF(
            ON,
            safe_div(
                R("spec_tokens_per_step") * R("decode_step_ms"),
                R("spec_verify_step_ms") + R("spec_draft_tokens") * R("draft_step_ms"),
            ),
            1,
        ),
        doc_id=(
            "E × langkah decode ÷ (langkah pemeriksaan + k × langkah draf): berapa kali lebih cepat "
            "setiap pengguna menerima token (1 tanpa model draf; di bawah 1 model draf tidak "
            "menguntungkan)."
        ),
        source_id="Leviathan dkk. 2023; buku, bab 3, Skenario B (14 → 6 detik, 2,3×)",
    ),
    Quantity(
        "spec_decode_tok_s",
        "Token/s per pengguna dengan speculative decoding",
        "Tok/s per user with speculative decoding",
        "Tok/s per user × speed-up = E ÷ (checking step + k × draft step); a measured tok/s typed above is scaled "
        "alike. A separate answer: TPOT, capacity and costs keep the plain speed.",
        LEVIATHAN + "; " + BOOK_SPEC,
        expr=R("decode_tok_s") * R("spec_speedup_ratio"),
        doc_id=(
            "Token/s per pengguna × percepatan = E ÷ (langkah pemeriksaan + k × langkah draf); "
            "kecepatan terukur yang diisi di atas ikut diskalakan. Jawaban terpisah: TPOT, kapasitas "
            "dan biaya tetap memakai kecepatan tanpa model draf, karena serving dengan batch besar "
            "mendapat percepatan lebih kecil."
        ),
        source_id="Leviathan dkk. 2023; buku, bab 3, Skenario B",
    ),
)
