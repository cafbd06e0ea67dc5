"""A small expression DSL: each formula is one tree, evaluated in Python and rendered as Excel text.

The two targets are independent visitors over the same tree, so comparing a workbook evaluated by a
spreadsheet engine with `Evaluate` is a real check. Python evaluation follows Excel semantics where they
matter here: blanks, error values, lazy IF, half-away-from-zero rounding on 15 significant digits.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import ROUND_CEILING, ROUND_FLOOR, ROUND_HALF_UP, Decimal, localcontext
from typing import Any

Value = Any  # float | int | str | bool | None (blank) | XlError | tuple (a catalog column)


@dataclass(frozen=True)
class XlError:
    """A spreadsheet error value such as #N/A or #DIV/0!; it propagates like Excel's."""

    code: str

    def __str__(self) -> str:
        return self.code


NA = XlError("#N/A")
DIV0 = XlError("#DIV/0!")
VALUE = XlError("#VALUE!")
REF = XlError("#REF!")
NUM = XlError("#NUM!")


class Node:
    """Base of all nodes; Python operators build a tree, nothing is computed."""

    def __add__(self, o: object) -> Node:
        return BinOp("+", self, lift(o))

    def __radd__(self, o: object) -> Node:
        return BinOp("+", lift(o), self)

    def __sub__(self, o: object) -> Node:
        return BinOp("-", self, lift(o))

    def __rsub__(self, o: object) -> Node:
        return BinOp("-", lift(o), self)

    def __mul__(self, o: object) -> Node:
        return BinOp("*", self, lift(o))

    def __rmul__(self, o: object) -> Node:
        return BinOp("*", lift(o), self)

    def __truediv__(self, o: object) -> Node:
        return BinOp("/", self, lift(o))

    def __rtruediv__(self, o: object) -> Node:
        return BinOp("/", lift(o), self)

    def __pow__(self, o: object) -> Node:
        return BinOp("^", self, lift(o))

    def __neg__(self) -> Node:
        return Neg(self)

    def __lt__(self, o: object) -> Node:
        return BinOp("<", self, lift(o))

    def __le__(self, o: object) -> Node:
        return BinOp("<=", self, lift(o))

    def __gt__(self, o: object) -> Node:
        return BinOp(">", self, lift(o))

    def __ge__(self, o: object) -> Node:
        return BinOp(">=", self, lift(o))


@dataclass(frozen=True, eq=False)
class Num(Node):
    value: float


@dataclass(frozen=True, eq=False)
class Text(Node):
    value: str


@dataclass(frozen=True, eq=False)
class Bool(Node):
    value: bool


@dataclass(frozen=True, eq=False)
class Msg(Node):
    """A message for the reader, in the workbook's language (Indonesian or English)."""

    id: str
    en: str


@dataclass(frozen=True, eq=False)
class Ref(Node):
    """A named quantity or input: `weights_gb`."""

    name: str


@dataclass(frozen=True, eq=False)
class Col(Node):
    """A whole catalog column (a bounded range in the workbook), e.g. Col("gpu", "name")."""

    table: str
    column: str


@dataclass(frozen=True, eq=False)
class BinOp(Node):
    op: str
    left: Node
    right: Node


@dataclass(frozen=True, eq=False)
class Neg(Node):
    operand: Node


@dataclass(frozen=True, eq=False)
class Call(Node):
    fn: str
    args: tuple[Node, ...]


@dataclass(frozen=True, eq=False)
class If(Node):
    """Excel's IF; lazy, so a guarded branch never produces #DIV/0!."""

    cond: Node
    then: Node
    other: Node


def lift(x: object) -> Node:
    """Wrap a Python constant as a node."""
    if isinstance(x, Node):
        return x
    if isinstance(x, bool):
        return Bool(x)
    if isinstance(x, int | float):
        return Num(float(x))
    if isinstance(x, str):
        return Text(x)
    raise TypeError(f"cannot use {x!r} in a formula")


def R(name: str) -> Ref:
    """Refer to a named quantity."""
    return Ref(name)


def call(fn: str, *args: object) -> Call:
    if fn not in FUNCS:
        raise ValueError(f"function {fn} is not in the portable whitelist")
    return Call(fn, tuple(lift(a) for a in args))


