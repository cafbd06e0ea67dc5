"""The answer block's money figures: the number when it can be trusted, otherwise why not.

A cost of a setup that cannot run (does not fit, misses its latency targets, runs over capacity) or that
has no price is not an answer; the answer block shows the short reason instead, in the same cell.
The quantities behind them (cost_idr_per_1m_tokens, tco_idr, …) stay numbers for the sheets and scripts.
"""

from __future__ import annotations

from kalkulator.engine.expr import EQ, IF, JOIN, OR, Msg, R
from kalkulator.quantities.base import Quantity
from kalkulator.quantities.checks import OK

SUMMARY = "Ringkasan: angka dari sheet asalnya, atau alasan angka itu tidak bisa dipakai"


def guarded(name: str, check: str, label_id: str, label_en: str, doc_id: str = "", source_id: str = "") -> Quantity:
    """`answer_<name>`: the value of `name` when `check` is OK, else the check's short reason."""
    return Quantity(
        f"answer_{name}",
        label_id,
        label_en,
        f"{name} when {check} is OK; otherwise the reason it cannot be trusted.",
        SUMMARY,
        expr=IF(EQ(R(check), OK), R(name), R(check)),
        doc_id=doc_id,
        source_id=source_id,
    )


def mode_label(name: str, check: str, label_id: str, label_en: str, doc_id: str = "", source_id: str = "") -> Quantity:
    """The TCO chart's category for a deployment mode: its name, and the reason when it has no comparable figure
    (no dedicated rent, no cloud offer…), so the chart never shows a missing offer as an empty, free-looking bar."""
    return Quantity(
        name,
        f"Label grafik: {label_id}",
        f"Chart label: {label_en}",
        f"The mode's name, followed by {check}'s reason when that is not OK.",
        SUMMARY,
        expr=IF(EQ(R(check), OK), Msg(label_id, label_en), JOIN(Msg(f"{label_id}: ", f"{label_en}: "), R(check))),
        doc_id=doc_id,
        source_id=source_id,
    )


# The speed and serving answers of the answer block: a number only when the setup can run at all (speed_check_text).
SPEED_ANSWERS = (
    ("decode_tok_s", "Token/s per pengguna (realistis)", "Tok/s per user (realistic)"),
    ("ttft_idle_s", "TTFT replika menganggur, termasuk jaringan", "TTFT on an idle replica, network included"),
    ("ttft_s", "TTFT pada beban (di server, tanpa jaringan)", "TTFT at load (at the server, no network)"),
    ("ttft_fast_s", "TTFT, ujung cepat", "TTFT, fast end"),
    ("ttft_slow_s", "TTFT, ujung lambat", "TTFT, slow end"),
    ("ttft_p95_s", "TTFT persentil ke-95", "TTFT, 95th percentile"),
    ("ttft_p99_s", "TTFT persentil ke-99", "TTFT, 99th percentile"),
    ("tpot_ms", "TPOT (waktu per token output)", "TPOT (time per output token)"),
    ("tpot_at_load_ms", "TPOT pada beban", "TPOT at load"),
    ("tpot_p95_ms", "TPOT persentil ke-95", "TPOT, 95th percentile"),
    ("tpot_p99_ms", "TPOT persentil ke-99", "TPOT, 99th percentile"),
    (
        "sla_max_concurrent_users",
        "Pengguna bersamaan dalam target (per replika)",
        "Concurrent users within the targets (per replica)",
    ),
    ("gpus_needed", "GPU yang dibutuhkan (armada)", "GPUs needed (fleet)"),
    ("servers_needed", "Server yang dibutuhkan", "Servers needed"),
)

QUALITY = "Quantization catalog (quality_loss_pct, quality_metric) and workload presets (max_quality_loss_pct)"
QUALITY_ID = "Katalog kuantisasi (quality_loss_pct, quality_metric) dan profil beban kerja (max_quality_loss_pct)"

