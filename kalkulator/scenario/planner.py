"""The planner: every way to serve a workload from the catalogs (GPU, GPUs per replica, format, engine, deployment),
evaluated as arrays through the quantity graph, filtered by fit and latency targets, priced and ranked.

The planner computes nothing of its own: each option is a scenario `kalkulator hitung` evaluates the same way, and
each carries the settings that reproduce it.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from kalkulator.catalog import Catalog
from kalkulator.engine.arrays import evaluate_many, rows
from kalkulator.engine.expr import Value
from kalkulator.engine.graph import Graph
from kalkulator.scenario import ScenarioError, closest, resolve
from kalkulator.scenario.launch import NEEDS, launch_command, repository

GPUS_PER_REPLICA = (1, 2, 4, 8)
DEFAULT_ENGINES = ("llama.cpp", "vllm", "tensorrt-llm")
# Weight formats tried by default: a 4-bit and an 8-bit GGUF for llama.cpp; FP8, NVFP4 and AWQ for vLLM-class
# engines. The support catalog and the GPU's units drop the pairs that cannot run.
DEFAULT_FORMATS = ("Q4_K_M", "Q8_0", "FP8", "NVFP4", "AWQ-4bit")
# Deployment mode → the answer quantity with its TCO (a number, or the reason the mode has no price).
MODES = {
    "buy": "answer_tco_idr",
    "colocation": "answer_tco_colocation_idr",
    "cloud": "answer_tco_cloud_idr",
    "spot": "answer_tco_cloud_spot_idr",  # the same offer at its spot (interruptible) price
    "hybrid": "tco_hybrid_idr",
}
OUTPUTS = (
    "status_text",
    "caveats_text",
    "speed_band_floor_frac",
    "prefill_band_floor_frac",
    "run_check_text",
    "fits_in_vram",
    "engine_backend_flag",
    "engine_format_flag",
    "engine_compute_capability_flag",
    "sla_text",
    "sla_ttft_requests_per_s",
    "sla_tpot_batch_users",
    "gpus_needed",
    "hybrid_base_gpus",
    "servers_needed",
    "decode_tok_s",
    "ttft_s",
    "tpot_ms",
    "horizon_years",
    "demand_tokens_per_month",
    "api_name",
    "premium_api_name",
    "onprem_check_text",
    "api_cost_idr_per_month",
    "cloud_offer_name",
    "colocation_name",
    "answer_breakeven_months",
    "speed_measured_flag",
    "engine_evidence_flag",
    "engine_evidence_text",
    "licence_datacenter_flag",
    "gpu_datacenter_use_text",
    "deployment_name",
    "gpus_per_server",
    "bought_gpus",
    "hardware_capex_idr",
    "system_power_w",
    "pue",
    "hybrid_capex_idr",
    "hybrid_fleet_frac",
    "staff_fte_ratio",
    "quant_format_text",
    "requests_per_day",
    "energy_j_per_output_token",
    "co2_kg_per_month",
    *NEEDS,
    "quant_quality_loss_frac",
    "quant_quality_metric_type",
    "quality_floor_flag",
    *MODES.values(),
)
CANDIDATE_KEYS = ("gpu_name", "n_gpus", "split_mode", "quant_name", "engine")
# The quantity `hitung` shows for each mode's TCO.
MODE_TCO = {
    "buy": "tco_idr",
    "colocation": "tco_colocation_idr",
    "cloud": "tco_cloud_idr",
    "spot": "tco_cloud_spot_idr",
    "hybrid": "tco_hybrid_idr",
    "api": "api_cost_idr_per_month",
}
SORT_KEYS = {
    "tco": "tco_idr",
    "cost": "idr_per_1m_tokens",
    "breakeven": "breakeven_months",
    "ttft": "ttft_s",
    "tpot": "tpot_ms",
    "energy": "energy_j_per_output_token",
}
# Where options whose speed no measurement of the engine on the backend checks go: after the measured ones, among
# them (as the cost alone ranks them), or left out under UNMEASURED_REASON.
UNMEASURED = ("last", "with", "drop")
UNMEASURED_REASON = "speed not measured for this engine, format and GPU architecture"
LICENCE_REASON = "GeForce licence: no data-centre deployment (--allow-geforce-datacenter)"
RESIDENCY = ("any", "indonesia")


@dataclass(frozen=True)
class Constraints:
    """The buyer's hard limits: an option outside one is left out and counted under its reason."""

    modes: tuple[str, ...] = (*MODES, "api")
    residency: str = "any"  # "indonesia": the data stays in Indonesia (on-premise, domestic offers only)
    max_capex_idr: float | None = None  # hardware bought
    max_power_kw: float | None = None  # the fleet's facility power at full load (IT power × PUE)
    max_gpus: float | None = None  # GPUs bought or rented
    allow_geforce_datacenter: bool = False  # GeForce cards bought for a server room, rack or colocation

    def __post_init__(self) -> None:
        unknown = [m for m in self.modes if m not in (*MODES, "api")]
        if unknown or not self.modes:
            raise PlanError(
                f"--modes: {', '.join(unknown) or 'nothing'} is not a mode; modes: {', '.join((*MODES, 'api'))}"
            )
        if self.residency not in RESIDENCY:
            raise PlanError(f"--residency: {self.residency!r} is not one of {', '.join(RESIDENCY)}")
        for option, value in (
            ("--max-capex", self.max_capex_idr),
            ("--max-power-kw", self.max_power_kw),
            ("--max-gpus", self.max_gpus),
        ):
            if value is not None and not (math.isfinite(value) and value > 0):
                raise PlanError(f"{option}: {value!r} must be a positive number")