def IF(cond: object, then: object, other: object) -> If:
    return If(lift(cond), lift(then), lift(other))


def MIN(*args: object) -> Call:
    return call("MIN", *args)


def MAX(*args: object) -> Call:
    return call("MAX", *args)


def ROUND(x: object, digits: int = 0) -> Call:
    return call("ROUND", x, digits)


def ROUNDUP(x: object, digits: int = 0) -> Call:
    return call("ROUNDUP", x, digits)


def ROUNDDOWN(x: object, digits: int = 0) -> Call:
    return call("ROUNDDOWN", x, digits)


def AND(*args: object) -> Call:
    return call("AND", *args)


def OR(*args: object) -> Call:
    return call("OR", *args)


def NOT(x: object) -> Call:
    return call("NOT", x)


def ISBLANK(x: object) -> Call:
    return call("ISBLANK", x)


def LN(x: object) -> Call:
    return call("LN", x)


def IFERROR(x: object, fallback: object) -> Call:
    return call("IFERROR", x, fallback)


def INDEX(column: Col, row: object) -> Call:
    return call("INDEX", column, row)


def MATCH(key: object, column: Col) -> Call:
    """Exact match (type 0): 1-based position, case-insensitive for text, #N/A when absent."""
    return call("MATCH", key, column, 0)


def JOIN(*parts: object) -> Node:
    """Text concatenation (Excel's &)."""
    node = lift(parts[0])
    for part in parts[1:]:
        node = BinOp("&", node, lift(part))
    return node


def EQ(a: object, b: object) -> BinOp:
    return BinOp("=", lift(a), lift(b))


def NE(a: object, b: object) -> BinOp:
    return BinOp("<>", lift(a), lift(b))


def safe_div(num: object, den: object, fallback: object = 0) -> If:
    """num / den, or `fallback` when den is not positive (never #DIV/0!)."""
    return IF(lift(den) > 0, lift(num) / lift(den), fallback)


# ---- semantics shared by Evaluate ------------------------------------------------------------


def _snap(x: float) -> Decimal:
    """The value Excel and LibreOffice see: 15 significant digits."""
    return Decimal(repr(float(f"{x:.15g}")))


def _xl_round(x: float, digits: float, mode: str) -> float:
    quantum = Decimal(1).scaleb(-int(digits))
    with localcontext(prec=400):  # enough digits for any double at any quantum
        v = abs(_snap(x)).quantize(quantum, rounding=mode)
    return float(-v if x < 0 else v)


def xl_round(x: float, digits: float = 0) -> float:
    """ROUND: half away from zero."""
    return _xl_round(x, digits, ROUND_HALF_UP)


def xl_roundup(x: float, digits: float = 0) -> float:
    """ROUNDUP: away from zero."""
    return _xl_round(x, digits, ROUND_CEILING)


def xl_rounddown(x: float, digits: float = 0) -> float:
    """ROUNDDOWN: toward zero."""
    return _xl_round(x, digits, ROUND_FLOOR)


def _number(v: Value) -> float | XlError:
    """Coerce a scalar as Excel's arithmetic does: blank→0, TRUE→1, numeric text→number."""
    if isinstance(v, XlError):
        return v
    if v is None:
        return 0.0
    if isinstance(v, bool):
        return 1.0 if v else 0.0
    if isinstance(v, int | float):
        return float(v)
    if isinstance(v, str):
        try:
            return float(v)
        except ValueError:
            return VALUE
    return VALUE


def _first_error(*values: object) -> XlError | None:
    """Excel propagates the first error among an operation's operands."""
    return next((v for v in values if isinstance(v, XlError)), None)


def _arith(fn: Callable[[float, float], float]) -> Callable[[Value, Value], Value]:
    def apply(a: Value, b: Value) -> Value:
        x, y = _number(a), _number(b)
        err = _first_error(x, y)
        if err is not None:
            return err
        try:
            result = fn(x, y)
        except OverflowError:
            return NUM
        if isinstance(result, float) and not math.isfinite(result):
            return NUM  # Excel has no infinities: an overflow is #NUM!
        return result

    return apply


def _div(x: float, y: float) -> float | XlError:
    return DIV0 if y == 0 else x / y


