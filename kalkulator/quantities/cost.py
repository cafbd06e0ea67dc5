"""Cost chain: capex and depreciation, on-premise, cloud-GPU and API cost per 1M tokens, in rupiah."""

from __future__ import annotations

from kalkulator.engine.expr import EQ, IF, IFERROR, INDEX, MATCH, Col, Msg, R, safe_div
from kalkulator.quantities.base import Quantity, lookup, row_of

BOOK_COST = "Buku, Bab 16.1: Cost/token = (hardware/lifetime_hari + listrik/hari + maintenance/hari) / tokens_per_hari"
BOOK_LIVES = "Buku, Bab TCO 5 tahun: depresiasi GPU 3 tahun residual 10 %, depresiasi server 4 tahun residual 5 %"
BOOK_API = "Buku, Bab harga API Indonesia: USD × kurs + PPN 11 % + PPh 22"


def _capex_item(
    name: str,
    label_id: str,
    label_en: str,
    doc: str,
    default: float,
    source: str,
    doc_id: str = "",
    source_id: str = "",
) -> Quantity:
    return Quantity(name, label_id, label_en, doc, source, default=default, doc_id=doc_id, source_id=source_id)


TAXES = (
    Quantity(
        "usd_idr",
        "Kurs USD ke Rupiah",
        "USD to rupiah rate",
        "Rupiah per US dollar.",
        "Buku, Bab 4 (asumsi TCO): Rp 16.500/USD",
        default=16500,
        doc_id="Rupiah per dolar AS.",
        source_id="Buku, subbab TCO 5 tahun dan harga API dalam Rupiah: kurs Rp 16.500/USD",
    ),
    Quantity(
        "ppn_mode",
        "PPN berlaku?",
        "VAT (PPN) applies?",
        "on: add PPN to dollar prices (hardware, cloud, API).",
        "UU HPP 2021: PPN 11 %",
        default="on",
        options=("on", "off"),
        doc_id="Pilih 'on' untuk menambahkan PPN ke harga dalam dolar (hardware, cloud, API).",
        source_id="UU HPP 2021: PPN 11 %",
    ),
    Quantity(
        "ppn_pct",
        "Tarif PPN",
        "VAT (PPN) rate",
        "Value-added tax rate.",
        "UU HPP 2021: 11 %",
        default=11,
        doc_id="Tarif pajak pertambahan nilai.",
        source_id="UU HPP 2021: 11 %",
    ),
    Quantity(
        "pph22_mode",
        "PPh 22 berlaku? (API)",
        "Income tax PPh 22 applies? (API)",
        "on: add PPh 22 to API prices (provider without a permanent establishment, per the book).",
        BOOK_API,
        default="off",
        options=("on", "off"),
        doc_id=(
            "Pilih 'on' untuk menambahkan PPh 22 ke harga API (penyedia tanpa bentuk usaha tetap, mengikuti buku)."
        ),
        source_id=(
            "Buku, bagian harga API dalam Rupiah (sebelum subbab 'API Lokal Indonesia'): USD × kurs + PPN 11 % + PPh 22"
        ),
    ),
    Quantity(
        "pph22_pct",
        "Tarif PPh 22",
        "PPh 22 rate",
        "Rate the book applies to API payments.",
        "Buku, Bab harga API Indonesia: PPh 22 (15 %)",
        default=15,
        doc_id="Tarif yang diterapkan buku pada pembayaran API.",
        source_id="Buku, bagian harga API dalam Rupiah: PPh 22 (15 %)",
    ),
    Quantity(
        "ppn_multiplier_ratio",
        "Pengali PPN",
        "VAT multiplier",
        "1 + PPN when it applies.",
        "UU HPP 2021",
        expr=1 + IF(EQ(R("ppn_mode"), "on"), R("ppn_pct") / 100, 0),
        doc_id="1 + PPN bila berlaku.",
        source_id="UU HPP 2021",
    ),
    Quantity(
        "api_tax_multiplier_ratio",
        "Pengali pajak API",
        "API tax multiplier",
        "(1 + PPN) × (1 + PPh 22 when on).",
        BOOK_API,
        expr=R("ppn_multiplier_ratio") * (1 + IF(EQ(R("pph22_mode"), "on"), R("pph22_pct") / 100, 0)),
        doc_id="(1 + PPN) × (1 + PPh 22 bila pilihannya 'on').",
        source_id="Buku, bagian harga API dalam Rupiah: USD × kurs + PPN 11 % + PPh 22",
    ),
)