# Configurations whose format's published quality loss exceeds max_quality_loss_frac (--max-quality-loss, or the
# workload preset's); a format with no public measurement is kept, "quality not measured" among its caveats.
QUALITY_REASON = "below the quality floor"


class PlanError(ValueError):
    """A search space that names nothing or leaves nothing; the message says which option."""


@dataclass
class Option:
    mode: str  # buy | colocation | cloud | hybrid | api
    settings: dict[str, Value]  # what reproduces it in `hitung` (names as --set takes them)
    tco_idr: float
    idr_per_month: float
    idr_per_1m_tokens: float
    gpus_needed: float = 0.0
    servers_needed: float = 0.0
    decode_tok_s: float = 0.0
    ttft_s: float = 0.0
    tpot_ms: float = 0.0
    breakeven_months: Value = None
    offer: str = ""  # the cloud offer, colocation plan or API by name
    pareto: bool = False
    note: str = ""  # the scenario's status when it is not OK but the option still serves (e.g. prices to check)
    caveats: str = ""  # every warning that holds, in short words (the note gives the first in full)
    speed_measured: bool = True  # speed_measured_flag; an API's speed is not ours to model, so True
    band_floor: tuple[float, float] = (0.0, 0.0)  # least decode and prompt band of a family not calibrated (0: none)
    capex_idr: float = 0.0  # hardware bought (0 for cloud and APIs)
    power_kw: float = 0.0  # facility power of the fleet at full load (0 for cloud and APIs: not the buyer's)
    gpus_per_server: float = 0.0  # a replica's GPUs never exceed it
    deployment: str = ""  # the deployment profile the fleet is priced in (buy, colocation, hybrid)
    data_region: str = ""  # where the data is processed (on-premise: the buyer's own site)
    marketplace: bool = False  # a cloud offer of third-party hosts (peer to peer)
    evidence: str = ""  # engine-support evidence of the engine, format and GPU architecture
    staff_fte: float = 0.0  # engineers (full-time equivalents) the owned fleet needs
    gpus_bought: float = 0.0  # GPUs bought (whole boards or servers where sold so); 0 when rented
    launch: str = ""  # the engine's command for one replica, with the flags the numbers assume
    energy_j_per_output_token: float | None = None  # facility energy per generated token at the planned load
    co2_kg_per_month: float = 0.0  # the owned fleet's emissions at the grid's factor (0 for cloud and APIs)
    quality_loss_pct: float | None = None  # the format's published loss vs 16-bit (None: none published, or an API)
    quality_metric: str = ""  # quality_metric of quants.csv: ppl, accuracy, reference or none ("" for an API)
    api_same_model: bool | None = None  # an API option: does it serve the scenario's model (else: labelled nearest)
    api_comparator: str = ""  # an API of another model: "nearest: <model> (…)" or the premium API's label

    def as_dict(self) -> dict[str, Value]:
        return {
            "mode": self.mode,
            **self.settings,
            "offer": self.offer,
            "tco_idr": self.tco_idr,
            "idr_per_month": self.idr_per_month,
            "idr_per_1m_tokens": self.idr_per_1m_tokens,
            "gpus_needed": self.gpus_needed,
            "servers_needed": self.servers_needed,
            "decode_tok_s": self.decode_tok_s,
            "ttft_s": self.ttft_s,
            "tpot_ms": self.tpot_ms,
            "breakeven_months": self.breakeven_months,
            "pareto": self.pareto,
            "note": self.note,
            "caveats": self.caveats,
            "speed_measured": self.speed_measured,
            "speed_band_floor_frac": self.band_floor[0],
            "prefill_band_floor_frac": self.band_floor[1],
            "capex_idr": self.capex_idr,
            "power_kw": self.power_kw,
            "gpus_per_server": self.gpus_per_server,
            "deployment": self.deployment,
            "data_region": self.data_region,
            "marketplace": self.marketplace,
            "evidence": self.evidence,
            "staff_fte": self.staff_fte,
            "gpus_bought": self.gpus_bought,
            "launch": self.launch,
            "energy_j_per_output_token": self.energy_j_per_output_token,
            "co2_kg_per_month": self.co2_kg_per_month,
            "quality_loss_pct": self.quality_loss_pct,
            "quality_metric": self.quality_metric,
            "api_same_model": self.api_same_model,
            "api_comparator": self.api_comparator,
        }


