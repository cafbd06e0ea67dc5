"""The decision in one sentence, built by formulas: on-premise against the API per month, how many times cheaper,
and the break-even; the first thing the Asumsi sheet and `kalkulator hitung` show.

Numbers become text by arithmetic only (ROUND, ROUNDDOWN and a text join of whole numbers), never TEXT() or FIXED(),
whose output follows the spreadsheet's locale: every evaluator (the engine, `formulas`, LibreOffice, Excel, the
preview's JavaScript) then writes the same characters, grouped and with the decimal mark of the workbook's language
(1.234,5 under id, 1,234.5 under en).
"""

from __future__ import annotations

from kalkulator.engine.expr import EQ, IF, IFERROR, JOIN, OR, ROUND, ROUNDDOWN, Msg, Node, R
from kalkulator.quantities.base import Quantity
from kalkulator.quantities.checks import OK

DECIMAL = Msg(",", ".")
GROUP = Msg(".", ",")
SOURCE = "The answer block's figures (api_cost_idr_per_month, onprem_cost_idr_per_month, breakeven_months)"
SOURCE_ID = "Angka blok jawaban (api_cost_idr_per_month, onprem_cost_idr_per_month, breakeven_months)"


def one_decimal_text(x: Node) -> Node:
    """`x` (0 ≤ x < 1000) with one decimal: 1,6 (id) or 1.6 (en)."""
    rounded = ROUND(x, 1)
    whole = ROUNDDOWN(rounded, 0)
    return JOIN(whole, DECIMAL, ROUND((rounded - whole) * 10, 0))


def grouped_text(x: Node) -> Node:
    """`x` (0 ≤ x < 1,000,000) rounded to a whole number, thousands grouped: 42.735 (id) or 42,735 (en)."""
    whole = ROUND(x, 0)
    thousands = ROUNDDOWN(whole / 1000, 0)
    rest = whole - thousands * 1000
    padded = JOIN(IF(rest < 100, "0", ""), IF(rest < 10, "0", ""), rest)
    return IF(whole >= 1000, JOIN(thousands, GROUP, padded), JOIN(whole, ""))


def amount_text(x: Node) -> Node:
    """A non-negative amount as a reader says it: 42.735, 1,6 juta, 2,3 miliar, 1,1 triliun (id); 42,735, 1.6
    million, 2.3 billion, 1.1 trillion (en). Three significant figures are enough for a decision."""
    return IF(
        x >= 999.95e9,
        JOIN(one_decimal_text(x / 1e12), Msg(" triliun", " trillion")),
        IF(
            x >= 999.95e6,
            JOIN(one_decimal_text(x / 1e9), Msg(" miliar", " billion")),
            IF(
                ROUND(x, 0) >= 1e6,
                JOIN(one_decimal_text(x / 1e6), Msg(" juta", " million")),
                grouped_text(x),
            ),
        ),
    )


def ratio_text(x: Node) -> Node:
    """How many times: 37× from 10 up (grouped), 1,4× below (id)."""
    return JOIN(IF(x >= 9.95, grouped_text(x), one_decimal_text(x)), "×")


def _money(name: str) -> Node:
    return JOIN("Rp ", amount_text(R(name)), Msg("/bulan", "/month"))


def _verdict() -> Node:
    api, onprem = R("api_cost_idr_per_month"), R("onprem_cost_idr_per_month")
    api_part = JOIN(Msg("API ", "the API "), R("api_name"), " ", _money("api_cost_idr_per_month"))
    onprem_part = JOIN("on-premise ", _money("onprem_cost_idr_per_month"))
    cheaper = Msg(" lebih murah daripada ", " cheaper than ")
    breakeven = IFERROR(
        JOIN(
            Msg("; titik impas ", "; break-even in "), one_decimal_text(R("breakeven_months")), Msg(" bulan", " months")
        ),
        JOIN("; ", R("breakeven_months")),
    )
    opening = JOIN(
        Msg("Untuk beban ini (", "For this workload ("),
        amount_text(R("demand_tokens_per_month")),
        Msg(" token/bulan), ", " tokens/month), "),
    )
    compared = IF(
        api < onprem,
        JOIN(api_part, ", ", ratio_text(onprem / api), cheaper, onprem_part),
        JOIN(onprem_part, ", ", ratio_text(api / onprem), cheaper, api_part),
    )
    return IF(
        OR(api <= 0, onprem <= 0),
        JOIN(opening, Msg("tidak ada pembanding: ", "nothing to compare: "), onprem_part, "; ", api_part, "."),
        IF(
            EQ(R("onprem_check_text"), OK),
            JOIN(opening, compared, breakeven, "."),
            JOIN(
                opening,
                api_part,
                Msg(
                    "; on-premise dengan setup ini tidak bisa dipakai: ",
                    "; on-premise with this setup cannot be used: ",
                ),
                R("onprem_check_text"),
                ".",
            ),
        ),
    )


QUANTITIES = (
    Quantity(
        "verdict_text",
        "Keputusan",
        "Verdict",
        "The decision in one sentence: the API and on-premise per month for the demand, how many times the cheaper "
        "one is cheaper, and the break-even (or why there is none); amounts rounded to three figures. An input out "
        "of its range gives no verdict but the check's words.",
        SOURCE,
        expr=IF(
            EQ(R("input_check_text"), OK),
            _verdict(),
            JOIN(Msg("Belum ada keputusan: ", "No verdict yet: "), R("input_check_text")),
        ),
        doc_id="Keputusan dalam satu kalimat: API dan on-premise per bulan untuk kebutuhan ini, berapa kali yang lebih "
        "murah lebih murah, dan titik impas (atau alasan tidak ada); angka dibulatkan ke tiga angka penting.",
        source_id=SOURCE_ID,
    ),
)

__all__ = ["QUANTITIES", "amount_text", "grouped_text", "one_decimal_text", "ratio_text"]
