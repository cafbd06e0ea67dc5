"""TCO over a horizon for the book's four deployment modes: hardware sold at a used-market share of its price at the
end of the horizon; the book's straight-line depreciation with residual value stays for the accounts."""

from __future__ import annotations

from kalkulator.engine.expr import IF, IFERROR, INDEX, MATCH, MAX, MIN, ROUND, ROUNDUP, Col, R, safe_div
from kalkulator.quantities.base import Quantity, lookup, row_of

BOOK_COLO_POWER = "Buku, Bab colocation: paket termasuk daya sampai batas kW-nya; kelebihan dibayar per kWh"
RESALE_ASSUMPTION = (
    "Assumption fitted to used-market reports: GPU Lease Rate Index (secondary-market H100 sales, Jan 2026) 60-65 % "
    "of the price after 1 year, 40-45 % after 2, 25-35 % after 3, 10-15 % after 5, Silicon Data via press: an H100 "
    "system in its third year ~45 % (2025), used A100s lose 45-50 % in year 1 (same index)"
)
RESALE_ASSUMPTION_ID = (
    "Asumsi yang dicocokkan dengan laporan pasar bekas: GPU Lease Rate Index (penjualan H100 bekas, Jan 2026) 60-65 % "
    "harga setelah 1 tahun, 40-45 % setelah 2, 25-35 % setelah 3, 10-15 % setelah 5; Silicon Data lewat pers: "
    "sistem H100 di tahun ketiga ~45 % (2025); A100 bekas turun 45-50 % di tahun pertama (indeks yang sama)"
)
BOOK_TCO = "Buku, Bab TCO: capex + opex bulanan × bulan; empat mode: VPS cloud GPU, dedicated, colocation, on-premise"