@dataclass
class Plan:
    """The options, and the counts that add up: `candidates` configurations (GPU × GPUs per replica × format ×
    engine) = `serving` + the sum of `excluded_configurations`; the options are `serving` × len(MODES) − the sum of
    `excluded_modes`, plus the APIs. `excluded` is both counters in one (its keys do not overlap)."""

    options: list[Option]
    excluded: Counter = field(default_factory=Counter)
    candidates: int = 0
    base: dict[str, Value] = field(default_factory=dict)  # the workload and --set values every option shares
    excluded_configurations: Counter = field(default_factory=Counter)  # configurations by why they cannot serve
    excluded_modes: Counter = field(default_factory=Counter)  # a serving configuration's modes without a price
    serving: int = 0  # configurations that serve the workload, each priced in every mode of MODES
    unmeasured: str = "last"  # one of UNMEASURED: the search's choice, ranked()'s default
    excluded_constraints: Counter = field(default_factory=Counter)  # priced options outside the buyer's limits
    apis_priced: int = 0  # APIs priced, before the buyer's limits
    demand_tokens_per_month: float = 0.0  # the demand the sizing used (the workload's, shared by every option)
    requests_per_day: float = 0.0
    best_outside: tuple[Option, str] | None = None  # the cheapest option a limit left out, and why
    constraints: Constraints = field(default_factory=lambda: Constraints())

    @property
    def apis(self) -> int:
        """API options (one per API: no configuration behind them)."""
        return sum(o.mode == "api" for o in self.options)

    @property
    def unmeasured_options(self) -> int:
        """Options whose speed no measurement of the engine on the backend checks."""
        return sum(not o.speed_measured for o in self.options)


