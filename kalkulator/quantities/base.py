"""The Quantity record and the unit table that ties a name's suffix to its unit and display format."""

from __future__ import annotations

import functools
from dataclasses import dataclass

from kalkulator.catalog.schema import field_of
from kalkulator.engine.expr import IF, IFERROR, INDEX, MATCH, Col, Node, R, Value


@dataclass(frozen=True)
class Unit:
    label: str  # English: the unit column of the English workbook and the CLI table
    number_format: str  # Excel number format for cells of this unit
    label_id: str = ""  # Indonesian, for the Indonesian workbook; blank when it is a symbol (GB/s, ms, Rp)

    def label_in(self, lang: str) -> str:
        """The label in the workbook language `lang` (id or en)."""
        return (self.label_id or self.label) if lang == "id" else self.label


# Booleans get an explicit format: LibreOffice 7.4 crashes printing a General boolean under a conditional format,
# and every app then shows the same two words.
BOOLEAN_FORMAT = '"TRUE";"TRUE";"FALSE"'

# Suffix → unit. A name's unit is given by its longest matching suffix (tests enforce it).
UNITS: dict[str, Unit] = {
    "_gb": Unit("GB", "#,##0.00"),
    "_gib": Unit("GiB", "#,##0.00"),
    "_gb_per_user": Unit("GB/user", "#,##0.000", "GB/pengguna"),
    "_gb_per_token": Unit("GB/token", "#,##0.000"),
    "_gb_per_step": Unit("GB/step", "#,##0.000", "GB/langkah"),
    "_bytes_per_user": Unit("bytes/user", "#,##0", "byte/pengguna"),
    "_bytes_per_layer": Unit("bytes/layer", "#,##0", "byte/layer"),
    "_gbs": Unit("GB/s", "#,##0.0"),
    "_tflops": Unit("TFLOPS", "#,##0.0"),
    "_tflop": Unit("TFLOP", "#,##0.000"),
    "_flop_per_byte": Unit("FLOP/byte", "#,##0.00"),
    "_w": Unit("W", "#,##0"),
    "_s": Unit("s", "#,##0.000", "detik"),
    "_ms": Unit("ms", "#,##0.00"),
    "_tok_s": Unit("tok/s", "#,##0.0"),
    "_tok_s_ideal": Unit("tok/s", "#,##0.0"),
    "_tok_s_low": Unit("tok/s", "#,##0.0"),
    "_tok_s_high": Unit("tok/s", "#,##0.0"),
    "_ns": Unit("ns", "#,##0.00"),
    "_us": Unit("µs", "#,##0.0"),
    # Shares look alike in the workbook: a 0–1 share shows as 70.0% (type 0.7 or 70%), a percentage
    # quantity as 11.0% (type 11); data validation says which one a cell takes.
    "_frac": Unit("share", "0.0%", "porsi"),
    "_pct": Unit("percent", '0.0"%"', "persen"),
    "_pct_per_month": Unit("%/month", '0.0"%"', "%/bulan"),
    "_b": Unit("billion", "#,##0.00", "miliar"),
    "_bytes": Unit("bytes", "#,##0", "byte"),
    "_bytes_per_token": Unit("bytes/token", "#,##0", "byte/token"),
    "_bytes_per_param": Unit("bytes/param", "0.00", "byte/parameter"),
    "_bits": Unit("bits", "0.00", "bit"),
    "_bits_per_param": Unit("bits/param", "0.00", "bit/parameter"),
    "_tokens": Unit("tokens", "#,##0", "token"),
    "_tokens_per_step": Unit("tokens/step", "0.00", "token/langkah"),
    "_users": Unit("users", "#,##0", "pengguna"),
    "_steps": Unit("steps", "#,##0", "langkah"),
    "_images": Unit("images", "#,##0", "gambar"),
    "_patches": Unit("patches", "#,##0", "patch"),
    "_gpus": Unit("GPUs", "#,##0", "GPU"),
    "_layers": Unit("layers", "#,##0", "layer"),
    "_heads": Unit("heads", "#,##0", "head"),
    "_experts": Unit("experts", "#,##0.0", "expert"),
    "_dim": Unit("values", "#,##0", "nilai"),
    "_hidden": Unit("values", "#,##0", "nilai"),
    "_vocab": Unit("tokens", "#,##0", "token"),
    "_usd": Unit("USD", "#,##0"),
    "_idr": Unit("Rp", '"Rp "#,##0;-"Rp "#,##0;"–"'),  # a zero (no offer, no staff) shows as –, never Rp 0
    "_idr_per_kwh": Unit("Rp/kWh", '"Rp "#,##0.00'),
    "_idr_per_day": Unit("Rp/day", '"Rp "#,##0', "Rp/hari"),
    "_idr_per_month": Unit("Rp/month", '"Rp "#,##0', "Rp/bulan"),
    "_idr_per_year": Unit("Rp/year", '"Rp "#,##0', "Rp/tahun"),
    "_idr_per_hour": Unit("Rp/hour", '"Rp "#,##0', "Rp/jam"),
    "_idr_per_gpu_hour": Unit("Rp/GPU-hour", '"Rp "#,##0', "Rp/GPU-jam"),
    "_idr_per_gpu_month": Unit("Rp/GPU-month", '"Rp "#,##0', "Rp/GPU-bulan"),
    "_idr_per_1m_tokens": Unit("Rp/1M tokens", '"Rp "#,##0.00', "Rp/1 juta token"),
    "_idr_per_1m_input_tokens": Unit("Rp/1M input tokens", '"Rp "#,##0.00', "Rp/1 juta token input"),
    "_idr_per_1m_output_tokens": Unit("Rp/1M output tokens", '"Rp "#,##0.00', "Rp/1 juta token output"),
    "_idr_per_request": Unit("Rp/request", '"Rp "#,##0.00', "Rp/permintaan"),
    "_idr_per_1000_words": Unit("Rp/1,000 words", '"Rp "#,##0.00', "Rp/1.000 kata"),
    "_requests_per_s": Unit("requests/s", "#,##0.000", "permintaan/detik"),
    "_requests_per_day": Unit("requests/day", "#,##0", "permintaan/hari"),
    "_users_per_hour": Unit("users/hour", "#,##0", "pengguna/jam"),
    "_per_user_per_hour": Unit("requests/user/hour", "#,##0.0", "permintaan/pengguna/jam"),
    "_replicas": Unit("replicas", "#,##0", "replika"),
    "_servers": Unit("servers", "#,##0", "server"),
    "_gpus_per_server": Unit("GPUs/server", "#,##0", "GPU/server"),
    "_idr_per_usd": Unit("Rp/USD", "#,##0"),
    "_usd_per_1m": Unit("USD/1M tokens", "#,##0.000", "USD/1 juta token"),
    "_usd_per_hour": Unit("USD/hour", "#,##0.000", "USD/jam"),
    "_kw": Unit("kW", "#,##0.000"),
    "_kwh_per_day": Unit("kWh/day", "#,##0.00", "kWh/hari"),
    "_kwh_per_month": Unit("kWh/month", "#,##0.0", "kWh/bulan"),
    "_kwh_per_year": Unit("kWh/year", "#,##0", "kWh/tahun"),
    "_j_per_output_token": Unit("J/output token", "#,##0.000", "J/token output"),
    "_wh_per_1m_tokens": Unit("Wh/1M tokens", "#,##0", "Wh/1 juta token"),
    "_kg_per_kwh": Unit("kg CO₂/kWh", "0.000"),
    "_kg_per_month": Unit("kg CO₂/month", "#,##0", "kg CO₂/bulan"),
    "_tokens_per_day": Unit("tokens/day", "#,##0", "token/hari"),
    "_tokens_per_month": Unit("tokens/month", "#,##0", "token/bulan"),
    "_hours_per_day": Unit("hours/day", "0.0", "jam/hari"),
    "_days": Unit("days", "#,##0.00", "hari"),
    "_months": Unit("months", "#,##0.0", "bulan"),
    "_years": Unit("years", "#,##0.0", "tahun"),
    "_ratio": Unit("×", "0.000"),
    "_capability": Unit("SM version", "0.0", "versi SM"),  # NVIDIA's compute capability, major.minor
    "_flag": Unit("TRUE/FALSE", BOOLEAN_FORMAT),
    "_text": Unit("text", "@", "teks"),
    "_row": Unit("row", "0", "baris"),
    "_name": Unit("text", "@", "teks"),
    "_type": Unit("text", "@", "teks"),
    "_mode": Unit("text", "@", "teks"),
    "_backend": Unit("text", "@", "teks"),
    "_in_vram": Unit("TRUE/FALSE", BOOLEAN_FORMAT),
}
# Names outside the suffix rule, with their unit key.
SPECIAL_UNITS: dict[str, str] = {
    "engine": "_name",
    "pue": "_ratio",
    "tokens_per_day": "_tokens_per_day",
    "tokens_per_month": "_tokens_per_month",
    "replicas_needed": "_replicas",
    "gpus_needed": "_gpus",
    "servers_needed": "_servers",
    "requests_per_day": "_requests_per_day",
    "gpus_per_server": "_gpus_per_server",
    "answer_gpus_needed": "_gpus",
    "answer_servers_needed": "_servers",
}


