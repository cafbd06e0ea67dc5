"""Evaluate a workbook from its Excel text: each formula parsed and compiled to a Python closure once, then every
formula cell recalculated in dependency order for any set of input cells.

It reads only the .xlsx file (formula texts, constant cells, defined names), never the engine's expression trees,
so comparing its values with the engine's is a check of the text the workbook carries. The meaning of each operator
and function is the single definition in kalkulator/engine/expr.py (OPS, FUNCS, the error values and coercions).
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from openpyxl.utils.cell import column_index_from_string, get_column_letter

from kalkulator.engine.expr import FUNCS, OPS, VALUE, Value, XlError, apply_func, if_result, if_test, negate

Cell = tuple[str, str]  # (sheet title, coordinate without $), e.g. ("TPS", "B15")
Node = tuple  # ("num" | "text" | "bool" | "error", value), ("ref", Ref), ("name", NAME), ("neg"|"pct", node),
# ("op", op, left, right), ("call", FN, args)
Compiled = Callable[[list[Value]], Value]

ERRORS = ("#NULL!", "#DIV/0!", "#VALUE!", "#REF!", "#NAME?", "#NUM!", "#N/A")
NAME_ERROR = XlError("#NAME?")
_TOKEN = re.compile(
    r"""\s+
    | (?P<text>"(?:[^"]|"")*")
    | (?P<error>\#(?:NULL!|DIV/0!|VALUE!|REF!|NAME\?|NUM!|N/A))
    | (?P<ref>(?:(?P<sheet>'(?:[^']|'')+'|[A-Za-z_][\w.]*)!)?
        (?P<a>\$?[A-Za-z]{1,3}\$?\d+)(?::(?P<b>\$?[A-Za-z]{1,3}\$?\d+))?)(?![\w.(!])
    | (?P<num>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)
    | (?P<func>[A-Za-z_][\w.]*)\s*\(
    | (?P<name>[A-Za-z_\\][\w.]*)
    | (?P<op><>|<=|>=|[-+*/^&=<>%(),])
    """,
    re.VERBOSE,
)
_PREFIX = re.compile(r"^_xl(?:fn|ws)\.", re.IGNORECASE)


class FormulaError(ValueError):
    """A formula the evaluator cannot read; the message names the cell and the formula."""


@dataclass(frozen=True)
class Ref:
    """A cell or a rectangular range of one sheet (`sheet` None: the formula's own sheet)."""

    sheet: str | None
    first: tuple[int, int]  # (row, column), 1-based
    last: tuple[int, int]

    @property
    def is_cell(self) -> bool:
        return self.first == self.last

    def cells(self, sheet: str) -> list[Cell]:
        """The cells row by row, in `sheet` (the title the reference's sheet resolves to)."""
        (r0, c0), (r1, c1) = self.first, self.last
        return [(sheet, f"{get_column_letter(c)}{r}") for r in range(r0, r1 + 1) for c in range(c0, c1 + 1)]

    @property
    def shape(self) -> tuple[int, int]:
        return self.last[0] - self.first[0] + 1, self.last[1] - self.first[1] + 1


def _corner(text: str) -> tuple[int, int]:
    m = re.fullmatch(r"\$?([A-Za-z]{1,3})\$?(\d+)", text)
    assert m is not None
    return int(m[2]), column_index_from_string(m[1].upper())


def tokens(formula: str) -> Iterator[tuple[str, object]]:
    """(kind, value) tokens of a formula text (with or without the leading =); FormulaError at anything else."""
    text = formula[1:] if formula.startswith("=") else formula
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise FormulaError(f"cannot read {text[pos : pos + 20]!r} at position {pos + 1}")
        pos = m.end()
        kind = m.lastgroup
        if kind in (None, "sheet", "a", "b"):
            if m["ref"] is None:
                continue  # whitespace
            kind = "ref"
        if kind == "ref":
            sheet = m["sheet"]
            if sheet is not None and sheet.startswith("'"):
                sheet = sheet[1:-1].replace("''", "'")
            first = _corner(m["a"])
            last = _corner(m["b"]) if m["b"] else first
            top, bottom = sorted((first[0], last[0]))
            left, right = sorted((first[1], last[1]))
            yield "ref", Ref(sheet, (top, left), (bottom, right))
        elif kind == "text":
            yield "text", m["text"][1:-1].replace('""', '"')
        elif kind == "num":
            yield "num", float(m["num"])
        elif kind == "func":
            yield "func", _PREFIX.sub("", m["func"]).upper()
        elif kind == "name":
            word = m["name"]
            yield ("bool", word.upper() == "TRUE") if word.upper() in ("TRUE", "FALSE") else ("name", word.upper())
        else:
            yield kind, m[kind]


class _Parser:
    """Excel's precedence: unary minus, then %, ^, * and /, + and -, &, comparisons; binary operators associate
    to the left (2^3^2 is 64). Precedences are those of expr.OPS."""

    def __init__(self, formula: str):
        self.toks = list(tokens(formula))
        self.i = 0

    def peek(self) -> tuple[str, object] | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self) -> tuple[str, object]:
        tok = self.peek()
        if tok is None:
            raise FormulaError("the formula ends too early")
        self.i += 1
        return tok

    def expect(self, op: str) -> None:
        tok = self.take()
        if tok != ("op", op):
            raise FormulaError(f"expected {op!r}, found {tok[1]!r}")

    def parse(self) -> Node:
        node = self.expr(0)
        if self.peek() is not None:
            raise FormulaError(f"unexpected {self.peek()[1]!r}")  # type: ignore[index]
        return node

    def expr(self, min_prec: int) -> Node:
        left = self.unary()
        while (tok := self.peek()) is not None and tok[0] == "op" and tok[1] in OPS and OPS[tok[1]][1] >= min_prec:
            self.i += 1
            op = str(tok[1])
            left = ("op", op, left, self.expr(OPS[op][1] + 1))
        return left

    def unary(self) -> Node:
        tok = self.peek()
        if tok in (("op", "-"), ("op", "+")):
            self.i += 1
            inner = self.unary()
            return ("neg", inner) if tok == ("op", "-") else inner
        node = self.primary()
        while self.peek() == ("op", "%"):
            self.i += 1
            node = ("pct", node)
        return node

    def primary(self) -> Node:
        kind, value = self.take()
        if kind in ("num", "text", "bool", "ref", "name"):
            return (kind, value)
        if kind == "error":
            return ("error", XlError(str(value)))
        if kind == "func":
            args: list[Node] = []
            if self.peek() == ("op", ")"):
                self.i += 1
                return ("call", value, tuple(args))
            while True:
                args.append(("blank", None) if self.peek() in (("op", ","), ("op", ")")) else self.expr(0))
                if self.take() == ("op", ")"):
                    return ("call", value, tuple(args))
                self.i -= 1
                self.expect(",")
        if (kind, value) == ("op", "("):
            node = self.expr(0)
            self.expect(")")
            return node
        raise FormulaError(f"unexpected {value!r}")


def parse(formula: str) -> Node:
    """The syntax tree of one formula text."""
    return _Parser(formula).parse()


def features(node: Node) -> Iterator[str]:
    """The functions (IF, ROUND…) and operators (+, ^, unary -, %) a syntax tree uses, for sampling."""
    kind = node[0]
    if kind == "op":
        yield node[1]
        yield from features(node[2])
        yield from features(node[3])
    elif kind in ("neg", "pct"):
        yield "unary -" if kind == "neg" else "%"
        yield from features(node[1])
    elif kind == "call":
        yield node[1]
        for a in node[2]:
            yield from features(a)


def _lazy_if(args: list[Compiled]) -> Compiled:
    """IF: the condition, then only the branch it chooses (a guarded #DIV/0! is never computed)."""
    cond, then = args[0], args[1]
    other = args[2] if len(args) > 2 else (lambda _: False)

    def run(v: list[Value]) -> Value:
        t = if_test(cond(v))
        if isinstance(t, XlError):
            return t
        return if_result(then(v) if t else other(v))

    return run


@dataclass
class XlBook:
    """The formula cells of a workbook compiled once; `evaluate` recalculates all of them for a set of input cells."""

    texts: dict[Cell, str]  # formula cell → its text as stored (with the leading =)
    constants: dict[Cell, Value]  # every non-empty constant cell
    names: dict[str, Ref]  # defined name (upper case) → the cell or range it names
    sheets: dict[str, str] = field(default_factory=dict)  # upper-case title → title
    slot: dict[Cell, int] = field(default_factory=dict)  # cell → its index in the values list
    trees: dict[Cell, Node] = field(default_factory=dict)
    _ranges: dict[tuple[str, Ref], int] = field(default_factory=dict)
    _order: list[tuple[int, Compiled]] = field(default_factory=list)
    _base: list[Value] = field(default_factory=list)
    _deps: dict[int, set[int]] = field(default_factory=dict)

    @classmethod
    def read(cls, path: Path) -> XlBook:
        """Read the formula texts, constants and defined names of the file and compile every formula."""
        out = cls(*read_cells(path))
        out.compile(str(path))
        return out

    def _sheet(self, ref: Ref, own: str) -> str:
        return own if ref.sheet is None else self.sheets.get(ref.sheet.upper(), ref.sheet)

    def _index(self, cell: Cell) -> int:
        if cell not in self.slot:
            self.slot[cell] = len(self._base)
            self._base.append(self.constants.get(cell))
        return self.slot[cell]

    def _ref(self, ref: Ref, own: str) -> tuple[int, set[int]]:
        """The slot holding the value of `ref` (a cell, or a range's tuple of values) and the slots it reads."""
        sheet = self._sheet(ref, own)
        if ref.is_cell:
            i = self._index(ref.cells(sheet)[0])
            return i, {i}
        key = (sheet, ref)
        if key not in self._ranges:
            cells = [self._index(c) for c in ref.cells(sheet)]
            i = self._ranges[key] = self._index(("", f"range {len(self._ranges)}"))
            get = operator.itemgetter(*cells)
            self._deps[i] = set(cells)
            self._order.append((i, (lambda v: (get(v),)) if len(cells) == 1 else get))
        i = self._ranges[key]
        return i, {i}

    def _compile(self, node: Node, own: str, deps: set[int]) -> Compiled:
        kind = node[0]
        if kind in ("num", "text", "bool", "error", "blank"):
            constant = node[1]
            return lambda _: constant
        if kind in ("ref", "name"):
            ref = node[1] if kind == "ref" else self.names.get(node[1])
            if ref is None:
                return lambda _: NAME_ERROR
            i, reads = self._ref(ref, own)
            deps |= reads
            return operator.itemgetter(i)
        if kind == "neg":
            inner = self._compile(node[1], own, deps)
            return lambda v: negate(inner(v))
        if kind == "pct":
            inner, divide = self._compile(node[1], own, deps), OPS["/"][0]
            return lambda v: divide(inner(v), 100.0)
        if kind == "op":
            fn = OPS[node[1]][0]
            a, b = self._compile(node[2], own, deps), self._compile(node[3], own, deps)
            return lambda v: fn(a(v), b(v))
        name, args = node[1], [self._compile(a, own, deps) for a in node[2]]
        if name == "IF" and len(args) in (2, 3):
            return _lazy_if(args)
        func = FUNCS.get(name)
        if func is None:
            return lambda _: NAME_ERROR
        if len(args) < func.min_args or (func.max_args is not None and len(args) > func.max_args):
            return lambda _: VALUE
        if len(args) == 1:
            (a,) = args
            return lambda v: apply_func(name, (a(v),))
        if len(args) == 2:
            a, b = args
            return lambda v: apply_func(name, (a(v), b(v)))
        return lambda v: apply_func(name, tuple(f(v) for f in args))

    def compile(self, where: str = "") -> None:
        """Parse and compile every formula, then order the cells so each comes after every cell it reads."""
        compiled: dict[int, Compiled] = {}
        for cell in self.texts:
            self._index(cell)
        for cell, text in self.texts.items():
            try:
                self.trees[cell] = tree = parse(text)
            except FormulaError as exc:
                raise FormulaError(f"{where}: {cell[0]}!{cell[1]} {text!r}: {exc}") from None
            deps: set[int] = set()
            fn = self._compile(tree, cell[0], deps)
            i = self.slot[cell]
            self._deps[i] = deps
            compiled[i] = (lambda f: lambda v: _scalar(f(v)))(fn)
        compiled.update(self._order)
        self._order = [(i, compiled[i]) for i in self._sorted(compiled, where)]

    def _sorted(self, compiled: Mapping[int, Compiled], where: str) -> list[int]:
        """Slots to compute in dependency order (iterative depth-first search); FormulaError on a cycle."""
        state: dict[int, int] = {}  # 1: on the stack, 2: done
        order: list[int] = []
        cell_of = {i: c for c, i in self.slot.items()}
        for root in compiled:
            if state.get(root):
                continue
            stack = [(root, iter(self._deps.get(root, ())))]
            state[root] = 1
            while stack:
                node, children = stack[-1]
                for child in children:
                    if child not in compiled:
                        continue
                    if state.get(child) == 1:
                        sheet, coord = cell_of[child]
                        raise FormulaError(f"{where}: {sheet}!{coord} refers to itself (a circular reference)")
                    if not state.get(child):
                        state[child] = 1
                        stack.append((child, iter(self._deps.get(child, ()))))
                        break
                else:
                    stack.pop()
                    state[node] = 2
                    order.append(node)
        return order

    def evaluate(self, inputs: Mapping[Cell, Value]) -> list[Value]:
        """Every slot's value (read with `value`) with the `inputs` cells holding the given values."""
        values = list(self._base)
        fixed = set()
        for cell, v in inputs.items():
            i = self.slot.get(cell)
            if i is None:
                continue  # a cell no formula reads
            values[i] = v
            fixed.add(i)
        for i, fn in self._order:
            if i not in fixed:
                values[i] = fn(values)
        return values

    def values(self, inputs: Mapping[Cell, Value], cells: list[Cell]) -> dict[Cell, Value]:
        """Recalculate with `inputs` and return the values of `cells`."""
        values = self.evaluate(inputs)
        return {c: self.value(values, c) for c in cells}

    def value(self, values: list[Value], cell: Cell) -> Value:
        """A cell's value in the result of `evaluate` (None: blank)."""
        i = self.slot.get(cell)
        return self.constants.get(cell) if i is None or i >= len(values) else values[i]

    def reference(self, text: str, own: str) -> tuple[tuple[int, int], list[Cell]] | None:
        """The shape and cells of a reference as `formulas` names it (SHEET!A1:B2, A1, a defined name in upper
        case; the sheet may be unquoted though it holds a hyphen), None when the workbook has no such thing."""
        sheet, _, rest = text.rpartition("!")
        m = re.fullmatch(r"(\$?[A-Za-z]{1,3}\$?\d+)(?::(\$?[A-Za-z]{1,3}\$?\d+))?", rest)
        if m is not None:
            first, last = _corner(m[1]), _corner(m[2] or m[1])
            ref: Ref | None = Ref(sheet.strip("'").replace("''", "'") or None, first, last)
        else:
            ref = self.names.get(rest.upper()) if not sheet else None
        if ref is None:
            return None
        return ref.shape, ref.cells(self._sheet(ref, own))


def read_cells(path: Path) -> tuple[dict[Cell, str], dict[Cell, Value], dict[str, Ref], dict[str, str]]:
    """The formula texts, constant cells, defined names (those naming a cell or range) and sheet titles of the file
    at `path`, read with openpyxl (nothing calculated)."""
    import openpyxl

    book = openpyxl.load_workbook(path, read_only=True)
    try:
        texts: dict[Cell, str] = {}
        constants: dict[Cell, Value] = {}
        for ws in book.worksheets:
            for row in ws.iter_rows():
                for c in row:
                    v = c.value
                    if v is None or not hasattr(c, "coordinate"):
                        continue
                    if c.data_type == "f":
                        if not isinstance(v, str):
                            raise FormulaError(f"{path}: {ws.title}!{c.coordinate}: an array or table formula")
                        texts[(ws.title, c.coordinate)] = v
                    else:
                        constants[(ws.title, c.coordinate)] = XlError(v) if c.data_type == "e" else v
        names = {}
        for name, dn in book.defined_names.items():
            try:
                found = list(tokens(dn.attr_text))
            except FormulaError:
                continue  # not a cell or range (a formula read as #NAME? where used)
            if len(found) == 1 and found[0][0] == "ref":
                names[name.upper()] = found[0][1]
        sheets = {ws.title.upper(): ws.title for ws in book.worksheets}
    finally:
        book.close()
    return texts, constants, names, sheets


def _scalar(v: Value) -> Value:
    """A cell's value: a range where one value belongs is #VALUE! (no implicit intersection)."""
    return VALUE if isinstance(v, tuple) else v