def _pow(x: float, y: float) -> float | XlError:
    if x == 0 and y < 0:
        return DIV0
    if x < 0 and not float(y).is_integer():
        return NUM
    return x**y


def _text_of(v: Value) -> str | XlError:
    """Excel's text conversion for & : blank → "", TRUE → "TRUE", whole numbers without decimals."""
    if isinstance(v, XlError):
        return v
    if v is None:
        return ""
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, int | float):
        return str(int(v)) if float(v).is_integer() else repr(float(v))
    return str(v)


def _concat(a: Value, b: Value) -> Value:
    x, y = _text_of(a), _text_of(b)
    err = _first_error(x, y)
    return err if err is not None else str(x) + str(y)


def _rank(v: Value) -> tuple[int, Any]:
    """Excel's comparison order: numbers < text < booleans; text compares case-insensitively."""
    if v is None:
        v = 0.0
    if isinstance(v, bool):
        return (2, v)
    if isinstance(v, str):
        return (1, v.lower())
    return (0, float(v))


def _compare(fn: Callable[[Any, Any], bool]) -> Callable[[Value, Value], Value]:
    def apply(a: Value, b: Value) -> Value:
        err = _first_error(a, b)
        if err is not None:
            return err
        if a is None and isinstance(b, str):
            a = ""
        if b is None and isinstance(a, str):
            b = ""
        return fn(_rank(a), _rank(b))

    return apply


# op → (python function, Excel precedence); higher binds tighter.
OPS: dict[str, tuple[Callable[[Value, Value], Value], int]] = {
    "=": (_compare(operator.eq), 0),
    "<>": (_compare(operator.ne), 0),
    "<": (_compare(operator.lt), 0),
    "<=": (_compare(operator.le), 0),
    ">": (_compare(operator.gt), 0),
    ">=": (_compare(operator.ge), 0),
    "&": (_concat, 1),
    "+": (_arith(operator.add), 2),
    "-": (_arith(operator.sub), 2),
    "*": (_arith(operator.mul), 3),
    "/": (_arith(_div), 3),
    "^": (_arith(_pow), 4),
}
NEG_PRECEDENCE = 5  # Excel: unary minus binds tighter than ^ (=-2^2 is 4)


def _scalars(args: tuple[Value, ...]) -> list[Value]:
    """Flatten columns (tuples) like a range: blanks and text inside ranges are skipped."""
    out: list[Value] = []
    for a in args:
        if isinstance(a, tuple):
            out.extend(v for v in a if isinstance(v, int | float | XlError) and not isinstance(v, bool))
        else:
            out.append(a)
    return out


def _numbers(args: tuple[Value, ...]) -> list[float] | XlError:
    out = []
    for v in _scalars(args):
        n = _number(v)
        if isinstance(n, XlError):
            return n
        out.append(n)
    return out


def _fn_min(*args: Value) -> Value:
    xs = _numbers(args)
    return xs if isinstance(xs, XlError) else (min(xs) if xs else 0.0)


def _fn_max(*args: Value) -> Value:
    xs = _numbers(args)
    return xs if isinstance(xs, XlError) else (max(xs) if xs else 0.0)


def _rounder(fn: Callable[[float, float], float]) -> Callable[[Value, Value], Value]:
    def apply(x: Value, digits: Value) -> Value:
        xs = _numbers((x, digits))
        return xs if isinstance(xs, XlError) else fn(xs[0], xs[1])

    return apply


def _truth(v: Value) -> bool | XlError:
    if isinstance(v, XlError):
        return v
    if isinstance(v, str):
        return VALUE
    return bool(v)


def _fn_and(*args: Value) -> Value:
    ts = [_truth(v) for v in args]
    err = next((t for t in ts if isinstance(t, XlError)), None)
    return err if err else all(ts)


def _fn_or(*args: Value) -> Value:
    ts = [_truth(v) for v in args]
    err = next((t for t in ts if isinstance(t, XlError)), None)
    return err if err else any(ts)


def _fn_not(v: Value) -> Value:
    t = _truth(v)
    return t if isinstance(t, XlError) else not t


def _fn_index(column: Value, row: Value) -> Value:
    n = _number(row)
    if isinstance(n, XlError):
        return n
    i = int(n)
    if not isinstance(column, tuple) or i < 1 or i > len(column):
        return REF
    v = column[i - 1]
    return 0.0 if v is None else v