QUANTITIES = (
    *(
        guarded(
            name,
            "speed_check_text",
            label_id,
            label_en,
            doc_id=f"{name} bila speed_check_text bernilai OK; selain itu alasan konfigurasi ini tidak bisa berjalan.",
        )
        for name, label_id, label_en in SPEED_ANSWERS
    ),
    Quantity(
        "answer_quality_loss_frac",
        "Penurunan kualitas format (dipublikasikan)",
        "Published quality loss of the format",
        "The chosen format's published quality loss against 16-bit weights (quant_quality_loss_frac: perplexity "
        "increase or 100 − benchmark recovery), or 'no public measurement' when none is published.",
        QUALITY,
        expr=IF(
            EQ(R("quant_quality_metric_type"), "none"),
            Msg("tidak ada pengukuran publik", "no public measurement"),
            R("quant_quality_loss_frac"),
        ),
        doc_id="Penurunan kualitas format terpilih yang dipublikasikan terhadap bobot 16-bit (quant_quality_loss_frac: "
        "kenaikan perplexity atau 100 − pemulihan benchmark), atau 'tidak ada pengukuran publik' bila tidak ada.",
        source_id=QUALITY_ID,
    ),
    Quantity(
        "quality_floor_flag",
        "Format dalam batas kualitas",
        "Format within the quality floor",
        "TRUE when the format's published loss is at most max_quality_loss_frac, or when no measurement is "
        "published (kept with a caveat: nothing says it is worse); FALSE when it is published and larger.",
        QUALITY,
        expr=OR(
            EQ(R("quant_quality_metric_type"), "none"),
            R("quant_quality_loss_frac") <= R("max_quality_loss_frac"),
        ),
        doc_id="TRUE bila penurunan yang dipublikasikan paling besar max_quality_loss_frac, atau bila tidak ada "
        "pengukuran publik (tetap dipakai dengan catatan); FALSE bila dipublikasikan dan lebih besar.",
        source_id=QUALITY_ID,
    ),
    guarded(
        "cost_idr_per_1m_tokens",
        "onprem_check_text",
        "On-premise: Rp per 1 juta token",
        "On-premise: Rp per 1M tokens",
        doc_id=(
            "cost_idr_per_1m_tokens bila onprem_check_text bernilai OK; selain itu alasan angka "
            "tersebut tidak bisa dipercaya."
        ),
    ),
    guarded(
        "cloud_cost_idr_per_1m_tokens",
        "cloud_check_text",
        "Cloud GPU: Rp per 1 juta token",
        "Cloud GPU: Rp per 1M tokens",
        doc_id=(
            "cloud_cost_idr_per_1m_tokens bila cloud_check_text bernilai OK; selain itu alasan angka "
            "tersebut tidak bisa dipercaya."
        ),
    ),
    guarded(
        "tco_idr",
        "onprem_check_text",
        "TCO on-premise",
        "On-premise TCO",
        doc_id=("tco_idr bila onprem_check_text bernilai OK; selain itu alasan angka tersebut tidak bisa dipercaya."),
    ),
    guarded(
        "tco_colocation_idr",
        "onprem_check_text",
        "TCO colocation",
        "Colocation TCO",
        doc_id=(
            "tco_colocation_idr bila onprem_check_text bernilai OK; selain itu alasan angka tersebut "
            "tidak bisa dipercaya."
        ),
    ),
    guarded(
        "tco_dedicated_idr",
        "dedicated_check_text",
        "TCO dedicated",
        "Dedicated TCO",
        doc_id=(
            "tco_dedicated_idr bila dedicated_check_text bernilai OK; selain itu alasan angka tersebut "
            "tidak bisa dipercaya."
        ),
    ),
    guarded(
        "tco_cloud_idr",
        "cloud_check_text",
        "TCO cloud GPU",
        "Cloud GPU TCO",
        doc_id=(
            "tco_cloud_idr bila cloud_check_text bernilai OK; selain itu alasan angka tersebut tidak bisa dipercaya."
        ),
    ),
    Quantity(
        "answer_tco_cloud_spot_idr",
        "TCO cloud GPU spot",
        "Spot cloud GPU TCO",
        "tco_cloud_spot_idr when cloud_check_text is OK and the offer lists a spot price; otherwise why not. Spot "
        "instances can be stopped at short notice.",
        SUMMARY,
        expr=IF(
            EQ(R("cloud_check_text"), OK),
            IF(
                R("cloud_spot_usd_per_hour") > 0,
                R("tco_cloud_spot_idr"),
                Msg("tidak ada harga spot untuk penawaran ini", "no spot price for this offer"),
            ),
            R("cloud_check_text"),
        ),
        doc_id="tco_cloud_spot_idr bila cloud_check_text bernilai OK dan penawaran mencantumkan harga spot; selain "
        "itu alasannya. Instance spot bisa dihentikan sewaktu-waktu.",
    ),
    guarded(
        "breakeven_months",
        "onprem_check_text",
        "Break-even vs API",
        "Break-even vs the API",
        doc_id=(
            "breakeven_months bila onprem_check_text bernilai OK; selain itu alasan angka tersebut "
            "tidak bisa dipercaya."
        ),
    ),
    guarded(
        "onprem_cost_idr_per_month",
        "onprem_check_text",
        "On-premise per bulan (semua biaya)",
        "On-premise per month (all-in)",
        doc_id=("Biaya on-premise per bulan bila pemeriksaannya OK; selain itu alasan angka itu tidak bisa dipakai."),
        source_id="Ringkasan: angka dari sheet asalnya",
    ),
    guarded(
        "colocation_cost_idr_per_month",
        "onprem_check_text",
        "Colocation per bulan (semua biaya)",
        "Colocation per month (all-in)",
        doc_id=("Biaya colocation per bulan bila pemeriksaannya OK; selain itu alasan angka itu tidak bisa dipakai."),
        source_id="Ringkasan: angka dari sheet asalnya",
    ),
    guarded(
        "cloud_idr_per_month",
        "cloud_check_text",
        "Cloud GPU per bulan",
        "Cloud GPUs per month",
        doc_id=("Biaya cloud GPU per bulan bila pemeriksaannya OK; selain itu alasan angka itu tidak bisa dipakai."),
        source_id="Ringkasan: angka dari sheet asalnya",
    ),
    guarded(
        "hybrid_cost_idr_per_month",
        "onprem_check_text",
        "Hybrid per bulan",
        "Hybrid per month",
        doc_id=("Biaya hybrid per bulan bila pemeriksaannya OK; selain itu alasan angka itu tidak bisa dipakai."),
        source_id="Ringkasan: angka dari sheet asalnya",
    ),
    guarded(
        "premium_breakeven_months",
        "onprem_check_text",
        "Break-even vs API premium",
        "Break-even vs the premium API",
        doc_id=("Break-even vs API premium bila pemeriksaannya OK; selain itu alasan angka itu tidak bisa dipakai."),
        source_id="Ringkasan: angka dari sheet asalnya",
    ),
    mode_label(
        "tco_onprem_chart_text",
        "onprem_check_text",
        "On-premise",
        "On-premise",
        doc_id=(
            "Nama mode untuk grafik TCO, diikuti alasan dari onprem_check_text bila tidak OK (mis. "
            "tidak ada penawaran), agar grafik tidak menampilkan batang kosong yang terbaca gratis."
        ),
    ),
    mode_label(
        "tco_colocation_chart_text",
        "onprem_check_text",
        "Colocation",
        "Colocation",
        doc_id=(
            "Nama mode untuk grafik TCO, diikuti alasan dari onprem_check_text bila tidak OK (mis. "
            "tidak ada penawaran), agar grafik tidak menampilkan batang kosong yang terbaca gratis."
        ),
    ),
    mode_label(
        "tco_dedicated_chart_text",
        "dedicated_check_text",
        "Dedicated",
        "Dedicated",
        doc_id=(
            "Nama mode untuk grafik TCO, diikuti alasan dari dedicated_check_text bila tidak OK (mis. "
            "tidak ada penawaran), agar grafik tidak menampilkan batang kosong yang terbaca gratis."
        ),
    ),
    mode_label(
        "tco_cloud_chart_text",
        "cloud_check_text",
        "Cloud GPU",
        "Cloud GPU",
        doc_id=(
            "Nama mode untuk grafik TCO, diikuti alasan dari cloud_check_text bila tidak OK (mis. tidak "
            "ada penawaran), agar grafik tidak menampilkan batang kosong yang terbaca gratis."
        ),
    ),
)
