"""The expression trees evaluated over many scenarios at once (numpy), with the scalar evaluator's semantics.

A value is either a Python scalar — the same in every scenario, computed by the scalar code of `expr.py` itself —
or a numpy array with one element per scenario: float64 (numbers), bool, or object (text, blanks, error values,
mixes). Numbers and booleans take vectorised paths that perform the same IEEE operations as the scalar evaluator;
everything else falls back, element by element, to the scalar functions, so the two evaluators cannot drift apart.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from decimal import ROUND_CEILING, ROUND_FLOOR, ROUND_HALF_UP
from typing import Any

import numpy as np

from kalkulator.engine.expr import (
    DIV0,
    FUNCS,
    NA,
    NUM,
    OPS,
    REF,
    VALUE,
    BinOp,
    Bool,
    Call,
    Col,
    If,
    Leaves,
    Msg,
    Neg,
    Node,
    Num,
    Ref,
    Text,
    XlError,
    _first_error,
    _number,
    _rank,
    _xl_round,
    names_in,
)

Many = Any  # a Python scalar (uniform across scenarios) or an ndarray of length n


class _Missing:
    """A setting absent from one scenario (blank CSV cell): the default, a blank override or the formula."""

    def __repr__(self) -> str:
        return "MISSING"


MISSING = _Missing()


def is_array(v: object) -> bool:
    return isinstance(v, np.ndarray)


def _full(v: np.ndarray | float | bool, n: int, dtype: type) -> np.ndarray:
    """`v` as a length-n array of `dtype` (an array result is already one)."""
    if isinstance(v, np.ndarray) and v.shape == (n,):
        return v if v.dtype == dtype else v.astype(dtype)
    return np.full(n, v, dtype=dtype)


def pack(values: Sequence[Any]) -> Many:
    """An array of scalar values in the tightest kind: float64 when every one is a float, bool when every one is a
    bool, else object. Ints are floats here, as the scalar evaluator's arithmetic treats them."""
    kinds = {type(v) for v in values}
    if kinds <= {float, int}:
        return np.array(values, dtype=float)
    if kinds == {bool}:
        return np.array(values, dtype=bool)
    out = np.empty(len(values), dtype=object)
    out[:] = list(values)
    return out


def column_of(values: Sequence[Any]) -> Many:
    """One setting over scenarios: a uniform scalar when every scenario has the same (type and value), else an
    array (MISSING where a scenario leaves it unset)."""
    first = values[0]
    if all(type(v) is type(first) and v == first for v in values):
        return first
    return pack(values)


def fill_missing(v: Many, default: Any) -> Many:
    """`v` with `default` where a scenario leaves it unset (MISSING, or no setting at all)."""
    if v is MISSING:
        return default
    if is_array(v) and v.dtype == object and any(e is MISSING for e in v):
        return column_of([default if e is MISSING else e for e in v.tolist()])
    return v


def merge_given(given: Many, computed: Many, n: int) -> Many:
    """A formula's values replaced, scenario by scenario, where a value was given (not MISSING)."""
    return pack([c if g is MISSING else g for g, c in zip(_items(given, n), _items(computed, n), strict=True)])


def element(v: Many, i: int) -> Any:
    """Scenario i's value as the scalar evaluator would hold it."""
    if not is_array(v):
        return v
    x = v[i]
    if v.dtype == bool:
        return bool(x)
    if v.dtype == float:
        return float(x)
    return x


def _items(v: Many, n: int) -> list:
    """The n scalar values of `v` as a list (uniform values repeated)."""
    if not is_array(v):
        return [v] * n
    return v.tolist()


def _elementwise(fn: Callable[..., Any], args: Sequence[Many], n: int) -> Many:
    """fn applied to each scenario's scalar arguments (the fallback for text, blanks, errors and mixes)."""
    arrays = [i for i, a in enumerate(args) if is_array(a)]
    if len(arrays) == 1 and args[arrays[0]].dtype == object:
        # One varying argument, often a text column with few distinct values: each distinct value once.
        k = arrays[0]
        memo: dict = {}
        out = []
        for v in args[k].tolist():
            key = (type(v), v)
            if key not in memo:
                memo[key] = fn(*args[:k], v, *args[k + 1 :])
            out.append(memo[key])
        return pack(out)
    columns = [_items(a, n) for a in args]
    return pack([fn(*row) for row in zip(*columns, strict=True)])