def _near(term: str, names: Sequence[str]) -> str:
    """ "; closest: …" — whole names first, else names with a word like the term (H900 → H100, H200)."""
    near = closest(term, names)
    if not near:
        import difflib

        def score(name: str) -> float:
            return max(difflib.SequenceMatcher(None, term.lower(), w.lower()).ratio() for w in name.split())

        near = [n for n in sorted(names, key=score, reverse=True)[:5] if score(n) >= 0.5]
    return f"; closest: {', '.join(near)}" if near else ""


def _terms(wanted: str, option: str, what: str) -> list[str]:
    """The comma-separated terms of a filter; a filter of only commas and spaces names nothing, which is an error."""
    terms = [t.strip() for t in wanted.split(",") if t.strip()]
    if not terms:
        raise PlanError(f"{option}: {wanted!r} names no {what}; give names or words of them, comma-separated")
    return terms


def _pick(names: Sequence[str], wanted: str | None, what: str, option: str) -> list[str]:
    """Catalog names matching a comma-separated filter (a name, or a word of it); closest names when none does."""
    if not wanted:
        return list(names)
    out: list[str] = []
    for term in _terms(wanted, option, what):
        hits = [n for n in names if n.lower() == term.lower()] or [n for n in names if term.lower() in n.lower()]
        if not hits:
            raise PlanError(f"{option}: {term!r} matches no {what}{_near(term, names)}")
        out.extend(h for h in hits if h not in out)
    return out


def _gpus(catalog: Catalog, wanted: str | None) -> list[str]:
    """Priced catalog GPUs, or those a filter names by name, vendor or segment (priced or not)."""
    table = catalog["gpu"]
    if not wanted:
        return [r["name"] for r in table.rows if (r["price_usd"] or 0) > 0]
    out: list[str] = []
    for term in _terms(wanted, "--gpus", "GPU"):
        t = term.lower()
        hits = [
            r["name"]
            for r in table.rows
            if t == r["name"].lower() or t in r["name"].lower() or t in (r["vendor"].lower(), r["segment"].lower())
        ]
        if not hits:
            raise PlanError(f"--gpus: {term!r} matches no GPU{_near(term, table.names)}")
        out.extend(h for h in hits if h not in out)
    return out


def candidates(
    catalog: Catalog,
    base: Mapping[str, Value],
    gpus: str | None = None,
    formats: str | None = None,
    engines: str | None = None,
    sizes: Iterable[int] = GPUS_PER_REPLICA,
    residency: str = "any",
    graph: Graph | None = None,
) -> list[dict[str, Value]]:
    """Scenario settings of every GPU × GPUs per replica × format × engine in the search space; with a residency,
    each GPU's cloud offer is its first one in that region.

    With the `graph`, a manual value in `base` holds in a candidate as in the workbook's shortlist row
    (Graph.gates): a site's value (tariff, PUE, deployment, …) in every candidate, a value of the chosen setup
    (a GPU's price, a measured speed) only in the candidates equal to the chosen setup (`base`'s GPU, count,
    format, engine or their defaults) in what it depends on."""
    gpu_names = _gpus(catalog, gpus)
    quant_names = (
        _pick(catalog["quant"].names, formats, "weight format", "--formats")
        if formats
        else [q for q in DEFAULT_FORMATS if catalog["quant"].find(q) is not None]
    )
    engine_names = (
        _pick(catalog["engine"].names, engines, "engine", "--engines")
        if engines
        else [e for e in DEFAULT_ENGINES if catalog["engine"].find(e) is not None]
    )
    offers = _cloud_offers(catalog, residency)
    out = []
    for gpu, n, quant, engine in itertools.product(gpu_names, sizes, quant_names, engine_names):
        if not _has_units(catalog, gpu, quant):
            continue
        split = catalog["engine"].find(engine)["default_split"]  # the engine's own split, as split_type's auto
        scenario = {**base, "gpu_name": gpu, "n_gpus": float(n), "split_mode": split, "quant_name": quant}
        scenario["engine"] = engine
        if graph is not None:
            scenario = _honoured(graph, base, scenario)
        if residency != "any" and gpu in offers:
            scenario["cloud_offer_name"] = offers[gpu]
        out.append(scenario)
    return out


