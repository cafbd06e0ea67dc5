"""Every quantity of kalkulator, each formula defined once, in the book's order."""

from kalkulator.quantities import (
    answers,
    api,
    breakeven,
    capacity,
    checks,
    cost,
    deployment,
    energy,
    finetune,
    freshness,
    hybrid,
    inputs,
    measured,
    memory,
    session,
    speculative,
    speed,
    tco,
    verdict,
    vision,
    workload,
)
from kalkulator.quantities.base import UNITS, Quantity, Unit, unit_key

_FORMULAS: tuple[Quantity, ...] = (
    *inputs.QUANTITIES,
    *workload.QUANTITIES,
    *vision.QUANTITIES,
    *memory.QUANTITIES,
    *finetune.QUANTITIES,
    *speed.QUANTITIES,
    *capacity.QUANTITIES,
    *deployment.QUANTITIES,
    *speculative.QUANTITIES,
    *energy.QUANTITIES,
    *cost.QUANTITIES,
    *api.QUANTITIES,
    *tco.QUANTITIES,
    *breakeven.QUANTITIES,
    *breakeven.PREMIUM_MONEY,
    *hybrid.QUANTITIES,
    *freshness.QUANTITIES,
    *session.QUANTITIES,
    *measured.QUANTITIES,
)
QUANTITIES: tuple[Quantity, ...] = (*_FORMULAS, *checks.quantities(_FORMULAS), *answers.QUANTITIES, *verdict.QUANTITIES)

__all__ = ["QUANTITIES", "UNITS", "Quantity", "Unit", "unit_key"]
