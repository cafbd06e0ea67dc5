"""Deployment profile: where the fleet stands (workstation, rack server, HGX/DGX) and what that costs to run.

A profile (assumptions/deployments.csv) sets the servers, their platform capex, host power, network, storage,
installation, maintenance share, staff, cooling, tariff and colocation plan; each value stays replaceable.
"""

from __future__ import annotations

from kalkulator.engine.expr import AND, EQ, IF, IFERROR, INDEX, MATCH, MIN, OR, Col, R
from kalkulator.quantities.base import Quantity, lookup, row_of

PROFILES = "Katalog profil penempatan (assumptions/deployments.csv)"
OFFICE_ROW = MATCH("workstation", Col("deployment", "name"))  # the office-box profile whose limits it states
BOARDS = "Katalog board GPU (assumptions/boards.csv): GPU SXM/OAM dijual per board 4 atau 8 GPU"


def _per_server(name: str, column: str, label_id: str, label_en: str) -> tuple[Quantity, Quantity]:
    """A per-server capex item of the profile (its column's words), and the fleet's total of it (servers × per
    server, labelled `label_id`/`label_en`)."""
    per = f"{name}_per_server_idr"
    return (
        lookup(per, "deployment", column),
        Quantity(
            f"{name}_capex_idr",
            label_id,
            label_en,
            f"{label_en} per server × servers. Type a quote for the whole fleet to use it instead.",
            PROFILES,
            expr=R(per) * R("servers_needed"),
            overridable=True,
            doc_id=f"{label_id} per server × jumlah server. Ketik penawaran untuk seluruh armada untuk memakainya.",
            source_id=PROFILES,
        ),
    )


