"""A real hybrid: a base fleet for the steady load, the peaks to the API or to cloud GPUs by the hour.

The day's load has two levels: the peak (peak ÷ average × the average) for the peak hours, and the level that
keeps the active hours' average for the rest. The base fleet covers a share of the peak; what lies above it
goes to the cheaper of the API and cloud GPUs rented for those hours.
"""

from __future__ import annotations

from kalkulator.engine.expr import AND, IF, MAX, MIN, ROUND, ROUNDUP, Node, R, safe_div
from kalkulator.quantities.base import Quantity
from kalkulator.quantities.breakeven import breakeven_or_why

BOOK_HYBRID = "Buku, Bab 17 studi kasus retail: baseline on-premise + API burst untuk beban puncak"
SHAPE = "Dua tingkat beban: puncak selama jam puncak, sisanya tingkat yang menjaga rata-rata jam aktif"


def _peak() -> Node:
    return MAX(1, R("peak_to_average_ratio"))


def _peak_hours() -> Node:
    return MIN(R("peak_hours_per_day"), R("active_hours_per_day"))


QUANTITIES = (
    Quantity(
        "hybrid_base_frac",
        "Porsi puncak yang dilayani armada dasar (hybrid)",
        "Share of the peak the base fleet serves (hybrid)",
        "The owned fleet is sized for this share of the peak; default the average load (average ÷ peak = 1 ÷ the "
        "peak-to-average ratio). 1 = all on-premise.",
        BOOK_HYBRID,
        expr=1 / _peak(),
        overridable=True,
        doc_id=(
            "Porsi beban puncak yang dilayani armada milik sendiri; bawaannya beban rata-rata "
            "(rata-rata ÷ puncak = 1 ÷ rasio puncak). 1 = seluruhnya on-premise."
        ),
        source_id="Buku, bab 17 studi kasus retail: baseline on-premise + API burst untuk beban puncak",
    ),
    Quantity(
        "peak_hours_per_day",
        "Jam puncak per hari",
        "Peak hours per day",
        "Hours a day the load stands at the peak (1: the busiest hour the peak-to-average ratio describes).",
        SHAPE,
        default=1,
        doc_id=("Jam per hari saat beban berada di puncak (1: jam tersibuk yang dijelaskan rasio puncak ÷ rata-rata)."),
        source_id=("Dua tingkat beban: puncak selama jam puncak, sisanya tingkat yang menjaga rata-rata jam aktif"),
    ),
    Quantity(
        "offpeak_to_average_ratio",
        "Beban di luar puncak ÷ rata-rata",
        "Off-peak load ÷ average",
        "(Active hours − peak ratio × peak hours) ÷ (active hours − peak hours), at least 0: the level that keeps "
        "the average over the active hours.",
        SHAPE,
        expr=IF(
            R("active_hours_per_day") > _peak_hours(),
            MAX(0, (R("active_hours_per_day") - _peak() * _peak_hours()) / (R("active_hours_per_day") - _peak_hours())),
            0,
        ),
        doc_id=(
            "(Jam aktif − rasio puncak × jam puncak) ÷ (jam aktif − jam puncak), paling kecil 0: "
            "tingkat beban yang menjaga rata-rata jam aktif."
        ),
        source_id=("Dua tingkat beban: puncak selama jam puncak, sisanya tingkat yang menjaga rata-rata jam aktif"),
    ),
    Quantity(
        "hybrid_base_gpus",
        "GPU armada dasar (hybrid)",
        "Base fleet GPUs (hybrid)",
        "Fleet GPUs × the base share, rounded up to whole replicas.",
        BOOK_HYBRID,
        expr=ROUNDUP(ROUND(safe_div(R("gpus_needed") * R("hybrid_base_frac"), R("n_gpus")), 9), 0) * R("n_gpus"),
        doc_id="GPU armada × porsi dasar, dibulatkan ke atas ke replika utuh.",
        source_id="Buku, bab 17 studi kasus retail: baseline on-premise + API burst untuk beban puncak",
    ),
    Quantity(
        "hybrid_fleet_frac",
        "Armada dasar ÷ armada penuh",
        "Base fleet ÷ full fleet",
        "Base fleet GPUs ÷ fleet GPUs: the share of the capex, maintenance and staff the hybrid keeps.",
        BOOK_HYBRID,
        expr=MIN(1, safe_div(R("hybrid_base_gpus"), R("gpus_needed"))),
        doc_id=("GPU armada dasar ÷ GPU armada: porsi capex, pemeliharaan dan SDM yang dipertahankan hybrid."),
        source_id="Buku, bab 17 studi kasus retail: baseline on-premise + API burst untuk beban puncak",
    ),
    Quantity(
        "hybrid_overflow_frac",
        "Porsi token di atas armada dasar",
        "Share of tokens above the base fleet",
        "[peak hours × max(0, peak ratio − base level) + the other active hours × max(0, off-peak level − base "
        "level)] ÷ active hours, with the base level = base share × peak ratio (in units of the average load).",
        SHAPE,
        expr=MIN(
            1,
            (
                _peak_hours() * MAX(0, _peak() - R("hybrid_base_frac") * _peak())
                + (R("active_hours_per_day") - _peak_hours())
                * MAX(0, R("offpeak_to_average_ratio") - R("hybrid_base_frac") * _peak())
            )
            / R("active_hours_per_day"),
        ),
        doc_id=(
            "[jam puncak × maks(0, rasio puncak − tingkat dasar) + jam aktif lain × maks(0, tingkat di "
            "luar puncak − tingkat dasar)] ÷ jam aktif; tingkat dasar = porsi dasar × rasio puncak "
            "(dalam satuan beban rata-rata)."
        ),
        source_id=("Dua tingkat beban: puncak selama jam puncak, sisanya tingkat yang menjaga rata-rata jam aktif"),
    ),
    Quantity(
        "hybrid_burst_hours_per_day",
        "Jam beban di atas armada dasar",
        "Hours above the base fleet",
        "Peak hours when the peak is above the base level, + the other active hours when the off-peak level is.",
        SHAPE,
        expr=IF(R("hybrid_base_frac") < 1, _peak_hours(), 0)
        + IF(
            R("offpeak_to_average_ratio") > R("hybrid_base_frac") * _peak(),
            R("active_hours_per_day") - _peak_hours(),
            0,
        ),
        doc_id=(
            "Jam puncak bila puncak di atas tingkat dasar, + jam aktif lain bila tingkat di luar puncak "
            "juga di atasnya."
        ),
        source_id=("Dua tingkat beban: puncak selama jam puncak, sisanya tingkat yang menjaga rata-rata jam aktif"),
    ),
    Quantity(
        "hybrid_api_idr_per_month",
        "Burst ke API per bulan",
        "Burst to the API per month",
        "API cost per month × the share of tokens above the base fleet.",
        BOOK_HYBRID,
        expr=R("api_cost_idr_per_month") * R("hybrid_overflow_frac"),
        doc_id="Biaya API per bulan × porsi token di atas armada dasar.",
        source_id="Buku, bab 17 studi kasus retail: baseline on-premise + API burst untuk beban puncak",
    ),
    Quantity(
        "hybrid_cloud_idr_per_month",
        "Burst ke cloud GPU per bulan",
        "Burst to cloud GPUs per month",
        "The GPUs beyond the base fleet rented by the hour for the hours above it: cloud cost per GPU-hour × (fleet "
        "GPUs − base GPUs) × those hours × days per month.",
        BOOK_HYBRID,
        expr=R("cloud_idr_per_gpu_hour")
        * (R("gpus_needed") - R("hybrid_base_gpus"))
        * R("hybrid_burst_hours_per_day")
        * R("month_days"),
        doc_id=(
            "GPU di luar armada dasar disewa per jam untuk jam di atasnya: biaya cloud per GPU-jam × "
            "(GPU armada − GPU dasar) × jam itu × hari per bulan."
        ),
        source_id="Buku, bab 17 studi kasus retail: baseline on-premise + API burst untuk beban puncak",
    ),
    Quantity(
        "hybrid_burst_idr_per_month",
        "Burst per bulan (yang lebih murah)",
        "Burst per month (the cheaper)",
        "The cheaper of the API and cloud GPUs for the load above the base fleet (the API when no cloud offer "
        "rents this GPU).",
        BOOK_HYBRID,
        expr=IF(
            AND(R("cloud_idr_per_gpu_hour") > 0, R("cloud_gpu_match_flag")),
            MIN(R("hybrid_api_idr_per_month"), R("hybrid_cloud_idr_per_month")),
            R("hybrid_api_idr_per_month"),
        ),
        doc_id=(
            "Yang lebih murah antara API dan cloud GPU untuk beban di atas armada dasar (API bila tidak "
            "ada penawaran cloud untuk GPU ini)."
        ),
        source_id="Buku, bab 17 studi kasus retail: baseline on-premise + API burst untuk beban puncak",
    ),
    Quantity(
        "hybrid_energy_ratio",
        "Listrik armada dasar ÷ armada penuh",
        "Base fleet electricity ÷ full fleet",
        "[duty × (1 − overflow) × (1 − idle share) + base fleet share × idle share] ÷ [duty × (1 − idle share) + "
        "idle share]: the base fleet does the served work of the full fleet less the burst and idles less.",
        "Buku, Bab 16.1 (daya beban dan idle)",
        expr=safe_div(
            R("duty_cycle_frac") * (1 - R("hybrid_overflow_frac")) * (1 - R("idle_power_frac"))
            + R("hybrid_fleet_frac") * R("idle_power_frac"),
            R("duty_cycle_frac") * (1 - R("idle_power_frac")) + R("idle_power_frac"),
        ),
        doc_id=(
            "[duty × (1 − porsi burst) × (1 − porsi idle) + porsi armada dasar × porsi idle] ÷ [duty × "
            "(1 − porsi idle) + porsi idle]: armada dasar mengerjakan kerja armada penuh dikurangi "
            "burst dan lebih jarang idle."
        ),
        source_id="Buku, bab 16.1 (daya beban dan idle)",
    ),
    Quantity(
        "hybrid_capex_idr",
        "Capex hybrid",
        "Hybrid capex",
        "Capex × base fleet share.",
        BOOK_HYBRID,
        expr=R("hardware_capex_idr") * R("hybrid_fleet_frac"),
        doc_id="Capex × porsi armada dasar.",
        source_id="Buku, bab 17 studi kasus retail: baseline on-premise + API burst untuk beban puncak",
    ),
    Quantity(
        "hybrid_opex_idr_per_month",
        "Opex hybrid per bulan",
        "Hybrid opex per month",
        "(On-premise opex − electricity) × base fleet share + electricity × the base fleet's energy ratio + burst.",
        BOOK_HYBRID,
        expr=(R("onprem_opex_idr_per_month") - R("electricity_idr_per_month")) * R("hybrid_fleet_frac")
        + R("electricity_idr_per_month") * R("hybrid_energy_ratio")
        + R("hybrid_burst_idr_per_month"),
        doc_id=("(Opex on-premise − listrik) × porsi armada dasar + listrik × rasio energi armada dasar + burst."),
        source_id="Buku, bab 17 studi kasus retail: baseline on-premise + API burst untuk beban puncak",
    ),
    Quantity(
        "hybrid_cost_idr_per_month",
        "Biaya hybrid per bulan",
        "Hybrid cost per month",
        "Depreciation of the base fleet per month + hybrid opex; equal to on-premise at a flat load.",
        BOOK_HYBRID,
        expr=R("depreciation_idr_per_day") * R("month_days") * R("hybrid_fleet_frac") + R("hybrid_opex_idr_per_month"),
        doc_id="Penyusutan armada dasar per bulan + opex hybrid; sama dengan on-premise pada beban rata.",
        source_id="Buku, bab 17 studi kasus retail: baseline on-premise + API burst untuk beban puncak",
    ),
    Quantity(
        "tco_hybrid_idr",
        "TCO hybrid",
        "Hybrid TCO",
        "(Capex − resale value at the horizon) × base fleet share + hybrid opex × months.",
        BOOK_HYBRID,
        expr=(R("hardware_capex_idr") - R("resale_value_end_idr")) * R("hybrid_fleet_frac")
        + R("hybrid_opex_idr_per_month") * 12 * R("horizon_years"),
        doc_id="(Capex − harga jual kembali di akhir horizon) × porsi armada dasar + opex hybrid × bulan.",
        source_id="Buku, bab 17 studi kasus retail: baseline on-premise + API burst untuk beban puncak",
    ),
    Quantity(
        "hybrid_breakeven_months",
        "Break-even hybrid vs API",
        "Hybrid break-even vs the API",
        "Hybrid capex ÷ (API cost per month − hybrid opex), at today's traffic; none when the API costs no more or "
        "the months pass the GPUs' useful life.",
        "Buku, Bab break-even: BE = capex ÷ (API − opex)",
        expr=breakeven_or_why(
            safe_div(R("hybrid_capex_idr"), R("api_cost_idr_per_month") - R("hybrid_opex_idr_per_month")),
            R("api_cost_idr_per_month") > R("hybrid_opex_idr_per_month"),
            R("api_cost_idr_per_month") <= R("hybrid_opex_idr_per_month"),
        ),
        doc_id=(
            "Capex hybrid ÷ (biaya API per bulan − opex hybrid), pada lalu lintas hari ini; tidak ada "
            "bila API tidak lebih mahal atau bulannya melewati umur ekonomis GPU."
        ),
        source_id="Buku, bab break-even",
    ),
)
