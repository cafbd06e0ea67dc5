"""Fine-tuning memory of the chosen model: full fine-tuning, LoRA and QLoRA (weights, gradients, optimizer,
activations), beside the inference VRAM it does not change.
"""

from __future__ import annotations

from kalkulator.engine.expr import Node, R
from kalkulator.quantities.base import Quantity
from kalkulator.quantities.memory import weights_of

BOOK_FT = "Buku, contoh VRAM fine-tuning model 7B (full, LoRA, QLoRA)"
MIXED_ADAM = "Rajbhandari et al. 2020 (ZeRO): Adam mixed precision 2 + 2 + 12 byte per parameter"

# Bytes per trained parameter besides the optimizer: a 16-bit weight and its 16-bit gradient.
WEIGHT_AND_GRADIENT_BYTES = 2 + 2
# Bytes per activation value kept for the backward pass (16-bit).
ACTIVATION_BYTES = 2


def trained(params_b: Node) -> Node:
    """GB held per trained parameter: 16-bit weight + 16-bit gradient + optimizer states."""
    return params_b * (WEIGHT_AND_GRADIENT_BYTES + R("optimizer_bytes_per_param"))


ADAPTER = R("model_params_b") * R("lora_trainable_frac")

QUANTITIES = (
    Quantity(
        "optimizer_bytes_per_param",
        "Byte optimizer per parameter yang dilatih",
        "Optimizer bytes per trained parameter",
        "AdamW in mixed precision keeps an FP32 master copy and two FP32 moments: 4 + 4 + 4 = 12 bytes "
        "(8 without the master copy, as the book counts; 8-bit Adam ≈ 2 + 4 master).",
        MIXED_ADAM,
        default=12,
        doc_id=(
            "AdamW presisi campuran menyimpan salinan master FP32 dan dua momen FP32: 4 + 4 + 4 = 12 "
            "byte per parameter yang dilatih. Buku menghitung 8 (tanpa salinan master); Adam 8-bit ≈ 2 "
            "+ 4 master."
        ),
        source_id="Rajbhandari dkk. 2020 (ZeRO): Adam presisi campuran 2 + 2 + 12 byte per parameter",
    ),
    Quantity(
        "lora_trainable_frac",
        "Porsi parameter yang dilatih LoRA",
        "Share of parameters LoRA trains",
        "Adapter parameters ÷ model parameters (rank 16 on the attention projections of a 7B model ≈ 0.1 %; "
        "on every linear layer ≈ 0.5 %).",
        BOOK_FT + "; Hu et al. 2021 (LoRA)",
        default=0.001,
        doc_id=(
            "Parameter adapter ÷ parameter model. Rank 16 pada proyeksi attention model 7B ≈ 0,1 % "
            "(angka buku); pada semua layer linear ≈ 0,5 %."
        ),
        source_id="Buku, contoh VRAM fine-tuning model 7B (LoRA rank 16: 0,1 %); Hu dkk. 2021 (LoRA)",
    ),
    Quantity(
        "finetune_batch_tokens",
        "Token per micro-batch fine-tuning",
        "Tokens per fine-tuning micro-batch",
        "Sequences per micro-batch × sequence length (1 × 4,096 in the book's example).",
        BOOK_FT,
        default=4096,
        doc_id="Sekuens per micro-batch × panjang sekuens (contoh buku: 1 × 4.096).",
        source_id="Buku, contoh VRAM fine-tuning model 7B",
    ),
    Quantity(
        "finetune_activations_gb",
        "Aktivasi fine-tuning",
        "Fine-tuning activations",
        "Tokens × hidden size × layers × 2 bytes: one 16-bit hidden state per layer and token, the book's rule "
        "(with activation checkpointing; without it activations are roughly 10–20× larger).",
        BOOK_FT + "; Korthikanti et al. 2022 (activation recomputation)",
        expr=R("finetune_batch_tokens") * R("model_hidden") * R("model_layers") * ACTIVATION_BYTES / 1e9,
        doc_id=(
            "Token × dimensi hidden × layer × 2 byte: satu hidden state 16 bit per layer dan token, "
            "aturan buku (dengan activation checkpointing; tanpanya aktivasi kira-kira 10–20× lebih "
            "besar)."
        ),
        source_id="Buku, contoh VRAM fine-tuning model 7B; Korthikanti dkk. 2022 (activation recomputation)",
    ),
    Quantity(
        "finetune_full_vram_gb",
        "VRAM full fine-tuning",
        "VRAM for full fine-tuning",
        "Parameters × (2 weight + 2 gradient + optimizer bytes) + activations; add the runtime overhead per GPU. "
        "With 12 optimizer bytes: 16 bytes per parameter (7B: 112 GB + activations).",
        BOOK_FT + "; " + MIXED_ADAM,
        expr=trained(R("model_params_b")) + R("finetune_activations_gb"),
        doc_id=(
            "Parameter × (2 byte bobot + 2 byte gradien + byte optimizer) + aktivasi; tambahkan "
            "overhead runtime per GPU. Dengan 12 byte optimizer: 16 byte per parameter (7B: 112 GB + "
            "aktivasi)."
        ),
        source_id="Buku, contoh VRAM fine-tuning model 7B; Rajbhandari dkk. 2020 (ZeRO)",
    ),
    Quantity(
        "finetune_lora_vram_gb",
        "VRAM LoRA",
        "VRAM for LoRA",
        "Frozen 16-bit weights (the model-weights formula at 16 bits) + adapter parameters × (2 + 2 + optimizer "
        "bytes) + activations.",
        BOOK_FT + "; Hu et al. 2021 (LoRA)",
        expr=weights_of(R("model_params_b"), 16) + trained(ADAPTER) + R("finetune_activations_gb"),
        doc_id=(
            "Bobot beku 16 bit (rumus bobot model pada 16 bit) + parameter adapter × (2 + 2 + byte "
            "optimizer) + aktivasi."
        ),
        source_id="Buku, contoh VRAM LoRA model 7B; Hu dkk. 2021 (LoRA)",
    ),
    Quantity(
        "finetune_qlora_vram_gb",
        "VRAM QLoRA",
        "VRAM for QLoRA",
        "Frozen 4-bit weights (NF4; its scales add ≈ 0.13 bit) + adapter as in LoRA + activations.",
        BOOK_FT + "; Dettmers et al. 2023 (QLoRA)",
        expr=weights_of(R("model_params_b"), 4) + trained(ADAPTER) + R("finetune_activations_gb"),
        doc_id="Bobot beku 4 bit (NF4; skalanya menambah ≈ 0,13 bit) + adapter seperti LoRA + aktivasi.",
        source_id="Buku, contoh VRAM QLoRA model 7B dan bab 7.4; Dettmers dkk. 2023 (QLoRA)",
    ),
)