def _floats(v: Many) -> np.ndarray | None:
    """A float64 view of a numeric or boolean array (booleans count 1 and 0, as in Excel arithmetic), else None."""
    if is_array(v) and v.dtype != object:
        return v.astype(float) if v.dtype == bool else v
    return None


def _num_scalar(v: Any) -> float | None:
    """A uniform operand usable on the fast path: a number or boolean (as the scalar coercion sees it)."""
    if isinstance(v, bool | int | float) or v is None:
        return _number(v)
    return None


def _comparable(v: Many) -> np.ndarray | float | None:
    """`v` as numbers for a comparison (booleans rank above numbers in Excel, so they take the element path)."""
    if is_array(v):
        return v if v.dtype == float else None
    if isinstance(v, int | float) and not isinstance(v, bool):
        return float(v)
    return 0.0 if v is None else None


def _numeric(v: Many) -> np.ndarray | float | None:
    """`v` as float64 data (array or float) when it has no text, blank-in-array or error, else None."""
    if is_array(v):
        return _floats(v)
    return _num_scalar(v)


def _with_errors(result: np.ndarray, bad: np.ndarray, error: XlError) -> np.ndarray:
    """`result` with `error` where `bad` holds."""
    if not bad.any():
        return result
    out = result if result.dtype == object else result.astype(object)
    out[bad] = error
    return out


def _arith_fast(op: str, x: np.ndarray | float, y: np.ndarray | float) -> Many | None:
    """+ − × ÷ on numbers as `expr._arith` does them: ÷0 is #DIV/0!, a result that is not finite is #NUM!."""
    if op == "+":
        r = np.add(x, y)
    elif op == "-":
        r = np.subtract(x, y)
    elif op == "*":
        r = np.multiply(x, y)
    elif op == "/":
        r = np.divide(x, y)
        if np.isfinite(r).all():
            return r
        zero = (y == 0) if is_array(y) else np.full(r.shape, y == 0)
        out = _with_errors(r, ~np.isfinite(r) & ~zero, NUM)
        return _with_errors(out, zero, DIV0)
    else:
        return None  # ^ has its own cases: the element path keeps them exact
    return r if np.isfinite(r).all() else _with_errors(r, ~np.isfinite(r), NUM)


_COMPARE = {
    "=": np.equal,
    "<>": np.not_equal,
    "<": np.less,
    "<=": np.less_equal,
    ">": np.greater,
    ">=": np.greater_equal,
}


def _match_table(column: tuple) -> dict:
    """Excel comparison key → first 1-based position in a catalog column (MATCH type 0)."""
    table: dict = {}
    for i, v in enumerate(column, start=1):
        if v is not None:
            table.setdefault(_rank(v), float(i))
    return table


@dataclass(frozen=True, eq=False)
class Const(Node):
    """A value computed beforehand (uniform or per scenario): a folded part of a tree whose inputs stay fixed."""

    value: Any


