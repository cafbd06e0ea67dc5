"""A scenario: chosen GPU/model/quant/engine plus `--set` values → settings the graph evaluates.

Names not in the catalog are allowed only when every value that would be looked up is given, so a GPU
or model can be described by its numbers alone.
"""

from __future__ import annotations

import datetime
import difflib
import re
from collections.abc import Iterable, Mapping

from kalkulator.catalog import SCHEMAS, Catalog
from kalkulator.catalog.input_domains import TEXT_FORMATS
from kalkulator.catalog.numbers import NumberFormatError, read_number
from kalkulator.engine.expr import Value, XlError
from kalkulator.engine.graph import Graph
from kalkulator.quantities.base import NO_CHOICE, unit_key
from kalkulator.quantities.domains import domain_of


class ScenarioError(ValueError):
    """Bad scenario input; the message names the option or field."""


def closest(word: str, candidates: Iterable[str], n: int = 5) -> list[str]:
    """Up to n candidates most similar to word (case-insensitive)."""
    pool = list(candidates)
    lowered = {c.lower(): c for c in pool}
    hits = difflib.get_close_matches(word.lower(), list(lowered), n=n, cutoff=0.4)
    contains = [c for c in pool if word.lower() in c.lower() and c.lower() not in hits]
    return [lowered[h] for h in hits] + contains[: max(0, n - len(hits))]


def parse_value(graph: Graph, name: str, raw: str, where: str, lang: str | None = None) -> Value:
    """Parse one textual setting for `name`; `where` says where it came from for error messages; `lang` "id" reads
    an ambiguous 16.500 the Indonesian way (see read_number)."""
    if name not in graph:
        suggestion = closest(name, graph.quantities)
        hint = f"; closest: {', '.join(suggestion)}" if suggestion else ""
        raise ScenarioError(f"{where}: unknown name {name!r}{hint}")
    q = graph[name]
    if not (q.is_input or q.overridable):
        raise ScenarioError(
            f"{where}: {name} is computed and cannot be set; `kalkulator list names` shows the settable names"
        )
    text = raw.strip()
    if q.is_text:
        words = q.options or _catalog_words(q)
        if words and text not in words:
            suggestion = closest(text, words)
            hint = f" (closest: {', '.join(suggestion)})" if suggestion else ""
            raise ScenarioError(f"{where}: {name} must be one of {', '.join(words)}, not {text!r}{hint}")
        problem = text_problem(name, text)
        if problem:
            raise ScenarioError(f"{where}: {name} must be {problem}, got {raw!r}")
        return text
    if text.upper() in ("TRUE", "FALSE") and q.unit.label == "TRUE/FALSE":
        return text.upper() == "TRUE"
    percent = text.endswith("%")
    if percent:  # "12%": a percentage takes 12, a share 0.12; anything else has no percent form
        key = unit_key(name)
        if key not in ("_pct", "_pct_per_month", "_frac"):
            raise ScenarioError(f"{where}: {name} is in {q.unit.label}, not a percentage; got {raw!r}")
        text = text[:-1].strip()
    scale = 0.01 if percent and unit_key(name) == "_frac" else 1.0
    domain = domain_of(q)
    try:
        number = scale * read_number(text, lambda v: domain.problem(scale * v) is None, lang)
    except NumberFormatError as exc:
        raise ScenarioError(f"{where}: {name} needs a number ({q.unit.label}): {exc}") from None
    problem = domain.problem(number)
    if problem:
        hint = " (a share: 0.7 or 70% means 70 %)" if name.endswith("_frac") else ""
        raise ScenarioError(f"{where}: {name} {problem}{hint}, got {raw!r}")
    return number


def text_problem(name: str, text: str) -> str | None:
    """What a typed text of fixed form (TEXT_FORMATS: a date) must be, when `text` is not that (else None)."""
    if name not in TEXT_FORMATS:
        return None
    pattern, what = TEXT_FORMATS[name]
    if re.fullmatch(pattern, text):
        try:
            datetime.date.fromisoformat(text)
            return None
        except ValueError:
            pass
    return what


def _catalog_words(q) -> tuple[str, ...]:
    """The allowed words of a text value read from a catalog column with fixed choices (e.g. gpu_backend)."""
    column_of = q.read_column or q.catalog_column
    if column_of is None:
        return ()
    table, column = column_of
    schema = next(s for s in SCHEMAS if s.key == table)
    return schema.field(column).choices