def _fn_match(key: Value, column: Value, _kind: Value) -> Value:
    if isinstance(key, XlError):
        return key
    if key is None or not isinstance(column, tuple):
        return NA
    want = _rank(key)
    for i, v in enumerate(column, start=1):
        if v is not None and _rank(v) == want:
            return float(i)
    return NA


def _fn_abs(x: Value) -> Value:
    n = _number(x)
    return n if isinstance(n, XlError) else abs(n)


def _fn_ln(x: Value) -> Value:
    n = _number(x)
    if isinstance(n, XlError):
        return n
    return NUM if n <= 0 else math.log(n)  # Excel: LN of 0 or less is #NUM!


@dataclass(frozen=True)
class Func:
    impl: Callable[..., Value]
    min_args: int
    max_args: int | None
    sees_errors: bool = False  # gets error values as arguments instead of propagating them


# The portable whitelist: in Excel, LibreOffice Calc and Google Sheets without an _xlfn. prefix,
# and evaluated correctly by `formulas` (with the ROUND patch in workbook/verify.py).
FUNCS: dict[str, Func] = {
    "MIN": Func(_fn_min, 1, None),
    "MAX": Func(_fn_max, 1, None),
    "ROUND": Func(_rounder(xl_round), 2, 2),
    "ROUNDUP": Func(_rounder(xl_roundup), 2, 2),
    "ROUNDDOWN": Func(_rounder(xl_rounddown), 2, 2),
    "AND": Func(_fn_and, 1, None),
    "OR": Func(_fn_or, 1, None),
    "NOT": Func(_fn_not, 1, 1),
    "ABS": Func(_fn_abs, 1, 1),
    "LN": Func(_fn_ln, 1, 1),
    "INDEX": Func(_fn_index, 2, 2, sees_errors=True),
    "MATCH": Func(_fn_match, 3, 3, sees_errors=True),
    "IFERROR": Func(lambda v, fallback: fallback if isinstance(v, XlError) else v, 2, 2, sees_errors=True),
    "ISBLANK": Func(lambda v: v is None, 1, 1, sees_errors=True),
}


def apply_func(name: str, args: tuple[Value, ...]) -> Value:
    """Call a whitelisted function: the first error among its arguments is the result unless it sees errors."""
    func = FUNCS[name]
    if not func.sees_errors:
        err = _first_error(*args)
        if err is not None:
            return err
    return func.impl(*args)


def negate(v: Value) -> Value:
    """Excel's unary minus: the operand as a number, negated."""
    n = _number(v)
    return n if isinstance(n, XlError) else -n


def if_test(cond: Value) -> bool | XlError:
    """IF's condition: an error propagates, text is #VALUE!, anything else is truthy or not."""
    if isinstance(cond, XlError):
        return cond
    if isinstance(cond, str):
        return VALUE
    return bool(cond)


def if_result(branch: Value) -> Value:
    """IF's result: a blank branch shows 0."""
    return 0.0 if branch is None else branch


class Visitor:
    def visit(self, n: Node) -> Any:
        return getattr(self, "visit_" + type(n).__name__)(n)


class Leaves(Visitor):
    """The leaves every evaluator reads alike: a message in its language, constants, named values, columns."""

    lang: str
    values: Mapping[str, Any]
    columns: Mapping[tuple[str, str], tuple]

    def visit_Msg(self, n: Msg) -> str:
        return n.id if self.lang == "id" else n.en

    def visit_Num(self, n: Num) -> float:
        return n.value

    def visit_Text(self, n: Text) -> str:
        return n.value

    def visit_Bool(self, n: Bool) -> bool:
        return n.value

    def visit_Ref(self, n: Ref) -> Any:
        return self.values[n.name]

    def visit_Col(self, n: Col) -> tuple:
        return self.columns[(n.table, n.column)]


