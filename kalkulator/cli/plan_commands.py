"""`kalkulator plan`: what to buy or rent for a workload — every option in the catalogs priced and ranked."""

from __future__ import annotations

import csv
import io
from collections import Counter

import click

from kalkulator.cli.catalog_commands import LANG_OPTION
from kalkulator.cli.common import CATALOG_OPTION, fail, load_catalog_or_fail, parse_sets
from kalkulator.cli.plan_answer import answer_lines, compact_table, counts_lines
from kalkulator.engine.graph import Graph
from kalkulator.io.textout import json_text
from kalkulator.quantities import QUANTITIES
from kalkulator.quantities.domains import domain_of
from kalkulator.scenario import ScenarioError
from kalkulator.scenario.planner import (
    DEFAULT_ENGINES,
    DEFAULT_FORMATS,
    GPUS_PER_REPLICA,
    MODE_TCO,
    MODES,
    RESIDENCY,
    SORT_KEYS,
    UNMEASURED,
    UNMEASURED_REASON,
    Constraints,
    Option,
    Plan,
    PlanError,
    candidates,
    check_names,
    hitung_command,
    in_language,
    ranked,
    search,
)

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
    ("measured", "speed_measured", "{}"),
    ("loss %", "quality_loss_pct", "{:,.1f}"),
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
@click.option("--formats", help=f"Weight formats to consider (comma-separated; default {', '.join(DEFAULT_FORMATS)}).")
@click.option("--engines", help=f"Engines to consider (comma-separated; default {', '.join(DEFAULT_ENGINES)}).")
@click.option("--sizes", default=",".join(map(str, GPUS_PER_REPLICA)), show_default=True, help="GPUs per replica.")
@click.option("--by", type=click.Choice(sorted(SORT_KEYS)), default="tco", show_default=True, help="Rank by.")
@click.option(
    "--unmeasured",
    type=click.Choice(UNMEASURED),
    default="last",
    show_default=True,
    help="Options whose speed no measurement of the engine on the backend checks: ranked after the measured ones, "
    "with them, or dropped.",
)
@click.option(
    "--modes",
    default=",".join((*MODES, "api")),
    show_default=True,
    help="Deployment modes to consider (any subset, comma-separated).",
)
@click.option(
    "--residency",
    type=click.Choice(RESIDENCY),
    default="any",
    show_default=True,
    help="indonesia: only options whose data stays in Indonesia (on-premise, domestic colocation, Jakarta-region "
    "cloud, APIs that keep data in Indonesia; no hybrid spilling abroad).",
)
@click.option("--max-capex", type=float, help="Most hardware capex, in rupiah.")
@click.option("--max-power-kw", type=float, help="Most facility power of the fleet at full load (IT power × PUE), kW.")
@click.option("--max-gpus", type=float, help="Most GPUs bought or rented.")
@click.option(
    "--allow-geforce-datacenter",
    is_flag=True,
    help="Also offer GeForce cards bought for a server room, rack or colocation (their driver licence forbids "
    "data-centre deployment; the option then carries that caveat).",
)
@click.option(
    "--max-quality-loss",
    "max_quality_loss",
    type=click.FloatRange(0, 100_000),
    metavar="PCT",
    help="Leave out formats whose published quality loss vs 16-bit weights (quality_loss_pct of quants.csv) is above "
    "PCT; default: the workload preset's max_quality_loss_pct (8 for every preset). Formats with no public "
    "measurement are kept with a caveat.",
)
@click.option("--top", type=click.IntRange(1, 10_000), default=15, show_default=True, help="Options shown.")
@click.option("--details", is_flag=True, help="Under each row: the hitung command, caveats and launch command.")
@click.option("--wide", is_flag=True, help="Every column, each row's hitung command, the counts first (no wrapping).")
@LANG_OPTION
@click.option("--json", "as_json", is_flag=True, help="Every option as JSON (with its hitung settings).")
@click.option("--csv", "as_csv", is_flag=True, help="Every option as CSV.")
@CATALOG_OPTION
def plan_cmd(
    model_name,
    workload_name,
    sets,
    gpus,
    formats,
    engines,
    sizes,
    by,
    unmeasured,
    modes,
    residency,
    max_capex,
    max_power_kw,
    max_gpus,
    allow_geforce_datacenter,
    max_quality_loss,
    top,
    details,
    wide,
    lang,
    as_json,
    as_csv,
    catalog_dir,
):
    """Search GPUs × GPUs per replica × formats × engines × deployment (buy, colocation, cloud, API) for the
    workload; rank the options that fit and meet the latency targets."""
    graph = Graph(QUANTITIES)
    catalog = load_catalog_or_fail(catalog_dir)
    try:
        base = {k: v for k, v in (("model_name", model_name), ("workload_name", workload_name)) if v is not None}
        base.update(parse_sets(graph, sets))
        if max_quality_loss is not None:
            base["max_quality_loss_frac"] = max_quality_loss / 100
        check_names(catalog, base)
        try:
            size_list = sorted({int(s) for s in sizes.split(",") if s.strip()})
        except ValueError:
            raise PlanError(f"--sizes: {sizes!r} is not a list of whole numbers such as 1,2,4,8") from None
        if not size_list or min(size_list) < 1:
            raise PlanError("--sizes: give GPUs per replica of 1 or more, such as 1,2,4,8")
        largest = domain_of(graph["n_gpus"]).high
        if max(size_list) > largest:
            raise PlanError(
                f"--sizes: {max(size_list):,} GPUs per replica is above the largest replica ({largest:,.0f})"
            )
        limits = Constraints(
            tuple(m.strip() for m in modes.split(",") if m.strip()),
            residency,
            max_capex,
            max_power_kw,
            max_gpus,
            allow_geforce_datacenter,
        )
        space = candidates(catalog, base, gpus, formats, engines, size_list, residency, graph)
        plan = search(graph, catalog, space, unmeasured, limits)
    except (PlanError, ScenarioError) as exc:
        fail(str(exc))
        return
    options = ranked(plan, by)
    if not options:
        fail(f"no option is left ({_why_none(plan)})")
        return
    if not any(o.mode != "api" for o in options) and "api" not in limits.modes or not plan.serving:
        apis = "; ".join(f"{o.offer} Rp {o.idr_per_month:,.0f}/month" for o in options)
        fail(
            f"no GPU option serves this workload within its targets ({_why_none(plan)})"
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
        counts = {
            "excluded": dict(plan.excluded),  # both reason counts in one, as the key was before they were split
            "configurations": plan.candidates,
            "serving": plan.serving,
            "excluded_configurations": dict(plan.excluded_configurations),
            "excluded_modes": dict(plan.excluded_modes),
            "excluded_constraints": dict(plan.excluded_constraints),
            "apis": plan.apis,
            "apis_priced": plan.apis_priced,
            "unmeasured": unmeasured,
        }
        click.echo(json_text({"options": out, **counts}, ensure_ascii=False, indent=2))
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
    if wide:
        click.echo(_table(options[:top], plan, by))
        return
    model = str(plan.base.get("model_name") or graph["model_name"].default)
    options = in_language(graph, catalog, plan, options[:top], lang) + options[top:]
    lines = answer_lines(options, plan, catalog, model, lang)
    lines += ["", *compact_table(options[:top], plan, by, lang, details)]
    lines += ["", *counts_lines(plan, lang)]
    click.echo("\n".join(lines))


def _n(count: int, unit: str) -> str:
    """A count with thousands separators and its unit ("1 configuration", "3,736 configurations")."""
    return f"{count:,} {unit}{'' if count == 1 else 's'}"


def _reasons(counts: Counter) -> str:
    """ "2,268 engine cannot run it; 292 misses TTFT": counts by reason, most first."""
    return "; ".join(f"{n:,} {r}" for r, n in counts.most_common())


def _counts(plan: Plan) -> list[str]:
    """The header's counts, each in its unit, adding up: configurations = serving + cannot; options = serving ×
    modes − modes without a price + APIs."""
    cannot = sum(plan.excluded_configurations.values())
    priced = plan.serving * len(MODES)
    gpu_options = priced - sum(plan.excluded_modes.values())
    first = (
        f"{_n(plan.candidates, 'configuration')} (GPU × GPUs per replica × format × engine): "
        f"{plan.serving:,} serve this workload, {cannot:,} cannot"
        + (f" ({_reasons(plan.excluded_configurations)})." if cannot else ".")
    )
    less = f" ({priced:,} less {_reasons(plan.excluded_modes)})" if plan.excluded_modes else ""
    second = (
        f"The {plan.serving:,} priced in {len(MODES)} ways ({', '.join(MODES)}) give {_n(gpu_options, 'option')}{less}"
        f" + {_n(plan.apis_priced, 'API')} = {_n(gpu_options + plan.apis_priced, 'option')}"
    )
    unmeasured = plan.unmeasured_options
    if unmeasured:
        has = "has" if unmeasured == 1 else "have"
        second += f"; {_n(unmeasured, 'option')} {has} a speed not measured for the engine on the backend: " + (
            "ranked after the measured ones (--unmeasured with ranks them together, drop leaves them out)"
            if plan.unmeasured == "last"
            else "ranked among the measured ones (--unmeasured last ranks them after)"
        )
    lines = [first, second + "."]
    limited = sum(plan.excluded_constraints.values())
    if limited:
        lines.append(
            f"{_n(limited, 'option')} outside your limits ({_reasons(plan.excluded_constraints)}): "
            f"{len(plan.options):,} left."
        )
    return lines


def _why_none(plan: Plan) -> str:
    """The counts behind an empty plan: the configurations by reason, and the serving ones' modes without a price."""
    parts = [_reasons(plan.excluded_configurations)] if plan.excluded_configurations else []
    if plan.serving and plan.excluded_constraints:
        unpriced = f"; modes without a price: {_reasons(plan.excluded_modes)}" if plan.excluded_modes else ""
        parts.append(f"{plan.serving:,} serve, and your limits leave out every option they give{unpriced}")
    elif plan.serving:
        parts.append(f"{plan.serving:,} serve but no mode has a price ({_reasons(plan.excluded_modes)})")
    if UNMEASURED_REASON in plan.excluded_configurations:
        parts.append("--unmeasured last keeps those with speeds not measured")
    if plan.excluded_constraints:
        parts.append(f"outside your limits: {_reasons(plan.excluded_constraints)}")
    return f"{_n(plan.candidates, 'configuration')}: " + "; ".join(parts)


def _shown(o: Option) -> dict:
    """An option's table cells by key: an API row names the API where a GPU goes and has no fleet or speed."""
    row = {**o.settings, **o.__dict__, "speed_measured": "yes" if o.speed_measured else "no"}
    if o.mode == "api":
        row |= {"gpu_name": o.offer, "gpus_needed": "", "decode_tok_s": "", "ttft_s": "", "tpot_ms": ""}
        row["speed_measured"] = ""
    return row


def _table(options: list[Option], plan: Plan, by: str) -> str:
    values = [
        [_cell(_shown(o).get(key, ""), fmt) for _, key, fmt in COLUMNS] + ["*" if o.pareto else ""] for o in options
    ]
    headers = [h for h, _, _ in COLUMNS] + ["front"]
    widths = [max(len(h), *(len(v[i]) for v in values)) for i, h in enumerate(headers)]
    lines = [
        *_counts(plan),
        f"Ranked by {by}, the first {len(options):,} shown; measured no = no measurement of the engine on this "
        "backend checks the speed (measure before you buy); * = on the cost/TTFT/TPOT front"
        + (" (of the measured options)" if plan.unmeasured != "with" else "")
        + "; Rp/month = TCO ÷ months of the horizon; loss % = the format's published quality loss vs 16-bit weights "
        "(– = no public measurement)",
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
    return "\n".join(lines)
