"""Break-even of buying hardware against paying an API, and the book's hybrid case."""

from __future__ import annotations

from kalkulator.expr import IF, Msg, R
from kalkulator.quantities.base import Quantity

BOOK_BE = "Buku, Bab break-even: BE (bulan) = Total Capex / (Biaya API per bulan − Biaya Opex per bulan)"

QUANTITIES = (
    Quantity(
        "capacity_tokens_per_month",
        "Kapasitas token per bulan",
        "Token capacity per month",
        "Capacity in requests per day × (prompt + output tokens) × days per month.",
        "Buku, Bab 16.1",
        expr=R("capacity_requests_per_day") * (R("prompt_tokens") + R("output_tokens")) * R("month_days"),
    ),
    Quantity(
        "api_cost_idr_per_month",
        "Biaya API per bulan",
        "API cost per month",
        "Demand tokens per month ÷ 1M × API cost per 1M tokens.",
        BOOK_BE,
        expr=R("demand_tokens_per_month") / 1e6 * R("api_cost_idr_per_1m_tokens"),
    ),
    Quantity(
        "saving_idr_per_month",
        "Penghematan per bulan vs API",
        "Saving per month vs the API",
        "API cost of the demand the fleet serves − on-premise opex per month.",
        BOOK_BE,
        expr=R("api_cost_idr_per_month") * R("served_frac") - R("onprem_opex_idr_per_month"),
    ),
    Quantity(
        "breakeven_months",
        "Break-even",
        "Break-even",
        "Capex ÷ monthly saving; no break-even when the API costs no more than the opex, or when the hardware "
        "would have to outlive its useful life (the GPUs' life) to pay for itself.",
        BOOK_BE,
        expr=IF(
            R("saving_idr_per_month") > 0,
            IF(
                R("hardware_capex_idr") / R("saving_idr_per_month") <= R("lifetime_years") * 12,
                R("hardware_capex_idr") / R("saving_idr_per_month"),
                Msg(
                    "tidak ada break-even dalam umur ekonomis hardware",
                    "no break-even within the hardware's useful life",
                ),
            ),
            Msg("tidak ada break-even: API lebih murah dari opex", "no break-even: the API costs less than the opex"),
        ),
    ),
    Quantity(
        "hybrid_api_share_frac",
        "Porsi lalu lintas ke API (hybrid)",
        "Traffic share sent to the API (hybrid)",
        "Peak traffic the hybrid setup sends to the API; the rest runs on-premise.",
        "Buku, Bab hybrid: baseline:burst 70:30",
        default=0.3,
    ),
    Quantity(
        "onprem_cost_idr_per_month",
        "Biaya on-premise per bulan (dengan penyusutan)",
        "On-premise cost per month (with depreciation)",
        "Depreciation per month + opex per month.",
        BOOK_BE,
        expr=R("depreciation_idr_per_day") * R("month_days") + R("onprem_opex_idr_per_month"),
    ),
    Quantity(
        "hybrid_cost_idr_per_month",
        "Biaya hybrid per bulan",
        "Hybrid cost per month",
        "On-premise cost per month + the API share of the demand at API prices.",
        "Buku, Bab hybrid",
        expr=R("onprem_cost_idr_per_month") + R("api_cost_idr_per_month") * R("hybrid_api_share_frac"),
    ),
    Quantity(
        "elapsed_months",
        "Bulan sejak pembelian",
        "Months since purchase",
        "Month at which the cumulative costs below are read; the table sweeps 0–60.",
        "Cumulative cost comparison",
        default=12,
    ),
    Quantity(
        "onprem_cumulative_idr",
        "Kumulatif on-premise",
        "On-premise cumulative",
        "Capex + opex × months.",
        BOOK_BE,
        expr=R("hardware_capex_idr") + R("onprem_opex_idr_per_month") * R("elapsed_months"),
    ),
    Quantity(
        "api_cumulative_idr",
        "Kumulatif API",
        "API cumulative",
        "API cost per month × months.",
        BOOK_BE,
        expr=R("api_cost_idr_per_month") * R("elapsed_months"),
    ),
    Quantity(
        "cloud_cumulative_idr",
        "Kumulatif cloud GPU",
        "Cloud GPU cumulative",
        "(Cloud rent + staff) per month × months, as in the cloud TCO.",
        BOOK_BE,
        expr=(R("cloud_idr_per_month") + R("staff_idr_per_month")) * R("elapsed_months"),
    ),
)
