"""Break-even of buying hardware against paying an API, and the book's hybrid case."""

from __future__ import annotations

from kalkulator.engine.expr import AND, EQ, IF, LN, MAX, MIN, OR, ROUND, ROUNDDOWN, Msg, Node, R, safe_div
from kalkulator.quantities.base import Quantity

BOOK_BE = "Buku, Bab break-even: BE (bulan) = Total Capex / (Biaya API per bulan − Biaya Opex per bulan)"
GROWTH = "Buku, studi kasus startup Bandung: traffic naik 10-20% per bulan; deret geometri"
NEWTON = "Newton's method on the growth factor (1 + g)^m; a start that brackets the root from one side"


NO_BREAKEVEN_API = Msg(
    "tidak ada break-even: API lebih murah dari opex", "no break-even: the API costs less than the opex"
)
NO_BREAKEVEN_LIFE = Msg(
    "tidak ada break-even dalam umur ekonomis hardware", "no break-even within the hardware's useful life"
)


def breakeven_or_why(months: Node, saves: Node, saves_nothing: Node) -> Node:
    """The break-even rule, once for every comparison with an API: `months` when the fleet `saves` and the months
    fall within the GPUs' useful life; else why there is none (`saves_nothing`: the API costs no more than the
    opex, otherwise past the useful life)."""
    return IF(
        AND(saves, months <= R("lifetime_years") * 12),
        months,
        IF(saves_nothing, NO_BREAKEVEN_API, NO_BREAKEVEN_LIFE),
    )


def growth() -> Node:
    """Monthly traffic growth g as a fraction (0.1 for 10 %), to 1e-8: a smaller rate is no growth (1 + g would
    round to 1 and ln(1 + g) to 0)."""
    return ROUND(R("traffic_growth_pct_per_month"), 6) / 100


def growth_sum(months: Node) -> Node:
    """Months of today's bill that `months` months of growing traffic cost: ((1 + g)^m − 1) ÷ g (m when g = 0)."""
    g = growth()
    return IF(EQ(g, 0), months, ((1 + g) ** months - 1) / g)


def newton_step(y: Node) -> Node:
    """One Newton step on h(y) = A (y − 1) ÷ g − opex × ln y ÷ ln(1 + g) − capex, y = (1 + g)^m; 1 when idle.

    h(y) is the cumulative saving at the month where the traffic has grown by y, less the capex.
    """
    g, a, o = growth(), R("api_cost_idr_per_month"), R("onprem_opex_idr_per_month")
    h = a * (y - 1) / g - o * LN(y) / LN(1 + g) - R("hardware_capex_idr")
    # × g on both sides: g × h'(y) = A − opex × (g ÷ ln(1 + g)) ÷ y is positive on the path for either sign of g
    return IF(R("breakeven_in_growth_flag"), y - safe_div(g * h, a - o * (g / LN(1 + g)) / y), 1)


