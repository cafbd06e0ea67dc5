"""The fourth reader of the formula trees: JavaScript for the offline preview page.

`JsText` renders a tree as one JavaScript expression over the runtime in preview/templates/runtime.js, which
implements the scalar semantics of `Evaluate` (errors as values, blanks, lazy IF, Excel rounding, lookups). The
page then computes every number it shows from the same definitions as the engine; no formula is written in JS.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping
from importlib import resources

from kalkulator.engine.expr import (
    FUNCS,
    BinOp,
    Bool,
    Call,
    Col,
    If,
    Msg,
    Names,
    Neg,
    Node,
    Num,
    Ref,
    Text,
    Value,
    Visitor,
    XlError,
)
from kalkulator.engine.graph import Graph, override_key

OP_NAMES = {
    "=": "eq",
    "<>": "ne",
    "<": "lt",
    "<=": "le",
    ">": "gt",
    ">=": "ge",
    "&": "cat",
    "+": "add",
    "-": "sub",
    "*": "mul",
    "/": "div",
    "^": "pow",
}


def js_string(text: str) -> str:
    """A JavaScript string literal that is also safe inside an HTML <script> (no '<')."""
    return json.dumps(text, ensure_ascii=False).replace("<", "\\u003c")


def js_value(v: Value) -> str:
    """A constant value (setting, default, catalog cell) as JavaScript source."""
    if v is None:
        return "null"
    if isinstance(v, XlError):
        return f"new K.Err({js_string(v.code)})"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return js_number(float(v))
    if isinstance(v, str):
        return js_string(v)
    if isinstance(v, tuple):
        return "[" + ",".join(js_value(x) for x in v) + "]"
    raise TypeError(f"{v!r} has no JavaScript rendering")


def js_number(x: float) -> str:
    """A double as JavaScript reads it back exactly (repr is the shortest round trip in both languages)."""
    if not math.isfinite(x):
        raise ValueError(f"{x} has no JavaScript rendering")
    return f"({x!r})" if math.copysign(1, x) < 0 else repr(x)


class JsText(Visitor):
    """Render a tree as a JavaScript expression over `v` (named values), `C` (catalog columns) and `L` (language)."""

    def visit_Num(self, n: Num) -> str:
        return js_number(n.value)

    def visit_Text(self, n: Text) -> str:
        return js_string(n.value)

    def visit_Bool(self, n: Bool) -> str:
        return "true" if n.value else "false"

    def visit_Msg(self, n: Msg) -> str:
        return f'(L==="id"?{js_string(n.id)}:{js_string(n.en)})'

    def visit_Ref(self, n: Ref) -> str:
        return f"v[{js_string(n.name)}]"

    def visit_Col(self, n: Col) -> str:
        return f"C[{js_string(column_key(n.table, n.column))}]"

    def visit_BinOp(self, n: BinOp) -> str:
        return f"K.{OP_NAMES[n.op]}({self.visit(n.left)},{self.visit(n.right)})"

    def visit_Neg(self, n: Neg) -> str:
        return f"K.neg({self.visit(n.operand)})"

    def visit_If(self, n: If) -> str:
        return f"K.iff({self.visit(n.cond)},()=>{self.visit(n.then)},()=>{self.visit(n.other)})"

    def visit_Call(self, n: Call) -> str:
        if n.fn not in FUNCS:
            raise ValueError(f"function {n.fn} has no JavaScript rendering")
        return f"F.{n.fn}({','.join(self.visit(a) for a in n.args)})"


def column_key(table: str, column: str) -> str:
    return f"{table}.{column}"


def to_js(node: Node) -> str:
    """A tree as a JavaScript function of (v, C, L)."""
    return f"(v,C,L)=>{JsText().visit(node)}"


def functions_js() -> str:
    """The whitelist bound to the runtime: each function propagates errors unless, as in expr.FUNCS, it sees them."""
    entries = ",".join(
        f"{name}:K.fn({js_string(name)},{'true' if f.sees_errors else 'false'})" for name, f in FUNCS.items()
    )
    return f"const F={{{entries}}};"


def runtime_js() -> str:
    """The runtime plus the function table: what any compiled tree needs."""
    source = (resources.files("kalkulator") / "preview" / "templates" / "runtime.js").read_text(encoding="utf-8")
    missing = [name for name in FUNCS if not re.search(rf"^\s+{name}: ", source, re.M)]
    if missing:  # a function with no JavaScript fails the build, never the page
        raise ValueError(f"runtime.js has no JavaScript for {', '.join(missing)}")
    return source + "\n" + functions_js() + "\n"


class ColumnsUsed(Names):
    """Collect the catalog columns a tree reads (beside its names), so the page embeds only those."""

    def __init__(self) -> None:
        super().__init__()
        self.columns: set[tuple[str, str]] = set()

    def visit_Col(self, n: Col) -> None:
        self.columns.add((n.table, n.column))


def program_js(graph: Graph, names: Iterable[str] | None = None) -> tuple[str, set[tuple[str, str]]]:
    """`names` and everything upstream (all quantities when None) as a JS program object for `K.evaluate`.

    Returns the source of `{overridable: [...], steps: [[name, kind, default or function], ...]}` in dependency
    order, and the catalog columns its formulas read.
    """
    order = graph.order if names is None else graph.upstream(tuple(names))
    used = ColumnsUsed()
    steps, overridable = [], []
    for name in order:
        q = graph[name]
        if q.is_input:
            steps.append(f'[{js_string(name)},"input",{js_value(q.default)}]')
            continue
        expr = graph.cell_expr(name)
        used.visit(expr)
        kind = "over" if q.overridable else "formula"
        if q.overridable:
            overridable.append(js_string(name))
            assert override_key(name) == name + "__set"  # the runtime's spelling of the override cell
        steps.append(f"[{js_string(name)},{js_string(kind)},{to_js(expr)}]")
    return "{overridable:[" + ",".join(overridable) + "],steps:[\n" + ",\n".join(steps) + "]}", used.columns


def columns_js(columns: Mapping[tuple[str, str], tuple], wanted: Iterable[tuple[str, str]]) -> str:
    """The catalog columns a program reads, as a JS object keyed "table.column"."""
    return "{" + ",".join(f"{js_string(column_key(*k))}:{js_value(columns[k])}" for k in sorted(wanted)) + "}"
