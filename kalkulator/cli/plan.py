"""`kalkulator plan`: what to buy or rent for a workload — every option in the catalogs priced and ranked."""

from __future__ import annotations

import csv
import io
import json

import click

from kalkulator.cli.common import CATALOG_OPTION, fail, load_catalog_or_fail, parse_sets
from kalkulator.graph import Graph
from kalkulator.plan import (
    GPUS_PER_REPLICA,
    MODE_TCO,
    SORT_KEYS,
    PlanError,
    candidates,
    check_names,
    hitung_command,
    ranked,
    search,
)
from kalkulator.quantities import QUANTITIES
from kalkulator.scenario import ScenarioError

COLUMNS = (
    ("mode", "mode", "{}"),
    ("gpu", "gpu_name", "{}"),
    ("n", "n_gpus", "{:g}"),
    ("format", "quant_name", "{}"),
    ("engine", "engine", "{}"),
    ("GPUs", "gpus_needed", "{:,.0f}"),
    ("tok/s/user", "decode_tok_s", "{:,.1f}"),
    ("TTFT s", "ttft_s", "{:,.2f}"),
    ("TPOT ms", "tpot_ms", "{:,.1f}"),
    ("Rp/1M tok", "idr_per_1m_tokens", "{:,.0f}"),
    ("Rp/month", "idr_per_month", "{:,.0f}"),
    ("TCO Rp", "tco_idr", "{:,.0f}"),
    ("break-even", "breakeven_months", "{}"),
)


def _cell(value, fmt: str) -> str:
    if value is None or value == "":
        return "–"
    if isinstance(value, float) and fmt == "{}":
        return f"{value:,.1f} mo"
    try:
        return fmt.format(value)
    except (ValueError, TypeError):
        return str(value)


@click.command("plan")
@click.option("--model", "model_name", help="Model from the catalog (see `kalkulator list models`).")
@click.option("--workload", "workload_name", help="Workload preset: prompt/output tokens, latency targets, hours.")
@click.option("--set", "sets", multiple=True, metavar="NAME=VALUE", help="Any input, as hitung takes it (repeatable).")
@click.option("--gpus", help="GPUs to consider: names or words of them, vendors, segments (comma-separated).")
@click.option("--formats", help="Weight formats to consider (comma-separated; default Q4_K_M, Q8_0, FP8, NVFP4, AWQ).")
@click.option("--engines", help="Engines to consider (comma-separated; default llama.cpp, vllm).")
@click.option("--sizes", default=",".join(map(str, GPUS_PER_REPLICA)), show_default=True, help="GPUs per replica.")
@click.option("--by", type=click.Choice(sorted(SORT_KEYS)), default="tco", show_default=True, help="Rank by.")
@click.option("--top", type=click.IntRange(1, 10_000), default=15, show_default=True, help="Options shown.")
@click.option("--json", "as_json", is_flag=True, help="Every option as JSON (with its hitung settings).")
@click.option("--csv", "as_csv", is_flag=True, help="Every option as CSV.")
@CATALOG_OPTION
def plan_cmd(model_name, workload_name, sets, gpus, formats, engines, sizes, by, top, as_json, as_csv, catalog_dir):
    """Search GPUs × GPUs per replica × formats × engines × deployment (buy, colocation, cloud, API) for the
    workload; rank the options that fit and meet the latency targets."""
    graph = Graph(QUANTITIES)
    catalog = load_catalog_or_fail(catalog_dir)
    try:
        base = {k: v for k, v in (("model_name", model_name), ("workload_name", workload_name)) if v is not None}
        base.update(parse_sets(graph, sets))
        check_names(catalog, base)
        try:
            size_list = sorted({int(s) for s in sizes.split(",") if s.strip()})
        except ValueError:
            raise PlanError(f"--sizes: {sizes!r} is not a list of whole numbers such as 1,2,4,8") from None
        if not size_list or min(size_list) < 1:
            raise PlanError("--sizes: give GPUs per replica of 1 or more, such as 1,2,4,8")
        plan = search(graph, catalog, candidates(catalog, base, gpus, formats, engines, size_list))
    except (PlanError, ScenarioError) as exc:
        fail(str(exc))
        return
    options = ranked(plan, by)
    if not any(o.mode != "api" for o in options):
        reasons = ", ".join(f"{n} {r}" for r, n in plan.excluded.most_common())
        apis = "; ".join(f"{o.offer} Rp {o.idr_per_month:,.0f}/month" for o in options)
        fail(
            f"no GPU option serves this workload within its targets ({plan.candidates} candidates: {reasons})"
            + (f"; the APIs: {apis}" if apis else "")
        )
    if as_json:
        out = [
            o.as_dict()
            | {
                "tco_quantity": MODE_TCO[o.mode],
                "hitung": hitung_command(o, plan.base),
                "hitung_settings": {**plan.base, **o.settings},
            }
            for o in options
        ]
        click.echo(json.dumps({"options": out, "excluded": dict(plan.excluded)}, ensure_ascii=False, indent=2))
        return
    if as_csv:
        buf = io.StringIO()
        rows = [o.as_dict() | {"hitung": hitung_command(o, plan.base)} for o in options]
        names = list(dict.fromkeys(k for r in rows for k in r))
        writer = csv.DictWriter(buf, fieldnames=names, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
        click.echo(buf.getvalue(), nl=False)
        return
    click.echo(_table(options[:top], len(options), plan, by))


def _shown(o) -> dict:
    """An option's table cells by key: an API row names the API where a GPU goes and has no fleet or speed."""
    row = {**o.settings, **o.__dict__}
    if o.mode == "api":
        row |= {"gpu_name": o.offer, "gpus_needed": "", "decode_tok_s": "", "ttft_s": "", "tpot_ms": ""}
    return row


def _table(options, total: int, plan, by: str) -> str:
    values = [
        [_cell(_shown(o).get(key, ""), fmt) for _, key, fmt in COLUMNS] + ["*" if o.pareto else ""] for o in options
    ]
    headers = [h for h, _, _ in COLUMNS] + ["front"]
    widths = [max(len(h), *(len(v[i]) for v in values)) for i, h in enumerate(headers)]
    lines = [
        f"{total} options from {plan.candidates} candidates, ranked by {by}; * = on the cost/TTFT/TPOT front; "
        "Rp/month = TCO ÷ months of the horizon",
        "  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)),
    ]
    for i, (o, v) in enumerate(zip(options, values, strict=True), start=1):
        lines.append("  ".join(c.ljust(w) for c, w in zip(v, widths, strict=True)))
        where = f" ({o.offer})" if o.offer else ""
        lines.append(f"    {i}. {o.mode}{where}: {hitung_command(o, plan.base)}   [TCO: {MODE_TCO[o.mode]}]")
        if o.note:
            lines.append(f"       note: {o.note}")
        if "; " in o.caveats:  # more than one: the note above names only the first
            lines.append(f"       all caveats: {o.caveats}")
    if plan.excluded:
        lines.append("\nLeft out: " + "; ".join(f"{n} × {r}" for r, n in plan.excluded.most_common()))
    return "\n".join(lines)