QUANTITIES = (
    Quantity(
        "capacity_tokens_per_month",
        "Kapasitas token per bulan",
        "Token capacity per month",
        "Capacity in requests per day × (prompt + output tokens) × days per month.",
        "Buku, Bab 16.1",
        expr=R("capacity_requests_per_day") * (R("prompt_tokens") + R("output_tokens")) * R("month_days"),
        doc_id="Kapasitas permintaan per hari × (token prompt + output) × hari per bulan.",
        source_id="Buku, bab 16.1 (token per hari)",
    ),
    Quantity(
        "capacity_runout_months",
        "Bulan armada kehabisan kapasitas",
        "Month the fleet runs out of capacity",
        "First month (0 = today) in which the tokens per month, growing by the monthly growth, exceed the fleet's "
        "capacity within the latency targets: ln(capacity ÷ demand) ÷ ln(1 + g), rounded down, + 1.",
        GROWTH,
        expr=IF(
            R("demand_tokens_per_month") > R("capacity_tokens_per_month"),
            Msg("sudah melebihi kapasitas armada", "already above the fleet's capacity"),
            IF(
                OR(growth() <= 0, R("demand_tokens_per_month") <= 0),
                Msg("tidak pernah (lalu lintas tidak tumbuh)", "never (traffic does not grow)"),
                ROUNDDOWN(
                    ROUND(LN(R("capacity_tokens_per_month") / R("demand_tokens_per_month")) / LN(1 + growth()), 9),
                    0,
                )
                + 1,
            ),
        ),
        doc_id=(
            "Bulan pertama (0 = hari ini) ketika token per bulan yang tumbuh melebihi kapasitas armada "
            "dalam target latensi: ln(kapasitas ÷ kebutuhan) ÷ ln(1 + g), dibulatkan ke bawah, + 1."
        ),
        source_id="Buku, studi kasus startup Bandung: traffic naik 10-20% per bulan",
    ),
    Quantity(
        "api_cost_idr_per_month",
        "Biaya API per bulan",
        "API cost per month",
        "Demand tokens per month ÷ 1M × API cost per 1M tokens. Type an invoice to use it instead.",
        BOOK_BE,
        expr=R("demand_tokens_per_month") / 1e6 * R("api_cost_idr_per_1m_tokens"),
        overridable=True,
        doc_id="Token kebutuhan per bulan ÷ 1 juta × biaya API per 1 juta token.",
        source_id=(
            "Buku, rumus BE (bulan) = Total Capex / (Biaya API per bulan − Biaya Opex per bulan), pada "
            "tabel break-even skenario Indonesia"
        ),
    ),
    Quantity(
        "saving_idr_per_month",
        "Penghematan per bulan vs API",
        "Saving per month vs the API",
        "API cost of the demand the fleet serves − on-premise opex per month.",
        BOOK_BE,
        expr=R("api_cost_idr_per_month") * R("served_frac") - R("onprem_opex_idr_per_month"),
        doc_id="Biaya API untuk kebutuhan yang dilayani armada − opex on-premise per bulan.",
        source_id="Buku, rumus BE (bulan) = Total Capex / (Biaya API per bulan − Biaya Opex per bulan)",
    ),
    Quantity(
        "growth_phase_months",
        "Bulan kebutuhan terlayani masih tumbuh",
        "Months the served demand keeps growing",
        "Months in which the fleet serves the whole growing (or shrinking) demand: up to the month it runs out of "
        "capacity, at most the useful life; 0 without growth, without demand, or when it is already over capacity.",
        GROWTH,
        expr=IF(
            OR(
                EQ(growth(), 0),
                R("api_cost_idr_per_month") <= 0,
                R("demand_tokens_per_month") > R("capacity_tokens_per_month"),
            ),
            0,
            IF(
                growth() > 0,
                MIN(R("lifetime_years") * 12, R("capacity_runout_months")),
                R("lifetime_years") * 12,
            ),
        ),
        doc_id=(
            "Bulan ketika armada melayani seluruh kebutuhan yang tumbuh (atau turun): sampai bulan "
            "kapasitas habis, paling lama umur ekonomis; 0 tanpa pertumbuhan, tanpa kebutuhan, atau "
            "bila kebutuhan sudah melebihi kapasitas."
        ),
        source_id="Buku, studi kasus startup Bandung; deret geometri",
    ),
    Quantity(
        "growth_phase_saving_idr",
        "Penghematan kumulatif selama pertumbuhan",
        "Cumulative saving while the demand grows",
        "API cost per month × ((1 + g)^months − 1) ÷ g − opex × months, over those months.",
        GROWTH,
        expr=R("api_cost_idr_per_month") * growth_sum(R("growth_phase_months"))
        - R("onprem_opex_idr_per_month") * R("growth_phase_months"),
        doc_id="Biaya API per bulan × ((1 + g)^bulan − 1) ÷ g − opex × bulan, selama bulan-bulan itu.",
        source_id="Deret geometri",
    ),
    Quantity(
        "breakeven_after_growth_saving_idr_per_month",
        "Penghematan per bulan setelah pertumbuhan",
        "Saving per month after the growth months",
        "Once the fleet runs full: the API cost of its capacity − opex; without a growth phase, today's saving.",
        GROWTH,
        expr=IF(
            R("growth_phase_months") > 0,
            safe_div(R("api_cost_idr_per_month") * R("capacity_tokens_per_month"), R("demand_tokens_per_month"))
            - R("onprem_opex_idr_per_month"),
            R("saving_idr_per_month"),
        ),
        doc_id=(
            "Setelah armada penuh: biaya API untuk kapasitasnya − opex; tanpa fase pertumbuhan, penghematan hari ini."
        ),
        source_id="Buku, rumus BE (bulan) = Total Capex / (Biaya API per bulan − Biaya Opex per bulan)",
    ),
    Quantity(
        "breakeven_in_growth_flag",
        "Break-even saat kebutuhan masih tumbuh?",
        "Break-even while the demand grows?",
        "TRUE when that cumulative saving reaches the capex: the break-even month is then found by Newton's method.",
        GROWTH,
        expr=AND(R("growth_phase_months") > 0, R("growth_phase_saving_idr") >= R("hardware_capex_idr")),
        doc_id=(
            "TRUE bila penghematan kumulatif itu mencapai capex: bulan break-even lalu dicari dengan metode Newton."
        ),
        source_id="Deret geometri",
    ),
    Quantity(
        "breakeven_newton_first_ratio",
        "Newton langkah 1: (1 + g)^bulan",
        "Newton step 1: (1 + g)^months",
        "From (1 + g)^m at a month past the break-even when traffic grows (the flat-traffic break-even, at least 1, "
        "at most the growth months), or 1 (today) when it shrinks, so the steps approach it from one side.",
        NEWTON,
        expr=newton_step(
            IF(
                growth() > 0,
                1
                + growth()
                * (
                    R("hardware_capex_idr")
                    + R("onprem_opex_idr_per_month")
                    * IF(
                        R("api_cost_idr_per_month") > R("onprem_opex_idr_per_month"),
                        MIN(
                            R("growth_phase_months"),
                            MAX(
                                1,
                                safe_div(
                                    R("hardware_capex_idr"),
                                    R("api_cost_idr_per_month") - R("onprem_opex_idr_per_month"),
                                ),
                            ),
                        ),
                        R("growth_phase_months"),
                    )
                )
                / R("api_cost_idr_per_month"),
                1,
            )
        ),
        doc_id=(
            "Langkah Newton pertama pada (1 + g)^bulan, dimulai dari bulan sesudah break-even bila lalu "
            "lintas tumbuh (break-even tanpa pertumbuhan, minimal 1, maksimal bulan pertumbuhan) atau "
            "dari 1 (hari ini) bila turun, sehingga langkah-langkahnya mendekat dari satu sisi."
        ),
        source_id="Metode Newton",
    ),
    Quantity(
        "breakeven_newton_second_ratio",
        "Newton langkah 2",
        "Newton step 2",
        "Next Newton step.",
        NEWTON,
        expr=newton_step(R("breakeven_newton_first_ratio")),
        doc_id="Langkah Newton berikutnya.",
        source_id="Metode Newton",
    ),
    Quantity(
        "breakeven_newton_third_ratio",
        "Newton langkah 3",
        "Newton step 3",
        "Next Newton step.",
        NEWTON,
        expr=newton_step(R("breakeven_newton_second_ratio")),
        doc_id="Langkah Newton berikutnya.",
        source_id="Metode Newton",
    ),
    Quantity(
        "breakeven_growth_ratio",
        "Pertumbuhan lalu lintas saat break-even",
        "Traffic growth at the break-even",
        "Fourth Newton step: (1 + g)^break-even month, the traffic then ÷ today's (1 when the break-even is not "
        "in the growth months).",
        NEWTON,
        expr=newton_step(R("breakeven_newton_third_ratio")),
        doc_id=(
            "Langkah Newton keempat: (1 + g)^bulan break-even, yaitu lalu lintas saat itu ÷ lalu lintas "
            "hari ini (1 bila break-even tidak jatuh dalam bulan pertumbuhan)."
        ),
        source_id="Metode Newton",
    ),
    Quantity(
        "breakeven_months",
        "Break-even",
        "Break-even",
        "Months until the cumulative saving (API cost of the served demand − opex) reaches the capex. Flat traffic: "
        "capex ÷ monthly saving. Growing traffic: ln(growth at the break-even) ÷ ln(1 + g) while the fleet serves "
        "the whole demand; after it runs out of capacity the saving stays at the capacity's API cost − opex. No "
        "break-even when the API costs no more than the opex, or past the hardware's useful life (the GPUs' life).",
        BOOK_BE + "; " + GROWTH,
        expr=IF(
            R("breakeven_in_growth_flag"),
            LN(R("breakeven_growth_ratio")) / LN(1 + growth()),
            breakeven_or_why(
                R("growth_phase_months")
                + safe_div(
                    R("hardware_capex_idr") - R("growth_phase_saving_idr"),
                    R("breakeven_after_growth_saving_idr_per_month"),
                ),
                R("breakeven_after_growth_saving_idr_per_month") > 0,
                AND(R("saving_idr_per_month") <= 0, R("breakeven_after_growth_saving_idr_per_month") <= 0),
            ),
        ),
        doc_id=(
            "Bulan sampai penghematan kumulatif (biaya API kebutuhan yang dilayani − opex) mencapai "
            "capex. Lalu lintas tetap: capex ÷ penghematan per bulan. Lalu lintas tumbuh: "
            "ln(pertumbuhan saat break-even) ÷ ln(1 + g) selama armada melayani seluruh kebutuhan; "
            "setelah kapasitas habis penghematan tetap pada biaya API kapasitas − opex. Tidak ada "
            "break-even bila API tidak lebih mahal dari opex, atau melewati umur ekonomis hardware "
            "(umur GPU)."
        ),
        source_id=("Buku, bab 17.1 dan rumus BE (bulan) = Total Capex / (Biaya API per bulan − Biaya Opex per bulan)"),
    ),
    Quantity(
        "onprem_cost_idr_per_month",
        "Biaya on-premise per bulan (dengan penyusutan)",
        "On-premise cost per month (with depreciation)",
        "Depreciation per month + opex per month.",
        BOOK_BE,
        expr=R("depreciation_idr_per_day") * R("month_days") + R("onprem_opex_idr_per_month"),
        doc_id="Penyusutan per bulan + opex per bulan.",
        source_id="Buku, bab 16.1 dan 17.1",
    ),
    Quantity(
        "elapsed_months",
        "Bulan sejak pembelian",
        "Months since purchase",
        "Month at which the cumulative costs below are read; the table sweeps 0–60.",
        "Cumulative cost comparison",
        default=12,
        doc_id="Bulan saat biaya kumulatif di bawah dibaca; tabel menyapu bulan 0–60.",
        source_id="Perbandingan biaya kumulatif",
    ),
    Quantity(
        "onprem_cumulative_idr",
        "Kumulatif on-premise",
        "On-premise cumulative",
        "Capex + opex × months. The opex (electricity included) stays fixed as traffic grows; demand above the "
        "fleet's capacity (see the month it runs out) is not included.",
        BOOK_BE,
        expr=R("hardware_capex_idr") + R("onprem_opex_idr_per_month") * R("elapsed_months"),
        doc_id=(
            "Capex + opex × bulan. Opex (termasuk listrik) tetap walau lalu lintas tumbuh; kebutuhan di "
            "atas kapasitas armada (lihat bulan kapasitas habis) tidak termasuk."
        ),
        source_id="Buku, bab 17.6 (grafik break-even)",
    ),
    Quantity(
        "api_cumulative_idr",
        "Kumulatif API",
        "API cumulative",
        "API cost per month × ((1 + g)^months − 1) ÷ g: the bill grows with the traffic (× months when g = 0).",
        BOOK_BE + "; " + GROWTH,
        expr=R("api_cost_idr_per_month") * growth_sum(R("elapsed_months")),
        doc_id=(
            "Biaya API per bulan × ((1 + g)^bulan − 1) ÷ g: tagihan tumbuh bersama lalu lintas (× bulan bila g = 0)."
        ),
        source_id="Buku, bab 17.6 (grafik break-even)",
    ),
    Quantity(
        "cloud_cumulative_idr",
        "Kumulatif cloud GPU",
        "Cloud GPU cumulative",
        "(Cloud rent + staff) per month × months, as in the cloud TCO.",
        BOOK_BE,
        expr=(R("cloud_idr_per_month") + R("staff_idr_per_month")) * R("elapsed_months"),
        doc_id="(Sewa cloud + SDM) per bulan × bulan, seperti pada TCO cloud.",
        source_id="Buku, bab 17.6 (grafik break-even)",
    ),
)

