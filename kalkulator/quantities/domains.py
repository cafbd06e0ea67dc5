"""The domain of every number a user can type, used by the CLI, scenario CSVs and the workbook's data validation.

A value read from a catalog column takes that column's Field (kalkulator.catalog_schema), so a CSV row, a `--set`
value and a workbook cell obey one bound. Other names take the table below, else their unit's domain: a 0–1 share
for `_frac`, 0–100 for `_pct`, otherwise a number from 0 to 1e15 (large enough for any rupiah amount, small enough
that no formula overflows).
"""

from __future__ import annotations

from collections.abc import Iterable

from kalkulator.catalog_schema import field_of
from kalkulator.domain import BIG, Domain
from kalkulator.quantities.base import Quantity

__all__ = ["BIG", "DOMAINS", "PLAUSIBLE", "Domain", "domain_of", "plausible_of", "settable_numbers"]


def _int(low: float, high: float) -> Domain:
    return Domain(low, high, integer=True)


def _pos(high: float = BIG) -> Domain:
    return Domain(0, high, above=True)


SHARE = Domain(0, 1)
PERCENT = Domain(0, 100)
BY_UNIT = {"_frac": SHARE, "_pct": PERCENT}

DOMAINS: dict[str, Domain] = {
    # scenario and workload
    "n_gpus": _int(1, 1024),
    "gpus_needed": _int(1, 1_000_000),
    "spare_replicas": _int(0, 1000),
    "import_duty_pct": Domain(0, 100),
    "distributor_margin_pct": Domain(0, 1000),
    "prompt_tokens": _int(1, 100_000_000),
    "tokens_per_word_ratio": _pos(100),
    "context_tokens": _int(0, 1_000_000_000),  # 0: no KV cache, the book's weights-only figures
    "concurrent_users": Domain(1, 10_000_000),
    "tokens_per_month": Domain(0, BIG),
    "traffic_growth_pct_per_month": Domain(-50, 200),  # a signed rate: traffic may shrink
    "requests_per_day": Domain(0, 1e12),
    "peak_to_average_ratio": Domain(1, 1000),
    "peak_concurrent_users": _int(0, 10_000_000),
    "think_time_s": Domain(0, 86_400),
    "load_requests_per_s": Domain(0, 1e9),
    "max_requests_per_s": _pos(1e9),
    "sla_max_requests_per_s": _pos(1e9),
    # hardware
    "host_mem_bandwidth_gbs": _pos(1e5),
    "allreduce_us": Domain(0, 1e6),
    "vram_overhead_gb": Domain(0, 1e4),
    "network_overhead_ms": Domain(0, 1e6),
    # model and formats
    "weights_gb": _pos(1e6),
    # speed
    "decode_efficiency_frac": Domain(0, 1, above=True),
    "decode_tok_s": _pos(1e7),
    "prefill_tok_s": _pos(1e9),
    "spec_draft_tokens": _int(1, 64),
    # fine-tuning
    "optimizer_bytes_per_param": Domain(0, 64),
    "finetune_batch_tokens": _int(0, 1_000_000_000),
    # electricity
    "system_power_w": Domain(0, 1e9),
    "pue": Domain(1, 5),
    "year_days": Domain(360, 366),
    # money
    "usd_idr": _pos(1e6),
    "lifetime_years": _pos(50),
    "server_lifetime_years": _pos(50),
    "horizon_years": _pos(50),
    "elapsed_months": Domain(0, 600),
    "tokens_per_day": _pos(BIG),
    "cloud_hours_per_day": Domain(0, 24),
}


# Plausible ranges beside the hard domains (catalog columns keep theirs on their Field): a value outside is allowed
# (a what-if) but the status names it, since it is far more often a slip (16.5 typed for 16,500 rupiah per dollar,
# 1e-300 active hours) than a real scenario.
PLAUSIBLE: dict[str, tuple[float, float, str]] = {
    "usd_idr": (5_000, 50_000, "rupiah per US dollar (about 16,000 in 2025–26)"),
    "lifetime_years": (0.5, 15, "years a GPU is used"),
    "horizon_years": (0.5, 20, "years of the TCO"),
    "pue": (1, 3, "data-centre PUE (1.1–2.0 in practice)"),
    "tokens_per_month": (1_000, 1e14, "tokens a month"),
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


def plausible_of(q: Quantity) -> tuple[float, float, str] | None:
    """The plausible range (low, high, what it is) of a number: its catalog column's, else the table's."""
    if q.catalog_column is not None:
        return field_of(*q.catalog_column).plausible
    return PLAUSIBLE.get(q.name)


def settable_numbers(quantities: Iterable[Quantity]) -> list[Quantity]:
    """Inputs and replaceable formulas that hold numbers (not names, choices or flags)."""
    return [q for q in quantities if (q.is_input or q.overridable) and not q.is_text and q.unit.label != "TRUE/FALSE"]
