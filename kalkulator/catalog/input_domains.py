"""The domains of the scenario's own numbers (not catalog columns): the only table of their bounds.

kalkulator.quantities.domains gives every typed number its domain from here, from its catalog column's Field or from
its unit; the published-measurement catalog (kalkulator.catalog.schema) bounds its scenario columns by the same
entries, so a measured setup and a typed scenario obey one bound.
"""

from __future__ import annotations

from kalkulator.catalog.domain import BIG, Domain


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
    # a published quality loss, as a share: a perplexity can grow several-fold at 1–2 bits (IQ1_S: 874 %)
    "quant_quality_loss_frac": Domain(-1, 1000),
    "max_quality_loss_frac": Domain(0, 1000),
    "prompt_tokens": _int(1, 100_000_000),
    "tokens_per_word_ratio": _pos(100),
    "context_tokens": _int(0, 1_000_000_000),  # 0: no KV cache, the book's weights-only figures
    "concurrent_users": Domain(1, 10_000_000),
    "tokens_per_month": Domain(0, BIG),
    "traffic_growth_pct_per_month": Domain(-50, 200),  # a signed rate: traffic may shrink
    "requests_per_day": Domain(0, 1e12),
    "peak_to_average_ratio": Domain(1, 1000),
    "total_users": _int(0, 100_000_000),
    "peak_concurrent_users": _int(0, 10_000_000),
    "think_time_s": Domain(0, 86_400),
    "grid_emission_kg_per_kwh": Domain(0, 5),  # coal plants emit about 1 kg CO2/kWh; 0 for a renewable contract
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


# The typed texts that are neither a catalog name nor a fixed word: what they must look like (a blank date would
# silently turn the stale-price warning off).
TEXT_FORMATS: dict[str, tuple[str, str]] = {
    "prices_stale_before_text": (r"\d{4}-\d{2}-\d{2}", "a date YYYY-MM-DD, e.g. 2025-12-01"),
}
