"""The live shortlist "Pilihan termurah untuk beban kerja ini": which GPU is cheapest for the chosen workload.

Part 1: a row per candidate; its GPU and GPUs per replica are yellow cells (the GPU from the catalog's dropdown),
everything else is the scenario's (model, format, engine, workload, targets, money). Each row shows whether the
setup can serve the workload within its targets and money checks, the fleet, Rp per 1M tokens, TCO and break-even,
and its live rank: by on-premise TCO among the rows that pass, then the rest in the table's order.
Part 2: the same rows sorted by rank, cheapest first (INDEX/MATCH over part 1, as the what-if table sorts).

Why a shortlist the user edits rather than every catalog GPU: the chain from a GPU to its TCO is about 175
quantities per row, so all 113 catalog GPUs would add some 20,000 formula cells to a workbook of 11,600 and double
every verification; `kalkulator plan` searches the whole catalog (and GPU counts, formats, engines, modes).
Every cell is an expression tree the engine evaluates too (`sensitivity.values`), so verify checks the ranks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kalkulator.engine.expr import EQ, IF, IFERROR, INDEX, MATCH, ROUND, Col, R
from kalkulator.engine.graph import Graph
from kalkulator.quantities.checks import OK
from kalkulator.workbook.whatif import Sensitivity, rank_of

if TYPE_CHECKING:
    from kalkulator.workbook.blocks.choices import ChoicesBlock

KEYS = ("gpu_name", "n_gpus")  # the yellow cells of each row
CHECK = "onprem_check_text"  # OK when the setup serves the workload within its targets and has a price
RANK_BY = "tco_idr"
# a row that cannot serve ranks after every row that can (then in table order): any TCO is far below this
UNRANKED = 1e300
TEXT = {  # key → (Indonesian, English)
    "note": (
        "Ketik GPU lain (daftar katalog) dan jumlah GPU per replika di sel kuning; model, format, mesin, beban kerja "
        "dan target dari sheet Asumsi. Peringkat: TCO on-premise di antara baris yang bisa melayani (Pemeriksaan = "
        "OK). Untuk seluruh katalog, jumlah GPU, format, mesin dan mode sewa: kalkulator plan.",
        "Type other GPUs (catalog list) and GPUs per replica in the yellow cells; model, format, engine, workload "
        "and targets come from the Assumptions sheet. Rank: on-premise TCO among the rows that can serve (Check = "
        "OK). For the whole catalog, GPU counts, formats, engines and rental modes: kalkulator plan.",
    ),
    "hidden": (" (perhitungan antara di kolom tersembunyi)", " (intermediate steps in hidden columns)"),
    "rank": ("Peringkat", "Rank"),
    "sorted": ("Diurutkan: termurah dulu", "Sorted: cheapest first"),
}


def shown(block: ChoicesBlock) -> list[str]:
    """Part 1's computed columns, left to right (after the two yellow ones; the rank follows them)."""
    return list(block.columns)


def read(block: ChoicesBlock) -> list[str]:
    """The part-1 quantities the rank and the sorted copy read."""
    return [*KEYS, *dict.fromkeys([*shown(block), CHECK, RANK_BY])]


def height(block: ChoicesBlock) -> int:
    """Rows the table takes in the sheet's flow: title, note, header and names, K rows, gap, title, header, K rows."""
    return 2 * len(block.rows) + 9


def check(graph: Graph, block: ChoicesBlock, lang: str) -> None:
    """The plan block names real quantities and at least two rows of a GPU name and a count."""
    title = block.title(lang)
    for name in read(block):
        if name not in graph:
            raise ValueError(f"table {title!r}: unknown quantity {name!r}")
    for row in block.rows:
        if len(row) != 2 or not isinstance(row[0], str) or not isinstance(row[1], int):
            raise ValueError(f"table {title!r}: a row is [GPU name, GPUs per replica], not {row!r}")
    if CHECK not in block.columns:
        raise ValueError(f"table {title!r}: the columns must show {CHECK} (the rank's condition)")
    if len(block.rows) < 2:
        raise ValueError(f"table {title!r}: at least two rows to rank")


def end_name(key: str, i: int, name: str) -> str:
    """Synthetic name of part 1's cell of `name` in row i (the engine's row value, the workbook's cell)."""
    return f"{key}_end_{i}_{name}"


def new(graph: Graph, block: ChoicesBlock, key: str, lang: str) -> Sensitivity:
    """The ranks and the sorted copy of a choices block as trees over part 1's cells (ends filled by the layout)."""
    check(graph, block, lang)
    s = Sensitivity(key, [], shown(block), [])
    n = len(block.rows)
    for i in range(n):
        passes = EQ(R(end_name(key, i, CHECK)), OK)
        # Rounded to whole rupiah: another spreadsheet engine's last-bit differences never reorder equal rows.
        s.names[f"{key}_score_{i}"] = IFERROR(IF(passes, ROUND(R(end_name(key, i, RANK_BY)), 0), UNRANKED), UNRANKED)
    for i in range(n):
        s.names[f"{key}_rank_{i}"] = rank_of([f"{key}_score_{j}" for j in range(n)], i, largest_first=False)
    s.first = len(s.names)
    s.columns[(key, "rank")] = [f"{key}_rank_{i}" for i in range(n)]
    for name in (*KEYS, *shown(block)):
        s.columns[(key, name)] = [end_name(key, i, name) for i in range(n)]
    for r in range(n):
        s.constants[f"{key}_position_{r}"] = r + 1
        s.names[f"{key}_at_{r}"] = MATCH(R(f"{key}_position_{r}"), Col(key, "rank"))
        for name in (*KEYS, *shown(block)):
            s.names[sorted_name(key, r, name)] = INDEX(Col(key, name), R(f"{key}_at_{r}"))
    return s


def sorted_name(key: str, r: int, name: str) -> str:
    return f"{key}_sorted_{r}_{name}"
