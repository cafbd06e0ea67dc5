"""Domain: the closed (or open-below) range a typed number must lie in, and how it reads in an error."""

from __future__ import annotations

import math
from dataclasses import dataclass

BIG = 1e15  # the default upper bound: any rupiah amount fits, and no formula overflows


@dataclass(frozen=True)
class Domain:
    low: float = 0.0
    high: float = BIG
    integer: bool = False
    above: bool = False  # strictly greater than `low` (e.g. a useful life of 0 years is not allowed)

    def problem(self, value: float) -> str | None:
        """Why `value` is outside the domain (None when it is inside)."""
        if not math.isfinite(value):
            return "must be a finite number"
        if self.integer and not float(value).is_integer():
            return f"must be a whole number {self.describe()}"
        if value < self.low or (self.above and value == self.low) or value > self.high:
            return f"must be {'a whole number ' if self.integer else ''}{self.describe()}"
        return None

    def describe(self) -> str:
        low = f"{_fmt(self.low)} (exclusive)" if self.above else _fmt(self.low)
        return f"from {low} to {_fmt(self.high)}"


def _fmt(x: float) -> str:
    return f"{x:,.0f}" if float(x).is_integer() and abs(x) < 1e12 else f"{x:g}"