CAPEX = (
    Quantity(
        "import_duty_pct",
        "Bea masuk GPU",
        "GPU import duty",
        "Customs duty on the GPU's dollar price (0 when the card enters under HS 8471.50).",
        "Buku, subbab harga GPU di Indonesia: bea masuk 0–10 %, GPU bebas bea masuk jika HS 8471.50",
        default=0,
        doc_id="Bea masuk atas harga dolar GPU (0 bila masuk dengan HS 8471.50).",
        source_id="Buku, subbab harga GPU di Indonesia: bea masuk 0–10 %, GPU bebas bea masuk jika HS 8471.50",
    ),
    Quantity(
        "distributor_margin_pct",
        "Margin distributor dan garansi",
        "Distributor margin and warranty",
        "What a local distributor adds on the imported price (0 when the catalog price is already a local quote).",
        "Buku, contoh RTX 4090: margin distributor + garansi resmi Rp 10–15 juta di atas Rp 28,77 juta",
        default=0,
        doc_id="Tambahan distributor lokal atas harga impor (0 bila harga katalog sudah penawaran lokal).",
        source_id=("Buku, contoh RTX 4090: margin distributor + garansi resmi Rp 10–15 juta di atas Rp 28,77 juta"),
    ),
    Quantity(
        "gpu_unit_idr",
        "Harga satu GPU (rupiah, sampai di tangan)",
        "One GPU, landed (rupiah)",
        "Dollar price × USD rate × (1 + import duty) × (1 + distributor margin) × (1 + PPN).",
        "Buku, harga akhir = harga dasar × kurs + PPN 11 % + bea masuk 0–10 % (+ margin distributor)",
        expr=R("gpu_price_usd")
        * R("usd_idr")
        * (1 + R("import_duty_pct") / 100)
        * (1 + R("distributor_margin_pct") / 100)
        * R("ppn_multiplier_ratio"),
        doc_id="Harga dolar × kurs × (1 + bea masuk) × (1 + margin distributor) × (1 + PPN).",
        source_id=("Buku, harga akhir = harga dasar × kurs + PPN 11 % + bea masuk 0–10 % (+ margin distributor)"),
    ),
    Quantity(
        "gpu_capex_idr",
        "Belanja GPU",
        "GPU purchase",
        "One landed GPU × GPUs bought (whole boards for SXM GPUs).",
        "Buku, harga akhir GPU × jumlah GPU",
        expr=R("gpu_unit_idr") * R("bought_gpus"),
        doc_id="Satu GPU sampai di tangan × GPU yang dibeli (board utuh untuk GPU SXM).",
        source_id="Buku, harga akhir GPU × jumlah GPU",
    ),
    _capex_item(
        "cooling_capex_idr",
        "Pendinginan",
        "Cooling",
        "Precision AC, liquid cooling.",
        0,
        "Buku, TCO: precision AC Rp 80–150 juta per unit",
        doc_id="Precision AC, liquid cooling.",
        source_id="Buku, subbab 'Opsi 1: Precision AC (CRAC/CRAH)': Rp 80–150 juta per unit",
    ),
    Quantity(
        "other_capex_idr",
        "Belanja selain GPU",
        "Capex besides the GPUs",
        "Servers (without GPUs) × servers + network + storage + cooling + setup: the part depreciated over the "
        "server's life.",
        BOOK_LIVES,
        expr=R("server_capex_idr") * R("servers_needed")
        + R("network_capex_idr")
        + R("storage_capex_idr")
        + R("cooling_capex_idr")
        + R("setup_capex_idr"),
        doc_id=(
            "Server (tanpa GPU) × jumlah server + jaringan + penyimpanan + pendinginan + setup: bagian "
            "yang disusutkan dengan umur server."
        ),
        source_id="Buku, subbab TCO 5 tahun: depresiasi GPU dan server terpisah",
    ),
    Quantity(
        "hardware_capex_idr",
        "Total belanja modal (capex)",
        "Total capital expense (capex)",
        "GPUs + everything else, for the fleet. Type a quote to use it instead: it is then split between the GPU "
        "and the server schedules by the GPU share below.",
        "Buku, TCO: GPU, server, jaringan, pendinginan",
        expr=R("gpu_capex_idr") + R("other_capex_idr"),
        overridable=True,
        doc_id=(
            "GPU + selain GPU, untuk seluruh armada. Isi penawaran untuk memakainya: total itu lalu "
            "dibagi ke jadwal GPU dan jadwal server menurut porsi GPU di bawah."
        ),
        source_id="Buku, subbab TCO 5 tahun: GPU, server, jaringan, pendinginan",
    ),
    Quantity(
        "gpu_capex_share_frac",
        "Porsi GPU dalam capex",
        "GPU share of the capex",
        "GPU purchase ÷ (GPU purchase + the rest), from the items above, even when a total quote is typed: the "
        "quote is split in the same proportion (0 when the items sum to 0). Type the share your quote shows instead.",
        BOOK_LIVES,
        expr=safe_div(R("gpu_capex_idr"), R("gpu_capex_idr") + R("other_capex_idr")),
        overridable=True,
        doc_id=(
            "Belanja GPU ÷ (belanja GPU + selain GPU), dari rincian di atas, juga saat total penawaran "
            "diisi: penawaran dibagi dengan proporsi yang sama (0 bila rinciannya 0). Isi porsi dari "
            "penawaran Anda untuk memakainya."
        ),
        source_id="Buku, subbab TCO 5 tahun: depresiasi GPU dan server terpisah",
    ),
    Quantity(
        "lifetime_years",
        "Umur ekonomis GPU",
        "GPU useful life",
        "Years over which the GPUs are depreciated; also the useful life a break-even must fall within.",
        BOOK_LIVES,
        default=3,
        doc_id="Jumlah tahun penyusutan GPU; juga umur pakai yang harus dicapai break-even.",
        source_id="Buku, subbab TCO 5 tahun: depresiasi GPU 3 tahun residual 10 %",
    ),
    Quantity(
        "residual_pct",
        "Nilai sisa GPU",
        "GPU residual value",
        "Share of the GPUs' price left at the end of their useful life.",
        BOOK_LIVES,
        default=10,
        doc_id="Porsi harga GPU yang tersisa di akhir umur ekonomisnya.",
        source_id="Buku, subbab TCO 5 tahun: depresiasi GPU 3 tahun residual 10 %",
    ),
    Quantity(
        "server_lifetime_years",
        "Umur ekonomis server",
        "Server useful life",
        "Years over which everything but the GPUs (servers, network, storage, cooling, setup) is depreciated.",
        BOOK_LIVES,
        default=4,
        doc_id=("Jumlah tahun penyusutan semua selain GPU (server, jaringan, penyimpanan, pendinginan, setup)."),
        source_id="Buku, subbab TCO 5 tahun: depresiasi server 4 tahun residual 5 %",
    ),
    Quantity(
        "server_residual_pct",
        "Nilai sisa server",
        "Server residual value",
        "Share of the non-GPU capex left at the end of the server's useful life.",
        BOOK_LIVES,
        default=5,
        doc_id="Porsi capex selain GPU yang tersisa di akhir umur ekonomis server.",
        source_id="Buku, subbab TCO 5 tahun: depresiasi server 4 tahun residual 5 %",
    ),
    Quantity(
        "depreciation_idr_per_day",
        "Penyusutan per hari",
        "Depreciation per day",
        "Straight line, two schedules: capex × [GPU share × (1 − GPU residual) ÷ GPU life + (1 − GPU share) × "
        "(1 − server residual) ÷ server life] ÷ days per year; the rate while both are being depreciated.",
        BOOK_COST + "; " + BOOK_LIVES,
        expr=safe_div(
            R("hardware_capex_idr")
            * (
                R("gpu_capex_share_frac") * safe_div(1 - R("residual_pct") / 100, R("lifetime_years"))
                + (1 - R("gpu_capex_share_frac"))
                * safe_div(1 - R("server_residual_pct") / 100, R("server_lifetime_years"))
            ),
            R("year_days"),
        ),
        doc_id=(
            "Garis lurus, dua jadwal: capex × [porsi GPU × (1 − nilai sisa GPU) ÷ umur GPU + (1 − porsi "
            "GPU) × (1 − nilai sisa server) ÷ umur server] ÷ hari per tahun; laju selama keduanya masih "
            "disusutkan."
        ),
        source_id=(
            "Buku, bab 16.1: biaya/token = (hardware/lifetime_hari + listrik/hari + maintenance/hari) / "
            "tokens_per_hari; subbab TCO 5 tahun: GPU 3 tahun/10 %, server 4 tahun/5 %"
        ),
    ),
    Quantity(
        "maintenance_idr_per_day",
        "Pemeliharaan per hari",
        "Maintenance per day",
        "Per year ÷ days per year.",
        BOOK_COST,
        expr=safe_div(R("maintenance_idr_per_year"), R("year_days")),
        doc_id="Per tahun ÷ hari per tahun.",
        source_id="Buku, bab 16.1",
    ),
    Quantity(
        "staff_idr_per_day",
        "SDM per hari",
        "Staff per day",
        "Per month ÷ days per month.",
        BOOK_COST,
        expr=safe_div(R("staff_idr_per_month"), R("month_days")),
        doc_id="Per bulan ÷ hari per bulan.",
        source_id="Buku, bab 16.1 (biaya per hari)",
    ),
)

