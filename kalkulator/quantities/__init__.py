"""Every quantity of kalkulator, each formula defined once, in the book's order."""

from kalkulator.quantities import inputs, memory, speed
from kalkulator.quantities.base import UNITS, Quantity, Unit, unit_key

QUANTITIES: tuple[Quantity, ...] = (*inputs.QUANTITIES, *memory.QUANTITIES, *speed.QUANTITIES)

__all__ = ["QUANTITIES", "UNITS", "Quantity", "Unit", "unit_key"]