@functools.cache
def unit_key(name: str) -> str:
    """The UNITS key of a name: its longest matching suffix (remembered: parsing a batch asks it per cell)."""
    if name in SPECIAL_UNITS:
        return SPECIAL_UNITS[name]
    matches = [s for s in UNITS if name.endswith(s)]
    if not matches:
        raise ValueError(f"{name}: no unit suffix from {sorted(UNITS)}")
    return max(matches, key=len)


NO_CHOICE = "none"  # an optional catalog choice left off (e.g. no draft model)


@dataclass(frozen=True)
class Quantity:
    """One named quantity: an input (expr is None) or a formula, with its labels and source."""

    name: str
    label_id: str
    label_en: str
    doc: str
    source: str
    expr: Node | None = None
    default: Value = None
    overridable: bool = False  # the workbook offers a yellow cell that replaces the formula's value
    choices: tuple[str, str] | None = None  # dropdown from a catalog column (table, column)
    options: tuple[str, ...] = ()  # dropdown from fixed options
    optional: bool = False  # a catalog choice that may be NO_CHOICE (or blank): no row, the feature is off
    catalog_column: tuple[str, str] | None = None  # (table, column) a lookup reads, needed for a custom row
    read_column: tuple[str, str] | None = None  # (table, column) a lookup reads, needed or not: its typed words
    doc_id: str = ""  # the Indonesian workbook's note (doc is the English one)
    source_id: str = ""  # the Indonesian workbook's source, where `source` is English or imprecise

    @property
    def is_input(self) -> bool:
        return self.expr is None

    @property
    def unit(self) -> Unit:
        return UNITS[unit_key(self.name)]

    @property
    def is_text(self) -> bool:
        return unit_key(self.name) in ("_name", "_type", "_mode", "_backend", "_text")

    def label(self, lang: str) -> str:
        return self.label_id if lang == "id" else self.label_en

    def note(self, lang: str) -> str:
        """The note in `lang` (id or en): what the quantity is and how to override it."""
        return self.doc_id if lang == "id" else self.doc