class Evaluate(Leaves):
    """Compute a tree's value from named values and catalog columns; never reads Excel text."""

    def __init__(
        self, values: Mapping[str, Value], columns: Mapping[tuple[str, str], tuple] | None = None, lang: str = "en"
    ):
        self.values = values
        self.columns = columns or {}
        self.lang = lang

    def visit_BinOp(self, n: BinOp) -> Value:
        left = self.visit(n.left)
        right = self.visit(n.right)
        return OPS[n.op][0](left, right)

    def visit_Neg(self, n: Neg) -> Value:
        return negate(self.visit(n.operand))

    def visit_If(self, n: If) -> Value:
        test = if_test(self.visit(n.cond))
        if isinstance(test, XlError):
            return test
        return if_result(self.visit(n.then if test else n.other))

    def visit_Call(self, n: Call) -> Value:
        return apply_func(n.fn, tuple(self.visit(a) for a in n.args))


def format_number(x: float) -> str:
    """Render a constant as Excel reads it back exactly (negatives parenthesised)."""
    if x != x or x in (math.inf, -math.inf):
        raise ValueError(f"{x} has no Excel rendering")
    text = str(int(x)) if float(x).is_integer() and abs(x) < 1e15 else repr(float(x)).upper()
    return f"({text})" if x < 0 else text


class ExcelText(Visitor):
    """Render a tree as Excel formula text (without the leading '=')."""

    def __init__(self, cells: Mapping[str, str], ranges: Mapping[tuple[str, str], str], lang: str = "id"):
        self.cells = cells  # name -> defined name or 'Sheet'!$B$7
        self.ranges = ranges  # (table, column) -> 'Katalog GPU'!$C$4:$C$70
        self.lang = lang

    def visit_Msg(self, n: Msg) -> str:
        return self.visit_Text(Text(n.id if self.lang == "id" else n.en))

    def visit_Num(self, n: Num) -> str:
        return format_number(n.value)

    def visit_Text(self, n: Text) -> str:
        return '"' + n.value.replace('"', '""') + '"'

    def visit_Bool(self, n: Bool) -> str:
        return "TRUE" if n.value else "FALSE"

    def visit_Ref(self, n: Ref) -> str:
        return self.cells[n.name]

    def visit_Col(self, n: Col) -> str:
        return self.ranges[(n.table, n.column)]

    def visit_Neg(self, n: Neg) -> str:
        inner = self.visit(n.operand)
        return f"-({inner})" if isinstance(n.operand, BinOp | Neg) else f"-{inner}"

    def visit_If(self, n: If) -> str:
        return f"IF({self.visit(n.cond)},{self.visit(n.then)},{self.visit(n.other)})"

    def visit_Call(self, n: Call) -> str:
        return f"{n.fn}({','.join(self.visit(a) for a in n.args)})"

    def visit_BinOp(self, n: BinOp) -> str:
        prec = OPS[n.op][1]
        return self._side(n.left, prec, right=False) + n.op + self._side(n.right, prec, right=True)

    def _side(self, child: Node, prec: int, right: bool) -> str:
        text = self.visit(child)
        if isinstance(child, BinOp):
            child_prec = OPS[child.op][1]
            if child_prec < prec or (right and child_prec == prec):
                return f"({text})"
        return text


class Names(Visitor):
    """Collect the names a tree refers to."""

    def __init__(self) -> None:
        self.found: set[str] = set()

    def visit_Ref(self, n: Ref) -> None:
        self.found.add(n.name)

    def visit_Num(self, n: Node) -> None:
        return None

    visit_Text = visit_Bool = visit_Col = visit_Msg = visit_Num

    def visit_BinOp(self, n: BinOp) -> None:
        self.visit(n.left)
        self.visit(n.right)

    def visit_Neg(self, n: Neg) -> None:
        self.visit(n.operand)

    def visit_If(self, n: If) -> None:
        for c in (n.cond, n.then, n.other):
            self.visit(c)

    def visit_Call(self, n: Call) -> None:
        for a in n.args:
            self.visit(a)


def names_in(node: Node) -> set[str]:
    """The names a tree refers to."""
    v = Names()
    v.visit(node)
    return v.found


def evaluate(
    node: Node, values: Mapping[str, Value], columns: Mapping[tuple[str, str], tuple] | None = None, lang: str = "en"
) -> Value:
    return Evaluate(values, columns, lang).visit(node)


def to_excel(node: Node, cells: Mapping[str, str], ranges: Mapping[tuple[str, str], str], lang: str = "id") -> str:
    return "=" + ExcelText(cells, ranges, lang).visit(node)