ONPREM = (
    Quantity(
        "tokens_per_day",
        "Token terlayani per hari",
        "Tokens served per day",
        "Requests served per day × (prompt + output tokens): the tokens the fleet's cost is spread over. "
        "Type a figure to use it instead (the book uses tok/s × 86,400 × duty cycle).",
        "Buku, Bab 16.1 (dikoreksi: token input + output yang benar-benar dilayani)",
        expr=R("served_requests_per_day") * (R("prompt_tokens") + R("output_tokens")),
        overridable=True,
        doc_id=(
            "Permintaan terlayani per hari × (token prompt + output): token yang menanggung biaya "
            "armada. Isi angka untuk memakainya (buku memakai tok/s × 86.400 × duty cycle)."
        ),
        source_id="Buku, bab 16.1 (dikoreksi: token input + output yang benar-benar dilayani)",
    ),
    Quantity(
        "onprem_cost_idr_per_day",
        "Biaya on-premise per hari",
        "On-premise cost per day",
        "Depreciation + electricity + maintenance + staff.",
        BOOK_COST,
        expr=R("depreciation_idr_per_day")
        + R("electricity_idr_per_day")
        + R("maintenance_idr_per_day")
        + R("staff_idr_per_day"),
        doc_id="Penyusutan + listrik + pemeliharaan + SDM.",
        source_id=(
            "Buku, bab 16.1: biaya/token = (hardware/lifetime_hari + listrik/hari + maintenance/hari) / tokens_per_hari"
        ),
    ),
    Quantity(
        "cost_idr_per_1m_tokens",
        "Biaya on-premise per 1 juta token",
        "On-premise cost per 1M tokens",
        "Cost per day ÷ tokens per day × 1,000,000.",
        BOOK_COST,
        expr=safe_div(R("onprem_cost_idr_per_day") * 1e6, R("tokens_per_day")),
        doc_id="Biaya per hari ÷ token per hari × 1.000.000.",
        source_id=(
            "Buku, bab 16.1: biaya/token = (hardware/lifetime_hari + listrik/hari + maintenance/hari) / tokens_per_hari"
        ),
    ),
    Quantity(
        "cost_idr_per_request",
        "Biaya on-premise per permintaan",
        "On-premise cost per request",
        "Cost per 1M tokens × (prompt + output tokens) ÷ 1,000,000.",
        BOOK_COST,
        expr=R("cost_idr_per_1m_tokens") * (R("prompt_tokens") + R("output_tokens")) / 1e6,
        doc_id="Biaya per 1 juta token × (token prompt + output) ÷ 1.000.000.",
        source_id="Buku, bab 16.1",
    ),
    Quantity(
        "cost_idr_per_1m_input_tokens",
        "Biaya on-premise per 1 juta token input",
        "On-premise cost per 1M input tokens",
        "Cost per request × prefill's share of the replica time ÷ prompt tokens × 1,000,000.",
        BOOK_COST + "; waktu GPU dibagi antara prefill dan decode",
        expr=safe_div(R("cost_idr_per_request") * R("prefill_share_frac") * 1e6, R("prompt_tokens")),
        doc_id="Biaya per permintaan × porsi prefill dari waktu replika ÷ token prompt × 1.000.000.",
        source_id="Buku, bab 16.1; waktu GPU dibagi antara prefill dan decode",
    ),
    Quantity(
        "cost_idr_per_1m_output_tokens",
        "Biaya on-premise per 1 juta token output",
        "On-premise cost per 1M output tokens",
        "Cost per request × decode's share of the replica time ÷ output tokens × 1,000,000.",
        BOOK_COST + "; waktu GPU dibagi antara prefill dan decode",
        expr=safe_div(R("cost_idr_per_request") * (1 - R("prefill_share_frac")) * 1e6, R("output_tokens")),
        doc_id="Biaya per permintaan × porsi decode dari waktu replika ÷ token output × 1.000.000.",
        source_id="Buku, bab 16.1; waktu GPU dibagi antara prefill dan decode",
    ),
)

