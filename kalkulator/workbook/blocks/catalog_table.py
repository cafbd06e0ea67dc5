"""A catalog table from assumptions/ with its CSV columns; each column becomes a defined name (tbl_gpu_name)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

from kalkulator.engine.expr import Value
from kalkulator.workbook.blocks.block import Block, Context
from kalkulator.workbook.cells import Cell, get_column_letter, table_name

MAX_CATALOG_DECIMALS = 6
# Printed first, after the name: what a buyer compares on paper (price and power), then when and where from.
MONEY_OR_POWER = re.compile(r"price|usd|idr|kwh|_w$")
DATED = ("as_of", "source")


def print_order(fields: list) -> list:
    """A catalog's columns as the workbook shows them: the name, price and power columns, date and source, then
    the rest in the CSV's order; a printout narrower than the table then still holds price, power, source and date."""
    first, rest = fields[:1], fields[1:]
    money = [f for f in rest if MONEY_OR_POWER.search(f.name)]
    dated = [f for name in DATED for f in rest if f.name == name]
    return first + money + dated + [f for f in rest if f not in money and f not in dated]


@dataclass(frozen=True)
class CatalogTable(Block):
    kind: ClassVar[str] = "catalog"
    table: str

    def reserve(self, ctx: Context, sheet: str, row: int) -> int:
        """Placed at once (it reads no quantity): a section title unless it heads the sheet, headers, rows."""
        table = ctx.catalog[self.table]
        schema, lay, start = table.schema, ctx.lay, row
        if row > 3:
            row += 1
            lay.cells.append(Cell(sheet, row, 1, schema.title_id if ctx.lang == "id" else schema.title_en, "section"))
            row += 1
        widths = lay.widths[sheet]
        fields = print_order(list(schema.fields))
        key = max(col for col, f in enumerate(fields, start=1) if f.name in DATED or col == 1)
        lay.key_columns[sheet] = max(lay.key_columns.get(sheet, 1), key)
        for col, f in enumerate(fields, start=1):
            header = schema.header(f.name, ctx.lang)
            lay.cells.append(Cell(sheet, row, col, header, "header"))
            widths.setdefault(col, max(10, min(28, max(map(len, header.split())) + 3)))  # the header wraps
        widths[1] = 30
        for col, f in enumerate(fields, start=1):  # sources are prose (capped where they are long)
            if f.name == "source" or f.name.endswith("_source"):
                widths[col] = 70
        first, last = row + 1, row + len(table.rows)
        formats = {f.name: _catalog_format(f.kind, [rec[f.name] for rec in table.rows]) for f in schema.fields}
        for i, rec in enumerate(table.rows):
            for col, f in enumerate(fields, start=1):
                if rec[f.name] is not None:
                    value = ctx.catalog.shown(schema.key, rec, f.name, ctx.lang)  # prose: English under en
                    lay.cells.append(Cell(sheet, first + i, col, value, "data", formats[f.name]))
        ctx.catalog_pos[schema.key] = (sheet, first, len(table.rows))
        for col, f in enumerate(fields, start=1):
            letter = get_column_letter(col)
            lay.names[table_name(schema.key, f.name)] = f"'{sheet}'!${letter}${first}:${letter}${last}"
        return last + 2 - start


def _catalog_format(kind: str, values: list[Value]) -> str | None:
    """A catalog column's format: numbers with as many fixed decimals as its most precise value needs (at most
    six), so every row of the column shows alike and no app prints a whole number with a trailing point, as
    Excel and Sheets do with an optional-decimals format ("360.")."""
    if kind != "number":
        return {"int": "#,##0", "text": "@", "enum": "@", "date": "@"}.get(kind)
    decimals = max((decimals_of(v) for v in values if isinstance(v, int | float)), default=0)
    return "#,##0" + ("." + "0" * decimals if decimals else "")


def decimals_of(x: float) -> int:
    """Decimals `x` needs in its 12-significant-digit form (0.0028 → 4), at most MAX_CATALOG_DECIMALS."""
    text = f"{abs(float(x)):.12g}"
    if "e" in text:
        mantissa, exponent = text.split("e")
        digits = len(mantissa.split(".")[1]) if "." in mantissa else 0
        return min(MAX_CATALOG_DECIMALS, max(0, digits - int(exponent)))
    return min(MAX_CATALOG_DECIMALS, len(text.split(".")[1]) if "." in text else 0)
