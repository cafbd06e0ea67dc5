"""Every quantity of kalkulator, each formula defined once, in the book's order."""

from kalkulator.quantities import breakeven, checks, cost, energy, inputs, memory, speed, tco
from kalkulator.quantities.base import UNITS, Quantity, Unit, unit_key

QUANTITIES: tuple[Quantity, ...] = (
    *inputs.QUANTITIES,
    *memory.QUANTITIES,
    *speed.QUANTITIES,
    *energy.QUANTITIES,
    *cost.QUANTITIES,
    *tco.QUANTITIES,
    *breakeven.QUANTITIES,
    *checks.QUANTITIES,
)

__all__ = ["QUANTITIES", "UNITS", "Quantity", "Unit", "unit_key"]
