"""Build dist/kalkulator.xlsx from the catalogs and quantities, and define the verification passes.

Building needs the engine's values (cached in the file), never the verifier (kalkulator/workbook/verify.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from kalkulator.catalog import Catalog, load_catalog
from kalkulator.engine.graph import Graph
from kalkulator.quantities import QUANTITIES
from kalkulator.workbook.expected import InputSet, expected_values
from kalkulator.workbook.layout import Layout, build_layout
from kalkulator.workbook.writer import render, to_bytes

LANGS = ("id", "en")


def workbook_name(lang: str) -> str:
    return "kalkulator.xlsx" if lang == "id" else f"kalkulator-{lang}.xlsx"


@dataclass
class Built:
    graph: Graph
    catalog: Catalog
    layout: Layout
    data: bytes


def lay_out(lang: str, catalog: Catalog, values: dict | None = None) -> tuple[Graph, Layout]:
    """The engine's graph and the workbook's layout (where every quantity and formula goes), unserialised."""
    graph = Graph(QUANTITIES)
    return graph, build_layout(graph, catalog, lang, values=values)


def build(lang: str = "id", catalog: Catalog | None = None, values: dict | None = None) -> Built:
    """Lay out and serialise the workbook in memory (nothing is written).

    `values` puts other numbers in the input cells (used to cross-check changed inputs in LibreOffice);
    every formula cell caches the engine's value under the same inputs.
    """
    catalog = catalog or load_catalog()
    graph, layout = lay_out(lang, catalog, values)
    cached = expected_values(layout, graph, catalog.columns(), values or {})
    return Built(graph, catalog, layout, to_bytes(render(layout, cached)))


def _pick(names: tuple[str, ...], step: int, k: int) -> str:
    return names[(k * step + 1) % len(names)]


def verification_passes(catalog: Catalog, layout: Layout) -> list[InputSet]:
    """The shipped inputs, then changed choices, numbers and manual overrides.

    Choices rotate through the catalogs with co-prime steps so each pass meets other rows
    (MoE, MLA and sliding-window models, multi-GPU, Apple and CPU systems alike).
    """
    passes = [InputSet("shipped inputs", {})]
    choices = {q.name: q.choices[0] for q in QUANTITIES if q.choices}  # input name → catalog table
    pools = {name: catalog[table].names for name, table in choices.items()}
    pools["colocation_name"] = tuple(r["name"] for r in catalog["hosting"].rows if r["mode"] == "colocation")
    steps = (17, 11, 7, 3, 5, 13, 19, 23, 29)  # co-prime strides, one per choice
    numbers = [
        {
            "context_tokens": 32768,
            "concurrent_users": 8,
            "prompt_tokens": 4000,
            "output_tokens": 200,
            "ppn_mode": "off",
            "horizon_years": 5,
            "duty_cycle_frac": 0.5,
            "pue": 1.6,
            "traffic_growth_pct_per_month": 15,
        },
        {
            "n_gpus": 4,
            "split_mode": "tensor",
            "context_tokens": 131072,
            "concurrent_users": 2,
            "pph22_mode": "on",
            "cpu_offload_frac": 0.3,
            "allreduce_us": 50,
            "tokens_per_month": 1_000_000,
            "residual_pct": 0,
            "cooling_type": "immersion",
            "elapsed_months": 30,
            "traffic_growth_pct_per_month": -10,
        },
        {
            "n_gpus": 2,
            "context_tokens": 512,
            "concurrent_users": 64,
            "prompt_tokens": 16,
            "vram_overhead_gb": 2.5,
            "usd_idr": 15600,
            "idle_power_frac": 1,
            "cloud_hours_per_day": 8,
            "cooling_type": "office-ac",
            "server_lifetime_years": 2,
            "api_output_share_frac": 0.5,
            "tokens_per_month": 5_000_000_000,
            "traffic_growth_pct_per_month": 1,
        },
    ]
    manual = {  # typed over catalog values and formulas: a custom GPU, measured speeds and power, file size, price
        "gpu_mem_bandwidth_gbs": 500.0,
        "gpu_vram_gib": 20.0,
        "weights_gb": 5.2,
        "decode_tok_s": 151.0,
        "prefill_tok_s": 2500.0,
        "model_kv_heads": 4.0,
        "gpu_price_usd": 1800.0,
        "electricity_idr_per_kwh": 2500.0,
        "system_power_w": 900.0,
        "decode_layer_overhead_ms": 0.2,
        "hardware_capex_idr": 75_000_000.0,
    }
    sweep = next((i for i, rb in enumerate(layout.row_blocks) if "concurrent_users" in rb.bound[0]), None)
    shortlist = next((i for i, rb in enumerate(layout.row_blocks) if set(rb.bound[0]) == {"gpu_name", "n_gpus"}), None)
    for k, extra in enumerate(numbers):
        settings = {name: _pick(pool, steps[i % len(steps)], k + 1) for i, (name, pool) in enumerate(pools.items())}
        settings.update(extra)
        name, table_inputs = f"choices and numbers #{k + 1}", {}
        if k == 0 and shortlist is not None:  # other GPUs and counts typed into the shortlist's yellow cells
            gpus = pools["gpu_name"]
            table_inputs = {(shortlist, 0): {"gpu_name": gpus[-1], "n_gpus": 2}, (shortlist, 5): {"n_gpus": 8}}
            table_inputs[(shortlist, 7)] = {"gpu_name": gpus[len(gpus) // 2]}
        if k == len(numbers) - 1:  # the last pass also types manual values (four passes: two rounds on two cores)
            settings.update(manual)
            name += " with manual values (custom GPU, measured speeds and power, file size, price)"
            table_inputs = {(sweep, 0): {"concurrent_users": 3}} if sweep is not None else {}
        passes.append(InputSet(name, settings, table_inputs))
    return passes
