"""How old the chosen prices are: the catalog dates of the GPU (or board), API and cloud offer in use.

A price older than the cut-off (12 months before the catalog review; move it forward) is named in the status line.
"""

from __future__ import annotations

from kalkulator.engine.expr import AND, IF, INDEX, JOIN, NE, Col, Node, R
from kalkulator.quantities.base import Quantity

REVIEW = "Catalog review of 2026-12-01: prices dated before 2025-12-01 are more than 12 months old"


def _as_of(name: str, table: str, row: str, what: str, doc_id: str = "", source_id: str = "") -> Quantity:
    return Quantity(
        name,
        f"Tanggal harga {what}",
        f"Date of the {what} price",
        f"as_of of the {what} row in use (blank when none is chosen).",
        f"Katalog {table}: kolom as_of",
        expr=IF(R(row) > 0, INDEX(Col(table, "as_of"), R(row)), ""),
        doc_id=doc_id,
        source_id=source_id,
    )


def _stale(date: str, label: str) -> Node:
    return IF(AND(NE(R(date), ""), R(date) < R("prices_stale_before_text")), f" {label}", "")


QUANTITIES = (
    Quantity(
        "prices_stale_before_text",
        "Harga dianggap lama bila sebelum",
        "Prices count as old when dated before",
        "A date (YYYY-MM-DD): catalog prices dated before it are named in the status line; 12 months before "
        "the catalog review, move it to 12 months before today.",
        REVIEW,
        default="2025-12-01",
        doc_id=(
            "Tanggal (YYYY-MM-DD): harga katalog yang bertanggal sebelum ini disebut di baris status; "
            "12 bulan sebelum tinjauan katalog, geser ke 12 bulan sebelum hari ini."
        ),
        source_id="Tinjauan katalog 2026-12-01: harga sebelum 2025-12-01 berumur lebih dari 12 bulan",
    ),
    Quantity(
        "gpu_price_as_of_text",
        "Tanggal harga GPU",
        "Date of the GPU price",
        "as_of of the board row for GPUs sold on boards, else street_as_of of the GPU row when its street price "
        "is the one used, else its as_of (blank for a GPU typed by hand).",
        "GPU and board catalogs: columns as_of and street_as_of",
        expr=IF(
            R("board_row") > 0,
            INDEX(Col("board", "as_of"), R("board_row")),
            IF(
                R("gpu_row") > 0,
                IF(
                    INDEX(Col("gpu", "street_price_usd"), R("gpu_row")) > 0,
                    INDEX(Col("gpu", "street_as_of"), R("gpu_row")),
                    INDEX(Col("gpu", "as_of"), R("gpu_row")),
                ),
                "",
            ),
        ),
        doc_id=(
            "Tanggal (as_of) baris board untuk GPU yang dijual per board, selain itu street_as_of baris GPU bila "
            "harga jalanannya yang dipakai, selain itu as_of-nya (kosong untuk GPU yang diisi manual)."
        ),
        source_id="Katalog GPU dan board: kolom as_of dan street_as_of",
    ),
    _as_of(
        "api_price_as_of_text",
        "api",
        "api_row",
        "API",
        doc_id="Tanggal (as_of) baris API yang dipakai (kosong bila tidak ada yang dipilih).",
        source_id="Katalog API: kolom as_of",
    ),
    _as_of(
        "cloud_price_as_of_text",
        "cloud",
        "cloud_row",
        "cloud",
        doc_id="Tanggal (as_of) baris penawaran cloud yang dipakai (kosong bila tidak ada yang dipilih).",
        source_id="Katalog cloud: kolom as_of",
    ),
    Quantity(
        "stale_prices_text",
        "Harga yang sudah lama",
        "Prices that are old",
        "The chosen prices dated before the cut-off (gpu_price_usd, api_name, cloud_offer_name), blank when none.",
        REVIEW,
        expr=JOIN(
            _stale("gpu_price_as_of_text", "gpu_price_usd"),
            _stale("api_price_as_of_text", "api_name"),
            _stale("cloud_price_as_of_text", "cloud_offer_name"),
        ),
        doc_id=(
            "Harga terpilih yang bertanggal sebelum batas (gpu_price_usd, api_name, cloud_offer_name); "
            "kosong bila tidak ada."
        ),
        source_id="Tinjauan katalog 2026-12-01",
    ),
)