CLOUD = (
    Quantity(
        "cloud_offer_name",
        "Penawaran cloud GPU",
        "Cloud GPU offer",
        "Instance rented by the hour: the catalog's first offer for the scenario's GPU (the catalog lists each "
        "GPU's cheapest offer per GPU-hour first). Choose another offer as a manual value.",
        "Katalog Harga: cloud GPU",
        expr=IFERROR(
            INDEX(Col("cloud", "name"), MATCH(R("gpu_name"), Col("cloud", "gpu"))),
            Msg("tidak ada penawaran untuk GPU ini", "no offer for this GPU"),
        ),
        overridable=True,
        choices=("cloud", "name"),
        doc_id=(
            "Instance yang disewa per jam: penawaran pertama di katalog untuk GPU skenario (katalog "
            "mendaftar penawaran termurah per GPU-jam lebih dulu untuk setiap GPU). Pilih penawaran "
            "lain lewat Isi manual."
        ),
        source_id="Katalog Harga: cloud GPU",
    ),
    row_of(
        "cloud",
        "cloud_offer_name",
        "Baris cloud",
        "Cloud row",
        doc_id="Posisi cloud_offer_name yang dipilih di katalog cloud (0 = tidak ada di katalog).",
        source_id="Katalog Harga: cloud GPU",
    ),
    lookup(
        "cloud_gpu_name",
        "cloud",
        "gpu",
        fallback="",
        doc_id="Model GPU pada instance.",
        source_id="Katalog cloud GPU per jam, kolom 'GPU'",
    ),
    lookup(
        "cloud_offer_gpus",
        "cloud",
        "gpus",
        doc_id="Jumlah GPU dalam satu instance.",
        source_id="Katalog cloud GPU per jam, kolom 'GPU per instance'",
    ),
    lookup(
        "cloud_usd_per_hour",
        "cloud",
        "usd_per_hour",
        doc_id="Harga on-demand instance (0 bila ditagih dalam rupiah).",
        source_id="Katalog cloud GPU per jam, kolom 'USD/jam'",
    ),
    lookup(
        "cloud_listed_idr_per_hour",
        "cloud",
        "idr_per_hour",
        doc_id="Harga dari penyedia yang menagih dalam rupiah (0 bila ditagih dalam USD).",
        source_id="Katalog cloud GPU per jam, kolom 'Rp/jam'",
    ),
    Quantity(
        "cloud_gpu_match_flag",
        "GPU cloud = GPU skenario?",
        "Cloud GPU = scenario GPU?",
        "FALSE means the offer rents another GPU than the one whose speed is computed.",
        "Consistency check",
        expr=EQ(R("cloud_gpu_name"), R("gpu_name")),
        doc_id="FALSE berarti penawaran ini menyewakan GPU lain, bukan GPU yang kecepatannya dihitung.",
        source_id="Pemeriksaan konsistensi",
    ),
    Quantity(
        "cloud_idr_per_gpu_hour",
        "Biaya cloud per GPU-jam",
        "Cloud cost per GPU-hour",
        "Rupiah price, or dollar price × rate × (1 + PPN), ÷ GPUs per instance.",
        "Buku, Bab 16.3 (biaya cloud GPU per jam)",
        expr=safe_div(
            IF(
                R("cloud_listed_idr_per_hour") > 0,
                R("cloud_listed_idr_per_hour"),
                R("cloud_usd_per_hour") * R("usd_idr") * R("ppn_multiplier_ratio"),
            ),
            R("cloud_offer_gpus"),
        ),
        doc_id="Harga rupiah, atau harga dolar × kurs × (1 + PPN), ÷ GPU per instance.",
        source_id="Buku, bab 16.3 (biaya cloud GPU per jam)",
    ),
    Quantity(
        "cloud_hours_per_day",
        "Jam sewa per hari",
        "Rented hours per day",
        "Hours per day the instance is rented (24 = always on).",
        "Buku, Bab 16.3",
        default=24,
        doc_id="Jam sewa instance per hari (24 = selalu menyala).",
        source_id="Buku, bab 16.3",
    ),
    Quantity(
        "cloud_idr_per_day",
        "Biaya cloud per hari",
        "Cloud cost per day",
        "Per GPU-hour × fleet GPUs × rented hours.",
        "Buku, Bab 16.3 (dikoreksi: × 24 jam)",
        expr=R("cloud_idr_per_gpu_hour") * R("gpus_needed") * R("cloud_hours_per_day"),
        doc_id="Per GPU-jam × GPU armada × jam sewa.",
        source_id="Buku, bab 16.3 (dikoreksi: × 24 jam)",
    ),
    Quantity(
        "cloud_idr_per_month",
        "Biaya cloud per bulan",
        "Cloud cost per month",
        "Per day × days per month.",
        "Buku, Bab 16.3",
        expr=R("cloud_idr_per_day") * R("month_days"),
        doc_id="Per hari × hari per bulan.",
        source_id="Buku, bab 16.3",
    ),
    lookup(
        "cloud_spot_usd_per_hour",
        "cloud",
        "spot_usd_per_hour",
        source_id="Katalog cloud GPU per jam, kolom 'Spot USD/jam'",
    ),
    Quantity(
        "cloud_spot_idr_per_month",
        "Biaya cloud spot per bulan",
        "Spot cloud cost per month",
        "Spot price × rate × (1 + PPN) ÷ GPUs per instance × fleet GPUs × rented hours × days per month. Spot "
        "instances can be stopped by the provider at short notice: for work that can be resumed.",
        "Katalog cloud GPU (spot_usd_per_hour); Buku, Bab 16.3",
        expr=safe_div(R("cloud_spot_usd_per_hour") * R("usd_idr") * R("ppn_multiplier_ratio"), R("cloud_offer_gpus"))
        * R("gpus_needed")
        * R("cloud_hours_per_day")
        * R("month_days"),
        doc_id="Harga spot × kurs × (1 + PPN) ÷ GPU per instance × GPU armada × jam sewa × hari per bulan. Instance "
        "spot bisa dihentikan penyedia sewaktu-waktu: untuk pekerjaan yang bisa dilanjutkan.",
        source_id="Katalog cloud GPU (spot_usd_per_hour); buku, bab 16.3",
    ),
    Quantity(
        "cloud_cost_idr_per_1m_tokens",
        "Biaya cloud per 1 juta token",
        "Cloud cost per 1M tokens",
        "(Rent + staff) per day ÷ tokens per day × 1,000,000 (the book divided an hourly price by daily tokens); "
        "staff counts as in the cloud TCO.",
        "Buku, Bab 16.3 (dikoreksi)",
        expr=safe_div((R("cloud_idr_per_day") + R("staff_idr_per_day")) * 1e6, R("tokens_per_day")),
        doc_id=(
            "(Sewa + SDM) per hari ÷ token per hari × 1.000.000 (buku membagi harga per jam dengan "
            "token per hari); SDM dihitung seperti pada TCO cloud."
        ),
        source_id="Buku, bab 16.3 (dikoreksi, lihat errata di Panduan)",
    ),
)

QUANTITIES = (*TAXES, *CAPEX, *ONPREM, *CLOUD)
