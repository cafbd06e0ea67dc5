"""Scenario status: one readable sentence saying what makes the numbers unusable, or OK."""

from __future__ import annotations

from kalkulator.expr import IF, NE, NOT, Msg, R
from kalkulator.quantities.base import Quantity

# First failing check wins; each message says what to change.
CHECKS = (
    (
        R("model_params_b") <= 0,
        Msg(
            "Pilih model dari katalog (atau isi parameternya di Isi manual).",
            "Choose a model from the catalog (or type its parameters as manual values).",
        ),
    ),
    (
        NOT(R("usable_hardware_flag")),
        Msg(
            "Pilih GPU dari katalog: bandwidth, FLOPS atau efisiensi bernilai 0, jadi kecepatan ditampilkan 0.",
            "Choose a GPU from the catalog: bandwidth, FLOPS or an efficiency is 0, so speeds show as 0.",
        ),
    ),
    (
        R("weight_bits_per_param") <= 0,
        Msg("Pilih kuantisasi dari katalog.", "Choose a quantization from the catalog."),
    ),
    (
        NOT(R("fits_in_vram")),
        Msg(
            "Tidak muat di VRAM: tambah GPU, kurangi konteks atau pengguna, atau pakai kuantisasi lebih kecil.",
            "Does not fit in VRAM: add GPUs, shorten the context or users, or use a smaller quantization.",
        ),
    ),
    (
        NE(R("sla_text"), Msg("OK", "OK")),
        R("sla_text"),
    ),
    (
        R("gpu_price_usd") <= 0,
        Msg(
            "Harga GPU tidak ada di katalog: biaya on-premise, TCO dan break-even baru benar setelah Anda mengisi "
            "Harga GPU atau Total belanja modal (Isi manual).",
            "The catalog has no price for this GPU: on-premise cost, TCO and break-even hold only once you type "
            "the GPU price or the total capex (manual value).",
        ),
    ),
    (
        R("demand_capacity_frac") > 1,
        Msg(
            "Kebutuhan melebihi kapasitas armada dalam target latensi: tambah GPU (GPU yang dibutuhkan).",
            "Demand exceeds the fleet's capacity within the latency targets: add GPUs (GPUs needed).",
        ),
    ),
    (
        NOT(R("cloud_gpu_match_flag")),
        Msg(
            "Penawaran cloud memakai GPU lain dari GPU skenario: biaya cloud per token tidak sebanding.",
            "The cloud offer rents another GPU than the scenario's: its cost per token is not comparable.",
        ),
    ),
)


def _chain(index: int = 0):
    if index == len(CHECKS):
        return Msg("OK", "OK")
    cond, message = CHECKS[index]
    return IF(cond, message, _chain(index + 1))


QUANTITIES = (
    Quantity(
        "status_text",
        "Status skenario",
        "Scenario status",
        "The first problem that makes the results unusable or not comparable, or OK.",
        "Consistency checks",
        expr=_chain(),
    ),
)