def _honoured(graph: Graph, base: Mapping[str, Value], scenario: dict[str, Value]) -> dict[str, Value]:
    """The candidate without the manual values of the chosen setup that do not describe it (Graph.gates)."""
    chosen = {k: base.get(k, graph[k].default) for k in CANDIDATE_KEYS}
    out = {}
    for name, value in scenario.items():
        q = graph[name]
        if q.overridable and name in base and any(scenario[k] != chosen[k] for k in graph.gates(name, CANDIDATE_KEYS)):
            continue
        out[name] = value
    return out


def _cloud_offers(catalog: Catalog, residency: str) -> dict[str, str]:
    """Each GPU's first cloud offer that keeps data in the region (the catalog lists the cheapest first)."""
    out: dict[str, str] = {}
    for r in catalog["cloud"].rows:
        if r["data_region"] == residency:
            out.setdefault(r["gpu"], r["name"])
    return out


def _has_units(catalog: Catalog, gpu: str, quant: str) -> bool:
    """NVFP4 only on GPUs with FP4 units (the engines' NVFP4 kernels are Blackwell's). FP8 weights are offered
    everywhere an engine runs them: without FP8 units they are widened to FP16 for the multiply (vLLM's Marlin
    W8A16 on Ampere) and still halve the bytes decode reads; engine_support.csv's compute-capability limits say
    where the kernels exist."""
    row = catalog["gpu"].find(gpu)
    if catalog["quant"].find(quant)["kind"] == "nvfp4":
        return (row["fp4_tflops"] or 0) > 0
    return True


def _number(v: Value) -> float | None:
    return float(v) if isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) else None


def _reason(r: Mapping[str, Value]) -> str | None:
    """Why a candidate cannot serve the workload (None when it can)."""
    if not r["quality_floor_flag"]:
        return QUALITY_REASON
    if not r["engine_backend_flag"] or not r["engine_format_flag"]:
        return "engine cannot run it"
    if not r["engine_compute_capability_flag"]:
        return "GPU too old for the engine's kernels"
    if not r["engine_evidence_flag"]:
        return f"engine {r['engine_evidence_text']} on this GPU architecture"
    if not r["fits_in_vram"]:
        return "does not fit"
    if (_number(r["sla_ttft_requests_per_s"]) or 0) <= 0:
        return "misses TTFT"
    if (_number(r["sla_tpot_batch_users"]) or 0) < 1:
        return "misses TPOT"
    if r["run_check_text"] != "OK":
        return f"other: {r['run_check_text']}"
    return None