class ArrayEvaluate(Leaves):
    """Compute a tree over n scenarios: `values` maps names to uniform scalars or length-n arrays.

    Callers evaluate inside `quiet()`: overflow and ÷0 become error values here, never numpy warnings.
    """

    def __init__(self, values: Mapping[str, Many], n: int, columns: Mapping[tuple[str, str], tuple], lang: str = "en"):
        self.values = values
        self.n = n
        self.columns = columns
        self.lang = lang
        self._col_arrays: dict[tuple[str, str], np.ndarray] = {}
        self._match: dict[tuple[str, str], dict] = {}

    def visit(self, n: Node) -> Many:
        return self._dispatch[type(n)](self, n)

    # ---- leaves -----------------------------------------------------------------------------------------
    def visit_Const(self, n: Const) -> Many:
        return n.value

    # ---- operators --------------------------------------------------------------------------------------
    def visit_BinOp(self, n: BinOp) -> Many:
        a, b = self.visit(n.left), self.visit(n.right)
        scalar = OPS[n.op][0]
        if not is_array(a) and not is_array(b):
            return scalar(a, b)
        if n.op in _COMPARE:
            x, y = _comparable(a), _comparable(b)
            if x is not None and y is not None:
                return _full(_COMPARE[n.op](x, y), self.n, bool)
        else:
            x, y = _numeric(a), _numeric(b)
            if x is not None and y is not None:
                fast = _arith_fast(n.op, x, y)
                if fast is not None:
                    return fast
        return _elementwise(scalar, (a, b), self.n)

    def visit_Neg(self, n: Neg) -> Many:
        v = self.visit(n.operand)
        x = _numeric(v)
        if is_array(v) and x is not None:
            return -x
        return _elementwise(_neg, (v,), self.n) if is_array(v) else _neg(v)

    def visit_If(self, n: If) -> Many:
        cond = self.visit(n.cond)
        if not is_array(cond):
            if isinstance(cond, XlError):
                return cond
            if isinstance(cond, str):
                return VALUE
            branch = self.visit(n.then if cond else n.other)
            return _blank_to_zero(branch)
        truth, errors = _truth_array(cond)
        take_then = truth if errors is None else truth & (errors == None)  # noqa: E711 (elementwise)
        take_other = ~truth if errors is None else ~truth & (errors == None)  # noqa: E711
        then = self.visit(n.then) if take_then.any() else 0.0
        other = self.visit(n.other) if take_other.any() else 0.0
        result = _select(take_then, _blank_to_zero(then), _blank_to_zero(other), self.n)
        if errors is None:
            return result
        out = pack(_items(result, self.n))
        out = out if out.dtype == object else out.astype(object)
        bad = errors != None  # noqa: E711
        out[bad] = errors[bad]
        return pack(out.tolist())

    def visit_Call(self, n: Call) -> Many:
        if n.fn == "INDEX":
            return self._index(n)
        if n.fn == "MATCH":
            return self._match_call(n)
        args = [self.visit(a) for a in n.args]
        func = FUNCS[n.fn]
        if not any(is_array(a) for a in args):
            if not func.sees_errors:
                err = _first_error(*args)
                if err is not None:
                    return err
            return func.impl(*args)
        fast = self._fast_call(n.fn, args)
        if fast is not None:
            return fast

        def one(*row: Any) -> Any:
            if not func.sees_errors:
                err = _first_error(*row)
                if err is not None:
                    return err
            return func.impl(*row)

        return _elementwise(one, args, self.n)

    # ---- functions with vectorised paths ---------------------------------------------------------------
    def _fast_call(self, fn: str, args: list[Many]) -> Many | None:
        if fn in ("MIN", "MAX"):
            xs = []
            for a in args:
                if isinstance(a, tuple):  # a catalog range: its numbers count once, as one uniform argument
                    extreme = FUNCS[fn].impl(a)
                    if isinstance(extreme, XlError):
                        return None
                    if any(isinstance(v, int | float) and not isinstance(v, bool) for v in a):
                        xs.append(extreme)
                else:
                    xs.append(_numeric(a))
            if all(x is not None for x in xs):
                reduce = np.minimum if fn == "MIN" else np.maximum
                out = xs[0]
                for x in xs[1:]:
                    out = reduce(out, x)
                return _full(out, self.n, float)
            return None
        if fn in ("ROUND", "ROUNDUP", "ROUNDDOWN"):
            x, digits = _numeric(args[0]), args[1]
            if x is not None and is_array(x) and not is_array(digits) and _num_scalar(digits) is not None:
                return _round_array(x, _num_scalar(digits), fn)
            return None
        if fn in ("AND", "OR", "NOT"):
            truths = []
            for a in args:
                if is_array(a):
                    if a.dtype == object:
                        return None
                    truths.append(a != 0 if a.dtype == float else a)
                elif isinstance(a, bool | int | float) or a is None:
                    truths.append(bool(a))
                else:
                    return None
            if fn == "NOT":
                return ~np.asarray(truths[0])
            combine = np.logical_and if fn == "AND" else np.logical_or
            out = truths[0]
            for t in truths[1:]:
                out = combine(out, t)
            return _full(out, self.n, bool)
        if fn == "ISBLANK":
            v = args[0]
            if v.dtype != object:
                return np.zeros(self.n, dtype=bool)
            return np.fromiter((e is None for e in v), dtype=bool, count=self.n)
        if fn == "LN":
            x = _numeric(args[0])
            if x is not None and is_array(x):
                r = np.log(np.where(x > 0, x, 1.0))
                return _with_errors(r, ~(x > 0), NUM)
            return None
        if fn == "ABS":
            x = _numeric(args[0])
            return np.abs(x) if x is not None and is_array(x) else None
        if fn == "IFERROR":
            v, fallback = args
            if is_array(v) and v.dtype != object:
                return v
            return None
        return None

    def _column_array(self, col: Col) -> np.ndarray:
        key = (col.table, col.column)
        if key not in self._col_arrays:
            values = [0.0 if v is None else v for v in self.columns[key]]  # INDEX of a blank gives 0
            self._col_arrays[key] = pack(values) if values else np.empty(0, dtype=object)
        return self._col_arrays[key]

    def _index(self, n: Call) -> Many:
        column_node, row_node = n.args
        column = self.visit(column_node)
        row = self.visit(row_node)
        scalar = FUNCS["INDEX"].impl
        if not is_array(row):
            return scalar(column, row)
        r = _numeric(row)
        if r is None or not isinstance(column_node, Col):
            return _elementwise(lambda x: scalar(column, x), (row,), self.n)
        data = self._column_array(column_node)
        i = np.trunc(r)
        ok = (i >= 1) & (i <= len(data))
        picked = data[np.where(ok, i, 1).astype(np.int64) - 1] if len(data) else np.zeros(self.n)
        if ok.all():
            return picked.copy()
        out = picked.astype(object)
        out[~ok] = REF
        return pack(out.tolist())

    def _match_call(self, n: Call) -> Many:
        key_node, column_node, kind_node = n.args
        key = self.visit(key_node)
        column = self.visit(column_node)
        kind = self.visit(kind_node)
        scalar = FUNCS["MATCH"].impl
        if not is_array(key):
            return scalar(key, column, kind)
        if not isinstance(column_node, Col):
            return _elementwise(lambda k: scalar(k, column, kind), (key,), self.n)
        ck = (column_node.table, column_node.column)
        if ck not in self._match:
            self._match[ck] = _match_table(self.columns[ck])
        table = self._match[ck]

        def one(k: Any) -> Any:
            if isinstance(k, XlError):
                return k
            if k is None:
                return NA
            return table.get(_rank(k), NA)

        return _elementwise(one, (key,), self.n)


