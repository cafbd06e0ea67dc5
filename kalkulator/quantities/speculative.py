"""Speculative decoding: a small draft model proposes tokens, the chosen model checks them in one step.

A separate answer beside the plain decode speed (TPOT, capacity and money stay without a draft): the gain is
largest for one user and shrinks at large batches, where the checking step turns compute-bound.
"""

from __future__ import annotations

from kalkulator.expr import IF, IFERROR, INDEX, MATCH, MAX, Col, R, safe_div
from kalkulator.quantities.base import NO_CHOICE, Quantity
from kalkulator.quantities.memory import kv_layer_bytes, kv_layer_tokens, weights_of

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
    ),
    Quantity(
        "spec_draft_tokens",
        "Token usulan per langkah (k)",
        "Tokens proposed per step (k)",
        "Tokens the draft proposes before the chosen model checks them all in one step.",
        BOOK_SPEC,
        default=3,
    ),
    Quantity(
        "spec_acceptance_frac",
        "Tingkat penerimaan token draf (α)",
        "Draft acceptance rate (α)",
        "Chance that the chosen model accepts a proposed token; it depends on the task and how well the draft "
        "matches (often 0.6–0.9 for chat and code with a draft of the same family).",
        LEVIATHAN,
        default=0.7,
    ),
    Quantity(
        "draft_model_row",
        "Baris model draf di katalog",
        "Draft model catalog row",
        "Position of the draft model in the model catalog (0 = no draft).",
        "Katalog (assumptions/)",
        expr=IFERROR(MATCH(R("draft_model_name"), Col("model", "name")), 0),
    ),
    Quantity(
        "draft_weights_gb",
        "Bobot model draf",
        "Draft model weights",
        "Draft parameters × bits per parameter of the chosen quantization ÷ 8 (the formula of the model weights).",
        "Buku, Bab VRAM: params × bytes per param",
        expr=IF(ON, weights_of(DRAFT["params_b"], R("weight_bits_per_param")), 0),
    ),
    Quantity(
        "draft_kv_cache_gb",
        "KV cache model draf, semua pengguna",
        "Draft KV cache, all users",
        "The draft keeps its own KV cache for every user: the KV-cache formula with the draft's layers and heads, "
        "× concurrent users.",
        "Buku, Bab KV Cache: 2 × layers × kv_heads × head_dim × bytes per element",
        expr=IF(ON, kv_layer_bytes(DRAFT) * kv_layer_tokens(DRAFT) / 1e9 * R("concurrent_users"), 0),
    ),
    Quantity(
        "vram_with_draft_gb",
        "Total VRAM dengan model draf",
        "Total VRAM with the draft model",
        "Total VRAM needed + draft weights + draft KV cache: compare with the VRAM available.",
        "Buku, Bab VRAM: VRAM_total = model_weights + KV_cache + overhead",
        expr=R("vram_total_gb") + R("draft_weights_gb") + R("draft_kv_cache_gb"),
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
    ),
    Quantity(
        "spec_decode_tok_s",
        "Token/s per pengguna dengan speculative decoding",
        "Tok/s per user with speculative decoding",
        "Tok/s per user × speed-up = E ÷ (checking step + k × draft step); a measured tok/s typed above is scaled "
        "alike. A separate answer: TPOT, capacity and costs keep the plain speed.",
        LEVIATHAN + "; " + BOOK_SPEC,
        expr=R("decode_tok_s") * R("spec_speedup_ratio"),
    ),
)