def search(
    graph: Graph,
    catalog: Catalog,
    scenarios: list[dict[str, Value]],
    unmeasured: str = "last",
    constraints: Constraints | None = None,
) -> Plan:
    """Evaluate every candidate in one pass and price the modes it can be deployed in; with `unmeasured="drop"` a
    configuration whose speed is not measured is counted out under UNMEASURED_REASON. An option outside the
    buyer's `constraints` is counted under the limit it breaks."""
    limits = constraints or Constraints()
    if unmeasured not in UNMEASURED:
        raise PlanError(f"--unmeasured: {unmeasured!r} is not one of {', '.join(UNMEASURED)}")
    if not scenarios:
        raise PlanError("the search space is empty")
    resolved = [resolve(graph, catalog, s) for s in scenarios]
    values = rows(evaluate_many(graph, resolved, catalog.columns(), names=OUTPUTS), len(resolved), OUTPUTS)
    shared = {k: v for k, v in scenarios[0].items() if all(t.get(k) == v for t in scenarios)}
    base = {k: v for k, v in shared.items() if k not in (*CANDIDATE_KEYS, "cloud_offer_name")}
    plan = Plan([], Counter(), len(scenarios), base)
    plan.unmeasured, plan.constraints = unmeasured, limits
    plan.demand_tokens_per_month = float(values[0]["demand_tokens_per_month"])
    plan.requests_per_day = float(values[0]["requests_per_day"])
    regions = {t: {r["name"]: r["data_region"] for r in catalog[t].rows} for t in ("cloud", "hosting", "api")}
    kinds = {r["name"]: r["offer_kind"] for r in catalog["cloud"].rows}
    model = catalog["model"].find(str(base.get("model_name") or graph["model_name"].default))
    repo = repository(str(model["source"]) if model else "", str(model["name"]) if model else "")
    for s, r in zip(scenarios, values, strict=True):
        reason = _reason(r)
        if reason is None and unmeasured == "drop" and not r["speed_measured_flag"]:
            reason = UNMEASURED_REASON
        if reason is not None:
            plan.excluded_configurations[reason] += 1
            continue
        plan.serving += 1
        launch = launch_command(
            str(s["engine"]), int(float(s["n_gpus"])), str(r["quant_format_text"]), str(s["quant_name"]), repo, r
        )
        months = 12 * float(r["horizon_years"])
        tokens = float(r["demand_tokens_per_month"]) * months
        for mode, answer in MODES.items():
            tco = _number(r[answer])
            if mode == "hybrid" and r["onprem_check_text"] != "OK":
                tco = None  # the hybrid owns a base fleet: on-premise money must hold
            if tco is None or tco <= 0:
                plan.excluded_modes[f"{mode}: {r[answer] if isinstance(r[answer], str) else 'no price'}"] += 1
                continue
            where = {"cloud": "cloud_offer_name", "spot": "cloud_offer_name", "colocation": "colocation_name"}
            where["hybrid"] = "api_name"
            offer = str(r[where[mode]] or "") if mode in where else ""  # a hybrid's peak goes to this API
            share = float(r["hybrid_fleet_frac"]) if mode == "hybrid" else 1.0
            owned = mode not in ("cloud", "spot")
            metric = str(r["quant_quality_metric_type"])
            option = Option(
                mode,
                {k: v for k, v in s.items() if k in (*CANDIDATE_KEYS, "cloud_offer_name") or k not in base},
                tco,
                tco / months,
                tco / tokens * 1e6 if tokens > 0 else math.inf,
                float(r["hybrid_base_gpus"] if mode == "hybrid" else r["gpus_needed"]),
                float(r["servers_needed"]),
                float(r["decode_tok_s"]),
                float(r["ttft_s"]),
                float(r["tpot_ms"]),
                r["answer_breakeven_months"] if mode == "buy" else None,
                offer,
                note="" if r["status_text"] == "OK" else str(r["status_text"]),
                caveats=str(r["caveats_text"]),
                speed_measured=bool(r["speed_measured_flag"]),
                band_floor=(float(r["speed_band_floor_frac"]), float(r["prefill_band_floor_frac"])),
                capex_idr=float(r["hardware_capex_idr"]) * share if owned else 0.0,
                power_kw=float(r["system_power_w"]) * float(r["pue"]) / 1000 * share if owned else 0.0,
                gpus_per_server=float(r["gpus_per_server"]),
                deployment=str(r["deployment_name"]) if owned else "",
                data_region={
                    "cloud": regions["cloud"].get(offer, ""),
                    "spot": regions["cloud"].get(offer, ""),
                    "colocation": regions["hosting"].get(offer, ""),
                }.get(mode, "indonesia" if limits.residency == "indonesia" else "on-premise"),
                marketplace=not owned and kinds.get(offer) == "marketplace",
                evidence=str(r["engine_evidence_text"]),
                staff_fte=float(r["staff_fte_ratio"]) * share if owned else 0.0,
                gpus_bought=(float(r["hybrid_base_gpus"]) if mode == "hybrid" else float(r["bought_gpus"]))
                if owned
                else 0.0,
                launch=launch,
                energy_j_per_output_token=float(r["energy_j_per_output_token"]) * share if owned else None,
                co2_kg_per_month=float(r["co2_kg_per_month"]) * share if owned else 0.0,
                quality_loss_pct=None if metric == "none" else 100 * float(r["quant_quality_loss_frac"]),
                quality_metric=metric,
            )
            outside = _outside(option, r, limits, regions["api"])
            if outside:
                _left_out(plan, option, outside)
                continue
            plan.options.append(option)
    plan.excluded = plan.excluded_configurations + plan.excluded_modes
    apis = _api_options(graph, catalog, plan.base, values[0])
    plan.apis_priced = len(apis)
    for option in apis:
        option.data_region = regions["api"].get(option.offer, "")
        outside = _outside(option, {}, limits, regions["api"])
        if outside:
            _left_out(plan, option, outside)
        else:
            plan.options.append(option)
    _mark_pareto(plan.options, unmeasured)
    return plan