# The premium API (api.py's premium_ chain) against the fleet: after the on-premise opex and capex it reads.
PREMIUM_MONEY = (
    Quantity(
        "premium_api_cost_idr_per_month",
        "Biaya API premium per bulan",
        "Premium API cost per month",
        "Demand tokens per month ÷ 1M × the premium API's cost per 1M tokens.",
        BOOK_BE,
        expr=R("demand_tokens_per_month") / 1e6 * R("premium_api_cost_idr_per_1m_tokens"),
        doc_id="Token kebutuhan per bulan ÷ 1 juta × biaya API premium per 1 juta token.",
        source_id="Buku, bab break-even",
    ),
    Quantity(
        "premium_saving_idr_per_month",
        "Penghematan per bulan vs API premium",
        "Saving per month vs the premium API",
        "Premium API cost of the demand the fleet serves − on-premise opex per month.",
        BOOK_BE,
        expr=R("premium_api_cost_idr_per_month") * R("served_frac") - R("onprem_opex_idr_per_month"),
        doc_id="Biaya API premium untuk kebutuhan yang dilayani armada − opex on-premise per bulan.",
        source_id="Buku, bab break-even",
    ),
    Quantity(
        "premium_breakeven_months",
        "Break-even vs API premium",
        "Break-even vs the premium API",
        "Capex ÷ the monthly saving against the premium API, at today's traffic; none when the saving is not "
        "positive or the months pass the GPUs' useful life.",
        BOOK_BE,
        expr=breakeven_or_why(
            safe_div(R("hardware_capex_idr"), R("premium_saving_idr_per_month")),
            R("premium_saving_idr_per_month") > 0,
            R("premium_saving_idr_per_month") <= 0,
        ),
        doc_id=(
            "Capex ÷ penghematan per bulan terhadap API premium, pada lalu lintas hari ini; tidak ada "
            "bila penghematan tidak positif atau bulannya melewati umur ekonomis GPU."
        ),
        source_id="Buku, bab break-even",
    ),
)