def _check_catalog_names(graph: Graph, catalog: Catalog, settings: Mapping[str, Value], prefix: str) -> None:
    """A typed value that replaces a lookup of a catalog's names (speed_params_name) must name one of its rows."""
    for key, value in settings.items():
        q = graph[key] if key in graph else None
        if q is None or q.choices or not q.is_text or q.read_column is None or q.read_column[1] != "name":
            continue
        table = catalog[q.read_column[0]]
        if isinstance(value, str) and table.find(value) is None:
            suggestion = closest(value, table.names)
            hint = f" Closest: {', '.join(suggestion)}." if suggestion else ""
            raise ScenarioError(f"{prefix}{key}: {value!r} is not in the {q.read_column[0]} catalog.{hint}")


INPUT_CHECK = "input_check_text"  # the rules every entry path applies: domains, cross-field and architecture checks


def check_inputs(values: Mapping[str, Value], where: str) -> None:
    """Raise when the evaluated scenario breaks a domain, cross-field or architecture rule (the workbook turns its
    status red): the one check after evaluation, on every path a value enters (--set, --config/--gguf, scenario rows,
    simulate)."""
    message = values.get(INPUT_CHECK, "OK")
    if message != "OK":
        raise ScenarioError(f"{where}{message}")


# A choice outside its catalog also needs the rows other tables keep for it: an engine's speed parameters.
ALSO_NEEDS = {"engine": ("speed",)}


def resolve(
    graph: Graph, catalog: Catalog, settings: Mapping[str, Value], where: str = "", notes: list[str] | None = None
) -> dict[str, Value]:
    """Check choices against the catalogs and return settings with canonical catalog spellings.

    A name outside the catalog needs every required catalog value by --set; optional ones (a price)
    default to 0 and a note says so.
    """
    out = dict(settings)
    prefix = f"{where}: " if where else ""
    _check_catalog_names(graph, catalog, out, prefix)
    choices = {q.name: q.choices[0] for q in graph.quantities.values() if q.choices}
    for key, table_key in choices.items():
        table = catalog[table_key]
        if key not in out and not graph[key].is_input:
            continue  # a formula picks the row (e.g. the cloud offer follows the GPU)
        chosen = out.get(key, graph[key].default)
        if graph[key].optional:
            out[key] = _optional_choice(chosen, table, f"{prefix}{key}", table_key)
            continue
        if not isinstance(chosen, str) or not chosen:
            raise ScenarioError(f"{prefix}{key}: needs a name from the {table_key} catalog")
        row = table.find(chosen)
        if row is not None:
            out[key] = row["name"]
            continue
        tables = (table_key, *ALSO_NEEDS.get(key, ()))
        looked_up = {
            q.name: q.catalog_column
            for q in graph.quantities.values()
            if q.catalog_column and q.catalog_column[0] in tables
        }
        required = [n for n, (t, col) in looked_up.items() if catalog[t].schema.field(col).required]
        missing = [n for n in required if n not in out]
        if missing:
            suggestion = closest(chosen, table.names)
            hint = f" Closest: {', '.join(suggestion)}." if suggestion else ""
            raise ScenarioError(
                f"{prefix}{key}: {chosen!r} is not in the {table_key} catalog.{hint} "
                f"To use it anyway, give its numbers with --set: {', '.join(missing)}"
            )
        for n in looked_up:
            if n not in out:
                out[n] = 0.0
                if notes is not None:
                    notes.append(f"{prefix}{n} not given for {chosen!r}; using 0")
    return out


def _optional_choice(chosen: Value, table, where: str, table_key: str) -> str:
    """The catalog spelling of an optional choice, or NO_CHOICE when it is off (blank or "none")."""
    if chosen is None or (isinstance(chosen, str) and chosen.strip().lower() in ("", NO_CHOICE)):
        return NO_CHOICE
    row = table.find(str(chosen))
    if row is None:
        suggestion = closest(str(chosen), table.names)
        hint = f" Closest: {', '.join(suggestion)}." if suggestion else ""
        off = f"{NO_CHOICE!r} leaves it off."
        raise ScenarioError(f"{where}: {chosen!r} is not in the {table_key} catalog.{hint} {off}")
    return row["name"]


def outputs(values: Mapping[str, Value], graph: Graph) -> dict[str, Value]:
    """The public values of a scenario: every quantity, errors as their text (#N/A …), rows dropped."""
    public: dict[str, Value] = {}
    for name in graph.quantities:
        if name.endswith("_row"):
            continue
        v = values[name]
        public[name] = str(v) if isinstance(v, XlError) else v
    return public


def compute(settings: Mapping[str, Value] | None = None, catalog: Catalog | None = None) -> dict[str, Value]:
    """Evaluate one scenario: the library entry point behind `kalkulator hitung`."""
    from kalkulator.catalog import load_catalog
    from kalkulator.quantities import QUANTITIES

    graph = Graph(QUANTITIES)
    catalog = catalog or load_catalog()
    resolved = resolve(graph, catalog, dict(settings or {}))
    return outputs(graph.evaluate(resolved, catalog.columns()), graph)