def _left_out(plan: Plan, option: Option, reason: str) -> None:
    """Count an option a limit removes; keep the cheapest such (measured, or an API) for the answer."""
    plan.excluded_constraints[reason] += 1
    best = plan.best_outside
    if option.speed_measured and (best is None or option.idr_per_month < best[0].idr_per_month):
        plan.best_outside = (option, reason)


def _outside(o: Option, r: Mapping[str, Value], limits: Constraints, api_regions: Mapping[str, str]) -> str | None:
    """The first of the buyer's limits the option breaks, as its counted reason (None: within them all)."""
    if o.mode not in limits.modes:
        return "mode not asked for (--modes)"
    licence = r.get("licence_datacenter_flag") if o.mode in ("buy", "hybrid") else False
    if o.mode == "colocation":
        licence = r.get("gpu_datacenter_use_text") == "forbidden"
    if licence and not limits.allow_geforce_datacenter:
        return LICENCE_REASON
    if limits.residency != "any":
        regions = [o.data_region]
        if o.mode == "hybrid":  # the overflow goes to the API
            regions.append(api_regions.get(str(r.get("api_name")), ""))
        if any(region != limits.residency for region in regions):
            return f"data would leave {limits.residency.title()} (--residency)"
    if limits.max_capex_idr is not None and o.capex_idr > limits.max_capex_idr:
        return "capex above --max-capex"
    if limits.max_power_kw is not None and o.power_kw > limits.max_power_kw:
        return "facility power above --max-power-kw"
    gpus = o.gpus_bought or o.gpus_needed  # bought (boards come whole), else rented
    if limits.max_gpus is not None and gpus > limits.max_gpus:
        return "GPUs above --max-gpus"
    return None


def _api_options(graph: Graph, catalog: Catalog, base: Mapping[str, Value], first: Mapping[str, Value]) -> list:
    """Every API serving the model (same model first, as the catalog orders them) and the premium API, each priced
    on the workload's own tokens."""
    model = str(base.get("model_name") or graph["model_name"].default).lower()
    names = [r["name"] for r in catalog["api"].rows if str(r["model"]).lower() == model]
    for name in (first["api_name"], first["premium_api_name"]):
        if name not in names:
            names.append(name)
    settings = [resolve(graph, catalog, {**base, "api_name": n}) for n in names]
    wanted = (
        "api_cost_idr_per_month",
        "horizon_years",
        "demand_tokens_per_month",
        "api_same_model_flag",
        "api_comparator_text",
        "premium_api_label_text",
        "caveats_text",
    )
    out = []
    for name, r in zip(
        names, rows(evaluate_many(graph, settings, catalog.columns(), names=wanted), len(names)), strict=True
    ):
        monthly = _number(r["api_cost_idr_per_month"])
        if monthly is None:
            continue
        months = 12 * float(r["horizon_years"])
        tokens = float(r["demand_tokens_per_month"]) * months
        per_1m = monthly * months / tokens * 1e6 if tokens else math.inf
        same = bool(r["api_same_model_flag"])
        # Another model than the scenario's is labelled: the premium API as such, any other as the nearest model.
        label = (
            ""
            if same
            else str(r["premium_api_label_text" if name == first["premium_api_name"] else "api_comparator_text"])
        )
        out.append(
            Option(
                "api",
                {"api_name": name},
                monthly * months,
                monthly,
                per_1m,
                offer=name,
                caveats=str(r["caveats_text"]),
                api_same_model=same,
                api_comparator=label,
            )
        )
    return out


