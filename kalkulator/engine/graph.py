"""The quantity graph: dependency order, override wrapping and Python evaluation of a scenario."""

from __future__ import annotations

import graphlib
from collections.abc import Iterable, Mapping

from kalkulator.engine.arrays import MISSING, ArrayEvaluate, Many, fill_missing, is_array, merge_given, quiet
from kalkulator.engine.expr import IF, ISBLANK, NE, OR, Node, R, Value, evaluate, names_in
from kalkulator.quantities.base import Quantity


def override_key(name: str) -> str:
    """The internal name of a quantity's yellow override cell (blank = use the formula)."""
    return f"{name}__set"


def chosen_key(name: str) -> str:
    """The internal name of the scenario's own value of a row key (the Assumptions sheet's cell), which a live
    row compares its key with to decide whether a manual value typed for the chosen setup holds in the row."""
    return f"{name}__chosen"


# A typed deployment is the buyer's site, the same for every option: a manual value that depends on the GPU only
# through it (tariff, PUE, host power, server capex, maintenance share, …) holds in every row of a live table.
SITE = frozenset({"deployment_name"})


class Graph:
    """Quantities by name, in dependency order."""

    def __init__(self, quantities: Iterable[Quantity]):
        self.quantities: dict[str, Quantity] = {}
        for q in quantities:
            if q.name in self.quantities:
                raise ValueError(f"quantity {q.name} is defined twice")
            self.quantities[q.name] = q
        self.deps: dict[str, set[str]] = {}
        for q in self.quantities.values():
            refs = names_in(q.expr) if q.expr is not None else set()
            unknown = refs - set(self.quantities)
            if unknown:
                raise ValueError(f"{q.name} refers to unknown {sorted(unknown)}")
            self.deps[q.name] = refs
        # Sorted dependencies: the order (the preview page's program, helper columns) must not follow the hash seed.
        ordered = {name: sorted(self.deps[name]) for name in sorted(self.deps)}
        self.order: tuple[str, ...] = tuple(graphlib.TopologicalSorter(ordered).static_order())
        self._upstream: dict[tuple[str, ...], tuple[str, ...]] = {}
        self._gates: dict[tuple[str, tuple[str, ...]], tuple[str, ...]] = {}

    def __getitem__(self, name: str) -> Quantity:
        return self.quantities[name]

    def __contains__(self, name: object) -> bool:
        return name in self.quantities

    @property
    def inputs(self) -> list[Quantity]:
        return [q for q in self.quantities.values() if q.is_input]

    def cell_expr(self, name: str) -> Node:
        """The expression placed in a quantity's scenario cell: the formula, or its override when one is typed."""
        q = self.quantities[name]
        assert q.expr is not None, f"{name} is an input"
        if not q.overridable:
            return q.expr
        own = R(override_key(name))
        return IF(ISBLANK(own), q.expr, own)

    def depends_on(self, name: str, targets: set[str]) -> bool:
        """True when `name` reads any of `targets`, directly or through other quantities."""
        seen: set[str] = set()
        stack = list(self.deps[name])
        while stack:
            d = stack.pop()
            if d in targets:
                return True
            if d not in seen:
                seen.add(d)
                stack.extend(self.deps[d])
        return False

    def evaluate(
        self,
        settings: Mapping[str, Value],
        columns: Mapping[tuple[str, str], tuple],
        lang: str = "en",
        names: Iterable[str] | None = None,
    ) -> dict[str, Value]:
        """Compute every quantity of a scenario (or only `names` and what they read).

        `settings` maps a name to a value: an input's value, an overridable quantity's override
        (what its yellow cell holds) or, for other formulas, a replacement of the computed value.
        """
        unknown = set(settings) - set(self.quantities)
        if unknown:
            raise KeyError(f"unknown names {sorted(unknown)}")
        env: dict[str, Value] = {}
        for q in self.quantities.values():
            if q.overridable:
                env[override_key(q.name)] = settings.get(q.name)
        for name in self.order if names is None else self.upstream(tuple(names)):
            q = self.quantities[name]
            if q.is_input:
                env[name] = settings.get(name, q.default)
            elif name in settings and not q.overridable:
                env[name] = settings[name]
            else:
                env[name] = evaluate(self.cell_expr(name), env, columns, lang)
        return env

    def evaluate_many(
        self,
        settings: Mapping[str, Many],
        n: int,
        columns: Mapping[tuple[str, str], tuple],
        lang: str = "en",
        names: Iterable[str] | None = None,
    ) -> dict[str, Many]:
        """`evaluate` for n scenarios at once: each setting is a uniform value or a length-n array whose MISSING
        elements mean "not set in that scenario" (the input's default, a blank override, the formula's value)."""
        unknown = set(settings) - set(self.quantities)
        if unknown:
            raise KeyError(f"unknown names {sorted(unknown)}")
        env: dict[str, Many] = {}
        for q in self.quantities.values():
            if q.overridable:
                env[override_key(q.name)] = fill_missing(settings.get(q.name, MISSING), None)
        visitor = ArrayEvaluate(env, n, columns, lang)
        with quiet():
            for name in self.order if names is None else self.upstream(tuple(names)):
                q = self.quantities[name]
                given = settings.get(name, MISSING)
                if q.is_input:
                    env[name] = fill_missing(given, q.default)
                elif given is not MISSING and not q.overridable and not (is_array(given) and given.dtype == object):
                    env[name] = given
                else:
                    env[name] = visitor.visit(self.cell_expr(name))
                    if given is not MISSING and not q.overridable:
                        env[name] = merge_given(given, env[name], n)
        return env

    def upstream(self, names: tuple[str, ...]) -> tuple[str, ...]:
        """`names` and every quantity they read, directly or not, in evaluation order (remembered)."""
        if names in self._upstream:
            return self._upstream[names]
        wanted, stack = set(names), list(names)
        while stack:
            for d in self.deps[stack.pop()]:
                if d not in wanted:
                    wanted.add(d)
                    stack.append(d)
        self._upstream[names] = tuple(n for n in self.order if n in wanted)
        return self._upstream[names]

    def gates(self, name: str, keys: Iterable[str]) -> tuple[str, ...]:
        """The row keys a manual value of `name` belongs to: those its formula reads other than through the site
        (SITE). A GPU's price or bandwidth typed by hand describes the chosen GPU (gate: gpu_name), a measured
        prefill speed or a fleet the chosen GPU and count (gpu_name, n_gpus); a tariff or PUE none (every row)."""
        keys = tuple(keys)
        if (name, keys) in self._gates:
            return self._gates[(name, keys)]
        out: list[str] = []
        for key in () if name in SITE else keys:
            seen: set[str] = set()
            stack = list(self.deps[name])
            while stack:
                d = stack.pop()
                if d == key:
                    out.append(key)
                    break
                if d not in seen and d not in SITE:
                    seen.add(d)
                    stack.extend(self.deps[d])
        self._gates[(name, keys)] = tuple(out)
        return tuple(out)

    def row_expr(self, name: str, honour: Iterable[str] | None) -> Node:
        """The expression of `name` in a live-table row. `honour` None: the raw formula (the row recomputes it from
        its bound values). Otherwise the names of the row's keys: the quantity's manual value, when one is typed,
        replaces the formula in the rows whose keys it belongs to (`gates`) equal the scenario's, as in the
        scenario's own cell; the row then goes through the same chain as the answer block."""
        q = self.quantities[name]
        assert q.expr is not None, f"{name} is an input"
        if honour is None or not q.overridable:
            return q.expr
        own = R(override_key(name))
        differs = [NE(R(key), R(chosen_key(key))) for key in self.gates(name, honour)]
        if not differs:
            return IF(ISBLANK(own), q.expr, own)
        return IF(OR(ISBLANK(own), *differs), q.expr, own)

    def evaluate_row(
        self,
        scenario: Mapping[str, Value],
        bound: Mapping[str, Value],
        names: Iterable[str],
        columns: Mapping[tuple[str, str], tuple],
        lang: str = "en",
        honour: Iterable[str] | None = None,
    ) -> dict[str, Value]:
        """Compute `names` with `bound` replacing scenario values: raw formulas, or with `honour` (the row's keys)
        the manual values typed in the scenario as `row_expr` says. `scenario` is `evaluate`'s result (it holds
        the override cells)."""
        env = dict(scenario)
        keys = tuple(honour) if honour is not None else None
        for key in keys or ():
            env[chosen_key(key)] = scenario[key]
        env.update(bound)
        wanted = set(names)
        out: dict[str, Value] = {}
        for name in self.order:
            if name in wanted:
                env[name] = out[name] = evaluate(self.row_expr(name, keys), env, columns, lang)
        return out

    def row_closure(self, bound: set[str], names: Iterable[str]) -> list[str]:
        """`names` plus every quantity between them and `bound`, in dependency order."""
        wanted = set(names)
        for name in list(wanted):
            stack = [name]
            while stack:
                for d in self.deps[stack.pop()]:
                    if d not in bound and d not in wanted and self.depends_on(d, bound):
                        wanted.add(d)
                        stack.append(d)
        return [n for n in self.order if n in wanted]
