"""Multimodal input: the vision encoder that turns each image into prompt tokens, its weights and its time.

The encoder is chosen apart from the model (catalog `vision_encoders.csv`; "none" = a text-only model). When one
is chosen, its tokens per image replace the workload's, its 16-bit weights sit in VRAM beside the model's, and
encoding each image adds to the prefill time (and so to TTFT and to each request's GPU time).
"""

from __future__ import annotations

from kalkulator.engine.expr import IF, IFERROR, INDEX, MATCH, Col, R, safe_div
from kalkulator.quantities.base import NO_CHOICE, Quantity, lookup

ROW = R("vision_encoder_row")
ON = ROW > 0
BOOK_MM = "Buku, bagian multimodal (encoder ViT, token visual per gambar)"
VIT_FLOPS = "Dosovitskiy dkk. 2021 (ViT): satu lintasan maju ≈ 2 × parameter × panjang urutan FLOP"


def _from_catalog(
    name: str, column: str, labels: tuple[str, str], doc: str, doc_id: str = "", source_id: str = ""
) -> Quantity:
    """A figure of the chosen encoder's catalog row (0 without an encoder); a yellow cell can replace it."""
    value = IF(ON, INDEX(Col("vision", column), ROW), 0)
    return Quantity(
        name, *labels, doc, "Katalog encoder visi", expr=value, overridable=True, doc_id=doc_id, source_id=source_id
    )


QUANTITIES = (
    Quantity(
        "vision_encoder_name",
        "Encoder visi (model multimodal)",
        "Vision encoder (multimodal model)",
        f"The image encoder of a vision-language model, from the vision-encoder catalog; {NO_CHOICE} or blank = a "
        "text-only model (images then count only by the workload's tokens per image).",
        BOOK_MM,
        default=NO_CHOICE,
        choices=("vision", "name"),
        optional=True,
        doc_id=(
            "Encoder gambar dari model visi-bahasa, dari katalog encoder visi; none atau kosong = model "
            "teks saja (gambar dihitung hanya dengan token per gambar dari profil beban kerja)."
        ),
        source_id="Buku, bagian multimodal (encoder ViT, token visual per gambar)",
    ),
    Quantity(
        "vision_encoder_row",
        "Baris encoder visi di katalog",
        "Vision encoder catalog row",
        "Position of the vision encoder in its catalog (0 = none).",
        "Katalog (assumptions/)",
        expr=IFERROR(MATCH(R("vision_encoder_name"), Col("vision", "name")), 0),
        doc_id="Posisi encoder visi di katalognya (0 = tidak ada).",
        source_id="Katalog (assumptions/)",
    ),
    _from_catalog(
        "vision_encoder_params_b",
        "params_b",
        ("Parameter encoder visi", "Vision encoder parameters"),
        "The encoder's parameters from its catalog row (0 without an encoder).",
        doc_id="Parameter encoder dari baris katalognya (0 tanpa encoder).",
        source_id="Katalog encoder visi",
    ),
    _from_catalog(
        "vision_image_patches",
        "patches_per_image",
        ("Patch per gambar", "Patches per image"),
        "Patches the encoder computes for one image (its sequence length; more than the tokens when it merges "
        "or pools patches).",
        doc_id=(
            "Patch yang dihitung encoder untuk satu gambar (panjang urutannya; lebih banyak dari token "
            "bila encoder menggabungkan atau merata-ratakan patch)."
        ),
        source_id="Katalog encoder visi",
    ),
    Quantity(
        "vision_encoder_weights_gb",
        "Bobot encoder visi",
        "Vision encoder weights",
        "Encoder parameters × 2 bytes: encoders stay at 16 bits beside a quantized model (llama.cpp's mmproj "
        "files, vLLM).",
        BOOK_MM,
        expr=R("vision_encoder_params_b") * 2,
        doc_id=(
            "Parameter encoder × 2 byte: encoder tetap 16 bit di samping model yang dikuantisasi (file "
            "mmproj llama.cpp, vLLM)."
        ),
        source_id="Buku, bagian multimodal (encoder ViT, token visual per gambar)",
    ),
    lookup(
        "vision_encode_efficiency_frac",
        "speed",
        "prefill_efficiency_frac",
        "Efisiensi komputasi encoder visi",
        "Vision encoder compute efficiency",
        "Share of the FP16 peak the encoder reaches: the engine's prefill efficiency for float weights.",
        doc_id="Porsi puncak FP16 yang dicapai encoder: efisiensi prefill mesin untuk bobot float.",
        source_id="Katalog parameter kecepatan, kolom 'Efisiensi prefill (0–1)'",
    ),
    Quantity(
        "vision_encode_image_ms",
        "Waktu encode per gambar",
        "Encoding time per image",
        "2 × encoder parameters × patches ÷ (FP16 peak of one GPU × efficiency): the encoder's matrix "
        "multiplies; attention over the patches is left out (under 10 % at 576 patches, more at thousands).",
        VIT_FLOPS,
        expr=safe_div(
            2 * R("vision_encoder_params_b") * 1e9 * R("vision_image_patches"),
            R("gpu_fp16_tflops") * 1e12 * R("vision_encode_efficiency_frac"),
        )
        * 1000,
        doc_id=(
            "2 × parameter encoder × patch ÷ (puncak FP16 satu GPU × efisiensi): perkalian matriks "
            "encoder; attention antar-patch diabaikan (di bawah 10 % pada 576 patch, lebih besar pada "
            "ribuan patch)."
        ),
        source_id="Dosovitskiy dkk. 2021 (ViT): satu lintasan maju ≈ 2 × parameter × panjang urutan FLOP",
    ),
    Quantity(
        "vision_encode_s",
        "Waktu encode gambar per permintaan",
        "Image encoding time per request",
        "Images per request × encoding time per image: added to the prefill time.",
        VIT_FLOPS,
        expr=R("request_images") * R("vision_encode_image_ms") / 1000,
        doc_id="Gambar per permintaan × waktu encode per gambar: ditambahkan ke waktu prefill.",
        source_id="Dosovitskiy dkk. 2021 (ViT): satu lintasan maju ≈ 2 × parameter × panjang urutan FLOP",
    ),
)