def row_of(table: str, key: str, label_id: str, label_en: str, doc_id: str = "", source_id: str = "") -> Quantity:
    """The catalog row a scenario's choice points at (looked up once; other lookups reuse it)."""
    return Quantity(
        f"{table}_row",
        label_id,
        label_en,
        f"Position of the chosen {key} in the {table} catalog (0 = not in the catalog).",
        "Katalog (assumptions/)",
        expr=IFERROR(MATCH(R(key), Col(table, "name")), 0),
        doc_id=doc_id,
        source_id=source_id,
    )


def lookup(
    name: str,
    table: str,
    column: str,
    label_id: str = "",
    label_en: str = "",
    doc: str = "",
    fallback: float | str = 0,
    instead: tuple[Node, str] | None = None,
    row_name: str | None = None,
    choices: tuple[str, str] | None = None,
    demanded: bool = True,
    doc_id: str = "",
    source_id: str = "",
) -> Quantity:
    """A value read from the chosen catalog row (`fallback` when none is chosen); a yellow cell can replace it.

    Labels and doc left blank are the column's (its Field); give them only for a quantity that is not simply the
    column (a second API's price, a pick between two columns).

    `instead` = (condition, other column): read the other column of the same row when the condition holds.
    `row_name`: the row quantity to read (default `<table>_row`), for a second choice from the same table.
    `choices`: a value that names a row of another catalog (table, column) gets that catalog's dropdown.
    `demanded` = False: a row described by its numbers (a custom GPU) need not give this value; it takes `fallback`.
    """
    row = R(row_name or f"{table}_row")
    value: Node = INDEX(Col(table, column), row)
    if instead is not None:
        value = IF(instead[0], INDEX(Col(table, instead[1]), row), value)
    f = field_of(table, column)
    return Quantity(
        name,
        label_id or f.label_id,
        label_en or f.label_en,
        doc or f.doc,
        f"Katalog {table}: kolom {column}" + (f" / {instead[1]}" if instead else ""),
        expr=IF(row > 0, value, fallback),
        overridable=True,
        choices=choices,
        catalog_column=(table, column) if demanded else None,
        read_column=(table, column),
        doc_id=doc_id or f.doc_id,
        source_id=source_id,
    )
