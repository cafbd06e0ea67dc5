"""Scenario checks: the status sentence, and which money answers each problem makes untrustworthy.

Each check is written once, with a full sentence for `status_text` and a short phrase that replaces
a number in the answer block (a cost of a setup that cannot run is not an answer).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from kalkulator.expr import IF, NE, NOT, OR, Msg, Node, R
from kalkulator.quantities.base import Quantity

OK = Msg("OK", "OK")


@dataclass(frozen=True)
class Check:
    voids: str  # run (every serving and money answer) | price (on-premise) | cloud | dedicated
    cond: Node
    sentence: Node
    short: Msg
    in_status: bool = True  # False: a missing comparator (no offer in the catalog) is said in its answer cell only


# First failing check wins; each sentence says what to change.
CHECKS = (
    Check(
        "run",
        R("model_params_b") <= 0,
        Msg(
            "Pilih model dari katalog (atau isi parameternya di Isi manual).",
            "Choose a model from the catalog (or type its parameters as manual values).",
        ),
        Msg("pilih model", "choose a model"),
    ),
    Check(
        "run",
        NOT(R("usable_hardware_flag")),
        Msg(
            "Pilih GPU dari katalog: bandwidth, FLOPS atau efisiensi bernilai 0, jadi kecepatan ditampilkan 0.",
            "Choose a GPU from the catalog: bandwidth, FLOPS or an efficiency is 0, so speeds show as 0.",
        ),
        Msg("pilih GPU", "choose a GPU"),
    ),
    Check(
        "run",
        R("weight_bits_per_param") <= 0,
        Msg("Pilih kuantisasi dari katalog.", "Choose a quantization from the catalog."),
        Msg("pilih kuantisasi", "choose a quantization"),
    ),
    Check(
        "run",
        NOT(R("fits_in_vram")),
        Msg(
            "Tidak muat di VRAM: tambah GPU, kurangi konteks atau pengguna, atau pakai kuantisasi lebih kecil.",
            "Does not fit in VRAM: add GPUs, shorten the context or users, or use a smaller quantization.",
        ),
        Msg("tidak muat di VRAM", "does not fit in VRAM"),
    ),
    Check(
        "run",
        NE(R("sla_text"), OK),
        R("sla_text"),
        Msg("target latensi tak tercapai", "latency targets out of reach"),
    ),
    Check(
        "run",
        R("demand_capacity_frac") > 1,
        Msg(
            "Kebutuhan melebihi kapasitas armada dalam target latensi: tambah GPU (GPU yang dibutuhkan).",
            "Demand exceeds the fleet's capacity within the latency targets: add GPUs (GPUs needed).",
        ),
        Msg("melebihi kapasitas armada", "above the fleet's capacity"),
    ),
    Check(
        "price",
        R("gpu_price_usd") <= 0,
        Msg(
            "Harga GPU tidak ada di katalog: biaya on-premise, TCO dan break-even baru benar setelah Anda mengisi "
            "Harga GPU (Isi manual).",
            "The catalog has no price for this GPU: on-premise cost, TCO and break-even hold only once you type "
            "the GPU price (manual value).",
        ),
        Msg("harga GPU belum diisi", "no GPU price"),
    ),
    Check(
        "cloud",
        R("cloud_row") <= 0,
        Msg(
            "Katalog tidak punya penawaran cloud untuk GPU ini: pilih penawaran lain di Isi manual.",
            "The catalog has no cloud offer for this GPU: choose an offer as a manual value.",
        ),
        Msg("tidak ada penawaran cloud", "no cloud offer"),
        in_status=False,
    ),
    Check(
        "cloud",
        NOT(R("cloud_gpu_match_flag")),
        Msg(
            "Penawaran cloud memakai GPU lain dari GPU skenario: biaya cloud per token tidak sebanding.",
            "The cloud offer rents another GPU than the scenario's: its cost per token is not comparable.",
        ),
        Msg("GPU cloud berbeda", "another GPU in the cloud"),
    ),
    Check(
        "dedicated",
        R("dedicated_idr_per_gpu_month") <= 0,
        Msg(
            "Katalog tidak punya sewa dedicated untuk GPU ini: isi penawaran Anda di Isi manual.",
            "The catalog has no dedicated rent for this GPU: type your quote as a manual value.",
        ),
        Msg("tidak ada tarif dedicated", "no dedicated rent"),
        in_status=False,
    ),
)


SHARE_HIGH = {"_frac": 1, "_pct": 100}  # shares are 0–1 (shown as %), rates in percent are 0–100


def share_check(quantities: Iterable[Quantity]) -> Check:
    """One check over every share a user can type: 0–1 for `_frac`, 0–100 for `_pct`; it names the first offender."""
    shares = [
        (q, high)
        for q in quantities
        if (q.is_input or q.overridable) and "_error_" not in q.name  # relative errors are signed
        for suffix, high in SHARE_HIGH.items()
        if q.name.endswith(suffix)
    ]
    sentence: Node = OK
    for q, high in reversed(shares):
        hint_id, hint_en = ("; ketik 0,7 atau 70% untuk 70 %", "; type 0.7 or 70% for 70 %") if high == 1 else ("", "")
        sentence = IF(
            OR(R(q.name) < 0, R(q.name) > high),
            Msg(
                f"Di luar rentang: {q.label_id} ({q.name}) harus 0–{high}{hint_id}.",
                f"Out of range: {q.label_en} ({q.name}) must be 0–{high}{hint_en}.",
            ),
            sentence,
        )
    cond = OR(*(OR(R(q.name) < 0, R(q.name) > high) for q, high in shares))
    return Check("run", cond, sentence, Msg("input di luar rentang", "input out of range"))


def chain(checks: tuple[Check, ...], short: bool) -> Node:
    """IF(first condition, its message, IF(second …, OK))."""
    node: Node = OK
    for check in reversed(checks):
        node = IF(check.cond, check.short if short else check.sentence, node)
    return node


def quantities(others: Iterable[Quantity]) -> tuple[Quantity, ...]:
    """The status and check quantities; the range check covers every share among `others`."""
    checks = (share_check(others), *CHECKS)

    def of(*voids: str) -> tuple[Check, ...]:
        return tuple(c for c in checks if c.voids in voids)

    return (
        Quantity(
            "status_text",
            "Status skenario",
            "Scenario status",
            "The first problem that makes the results unusable or not comparable, or OK.",
            "Consistency checks",
            expr=chain(tuple(c for c in checks if c.in_status), short=False),
        ),
        Quantity(
            "run_check_text",
            "Pemeriksaan: bisa dilayani?",
            "Check: can it serve?",
            "OK, or why the setup cannot serve the workload (every serving and money answer then shows this).",
            "Consistency checks",
            expr=chain(of("run"), short=True),
        ),
        Quantity(
            "onprem_check_text",
            "Pemeriksaan: biaya on-premise",
            "Check: on-premise money",
            "OK, or why on-premise cost, TCO and break-even cannot be trusted.",
            "Consistency checks",
            expr=chain(of("run", "price"), short=True),
        ),
        Quantity(
            "cloud_check_text",
            "Pemeriksaan: biaya cloud",
            "Check: cloud money",
            "OK, or why the cloud cost cannot be compared.",
            "Consistency checks",
            expr=chain(of("run", "cloud"), short=True),
        ),
        Quantity(
            "dedicated_check_text",
            "Pemeriksaan: biaya dedicated",
            "Check: dedicated money",
            "OK, or why the dedicated-server cost cannot be compared.",
            "Consistency checks",
            expr=chain(of("run", "dedicated"), short=True),
        ),
    )
