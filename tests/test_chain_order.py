"""The quantities' chain modules in the order data flows (issue 43 item 2): a formula reads only quantities of its
own module or of an earlier one in CHAIN_ORDER, so the modules read top to bottom as the data flows.

References are taken from the trees (`names_in`), so a helper that builds a formula in another module (memory's
layer_tokens in speed's trees) counts where the formula is defined. The forward references that remain are listed
in KNOTS, each with why it is still there; the list may only shrink: a new forward reference fails, and so does a
listed one that is gone (then delete its line).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import ModuleType

from kalkulator import quantities
from kalkulator.engine.expr import names_in
from kalkulator.quantities.base import Quantity

CHAIN_ORDER = (
    "inputs",
    "workload",
    "vision",
    "memory",
    "finetune",
    "speed",
    "capacity",
    "deployment",
    "speculative",
    "energy",
    "cost",
    "api",
    "tco",
    "breakeven",
    "hybrid",
    "freshness",
    "session",
    "measured",
    "checks",
    "answers",
    "verdict",
)

# (module, formula, the quantity it reads from a later module): the knots the move of issue 43 has not yet cut.
KNOTS = {
    # the workload preset's session shape and row feed the prompt and context: inputs ↔ workload
    ("inputs", "prompt_tokens", "tool_definition_tokens"),
    ("inputs", "prompt_tokens", "step_input_tokens"),
    ("inputs", "prompt_tokens", "session_steps"),
    ("inputs", "output_tokens", "workload_row"),
    ("inputs", "prefix_cache_hit_frac", "workload_row"),
    ("inputs", "context_tokens", "step_input_tokens"),
    ("inputs", "context_tokens", "session_steps"),
    ("workload", "image_tokens", "vision_encoder_row"),
    # days per month lives with the energy bill
    ("workload", "requests_per_day", "month_days"),
    ("workload", "input_tokens_per_month", "month_days"),
    ("workload", "output_tokens_per_month", "month_days"),
    # the decode step at the batch: concurrent_users is the load capacity.py settles (utilisation, fixed load)
    ("memory", "kv_cache_gb", "concurrent_users"),
    ("speed", "decode_touched_experts", "concurrent_users"),
    ("speed", "moe_batch_extra_gb_per_step", "concurrent_users"),
    ("speed", "decode_read_gb_per_step", "concurrent_users"),
    ("speed", "arithmetic_intensity_flop_per_byte", "concurrent_users"),
    ("speed", "decode_step_memory_ms", "concurrent_users"),
    ("speed", "decode_step_compute_ms", "concurrent_users"),
    ("speed", "decode_overhead_ms", "concurrent_users"),
    ("speed", "decode_step_ms", "concurrent_users"),
    ("speed", "throughput_tok_s", "fixed_throughput_tok_s"),
    # E2E reads the TTFT and TPOT at load, which capacity.py computes (ttft_s lives there)
    ("speed", "e2e_latency_s", "ttft_s"),
    ("speed", "e2e_latency_s", "tpot_at_load_ms"),
    ("speed", "e2e_latency_s", "utilization_frac"),
    ("capacity", "servers_needed", "gpus_per_server"),
    ("deployment", "maintenance_idr_per_year", "hardware_capex_idr"),
}


def chain_formulas() -> dict[str, tuple[Quantity, ...]]:
    """Every module of kalkulator.quantities that defines quantities → the quantities it defines (the items of its
    module-level tuples of Quantity; checks.py builds its own from every formula, as quantities/__init__ does)."""
    found = {}
    for name in dir(quantities):
        module = getattr(quantities, name)
        if isinstance(module, ModuleType) and module.__name__.startswith("kalkulator.quantities."):
            found[name] = tuple(
                {  # a quantity in several tuples of its module (QUANTITIES and a group of it) counts once
                    q.name: q
                    for value in vars(module).values()
                    if isinstance(value, tuple) and value and all(isinstance(q, Quantity) for q in value)
                    for q in value
                }.values()
            )
    found["checks"] = quantities.checks.quantities(quantities._FORMULAS)
    return {name: qs for name, qs in found.items() if qs}


def forward_references(order: Iterable[str], formulas: Mapping[str, Iterable[Quantity]]) -> set[tuple[str, str, str]]:
    """(module, formula, name) for each name a formula reads that a later module defines."""
    order = list(order)
    home = {q.name: m for m in order for q in formulas[m]}
    return {
        (m, q.name, n)
        for m in order
        for q in formulas[m]
        if q.expr is not None
        for n in names_in(q.expr)
        if n in home and order.index(home[n]) > order.index(m)
    }


def test_every_quantity_has_one_module_and_every_module_its_place_in_the_order():
    formulas = chain_formulas()
    assert sorted(formulas) == sorted(CHAIN_ORDER)
    assert sorted(q.name for qs in formulas.values() for q in qs) == sorted(q.name for q in quantities.QUANTITIES)


def test_formulas_read_only_their_own_or_earlier_modules():
    assert forward_references(CHAIN_ORDER, chain_formulas()) == KNOTS


def test_a_forward_reference_is_found():
    from kalkulator.engine.expr import R

    early = Quantity("early_ms", "a", "a", "doc", "src", expr=R("late_ms") * 2, doc_id="d", source_id="s")
    late = Quantity("late_ms", "b", "b", "doc", "src", expr=R("input_ms") + 1, doc_id="d", source_id="s")
    given = Quantity("input_ms", "c", "c", "doc", "src", expr=None, doc_id="d", source_id="s")
    assert forward_references(["first", "second"], {"first": (given, early), "second": (late,)}) == {
        ("first", "early_ms", "late_ms")
    }
    assert forward_references(["first", "second"], {"first": (given, late), "second": (early,)}) == set()