QUANTITIES = (
    lookup(
        "gpu_segment_type",
        "gpu",
        "segment",
        "Segmen GPU",
        "GPU segment",
        "consumer, workstation, datacenter, apple or cpu, from the GPU catalog (datacenter for a GPU described by "
        "its numbers).",
        fallback="datacenter",
        demanded=False,
        doc_id="consumer, workstation, datacenter, apple atau cpu, dari katalog GPU.",
        source_id="Katalog GPU: kolom segment",
    ),
    Quantity(
        "board_row",
        "Baris board GPU",
        "GPU board row",
        "Position of the GPU in the board catalog (0 = sold as a card, not only on a board).",
        BOARDS,
        expr=IFERROR(MATCH(R("gpu_name"), Col("board", "gpu")), 0),
        doc_id="Posisi GPU di katalog board (0 = dijual sebagai kartu, bukan hanya di board).",
        source_id="Katalog board GPU (assumptions/boards.csv)",
    ),
    lookup(
        "gpu_datacenter_use_text",
        "gpu",
        "datacenter_use",
        fallback="allowed",
        demanded=False,
        doc_id="apakah lisensi driver kartu ini mengizinkan penempatan di pusat data (GeForce: forbidden).",
        source_id="Katalog GPU: kolom datacenter_use (lisensi driver GeForce NVIDIA, 2.1.3)",
    ),
    Quantity(
        "office_box_gpus",
        "GPU dalam satu kotak kantor",
        "GPUs an office box holds",
        "GPUs per server × most servers of the workstation profile: the fleet an office desktop carries (one PC, one "
        "PSU, one office circuit).",
        PROFILES,
        expr=IFERROR(
            INDEX(Col("deployment", "gpus_per_server"), OFFICE_ROW)
            * INDEX(Col("deployment", "max_servers"), OFFICE_ROW),
            0,
        ),
        doc_id="GPU per server × server maksimum profil workstation: armada yang dimuat satu desktop kantor (satu PC, "
        "satu PSU, satu sirkuit kantor).",
        source_id="Katalog profil penempatan (assumptions/deployments.csv)",
    ),
    Quantity(
        "deployment_name",
        "Profil penempatan",
        "Deployment profile",
        "Where the fleet runs: HGX/DGX for GPUs sold only on boards (SXM, OAM); workstation for Apple and CPU systems "
        "and for fleets and replicas one office box holds; server rak (PCIe cards in 4U servers, a server room or "
        "data centre) otherwise — GeForce fleets beyond one office box too, where their driver licence applies. "
        "Choose another profile as a manual value.",
        PROFILES,
        expr=IF(
            R("board_row") > 0,
            "HGX/DGX",
            IF(
                OR(
                    EQ(R("gpu_segment_type"), "apple"),
                    EQ(R("gpu_segment_type"), "cpu"),
                    AND(R("gpus_needed") <= R("office_box_gpus"), R("n_gpus") <= R("office_box_gpus")),
                ),
                "workstation",
                "server rak",
            ),
        ),
        overridable=True,
        choices=("deployment", "name"),
        doc_id=(
            "Tempat armada berjalan: HGX/DGX untuk GPU yang hanya dijual di board (SXM, OAM); workstation untuk "
            "sistem Apple dan CPU serta armada dan replika yang muat di satu kotak kantor; server rak (kartu PCIe "
            "di server 4U, ruang server atau pusat data) selain itu — termasuk armada GeForce di atas satu kotak "
            "kantor, tempat lisensi drivernya berlaku. Pilih profil lain sebagai isian manual."
        ),
        source_id="Katalog profil penempatan (assumptions/deployments.csv)",
    ),
    row_of(
        "deployment",
        "deployment_name",
        "Baris profil penempatan",
        "Deployment profile row",
        doc_id="Posisi profil terpilih di katalog profil penempatan (0 = tidak ada di katalog).",
        source_id="Katalog profil penempatan (assumptions/deployments.csv)",
    ),
    Quantity(
        "whole_servers_flag",
        "Dibeli per server/board utuh?",
        "Bought in whole servers/boards?",
        "TRUE when the profile buys GPUs only in whole servers or boards (HGX/DGX): the fleet is rounded up.",
        PROFILES,
        expr=EQ(IF(R("deployment_row") > 0, INDEX(Col("deployment", "whole_servers"), R("deployment_row")), 0), 1),
        doc_id=("TRUE bila profil membeli GPU hanya per server atau board utuh (HGX/DGX): armada dibulatkan ke atas."),
        source_id="Katalog profil penempatan (assumptions/deployments.csv)",
    ),
    Quantity(
        "gpus_per_server",
        "GPU per server",
        "GPUs per server",
        "GPUs one server holds: the board's GPUs for a board profile, else the profile's (workstation 2, "
        "server rak 8); the fleet needs whole servers.",
        PROFILES + "; " + BOARDS,
        expr=IF(
            AND(R("whole_servers_flag"), R("board_row") > 0),
            INDEX(Col("board", "gpus"), R("board_row")),
            IF(R("deployment_row") > 0, INDEX(Col("deployment", "gpus_per_server"), R("deployment_row")), 8),
        ),
        overridable=True,
        catalog_column=("deployment", "gpus_per_server"),
        doc_id=(
            "GPU dalam satu server: jumlah GPU board untuk profil board, selain itu dari profil "
            "(workstation 2, server rak 8); armada butuh server utuh."
        ),
        source_id="Katalog profil penempatan (assumptions/deployments.csv)",
    ),
    lookup(
        "deployment_max_servers",
        "deployment",
        "max_servers",
        doc_id="Server (kotak) terbanyak yang dimuat profil: kotak kantor adalah satu PC (0 = tanpa batas).",
        source_id="Katalog profil penempatan (assumptions/deployments.csv)",
    ),
    lookup(
        "deployment_max_server_power_w",
        "deployment",
        "max_server_power_w",
        doc_id="Daya terbesar PSU satu server (0 = tanpa batas).",
        source_id="Katalog profil penempatan (assumptions/deployments.csv)",
    ),
    Quantity(
        "deployment_datacenter_flag",
        "Penempatan pusat data?",
        "Data-centre deployment?",
        "TRUE when the profile stands in a server room or data centre (licences that forbid data-centre use apply).",
        PROFILES,
        expr=EQ(IF(R("deployment_row") > 0, INDEX(Col("deployment", "datacenter"), R("deployment_row")), 1), 1),
        doc_id="TRUE bila profil berada di ruang server atau pusat data (lisensi yang melarang pemakaian di pusat "
        "data berlaku).",
        source_id="Katalog profil penempatan (assumptions/deployments.csv)",
    ),
    Quantity(
        "replica_spans_servers_flag",
        "Replika melewati batas server?",
        "Replica spans servers?",
        "TRUE when one replica needs more GPUs than one server of the profile holds: a tensor- or layer-split "
        "replica runs inside one chassis, so the fleet cannot be built this way.",
        PROFILES,
        expr=R("n_gpus") > R("gpus_per_server"),
        doc_id="TRUE bila satu replika butuh lebih banyak GPU daripada satu server profil ini: replika tensor- atau "
        "layer-split berjalan di dalam satu chassis, jadi armada tidak bisa dibangun begini.",
        source_id="Katalog profil penempatan (assumptions/deployments.csv)",
    ),
    Quantity(
        "office_box_exceeded_flag",
        "Melebihi kotak kantor?",
        "Beyond the office box?",
        "TRUE when the profile holds at most a few boxes (an office desktop) and the fleet needs more servers, or a "
        "server's GPUs at TDP plus host power exceed its most power: such a fleet is priced as a server room, not a "
        "desktop with PUE 1 and no staff.",
        PROFILES,
        expr=OR(
            AND(R("deployment_max_servers") > 0, R("servers_needed") > R("deployment_max_servers")),
            AND(
                R("deployment_max_server_power_w") > 0,
                MIN(R("gpus_needed"), R("gpus_per_server")) * R("gpu_tdp_w") + R("host_power_w")
                > R("deployment_max_server_power_w"),
            ),
        ),
        doc_id="TRUE bila profil hanya memuat sedikit kotak (desktop kantor) dan armada butuh lebih banyak "
        "server, atau "
        "GPU satu server pada TDP ditambah daya host melebihi daya maksimumnya: armada seperti itu dihitung sebagai "
        "ruang server, bukan desktop dengan PUE 1 tanpa SDM.",
        source_id="Katalog profil penempatan (assumptions/deployments.csv)",
    ),
    Quantity(
        "licence_datacenter_flag",
        "Lisensi melarang penempatan ini?",
        "Licence forbids this deployment?",
        "TRUE when the GPU's driver licence forbids data-centre deployment (GeForce) and the fleet stands in a server "
        "room or data centre; colocation of such cards is outside the licence too.",
        "GPU catalog (datacenter_use) and deployment profiles (datacenter)",
        expr=AND(EQ(R("gpu_datacenter_use_text"), "forbidden"), R("deployment_datacenter_flag")),
        doc_id="TRUE bila lisensi driver GPU melarang penempatan di pusat data (GeForce) dan armada berada di ruang "
        "server atau pusat data; colocation kartu seperti itu juga di luar lisensi.",
        source_id="Katalog GPU (datacenter_use) dan profil penempatan (datacenter)",
    ),
    Quantity(
        "bought_gpus",
        "GPU yang dibeli",
        "GPUs bought",
        "Whole servers × GPUs per server when GPUs come only on boards (14 H100 SXM → 2 boards of 8 = 16), "
        "else the fleet's GPUs. Capex and power use it; capacity uses the GPUs needed.",
        BOARDS,
        expr=IF(R("whole_servers_flag"), R("servers_needed") * R("gpus_per_server"), R("gpus_needed")),
        doc_id=(
            "Server utuh × GPU per server bila GPU hanya dijual di board (14 H100 SXM → 2 board isi 8 = "
            "16), selain itu GPU armada. Capex dan daya memakainya; kapasitas memakai GPU yang "
            "dibutuhkan."
        ),
        source_id="Katalog board GPU",
    ),
    Quantity(
        "gpu_price_usd",
        "Harga GPU",
        "GPU price",
        "Price per GPU: the board's price ÷ its GPUs for GPUs sold only on boards, else the GPU catalog's street "
        "price where it has one, else its list price (0 when the catalog has none: type a quote).",
        "GPU catalog: column street_price_usd, else price_usd; " + BOARDS,
        expr=IF(
            R("board_row") > 0,
            INDEX(Col("board", "price_usd"), R("board_row")) / INDEX(Col("board", "gpus"), R("board_row")),
            IF(
                R("gpu_row") > 0,
                IF(
                    INDEX(Col("gpu", "street_price_usd"), R("gpu_row")) > 0,
                    INDEX(Col("gpu", "street_price_usd"), R("gpu_row")),
                    INDEX(Col("gpu", "price_usd"), R("gpu_row")),
                ),
                0,
            ),
        ),
        overridable=True,
        catalog_column=("gpu", "price_usd"),
        doc_id=(
            "Harga per GPU: harga board ÷ GPU-nya untuk GPU yang hanya dijual di board, selain itu "
            "harga jalanan di katalog GPU bila ada, selain itu harga daftarnya (0 bila tidak ada: ketik penawaran)."
        ),
        source_id="Katalog GPU: kolom street_price_usd, selain itu price_usd; katalog board GPU",
    ),
    lookup(
        "server_capex_idr",
        "deployment",
        "server_capex_idr",
        fallback=20_000_000,
        doc_id="CPU, board, memori, PSU dan chassis satu server, dari profil penempatan.",
        source_id="Katalog profil penempatan (assumptions/deployments.csv)",
    ),
    *_per_server("network", "network_capex_idr", "Jaringan", "Network"),
    *_per_server("storage", "storage_capex_idr", "Penyimpanan", "Storage"),
    *_per_server("setup", "setup_capex_idr", "Instalasi dan setup", "Installation and setup"),
    lookup(
        "host_power_w",
        "deployment",
        "host_power_w",
        fallback=150,
        doc_id="CPU, memori, disk, kipas dan rugi PSU saat beban, per server, dari profil penempatan.",
        source_id="Katalog profil penempatan (assumptions/deployments.csv)",
    ),
    lookup(
        "maintenance_share_frac",
        "deployment",
        "maintenance_frac",
        fallback=0.01,
        doc_id="Suku cadang, kontrak dukungan dan perbaikan per tahun sebagai porsi capex, dari profil.",
        source_id="Katalog profil penempatan (assumptions/deployments.csv)",
    ),
    Quantity(
        "maintenance_idr_per_year",
        "Pemeliharaan per tahun",
        "Maintenance per year",
        "Capex × the maintenance share: it grows with the fleet. Type a contract price to use it instead.",
        "Buku, Bab 16.1: RTX 4090 Rp 500.000/tahun = 1 % dari Rp 50 juta; " + PROFILES,
        expr=R("hardware_capex_idr") * R("maintenance_share_frac"),
        overridable=True,
        doc_id="Capex × porsi pemeliharaan: tumbuh bersama armada. Ketik harga kontrak untuk memakainya.",
        source_id="Buku, bab 16.1: RTX 4090 Rp 500.000/tahun = 1 % dari Rp 50 juta; profil penempatan",
    ),
    lookup(
        "staff_fte_per_server_ratio",
        "deployment",
        "staff_fte_per_server",
        doc_id="Engineer (setara penuh waktu) per server, dari profil (0 untuk workstation).",
        source_id="Katalog profil penempatan (assumptions/deployments.csv)",
    ),
    lookup(
        "staff_salary_idr_per_month",
        "deployment",
        "staff_salary_idr_per_month",
        fallback=40_000_000,
        doc_id="Biaya satu engineer penuh waktu per bulan.",
        source_id="Buku L509: gaji developer senior Rp 40 juta/bulan",
    ),
    Quantity(
        "staff_fte_ratio",
        "SDM armada (FTE)",
        "Fleet staff (FTE)",
        "Servers × staff per server.",
        PROFILES,
        expr=R("servers_needed") * R("staff_fte_per_server_ratio"),
        doc_id="Jumlah server × SDM per server.",
        source_id="Katalog profil penempatan (assumptions/deployments.csv)",
    ),
    Quantity(
        "staff_idr_per_month",
        "Biaya SDM per bulan",
        "Staff cost per month",
        "Fleet staff × one engineer's cost; the same staff runs every deployment mode. Type a figure to use it "
        "instead.",
        "Buku L509: gaji developer senior Rp 40 juta/bulan; " + PROFILES,
        expr=R("staff_fte_ratio") * R("staff_salary_idr_per_month"),
        overridable=True,
        doc_id=(
            "SDM armada × biaya satu engineer; SDM yang sama menjalankan setiap mode penempatan. Ketik "
            "angka untuk memakainya."
        ),
        source_id="Buku L509: gaji developer senior Rp 40 juta/bulan; profil penempatan",
    ),
)
