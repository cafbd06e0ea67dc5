"""The longest text a formula cell can show, read from its tree: sizes the rows (and spans) of wrapped answers so
that no sentence is cut, whatever the inputs.

An upper bound, not a value: IF takes its longer branch, a text join the sum of its parts, a catalog lookup the
longest entry of the column, a number the longest a spreadsheet writes when joining it into text.
"""

from __future__ import annotations

from collections.abc import Mapping

from kalkulator.engine.expr import BinOp, Bool, Call, Col, If, Msg, Node, Num, Ref, Text
from kalkulator.engine.graph import Graph

NUMBER_CHARS = 19  # a number joined into text: up to 17 significant digits, a sign and a point (0.30000000000000004)
ROUNDED_CHARS = 16  # a rounded number: at most 15 significant digits and a point
ROUNDERS = ("ROUND", "ROUNDUP", "ROUNDDOWN")


class Longest:
    """Longest text of nodes of one graph, in one language; catalog columns give their longest entry."""

    def __init__(self, graph: Graph, columns: Mapping[tuple[str, str], tuple], lang: str):
        self.graph = graph
        self.columns = columns
        self.lang = lang
        self.memo: dict[str, tuple[int, bool]] = {}

    def of(self, node: Node, joined: bool = False) -> int:
        """Characters of the longest text `node` can give; a number counts only when `joined` into text (a
        number shown in its cell takes the cell's number format, which the column widths provide for)."""
        if isinstance(node, Msg):
            return len(node.id if self.lang == "id" else node.en)
        if isinstance(node, Text):
            return len(node.value)
        if isinstance(node, Num):
            return len(f"{node.value:.15g}") if joined else 0
        if isinstance(node, Bool):
            return 5
        if isinstance(node, Col):
            return max(
                (len(str(v)) for v in self.columns.get((node.table, node.column), ()) if v is not None), default=0
            )
        if isinstance(node, Ref):
            text, number = self.quantity(node.name)
            return max(text, NUMBER_CHARS if joined and number else 0)
        if isinstance(node, If):
            return max(self.of(node.then, joined), self.of(node.other, joined))
        if isinstance(node, BinOp):
            if node.op == "&":
                return self.of(node.left, True) + self.of(node.right, True)
            return NUMBER_CHARS if joined else 0
        if isinstance(node, Call):
            if node.fn == "IFERROR":
                return max(self.of(a, joined) for a in node.args)
            if node.fn == "INDEX":
                return self.of(node.args[0], joined)
            if node.fn in ROUNDERS:
                return ROUNDED_CHARS if joined else 0
        return NUMBER_CHARS if joined else 0

    def quantity(self, name: str) -> tuple[int, bool]:
        """(longest text, whether it can be a number) of a quantity, an input or a manual value."""
        if name not in self.memo:
            q = self.graph.quantities.get(name)
            if q is None or q.expr is None:  # an input or a manual value: a catalog name, a typed text or number
                column = q.choices if q is not None and q.choices else None
                self.memo[name] = (self.of(Col(*column)) if column else 0, not (q is not None and q.is_text))
            else:
                self.memo[name] = (self.of(q.expr), not q.is_text)
        return self.memo[name]