ArrayEvaluate._dispatch = {
    cls: getattr(ArrayEvaluate, "visit_" + cls.__name__)
    for cls in (Const, Msg, Num, Text, Bool, Ref, Col, BinOp, Neg, If, Call)
}


def _neg(v: Any) -> Any:
    x = _number(v)
    return x if isinstance(x, XlError) else -x


def _blank_to_zero(v: Many) -> Many:
    """IF gives 0 for a blank branch, as Excel does."""
    if v is None:
        return 0.0
    if is_array(v) and v.dtype == object:
        if any(e is None for e in v):
            return pack([0.0 if e is None else e for e in v])
    return v


def _truth_array(cond: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """IF's reading of a condition per scenario: (true?, the error each scenario gives instead, or None)."""
    if cond.dtype == bool:
        return cond, None
    if cond.dtype == float:
        return cond != 0, None
    truth = np.zeros(len(cond), dtype=bool)
    errors = np.full(len(cond), None, dtype=object)
    for i, c in enumerate(cond):
        if isinstance(c, XlError):
            errors[i] = c
        elif isinstance(c, str):
            errors[i] = VALUE
        else:
            truth[i] = bool(c)
    return truth, (errors if any(e is not None for e in errors) else None)


def _kind(v: Many) -> str:
    """float, bool or other: the array kind a value can join without conversion."""
    if is_array(v):
        return {np.dtype(float): "float", np.dtype(bool): "bool"}.get(v.dtype, "other")
    if isinstance(v, bool):
        return "bool"
    return "float" if isinstance(v, float) else "other"


def _select(mask: np.ndarray, a: Many, b: Many, n: int) -> Many:
    """Elementwise a where mask holds, else b."""
    if mask.all():
        return a
    if not mask.any():
        return b
    if _kind(a) == _kind(b) != "other":
        return np.where(mask, a, b)
    left, right = _items(a, n), _items(b, n)
    return pack([x if m else y for m, x, y in zip(mask.tolist(), left, right, strict=True)])


_ROUND_MODES = {"ROUND": ROUND_HALF_UP, "ROUNDUP": ROUND_CEILING, "ROUNDDOWN": ROUND_FLOOR}


def _round_array(x: np.ndarray, digits: float, fn: str) -> np.ndarray:
    """Excel's ROUND/ROUNDUP/ROUNDDOWN on 15 significant digits, vectorised where the answer is certain.

    t = |x| × 10^d is rounded to an integer m and m ÷ 10^d is correctly rounded, as the decimal path's float()
    is. Elements within reach of a rounding boundary once x is snapped to 15 significant digits (or too large
    for that argument) go through the exact decimal code.
    """
    d = int(digits)
    mode = _ROUND_MODES[fn]
    if abs(d) > 15:
        return pack([_xl_round(float(v), d, mode) for v in x])
    scale = 10.0 ** abs(d)
    t = np.abs(x) * scale if d >= 0 else np.abs(x) / scale
    floor = np.floor(t)
    frac = t - floor
    if fn == "ROUND":
        m = floor + (frac > 0.5)
        gap = np.abs(frac - 0.5)
    elif fn == "ROUNDUP":
        m = np.ceil(t)
        gap = np.minimum(frac, 1 - frac)
    else:
        m = floor
        gap = np.minimum(frac, 1 - frac)
    r = m / scale if d >= 0 else m * scale
    near = gap <= 1e-13 * t + 1e-300
    if d == 0 and fn != "ROUND":
        near &= frac != 0  # t is |x| itself: a whole number below 1e14 is its own 15-digit snap
    risky = ~np.isfinite(t) | (t >= 1e14) | near
    if d < 0:
        risky |= m * scale >= 2.0**53
    out = np.where(x < 0, -r, r)
    for i in np.flatnonzero(risky):
        out[i] = _xl_round(float(x[i]), d, mode)
    return out


def evaluate_many(
    graph: Any,
    scenarios: Sequence[Mapping[str, Any]],
    columns: Mapping[tuple[str, str], tuple],
    names: Sequence[str] | None = None,
    lang: str = "en",
) -> dict[str, Many]:
    """Evaluate many scenarios (settings as `Graph.evaluate` takes them, one mapping each) in one pass.

    Returns name → uniform scalar or array over the scenarios; `rows` turns it back into one mapping each.
    """
    keys = {k for s in scenarios for k in s}
    settings = {k: column_of([s.get(k, MISSING) for s in scenarios]) for k in sorted(keys)}
    return graph.evaluate_many(settings, len(scenarios), columns, lang, names)


def rows(values: Mapping[str, Many], n: int, names: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """Per-scenario mappings of `names` (default: all) from an `evaluate_many` result."""
    keys = list(values) if names is None else list(names)
    lists = {k: _items(values[k], n) for k in keys}
    return [{k: lists[k][i] for k in keys} for i in range(n)]


def fold(node: Node, varying: set[str], visitor: ArrayEvaluate) -> Node:
    """`node` with every part that reads none of `varying` replaced by its value (computed by `visitor`), so
    evaluating it again with new values of `varying` repeats only the parts that move."""
    if isinstance(node, Num | Text | Bool | Msg | Col | Const):
        return node
    if not (names_in(node) & varying):
        with quiet():
            return Const(visitor.visit(node))
    if isinstance(node, BinOp):
        return BinOp(node.op, fold(node.left, varying, visitor), fold(node.right, varying, visitor))
    if isinstance(node, Neg):
        return Neg(fold(node.operand, varying, visitor))
    if isinstance(node, If):
        return If(*(fold(c, varying, visitor) for c in (node.cond, node.then, node.other)))
    if isinstance(node, Call):
        return Call(node.fn, tuple(fold(a, varying, visitor) for a in node.args))
    return node


def quiet() -> np.errstate:
    """The numpy error state array evaluation runs in (results that are not finite become #NUM!, ÷0 #DIV/0!)."""
    return np.errstate(all="ignore")


def evaluate_array(
    node: Node, values: Mapping[str, Many], n: int, columns: Mapping[tuple[str, str], tuple], lang: str = "en"
) -> Many:
    with quiet():
        return ArrayEvaluate(values, n, columns, lang).visit(node)


def same(a: Any, b: Any) -> bool:
    """Scalar equality as the property tests need it: same type family and value (errors by code)."""
    if isinstance(a, XlError) or isinstance(b, XlError):
        return isinstance(a, XlError) and isinstance(b, XlError) and a.code == b.code
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return float(a) == float(b) or (math.isnan(a) and math.isnan(b))
    return type(a) is type(b) and a == b
