"""The domain of every number a user can type, used by the CLI, scenario CSVs and the workbook's data validation.

A value read from a catalog column takes that column's Field (kalkulator.catalog.schema), so a CSV row, a `--set`
value and a workbook cell obey one bound. Other names take the table below, else their unit's domain: a 0–1 share
for `_frac`, 0–100 for `_pct`, otherwise a number from 0 to 1e15 (large enough for any rupiah amount, small enough
that no formula overflows).
"""

from __future__ import annotations

from collections.abc import Iterable

from kalkulator.catalog.domain import BIG, Domain
from kalkulator.catalog.input_domains import BY_UNIT, DOMAINS
from kalkulator.catalog.schema import field_of
from kalkulator.quantities.base import Quantity

__all__ = ["BIG", "DOMAINS", "PLAUSIBLE", "PLAUSIBLE_WHY_ID", "Domain", "domain_of", "plausible_of", "settable_numbers"]


# Plausible ranges beside the hard domains (catalog columns keep theirs on their Field): a value outside is allowed
# (a what-if) but the status names it, since it is far more often a slip (16.5 typed for 16,500 rupiah per dollar,
# 1e-300 active hours) than a real scenario. The low end is for positive values: 0 is a deliberate "none" (no demand,
# no kW in the plan), said by its own check where it voids an answer. The only table of these ranges: a tiny
# positive (1e-300) of any name below is named in the status line.
PLAUSIBLE: dict[str, tuple[float, float, str]] = {
    "usd_idr": (5_000, 50_000, "rupiah per US dollar (about 16,000 in 2025–26)"),
    "lifetime_years": (0.5, 15, "years a GPU is used"),
    "server_lifetime_years": (0.5, 15, "years a server is used"),
    "requests_per_day": (0.01, 1e10, "requests a day"),
    "tokens_per_day": (1, 1e13, "tokens served a day"),
    "horizon_years": (0.08, 20, "years of the TCO (one month = 0.0833)"),
    "pue": (1, 3, "data-centre PUE (1.1–2.0 in practice)"),
    "tokens_per_month": (1_000, 1e14, "tokens a month"),
    "grid_emission_kg_per_kwh": (0, 1.5, "kg CO2 per kWh of a grid (Indonesia about 0.76–0.87)"),
}


def domain_of(q: Quantity) -> Domain:
    """The declared domain of a number a user can type: its catalog column's, else the table's, else its unit's."""
    if q.catalog_column is not None:
        return field_of(*q.catalog_column).domain or Domain()
    if q.name in DOMAINS:
        return DOMAINS[q.name]
    for suffix, domain in BY_UNIT.items():
        if q.name.endswith(suffix):
            return domain
    return Domain()


# The Indonesian of each plausible range's "what it is" (the English is typed beside the range): the id workbook's
# status names an implausible value in Indonesian.
PLAUSIBLE_WHY_ID: dict[str, str] = {
    "rupiah per US dollar (about 16,000 in 2025–26)": "rupiah per dolar AS (sekitar 16.000 pada 2025–26)",
    "years a GPU is used": "tahun GPU dipakai",
    "years a server is used": "tahun server dipakai",
    "requests a day": "permintaan sehari",
    "tokens served a day": "token dilayani sehari",
    "years of the TCO (one month = 0.0833)": "tahun TCO (satu bulan = 0,0833)",
    "data-centre PUE (1.1–2.0 in practice)": "PUE pusat data (1,1–2,0 dalam praktik)",
    "tokens a month": "token sebulan",
    "kg CO2 per kWh of a grid (Indonesia about 0.76–0.87)": "kg CO2 per kWh jaringan (Indonesia sekitar 0,76–0,87)",
    "GB/s of one accelerator (HBM3e: about 8,000)": "GB/s satu akselerator (HBM3e: sekitar 8.000)",
    "TFLOPS of one accelerator": "TFLOPS satu akselerator",
    "published loss of a usable format": "penurunan terpublikasi format yang layak dipakai",
    "PLN tariffs are about Rp 1,000–2,500 per kWh": "tarif PLN sekitar Rp 1.000–2.500 per kWh",
    "kW included in a colocation plan (0: none)": "kW yang termasuk paket kolokasi (0: tidak ada)",
    "hours a day with traffic": "jam sehari dengan lalu lintas",
    "requests an hour from one person": "permintaan per jam dari satu orang",
    "coefficient of variation of inter-arrival times": "koefisien variasi jarak antar-kedatangan",
}


def plausible_of(q: Quantity) -> tuple[float, float, str] | None:
    """The plausible range (low, high, what it is) of a number: its catalog column's, else the table's."""
    column = q.catalog_column or q.read_column
    own = field_of(*column).plausible if column is not None else None
    return own or PLAUSIBLE.get(q.name)


def settable_numbers(quantities: Iterable[Quantity]) -> list[Quantity]:
    """Inputs and replaceable formulas that hold numbers (not names, choices or flags)."""
    return [q for q in quantities if (q.is_input or q.overridable) and not q.is_text and q.unit.label != "TRUE/FALSE"]