def _mark_pareto(options: list[Option], unmeasured: str = "last") -> None:
    """An option is on the front when no other is at least as good in TCO, TTFT and TPOT and better in one. Unless
    unmeasured speeds rank with the measured ones ("with"), the front is that of the measured options: a speed
    nobody measured neither joins it nor pushes a measured option off it."""
    import numpy as np

    served = [o for o in options if o.mode != "api" and (o.speed_measured or unmeasured == "with")]
    if not served:
        return
    x = np.array([(o.tco_idr, o.ttft_s, o.tpot_ms) for o in served])
    for i, o in enumerate(served):
        no_worse = (x <= x[i]).all(axis=1)
        better = (x < x[i]).any(axis=1)
        o.pareto = not (no_worse & better).any()


def ranked(plan: Plan, by: str = "tco", unmeasured: str | None = None) -> list[Option]:
    """The options by `by`; `unmeasured` (default: the search's, "last") puts those with speed_measured False
    after the others, keeps them among them ("with") or leaves them out ("drop"); under "last" a measured speed of
    a family no measurement calibrates (a band floor: it moved 2.5–3× with the driver) comes after the calibrated
    ones too. The order within each group is the same."""
    key = SORT_KEYS[by]
    where = unmeasured or plan.unmeasured

    def value(o: Option) -> float:
        v = getattr(o, key)
        return _number(v) if _number(v) is not None else math.inf

    options = [o for o in plan.options if o.speed_measured or where != "drop"]
    return sorted(
        options,
        key=lambda o: (
            where == "last" and not o.speed_measured,
            where == "last" and any(o.band_floor),
            value(o),
            o.tco_idr,
            o.gpus_needed,
            o.ttft_s,
            o.tpot_ms,
        ),
    )


def in_language(graph: Graph, catalog: Catalog, plan: Plan, options: Sequence[Option], lang: str) -> list[Option]:
    """`options` with their notes in `lang`: the search evaluates in English (its reasons are counted by those
    words), so the notes a reader sees are evaluated again, in one pass over just those options."""
    if lang == "en" or not any(o.note for o in options):
        return list(options)
    resolved = [resolve(graph, catalog, {**plan.base, **o.settings}) for o in options]
    notes = evaluate_many(graph, resolved, catalog.columns(), names=["status_text"], lang=lang)
    texts = [r["status_text"] for r in rows(notes, len(options), ["status_text"])]
    return [replace(o, note=str(t)) if o.note else o for o, t in zip(options, texts, strict=True)]


def hitung_command(o: Option, base: Mapping[str, Value]) -> str:
    """The `kalkulator hitung` command that gives this option's numbers (its TCO is MODE_TCO[mode]; the API's
    monthly cost × the horizon's months)."""
    parts = ["kalkulator hitung"]
    for name, value in {**base, **o.settings}.items():
        shown = _plain(value) if isinstance(value, float) else str(value)
        parts.append(f"--set {name}={_quoted(shown)}")
    return " ".join(parts)


def _plain(x: float) -> str:
    """A number as --set reads it back exactly (whole numbers without a decimal point)."""
    return str(int(x)) if x.is_integer() and abs(x) < 1e16 else repr(x)


def _quoted(text: str) -> str:
    return f'"{text}"' if any(c in text for c in " ()'\"") else text


def check_names(catalog: Catalog, base: Mapping[str, Value]) -> None:
    """The fixed choices must name catalog rows (closest names otherwise)."""
    for key, table in (("model_name", "model"), ("workload_name", "workload")):
        name = base.get(key)
        if isinstance(name, str) and catalog[table].find(name) is None:
            near = closest(name, catalog[table].names)
            raise ScenarioError(f"{key}: {name!r} is not in the {table} catalog; closest: {', '.join(near)}")
