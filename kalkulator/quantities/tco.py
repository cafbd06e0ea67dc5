"""TCO over a horizon for the book's four deployment modes, with straight-line depreciation and residual value."""

from __future__ import annotations

from kalkulator.expr import IF, IFERROR, INDEX, MATCH, MAX, MIN, ROUND, ROUNDUP, Col, R, safe_div
from kalkulator.quantities.base import Quantity, lookup, row_of

BOOK_COLO_POWER = "Buku, Bab colocation: paket termasuk daya sampai batas kW-nya; kelebihan dibayar per kWh"
BOOK_TCO = "Buku, Bab TCO: capex + opex bulanan × bulan; empat mode: VPS cloud GPU, dedicated, colocation, on-premise"

QUANTITIES = (
    Quantity(
        "horizon_years",
        "Horizon TCO",
        "TCO horizon",
        "Years the deployment is compared over (3 or 5).",
        "Buku, Bab TCO: 3 dan 5 tahun",
        default=3,
    ),
    Quantity(
        "book_value_end_idr",
        "Nilai buku di akhir horizon",
        "Book value at the horizon",
        "Each part of the capex (GPUs; the rest) less its straight-line depreciation for min(horizon, its life) "
        "years; never below its residual value.",
        "Buku, Bab TCO 5 tahun: depresiasi GPU 3 tahun residual 10 %, depresiasi server 4 tahun residual 5 %",
        expr=R("hardware_capex_idr")
        * (
            R("gpu_capex_share_frac")
            * (
                1
                - (1 - R("residual_pct") / 100)
                * safe_div(MIN(R("horizon_years"), R("lifetime_years")), R("lifetime_years"))
            )
            + (1 - R("gpu_capex_share_frac"))
            * (
                1
                - (1 - R("server_residual_pct") / 100)
                * safe_div(MIN(R("horizon_years"), R("server_lifetime_years")), R("server_lifetime_years"))
            )
        ),
    ),
    Quantity(
        "onprem_opex_idr_per_month",
        "Opex on-premise per bulan",
        "On-premise opex per month",
        "Electricity (× PUE) + maintenance + staff. Type a budget figure to use it instead.",
        BOOK_TCO,
        expr=R("electricity_idr_per_month") + R("maintenance_idr_per_year") / 12 + R("staff_idr_per_month"),
        overridable=True,
    ),
    Quantity(
        "tco_idr",
        "TCO on-premise",
        "On-premise TCO",
        "Capex − book value at the horizon + opex × months.",
        BOOK_TCO,
        expr=R("hardware_capex_idr")
        - R("book_value_end_idr")
        + R("onprem_opex_idr_per_month") * 12 * R("horizon_years"),
    ),
    lookup(
        "colocation_name",
        "deployment",
        "colocation_name",
        "Paket colocation",
        "Colocation plan",
        "Rack space rented for your own servers, from the deployment profile (choose another as a manual value).",
        fallback="Book colocation 4x A100",
        choices=("hosting", "name"),
    ),
    row_of("hosting", "colocation_name", "Baris colocation", "Colocation row"),
    lookup(
        "colocation_plan_idr_per_month",
        "hosting",
        "idr_per_month",
        "Sewa paket colocation per bulan",
        "Colocation plan rent per month",
        "Rack rent of the chosen plan.",
    ),
    lookup(
        "colocation_plan_gpus",
        "hosting",
        "gpus",
        "GPU yang dicakup paket",
        "GPUs the plan is sized for",
        "0 = a fixed slot, not sized per GPU.",
    ),
    Quantity(
        "colocation_plans_ratio",
        "Paket yang dipakai armada",
        "Plans the fleet takes",
        "The fewest whole plans whose included kW covers the fleet's power at load (the data centre's cooling "
        "is in the rent): ROUNDUP(power at load ÷ plan kW); for a plan without power, fleet GPUs ÷ the plan's "
        "GPUs (1 for a fixed slot).",
        BOOK_COLO_POWER,
        expr=IF(
            R("colocation_plan_kw") > 0,
            MAX(1, ROUNDUP(ROUND(R("system_power_w") / 1000 / R("colocation_plan_kw"), 9), 0)),
            IF(R("colocation_plan_gpus") > 0, R("bought_gpus") / R("colocation_plan_gpus"), 1),
        ),
    ),
    Quantity(
        "colocation_idr_per_month",
        "Sewa colocation per bulan (skenario)",
        "Colocation rent per month (scenario)",
        "Plan rent × plans the fleet takes.",
        BOOK_TCO,
        expr=R("colocation_plan_idr_per_month") * R("colocation_plans_ratio"),
    ),
    lookup(
        "colocation_plan_kw",
        "hosting",
        "kw_included",
        "Daya termasuk dalam paket",
        "Power included in the plan",
        "kW of power the rent includes; more is billed per kWh.",
    ),
    Quantity(
        "colocation_included_kw",
        "Daya termasuk (skenario)",
        "Power included (scenario)",
        "Plan kW × plans the fleet takes, like the rent.",
        BOOK_COLO_POWER,
        expr=R("colocation_plan_kw") * R("colocation_plans_ratio"),
    ),
    Quantity(
        "colocation_extra_kw",
        "Daya di atas paket",
        "Power above the plan",
        "Average IT power of the fleet above the included power (the data centre's cooling is in the rent).",
        BOOK_COLO_POWER,
        expr=MAX(0, R("average_power_w") / 1000 - R("colocation_included_kw")),
    ),
    Quantity(
        "colocation_power_idr_per_kwh",
        "Tarif daya tambahan colocation",
        "Colocation extra power price",
        "Price per kWh of power above the plan.",
        "Buku, Bab colocation: DCI memasukkan 4 kW dalam paket dasar, kelebihan daya Rp 2.500–3.500/kWh",
        default=2500,
    ),
    Quantity(
        "colocation_power_idr_per_month",
        "Biaya daya tambahan colocation per bulan",
        "Colocation extra power per month",
        "Power above the plan × 24 h × days per month × price per kWh.",
        BOOK_COLO_POWER,
        expr=R("colocation_extra_kw") * 24 * R("month_days") * R("colocation_power_idr_per_kwh"),
    ),
    Quantity(
        "colocation_opex_idr_per_month",
        "Opex colocation per bulan",
        "Colocation opex per month",
        "Rack rent + power above the plan + maintenance + staff; the office electricity bill does not apply.",
        BOOK_TCO,
        expr=R("colocation_idr_per_month")
        + R("colocation_power_idr_per_month")
        + R("maintenance_idr_per_year") / 12
        + R("staff_idr_per_month"),
    ),
    Quantity(
        "colocation_cost_idr_per_month",
        "Biaya colocation per bulan (dengan penyusutan)",
        "Colocation cost per month (with depreciation)",
        "Depreciation per month + colocation opex per month.",
        BOOK_TCO,
        expr=R("depreciation_idr_per_day") * R("month_days") + R("colocation_opex_idr_per_month"),
    ),
    Quantity(
        "tco_colocation_idr",
        "TCO colocation",
        "Colocation TCO",
        "Capex − book value at the horizon + colocation opex × months.",
        BOOK_TCO,
        expr=R("hardware_capex_idr")
        - R("book_value_end_idr")
        + R("colocation_opex_idr_per_month") * 12 * R("horizon_years"),
    ),
    Quantity(
        "dedicated_idr_per_gpu_month",
        "Sewa dedicated per GPU per bulan",
        "Dedicated rent per GPU per month",
        "Monthly rent of a GPU server in a provider's data centre, power included, per GPU: the catalog's first "
        "dedicated offer with the scenario's GPU (cheapest first); 0 when there is none. Type a quote instead.",
        "Katalog Harga: hosting (buku: dedicated Rp 80–120 juta/bulan untuk 4× A100)",
        expr=IFERROR(
            INDEX(Col("hosting", "idr_per_month"), MATCH(R("gpu_name"), Col("hosting", "gpu")))
            / INDEX(Col("hosting", "gpus"), MATCH(R("gpu_name"), Col("hosting", "gpu"))),
            0,
        ),
        overridable=True,
    ),
    Quantity(
        "dedicated_idr_per_month",
        "Sewa dedicated per bulan",
        "Dedicated rent per month",
        "Rent per GPU × fleet GPUs.",
        BOOK_TCO,
        expr=R("dedicated_idr_per_gpu_month") * R("gpus_needed"),
    ),
    Quantity(
        "tco_dedicated_idr",
        "TCO dedicated",
        "Dedicated TCO",
        "(Rent + staff) × months.",
        BOOK_TCO,
        expr=(R("dedicated_idr_per_month") + R("staff_idr_per_month")) * 12 * R("horizon_years"),
    ),
    Quantity(
        "tco_cloud_idr",
        "TCO cloud GPU",
        "Cloud GPU TCO",
        "(Cloud rent + staff) × months.",
        BOOK_TCO,
        expr=(R("cloud_idr_per_month") + R("staff_idr_per_month")) * 12 * R("horizon_years"),
    ),
)
