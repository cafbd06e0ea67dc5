"""The domain of every number a user can type: one table used by the CLI, scenario CSVs, the catalog
validator and the workbook's data validation alike.

A name without an entry takes its unit's domain: a 0–1 share for `_frac`, 0–100 for `_pct`, otherwise a
number from 0 to 1e15 (large enough for any rupiah amount, small enough that no formula overflows).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from kalkulator.quantities.base import Quantity

BIG = 1e15


@dataclass(frozen=True)
class Domain:
    low: float = 0.0
    high: float = BIG
    integer: bool = False
    above: bool = False  # strictly greater than `low` (e.g. a useful life of 0 years is not allowed)

    def problem(self, value: float) -> str | None:
        """Why `value` is outside the domain (None when it is inside)."""
        if not math.isfinite(value):
            return "must be a finite number"
        if self.integer and not float(value).is_integer():
            return f"must be a whole number {self.describe()}"
        if value < self.low or (self.above and value == self.low) or value > self.high:
            return f"must be {'a whole number ' if self.integer else ''}{self.describe()}"
        return None

    def describe(self) -> str:
        low = f"{_fmt(self.low)} (exclusive)" if self.above else _fmt(self.low)
        return f"from {low} to {_fmt(self.high)}"


def _fmt(x: float) -> str:
    return f"{x:,.0f}" if float(x).is_integer() and abs(x) < 1e12 else f"{x:g}"


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
    "gpus_per_server": _int(1, 1024),
    "spare_replicas": _int(0, 1000),
    "import_duty_pct": Domain(0, 100),
    "distributor_margin_pct": Domain(0, 1000),
    "prompt_tokens": _int(1, 100_000_000),
    "text_prompt_tokens": _int(0, 100_000_000),
    "session_steps": _int(1, 10_000),
    "tool_definition_tokens": _int(0, 100_000_000),
    "request_images": _int(0, 10_000),
    "image_tokens": _int(0, 1_000_000),
    "tokens_per_word_ratio": _pos(100),
    "output_tokens": _int(1, 10_000_000),
    "context_tokens": _int(0, 1_000_000_000),  # 0: no KV cache, the book's weights-only figures
    "concurrent_users": Domain(1, 10_000_000),
    "tokens_per_month": Domain(0, BIG),
    "traffic_growth_pct_per_month": Domain(-50, 200),  # a signed rate: traffic may shrink
    "requests_per_day": Domain(0, 1e12),
    "active_hours_per_day": Domain(0, 24, above=True),
    "peak_to_average_ratio": Domain(1, 1000),
    "peak_concurrent_users": _int(0, 10_000_000),
    "think_time_s": Domain(0, 86_400),
    "sla_ttft_s": _pos(1e5),
    "sla_tpot_ms": _pos(1e6),
    "load_requests_per_s": Domain(0, 1e9),
    "max_requests_per_s": _pos(1e9),
    "sla_max_requests_per_s": _pos(1e9),
    # hardware
    "host_mem_bandwidth_gbs": _pos(1e5),
    "allreduce_us": Domain(0, 1e6),
    "vram_overhead_gb": Domain(0, 1e4),
    "network_overhead_ms": Domain(0, 1e6),
    "gpu_mem_bandwidth_gbs": _pos(1e6),
    "gpu_vram_gib": _pos(1e5),
    "gpu_fp16_tflops": _pos(1e6),
    "gpu_fp32_tflops": _pos(1e6),
    "gpu_fp8_tflops": Domain(0, 1e6),
    "gpu_fp4_tflops": Domain(0, 1e6),
    "gpu_tdp_w": Domain(0, 1e5),
    "gpu_compute_capability": Domain(0, 99),
    "gpu_link_bandwidth_gbs": _pos(1e6),  # 0 would make every exchange instantaneous, not impossible
    "gpu_link_latency_us": Domain(0, 1e6),
    "gpu_fp16_fp32acc_tflops": Domain(0, 1e6),  # 0 = use the FP16 figure
    "gpu_fp8_fp32acc_tflops": Domain(0, 1e6),
    "engine_allreduces_per_layer_ratio": Domain(1, 100),
    "engine_stage_boundary_us": Domain(0, 1e6),
    # model and formats
    "model_params_b": _pos(1e5),
    "model_active_params_b": _pos(1e5),
    "model_layers": _int(1, 10_000),
    "model_hidden": _int(1, 1_000_000),
    "model_heads": _int(1, 10_000),
    "model_kv_heads": _int(1, 10_000),
    "model_head_dim": _int(1, 100_000),
    "model_vocab": _int(1, 100_000_000),
    "model_max_context_tokens": _int(1, 1_000_000_000),
    "model_kv_latent_dim": _int(0, 1_000_000),
    "model_sliding_window_tokens": _int(0, 1_000_000_000),
    "model_sliding_layers": _int(0, 10_000),
    "weight_bits_per_param": _pos(64),
    "kv_cache_bits": _pos(64),
    "weights_gb": _pos(1e6),
    # speed
    "engine_max_batch_users": _int(1, 1_000_000),
    "decode_efficiency_frac": Domain(0, 1, above=True),
    "prefill_efficiency_frac": Domain(0, 1, above=True),
    "decode_layer_overhead_ms": Domain(0, 1000),
    "decode_superblock_work_ratio": _pos(10),
    "prefill_alu_work_ratio": Domain(0, 10),
    "decode_attention_ns": Domain(0, 1e6),
    "prefill_layer_overhead_us": Domain(0, 1e6),
    "speed_error_low_frac": Domain(-1, 0),  # a signed relative error
    "speed_error_high_frac": Domain(0, 10),
    "prefill_error_low_frac": Domain(-1, 0),
    "prefill_error_high_frac": Domain(0, 10),
    "decode_tok_s": _pos(1e7),
    "prefill_tok_s": _pos(1e9),
    "spec_draft_tokens": _int(1, 64),
    # fine-tuning
    "optimizer_bytes_per_param": Domain(0, 64),
    "finetune_batch_tokens": _int(0, 1_000_000_000),
    # electricity
    "electricity_idr_per_kwh": Domain(0, 1e6),
    "host_power_w": Domain(0, 1e6),
    "system_power_w": Domain(0, 1e9),
    "pue": Domain(1, 5),
    "year_days": Domain(360, 366),
    # money
    "usd_idr": _pos(1e6),
    "gpu_price_usd": Domain(0, 1e7),
    "lifetime_years": _pos(50),
    "server_lifetime_years": _pos(50),
    "horizon_years": _pos(50),
    "elapsed_months": Domain(0, 600),
    "tokens_per_day": _pos(BIG),
    "cloud_offer_gpus": _int(1, 1024),
    "cloud_hours_per_day": Domain(0, 24),
    "colocation_plan_gpus": _int(0, 10_000),
    "colocation_plan_kw": Domain(0, 10_000),
    "api_input_usd_per_1m": Domain(0, 10_000),
    "api_output_usd_per_1m": Domain(0, 10_000),
    "api_cached_input_usd_per_1m": Domain(0, 10_000),
}


# Plausible ranges beside the hard domains: a value outside is allowed (a what-if) but the status names it, since it
# is far more often a slip (16.5 typed for 16,500 rupiah per dollar, 1e-300 active hours) than a real scenario.
PLAUSIBLE: dict[str, tuple[float, float, str]] = {
    "usd_idr": (5_000, 50_000, "rupiah per US dollar (about 16,000 in 2025–26)"),
    "electricity_idr_per_kwh": (300, 10_000, "PLN tariffs are about Rp 1,000–2,500 per kWh"),
    "active_hours_per_day": (0.5, 24, "hours a day with traffic"),
    "lifetime_years": (0.5, 15, "years a GPU is used"),
    "horizon_years": (0.5, 20, "years of the TCO"),
    "gpu_mem_bandwidth_gbs": (1, 100_000, "GB/s of one accelerator (HBM3e: about 8,000)"),
    "gpu_fp16_tflops": (0.01, 100_000, "TFLOPS of one accelerator"),
    "pue": (1, 3, "data-centre PUE (1.1–2.0 in practice)"),
    "tokens_per_month": (1_000, 1e14, "tokens a month"),
}


def domain_of(q: Quantity) -> Domain:
    """The declared domain of a number a user can type (its unit's domain unless the table names it)."""
    if q.name in DOMAINS:
        return DOMAINS[q.name]
    for suffix, domain in BY_UNIT.items():
        if q.name.endswith(suffix):
            return domain
    return Domain()


def settable_numbers(quantities: Iterable[Quantity]) -> list[Quantity]:
    """Inputs and replaceable formulas that hold numbers (not names, choices or flags)."""
    return [q for q in quantities if (q.is_input or q.overridable) and not q.is_text and q.unit.label != "TRUE/FALSE"]


def catalog_problems(tables: dict, folder) -> list[str]:
    """Catalog values outside the domain of the quantity that reads them (file:line:column errors).

    The catalog schemas check types and signs; this checks what the formulas need (e.g. a model's layers a
    whole number from 1 to 10,000), with the same table the CLI and the workbook use.
    """
    from kalkulator.quantities import QUANTITIES

    errors = []
    for q in settable_numbers(QUANTITIES):
        if q.catalog_column is None or q.catalog_column[0] not in tables:
            continue
        table = tables[q.catalog_column[0]]
        column = q.catalog_column[1]
        domain = domain_of(q)
        for row, line in zip(table.rows, table.lines or range(2, 2 + len(table.rows)), strict=True):
            value = row[column]
            if value is None or isinstance(value, str):
                continue
            problem = domain.problem(float(value))
            if problem:
                errors.append(f"{folder / table.schema.file}:{line}:{column}: {value:g} {problem} (read as {q.name})")
    return errors
