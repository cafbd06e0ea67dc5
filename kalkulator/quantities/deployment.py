"""Deployment profile: where the fleet stands (workstation, rack server, HGX/DGX) and what that costs to run.

A profile (assumptions/deployments.csv) sets the servers, their platform capex, host power, network, storage,
installation, maintenance share, staff, cooling, tariff and colocation plan; each value stays replaceable.
"""

from __future__ import annotations

from kalkulator.expr import AND, EQ, IF, IFERROR, INDEX, MATCH, OR, Col, R
from kalkulator.quantities.base import Quantity, lookup, row_of

PROFILES = "Katalog profil penempatan (assumptions/deployments.csv)"
BOARDS = "Katalog board GPU (assumptions/boards.csv): GPU SXM/OAM dijual per board 4 atau 8 GPU"


def _per_server(name: str, column: str, label_id: str, label_en: str, doc: str) -> tuple[Quantity, Quantity]:
    """A per-server capex item of the profile, and the fleet's total of it (servers × per server)."""
    per = f"{name}_per_server_idr"
    return (
        lookup(per, "deployment", column, label_id + " per server", label_en + " per server", doc),
        Quantity(
            f"{name}_capex_idr",
            label_id,
            label_en,
            f"{label_en} per server × servers. Type a quote for the whole fleet to use it instead.",
            PROFILES,
            expr=R(per) * R("servers_needed"),
            overridable=True,
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
    ),
    Quantity(
        "board_row",
        "Baris board GPU",
        "GPU board row",
        "Position of the GPU in the board catalog (0 = sold as a card, not only on a board).",
        BOARDS,
        expr=IFERROR(MATCH(R("gpu_name"), Col("board", "gpu")), 0),
    ),
    Quantity(
        "deployment_name",
        "Profil penempatan",
        "Deployment profile",
        "Where the fleet runs: HGX/DGX for GPUs sold only on boards (SXM, OAM); workstation for GeForce, Apple "
        "and CPU systems and for fleets of 1–2 cards; server rak (PCIe cards in 4U servers) otherwise. Choose "
        "another profile as a manual value.",
        PROFILES,
        expr=IF(
            R("board_row") > 0,
            "HGX/DGX",
            IF(
                OR(
                    EQ(R("gpu_segment_type"), "consumer"),
                    EQ(R("gpu_segment_type"), "apple"),
                    EQ(R("gpu_segment_type"), "cpu"),
                    R("gpus_needed") <= 2,
                ),
                "workstation",
                "server rak",
            ),
        ),
        overridable=True,
        choices=("deployment", "name"),
    ),
    row_of("deployment", "deployment_name", "Baris profil penempatan", "Deployment profile row"),
    Quantity(
        "whole_servers_flag",
        "Dibeli per server/board utuh?",
        "Bought in whole servers/boards?",
        "TRUE when the profile buys GPUs only in whole servers or boards (HGX/DGX): the fleet is rounded up.",
        PROFILES,
        expr=EQ(IF(R("deployment_row") > 0, INDEX(Col("deployment", "whole_servers"), R("deployment_row")), 0), 1),
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
    ),
    Quantity(
        "bought_gpus",
        "GPU yang dibeli",
        "GPUs bought",
        "Whole servers × GPUs per server when GPUs come only on boards (14 H100 SXM → 2 boards of 8 = 16), "
        "else the fleet's GPUs. Capex and power use it; capacity uses the GPUs needed.",
        BOARDS,
        expr=IF(R("whole_servers_flag"), R("servers_needed") * R("gpus_per_server"), R("gpus_needed")),
    ),
    Quantity(
        "gpu_price_usd",
        "Harga GPU",
        "GPU price",
        "Price per GPU: the board's price ÷ its GPUs for GPUs sold only on boards, else the GPU catalog's list "
        "or street price (0 when the catalog has none: type a quote).",
        "Katalog GPU: kolom price_usd; " + BOARDS,
        expr=IF(
            R("board_row") > 0,
            INDEX(Col("board", "price_usd"), R("board_row")) / INDEX(Col("board", "gpus"), R("board_row")),
            IF(R("gpu_row") > 0, INDEX(Col("gpu", "price_usd"), R("gpu_row")), 0),
        ),
        overridable=True,
        catalog_column=("gpu", "price_usd"),
    ),
    lookup(
        "server_capex_idr",
        "deployment",
        "server_capex_idr",
        "Platform per server (tanpa GPU)",
        "Platform per server (without GPUs)",
        "CPUs, board, memory, PSUs and chassis of one server, from the deployment profile.",
        fallback=20_000_000,
    ),
    *_per_server("network", "network_capex_idr", "Jaringan", "Network", "NICs, switch ports, cabling per server."),
    *_per_server("storage", "storage_capex_idr", "Penyimpanan", "Storage", "NVMe (RAID) per server."),
    *_per_server("setup", "setup_capex_idr", "Instalasi dan setup", "Installation and setup", "Racking, wiring."),
    lookup(
        "host_power_w",
        "deployment",
        "host_power_w",
        "Daya server selain GPU",
        "Server power besides the GPUs",
        "CPU, memory, disks, fans and PSU losses at load, per server, from the deployment profile.",
        fallback=150,
    ),
    lookup(
        "maintenance_share_frac",
        "deployment",
        "maintenance_frac",
        "Pemeliharaan per tahun (porsi capex)",
        "Maintenance per year (share of capex)",
        "Spare parts, support contract and repairs per year as a share of the capex, from the profile.",
        fallback=0.01,
    ),
    Quantity(
        "maintenance_idr_per_year",
        "Pemeliharaan per tahun",
        "Maintenance per year",
        "Capex × the maintenance share: it grows with the fleet. Type a contract price to use it instead.",
        "Buku, Bab 16.1: RTX 4090 Rp 500.000/tahun = 1 % dari Rp 50 juta; " + PROFILES,
        expr=R("hardware_capex_idr") * R("maintenance_share_frac"),
        overridable=True,
    ),
    lookup(
        "staff_fte_per_server_ratio",
        "deployment",
        "staff_fte_per_server",
        "SDM per server (FTE)",
        "Staff per server (FTE)",
        "Engineers (full-time equivalents) per server, from the profile (0 for a workstation).",
    ),
    lookup(
        "staff_salary_idr_per_month",
        "deployment",
        "staff_salary_idr_per_month",
        "Biaya satu engineer per bulan",
        "One engineer per month",
        "Monthly cost of one full-time engineer.",
        fallback=40_000_000,
    ),
    Quantity(
        "staff_fte_ratio",
        "SDM armada (FTE)",
        "Fleet staff (FTE)",
        "Servers × staff per server.",
        PROFILES,
        expr=R("servers_needed") * R("staff_fte_per_server_ratio"),
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
    ),
)
