"""Break-even of buying hardware against paying an API, and the book's hybrid case."""

from __future__ import annotations

from kalkulator.expr import IF, Msg, R
from kalkulator.quantities.base import Quantity

BOOK_BE = "Buku, Bab break-even: BE (bulan) = Total Capex / (Biaya API per bulan − Biaya Opex per bulan)"

QUANTITIES = (
    Quantity(
        "tokens_per_month",
        "Token per bulan (kebutuhan)",
        "Tokens per month (demand)",
        "Tokens your users consume per month (input + output).",
        "Assumption: within one RTX 4090's capacity at the default duty cycle (the book's example uses 500 M)",
        default=100_000_000,
    ),
    Quantity(
        "capacity_tokens_per_month",
        "Kapasitas token per bulan",
        "Token capacity per month",
        "Tokens per day × days per month.",
        "Buku, Bab 16.1",
        expr=R("tokens_per_day") * R("month_days"),
    ),
    Quantity(
        "demand_capacity_frac",
        "Kebutuhan ÷ kapasitas",
        "Demand ÷ capacity",
        "Above 1 the hardware cannot serve the demand: add GPUs or lower the demand.",
        "Consistency check",
        expr=IF(R("capacity_tokens_per_month") > 0, R("tokens_per_month") / R("capacity_tokens_per_month"), 0),
    ),
    Quantity(
        "api_cost_idr_per_month",
        "Biaya API per bulan",
        "API cost per month",
        "Tokens per month ÷ 1M × API cost per 1M tokens.",
        BOOK_BE,
        expr=R("tokens_per_month") / 1e6 * R("api_cost_idr_per_1m_tokens"),
    ),
    Quantity(
        "saving_idr_per_month",
        "Penghematan per bulan vs API",
        "Saving per month vs the API",
        "API cost per month − on-premise opex per month.",
        BOOK_BE,
        expr=R("api_cost_idr_per_month") - R("onprem_opex_idr_per_month"),
    ),
    Quantity(
        "breakeven_months",
        "Break-even",
        "Break-even",
        "Capex ÷ monthly saving; when the API costs no more than the opex there is no break-even.",
        BOOK_BE,
        expr=IF(
            R("saving_idr_per_month") > 0,
            R("hardware_capex_idr") / R("saving_idr_per_month"),
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
        "Cloud cost per month × months.",
        BOOK_BE,
        expr=R("cloud_idr_per_month") * R("elapsed_months"),
    ),
)