QUANTITIES = (
    Quantity(
        "horizon_years",
        "Horizon TCO",
        "TCO horizon",
        "Years the deployment is compared over (3 or 5).",
        "Buku, Bab TCO: 3 dan 5 tahun",
        default=3,
        doc_id="Jumlah tahun pembanding antar mode penempatan (3 atau 5).",
        source_id="Buku, subbab TCO 5 tahun dan bab 16.1 (3 tahun)",
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
        doc_id=(
            "Setiap bagian capex (GPU; selebihnya) dikurangi penyusutan garis lurusnya selama "
            "min(horizon, umurnya) tahun; tidak pernah di bawah nilai sisanya."
        ),
        source_id=(
            "Buku, subbab TCO 5 tahun: depresiasi GPU 3 tahun residual 10 %, depresiasi server 4 tahun residual 5 %"
        ),
    ),
    Quantity(
        "resale_new_frac",
        "Harga jual bekas hampir baru",
        "Used price when nearly new",
        "Share of the purchase price a used server with its GPUs fetches right after purchase (no warranty, the "
        "buyer's risk, the dealer's margin): the start of the resale curve.",
        RESALE_ASSUMPTION,
        default=0.9,
        doc_id=(
            "Porsi harga beli yang didapat server bekas beserta GPU-nya sesaat setelah dibeli (tanpa "
            "garansi, risiko pembeli, margin pedagang): titik awal kurva harga jual kembali."
        ),
        source_id=RESALE_ASSUMPTION_ID,
    ),
    Quantity(
        "resale_kept_per_year_frac",
        "Nilai jual kembali yang bertahan per tahun",
        "Resale value kept per year",
        "Share of its used-market value the hardware keeps each year (compound): 0.7 = 30 % a year.",
        RESALE_ASSUMPTION,
        default=0.7,
        doc_id="Porsi nilai pasar bekas yang bertahan setiap tahun (majemuk): 0,7 = turun 30 % per tahun.",
        source_id=RESALE_ASSUMPTION_ID,
    ),
    Quantity(
        "resale_share_frac",
        "Harga jual kembali di akhir horizon",
        "Resale share at the horizon",
        "Used price when nearly new × value kept per year ^ horizon years: what the hardware fetches on the used "
        "market at the end of the horizon, as a share of its price (0.9 × 0.7^(1/12) ≈ 0.87 after a month, "
        "0.9 × 0.7³ ≈ 0.31 after 3 years). Type a dealer's buy-back quote to use it instead.",
        RESALE_ASSUMPTION,
        # the exponent stops at 100 years (0.7^100 ≈ 3e-16): a spreadsheet's POWER underflows to #NUM! beyond
        expr=R("resale_new_frac")
        * R("resale_kept_per_year_frac")
        ** IF(R("horizon_years") > 100, 100, R("horizon_years")),  # IF, not MIN: MIN skips a blank cell
        overridable=True,
        doc_id=(
            "Harga bekas hampir baru × nilai yang bertahan per tahun ^ tahun horizon: harga hardware di "
            "pasar bekas di akhir horizon, sebagai porsi harga belinya (0,9 × 0,7^(1/12) ≈ 0,87 setelah "
            "sebulan, 0,9 × 0,7³ ≈ 0,31 setelah 3 tahun). Isi penawaran buy-back pedagang untuk "
            "memakainya."
        ),
        source_id=RESALE_ASSUMPTION_ID,
    ),
    Quantity(
        "resale_value_end_idr",
        "Harga jual kembali di akhir horizon",
        "Resale value at the horizon",
        "Capex × resale share: the money back when the hardware is sold at the end of the horizon (the TCO uses "
        "it; the book value stays for accounting).",
        RESALE_ASSUMPTION,
        expr=R("hardware_capex_idr") * R("resale_share_frac"),
        doc_id=(
            "Capex × porsi harga jual kembali: uang yang kembali bila hardware dijual di akhir horizon "
            "(dipakai TCO; nilai buku tetap untuk akuntansi)."
        ),
        source_id=RESALE_ASSUMPTION_ID,
    ),
    Quantity(
        "onprem_opex_idr_per_month",
        "Opex on-premise per bulan",
        "On-premise opex per month",
        "Electricity (× PUE) + maintenance + staff. Type a budget figure to use it instead.",
        BOOK_TCO,
        expr=R("electricity_idr_per_month") + R("maintenance_idr_per_year") / 12 + R("staff_idr_per_month"),
        overridable=True,
        doc_id="Listrik (× PUE) + pemeliharaan + SDM.",
        source_id="Buku, subbab 'On-Premise (Server di Kantor Sendiri)': opex = listrik + AC",
    ),
    Quantity(
        "tco_idr",
        "TCO on-premise",
        "On-premise TCO",
        "Capex − resale value at the horizon + opex × months: what buying costs over the horizon when the hardware "
        "is sold at its end (a one-month job pays the used-market loss, not a month of depreciation).",
        "The book's TCO chapter (capex + monthly opex × months), with the hardware sold at the horizon: "
        + RESALE_ASSUMPTION,
        expr=R("hardware_capex_idr")
        - R("resale_value_end_idr")
        + R("onprem_opex_idr_per_month") * 12 * R("horizon_years"),
        doc_id=(
            "Capex − harga jual kembali di akhir horizon + opex × bulan: biaya membeli selama horizon "
            "bila hardware dijual di akhirnya (pekerjaan sebulan menanggung kerugian pasar bekas, bukan "
            "penyusutan sebulan)."
        ),
        source_id=(
            "Buku, subbab TCO 5 tahun: capex + opex bulanan × bulan; harga jual kembali: " + RESALE_ASSUMPTION_ID
        ),
    ),
    Quantity(
        "tco_book_idr",
        "TCO on-premise (akuntansi, nilai buku)",
        "On-premise TCO (accounting, book value)",
        "Capex − book value at the horizon + opex × months: the book's method (straight-line depreciation with "
        "residual value), for the accounts.",
        BOOK_TCO,
        expr=R("hardware_capex_idr")
        - R("book_value_end_idr")
        + R("onprem_opex_idr_per_month") * 12 * R("horizon_years"),
        doc_id=(
            "Capex − nilai buku di akhir horizon + opex × bulan: metode buku (penyusutan garis lurus "
            "dengan nilai sisa), untuk pembukuan."
        ),
        source_id=(
            "Buku, subbab TCO 5 tahun: capex + opex bulanan × bulan; empat mode: VPS cloud GPU, "
            "dedicated, colocation, on-premise"
        ),
    ),
    lookup(
        "colocation_name",
        "deployment",
        "colocation_name",
        fallback="Book colocation 4x A100",
        choices=("hosting", "name"),
        doc_id=("Sewa rak untuk server sendiri, dari profil penempatan (pilih yang lain sebagai isian manual)."),
        source_id="Katalog Harga: hosting; profil penempatan",
    ),
    row_of(
        "hosting",
        "colocation_name",
        "Baris colocation",
        "Colocation row",
        doc_id="Posisi colocation_name yang dipilih di katalog hosting (0 = tidak ada di katalog).",
        source_id="Katalog Harga: hosting",
    ),
    lookup(
        "colocation_plan_idr_per_month",
        "hosting",
        "idr_per_month",
        doc_id="Sewa rak untuk paket yang dipilih.",
        source_id="Katalog colocation dan dedicated, kolom 'Rp/bulan'",
    ),
    lookup(
        "colocation_plan_gpus",
        "hosting",
        "gpus",
        doc_id="0 = slot tetap, tidak dihitung per GPU.",
        source_id="Katalog colocation dan dedicated, kolom 'GPU dalam paket'",
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
        doc_id=(
            "Jumlah paket utuh paling sedikit yang kW-nya mencakup daya armada saat beban (pendinginan "
            "data center sudah termasuk sewa): ROUNDUP(daya beban ÷ kW paket); paket tanpa daya: GPU "
            "armada ÷ GPU paket (1 untuk slot tetap)."
        ),
        source_id="Buku, subbab colocation: paket termasuk daya sampai batas kW-nya",
    ),
    Quantity(
        "colocation_idr_per_month",
        "Sewa colocation per bulan (skenario)",
        "Colocation rent per month (scenario)",
        "Plan rent × plans the fleet takes.",
        BOOK_TCO,
        expr=R("colocation_plan_idr_per_month") * R("colocation_plans_ratio"),
        doc_id="Sewa paket × paket yang dipakai armada.",
        source_id="Buku, subbab 'Colocation (Sewa Rak, Punya Server)'",
    ),
    lookup(
        "colocation_plan_kw",
        "hosting",
        "kw_included",
        doc_id="Daya (kW) yang sudah termasuk dalam sewa paket; kelebihannya dibayar per kWh.",
        source_id="Katalog hosting: kolom kw_included",
    ),
    Quantity(
        "colocation_included_kw",
        "Daya termasuk (skenario)",
        "Power included (scenario)",
        "Plan kW × plans the fleet takes, like the rent.",
        BOOK_COLO_POWER,
        expr=R("colocation_plan_kw") * R("colocation_plans_ratio"),
        doc_id="kW paket × paket yang dipakai armada, seperti sewanya.",
        source_id=("Buku, subbab 'Colocation': paket termasuk daya sampai batas kW-nya; kelebihan dibayar per kWh"),
    ),
    Quantity(
        "colocation_extra_kw",
        "Daya di atas paket",
        "Power above the plan",
        "Average IT power of the fleet above the included power (the data centre's cooling is in the rent).",
        BOOK_COLO_POWER,
        expr=MAX(0, R("average_power_w") / 1000 - R("colocation_included_kw")),
        doc_id=(
            "Daya IT rata-rata armada di atas daya yang termasuk paket (pendinginan data center sudah ada di sewa)."
        ),
        source_id=("Buku, subbab 'Colocation': paket termasuk daya sampai batas kW-nya; kelebihan dibayar per kWh"),
    ),
    Quantity(
        "colocation_power_idr_per_kwh",
        "Tarif daya tambahan colocation",
        "Colocation extra power price",
        "Price per kWh of power above the plan.",
        "Buku, Bab colocation: DCI memasukkan 4 kW dalam paket dasar, kelebihan daya Rp 2.500–3.500/kWh",
        default=2500,
        doc_id="Harga per kWh untuk daya di atas paket.",
        source_id=(
            "Buku, subbab 'Colocation': DCI memasukkan 4 kW dalam paket dasar, kelebihan daya Rp 2.500–3.500/kWh"
        ),
    ),
    Quantity(
        "colocation_power_idr_per_month",
        "Biaya daya tambahan colocation per bulan",
        "Colocation extra power per month",
        "Power above the plan × 24 h × days per month × price per kWh.",
        BOOK_COLO_POWER,
        expr=R("colocation_extra_kw") * 24 * R("month_days") * R("colocation_power_idr_per_kwh"),
        doc_id="Daya di atas paket × 24 jam × hari per bulan × harga per kWh.",
        source_id=("Buku, subbab 'Colocation': paket termasuk daya sampai batas kW-nya; kelebihan dibayar per kWh"),
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
        doc_id="Sewa rak + daya di atas paket + pemeliharaan + SDM; tagihan listrik kantor tidak berlaku.",
        source_id="Buku, subbab 'Colocation (Sewa Rak, Punya Server)'",
    ),
    Quantity(
        "colocation_cost_idr_per_month",
        "Biaya colocation per bulan (dengan penyusutan)",
        "Colocation cost per month (with depreciation)",
        "Depreciation per month + colocation opex per month.",
        BOOK_TCO,
        expr=R("depreciation_idr_per_day") * R("month_days") + R("colocation_opex_idr_per_month"),
        doc_id="Penyusutan per bulan + opex colocation per bulan.",
        source_id="Buku, bab TCO",
    ),
    Quantity(
        "tco_colocation_idr",
        "TCO colocation",
        "Colocation TCO",
        "Capex − resale value at the horizon + colocation opex × months.",
        "The book's TCO chapter (colocation), with the hardware sold at the horizon: " + RESALE_ASSUMPTION,
        expr=R("hardware_capex_idr")
        - R("resale_value_end_idr")
        + R("colocation_opex_idr_per_month") * 12 * R("horizon_years"),
        doc_id="Capex − harga jual kembali di akhir horizon + opex colocation × bulan.",
        source_id="Buku, subbab 'Colocation (Sewa Rak, Punya Server)' pada TCO 5 tahun",
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
        doc_id=(
            "Sewa bulanan server GPU di data center penyedia, sudah termasuk listrik, per GPU: "
            "penawaran dedicated pertama di katalog untuk GPU skenario (termurah lebih dulu); 0 bila "
            "tidak ada. Isi penawaran Anda di Isi manual."
        ),
        source_id=(
            "Buku, subbab 'Dedicated Server (Sewa GPU Server)': Rp 80–120 juta/bulan untuk 4× A100 → Rp 20 juta per GPU"
        ),
    ),
    Quantity(
        "dedicated_idr_per_month",
        "Sewa dedicated per bulan",
        "Dedicated rent per month",
        "Rent per GPU × fleet GPUs.",
        BOOK_TCO,
        expr=R("dedicated_idr_per_gpu_month") * R("gpus_needed"),
        doc_id="Sewa per GPU × GPU armada.",
        source_id="Buku, subbab 'Dedicated Server (Sewa GPU Server)'",
    ),
    Quantity(
        "tco_dedicated_idr",
        "TCO dedicated",
        "Dedicated TCO",
        "(Rent + staff) × months.",
        BOOK_TCO,
        expr=(R("dedicated_idr_per_month") + R("staff_idr_per_month")) * 12 * R("horizon_years"),
        doc_id="(Sewa + SDM) × bulan.",
        source_id="Buku, subbab 'Dedicated Server (Sewa GPU Server)' pada TCO 5 tahun",
    ),
    Quantity(
        "tco_cloud_idr",
        "TCO cloud GPU",
        "Cloud GPU TCO",
        "(Cloud rent + staff) × months.",
        BOOK_TCO,
        expr=(R("cloud_idr_per_month") + R("staff_idr_per_month")) * 12 * R("horizon_years"),
        doc_id="(Sewa cloud + SDM) × bulan.",
        source_id="Buku, subbab 'VPS Cloud GPU' pada TCO 5 tahun",
    ),
    Quantity(
        "tco_cloud_spot_idr",
        "TCO cloud GPU spot",
        "Spot cloud GPU TCO",
        "(Spot rent + staff) × months; 0 when the offer lists no spot price (the answer says so).",
        BOOK_TCO,
        expr=IF(
            R("cloud_spot_usd_per_hour") > 0,
            (R("cloud_spot_idr_per_month") + R("staff_idr_per_month")) * 12 * R("horizon_years"),
            0,
        ),
        doc_id="(Sewa spot + SDM) × bulan; 0 bila penawaran tidak mencantumkan harga spot (jawabannya menyebut itu).",
        source_id="Buku, subbab 'VPS Cloud GPU' pada TCO 5 tahun; katalog cloud GPU (spot_usd_per_hour)",
    ),
)
