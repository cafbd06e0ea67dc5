"""The quantity graph: dependency order, override wrapping and Python evaluation of a scenario."""

from __future__ import annotations

import graphlib
from collections.abc import Iterable, Mapping

from kalkulator.arrays import MISSING, ArrayEvaluate, Many, fill_missing, is_array, merge_given, quiet
from kalkulator.expr import IF, ISBLANK, Node, R, Value, evaluate, names_in
from kalkulator.quantities.base import Quantity


def override_key(name: str) -> str:
    """The internal name of a quantity's yellow override cell (blank = use the formula)."""
    return f"{name}__set"


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

    def evaluate_row(
        self,
        scenario: Mapping[str, Value],
        bound: Mapping[str, Value],
        names: Iterable[str],
        columns: Mapping[tuple[str, str], tuple],
        lang: str = "en",
    ) -> dict[str, Value]:
        """Compute `names` (raw formulas, no overrides) with `bound` replacing scenario values."""
        env = dict(scenario)
        env.update(bound)
        wanted = set(names)
        out: dict[str, Value] = {}
        for name in self.order:
            if name in wanted:
                expr = self.quantities[name].expr
                assert expr is not None
                env[name] = out[name] = evaluate(expr, env, columns, lang)
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
