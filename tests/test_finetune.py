"""Fine-tuning VRAM (full, LoRA, QLoRA), by hand and against the book's 7B example.

Book: *Kalkulasi Token Generation*, L1340–1359 ("Full Fine-Tuning (FP16) — Model 7B", LoRA and QLoRA,
rank 16): weights 14 GB, gradients 14 GB, AdamW 7B × 4 bytes × 2 = 56 GB, activations
"batch=1, seq=4096, hidden=4096, 32 layers = ~2 GB"; totals 86 / 16 / 5.5 GB.
"""

from __future__ import annotations

import pytest

BOOK_7B = {"model_params_b": 7, "model_hidden": 4096, "model_layers": 32}
# The book's activation formula: batch × seq × hidden × 2 bytes × layers = 1 × 4096 × 4096 × 2 × 32.
BOOK_ACTIVATIONS_GB = 1 * 4096 * 4096 * 2 * 32 / 1e9  # 1.0737, not the book's ~2 GB (erratum)


def test_book_example_with_the_books_optimizer_count(calc):
    # The book counts AdamW as two FP32 moments (8 bytes), no FP32 master copy; LoRA trains 0.1 %.
    out = calc(**BOOK_7B, optimizer_bytes_per_param=8, lora_trainable_frac=0.001, finetune_batch_tokens=4096)
    assert out["finetune_activations_gb"] == pytest.approx(BOOK_ACTIVATIONS_GB, rel=1e-12)
    # Full: 14 weights + 14 gradients + 56 optimizer + 1.07 = 85.07 GB (book: 86 with ~2 GB of activations).
    assert out["finetune_full_vram_gb"] == pytest.approx(14 + 14 + 56 + BOOK_ACTIVATIONS_GB, rel=1e-12)
    # LoRA: 14 frozen + 7e6 adapter parameters × (2 weight + 2 gradient + 8) = 0.084 GB + 1.07
    # (the book adds 0.014 + 0.056: it leaves out the adapter's own 16-bit weights, 0.014 GB).
    adapter = 7e9 * 0.001 * (2 + 2 + 8) / 1e9
    assert out["finetune_lora_vram_gb"] == pytest.approx(14 + adapter + BOOK_ACTIVATIONS_GB, rel=1e-12)
    # QLoRA: 7B × 0.5 byte = 3.5 GB + the same adapter + 1.07 = 4.66 GB (book: ~5.5).
    assert out["finetune_qlora_vram_gb"] == pytest.approx(3.5 + adapter + BOOK_ACTIVATIONS_GB, rel=1e-12)
    assert out["finetune_full_vram_gb"] < 86 and out["finetune_qlora_vram_gb"] < 5.5


def test_full_fine_tuning_mixed_precision_adam_is_16_bytes_per_parameter(calc):
    # Default: 2 (bf16 weight) + 2 (bf16 gradient) + 12 (fp32 master + two fp32 moments) = 16 bytes:
    # 7e9 × 16 B = 112 GB, plus activations.
    out = calc(**BOOK_7B, finetune_batch_tokens=4096)
    assert out["optimizer_bytes_per_param"] == 12
    assert out["finetune_full_vram_gb"] == pytest.approx(7e9 * 16 / 1e9 + BOOK_ACTIVATIONS_GB, rel=1e-12)
    assert calc(**BOOK_7B, finetune_batch_tokens=0)["finetune_full_vram_gb"] == pytest.approx(112, rel=1e-12)


@pytest.mark.parametrize(
    ("share", "lora", "qlora"),
    [
        # 7B: frozen 7e9 × 2 B = 14 GB (QLoRA 7e9 × 0.5 B = 3.5 GB) + 7e9 × share × 16 B; no activations.
        (0.001, 14 + 7e9 * 0.001 * 16 / 1e9, 3.5 + 7e9 * 0.001 * 16 / 1e9),  # 14.112 / 3.612
        (0.01, 14 + 7e9 * 0.01 * 16 / 1e9, 3.5 + 7e9 * 0.01 * 16 / 1e9),  # 15.12 / 4.62
        (1.0, 14 + 112, 3.5 + 112),  # training every parameter through adapters costs as much as full FT, plus the base
    ],
)
def test_lora_and_qlora_by_trainable_share(calc, share, lora, qlora):
    out = calc(**BOOK_7B, lora_trainable_frac=share, finetune_batch_tokens=0)
    assert out["finetune_lora_vram_gb"] == pytest.approx(lora, rel=1e-12)
    assert out["finetune_qlora_vram_gb"] == pytest.approx(qlora, rel=1e-12)


def test_catalog_model_llama_3_1_8b(calc):
    # Llama-3.1-8B: 8.03e9 parameters, hidden 4096, 32 layers; 2 sequences of 2,048 tokens = 4,096 tokens.
    out = calc(model_name="Llama-3.1-8B", finetune_batch_tokens=2 * 2048)
    activations = 4096 * 4096 * 32 * 2 / 1e9
    assert out["finetune_full_vram_gb"] == pytest.approx(8.03 * 16 + activations, rel=1e-12)  # 129.55
    assert out["finetune_qlora_vram_gb"] == pytest.approx(8.03 * 0.5 + 8.03 * 0.001 * 16 + activations, rel=1e-12)


def test_fine_tuning_does_not_change_inference_vram(calc):
    assert calc(finetune_batch_tokens=65536)["vram_total_gb"] == calc()["vram_total_gb"]
