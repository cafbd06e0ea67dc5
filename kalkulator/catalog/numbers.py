"""Numbers as people type them, Indonesians included: one reader for `--set` and scenario CSVs.

Indonesian writes 16.500 for sixteen thousand five hundred and 1,5 for one and a half; English the other way round.
A form only one convention can produce is read that way (2.000.000, 1.234,5, 1,5, 1,234.5). A form both could
produce (16.500, 16,500) is read the one way whose value the quantity allows; when both are allowed it is refused,
with both readings shown. Never a silent guess.
"""

from __future__ import annotations

import re
from collections.abc import Callable

# 16.500 / 16,500: one separator followed by exactly three digits, the first group without a leading zero.
_AMBIGUOUS = re.compile(r"^([+-]?)([1-9]\d{0,2})([.,])(\d{3})$")
_ID_GROUPED = re.compile(r"^[+-]?\d{1,3}(\.\d{3})+(,\d+)?$")  # 2.000.000 or 1.234,5
_EN_GROUPED = re.compile(r"^[+-]?\d{1,3}(,\d{3})+(\.\d+)?$")  # 2,000,000 or 1,234.5
_DECIMAL_COMMA = re.compile(r"^[+-]?\d*,\d+$")  # 1,5 or ,75


class NumberFormatError(ValueError):
    """Text that is not a number, or one whose reading is ambiguous; the message says what to write."""


def read_number(text: str, allowed: Callable[[float], bool] = lambda _v: True, lang: str | None = None) -> float:
    """The number `text` stands for; `allowed` tells which of two readings the quantity can take.

    Under `lang` "id" (a command run in Indonesian, which prints 2.255 for two thousand two hundred and fifty-five)
    a form both conventions write is read the Indonesian way; otherwise an ambiguous form is refused.
    """
    raw = text.strip().replace("_", "").replace(" ", "")
    ambiguous = _AMBIGUOUS.match(raw)
    if ambiguous:
        sign, whole, sep, frac = ambiguous.groups()
        thousands = float(f"{sign}{whole}{frac}")
        decimal = float(f"{sign}{whole}.{frac}")
        fits = [v for v in (thousands, decimal) if allowed(v)]
        if len(fits) == 1:
            return fits[0]
        if fits and lang == "id":
            return thousands if sep == "." else decimal
        if not fits:
            return decimal if sep == "." else thousands  # the domain check that follows names the range
        sep_name = "point" if sep == "." else "comma"
        short = f"{sign}{whole}.{frac.rstrip('0')}" if frac.rstrip("0") else f"{sign}{whole}"
        as_decimal = short if short != f"{sign}{whole}.{frac}" else f"{sign}{whole}.{frac}0"
        raise NumberFormatError(
            f"{text!r} is ambiguous: {_plain(thousands)} (the {sep_name} groups thousands) or {_plain(decimal)} "
            f"(the {sep_name} is the decimal mark); write {_plain(thousands)} or {as_decimal}"
        )
    if _ID_GROUPED.match(raw) and ("," in raw or raw.count(".") > 1):
        return float(raw.replace(".", "").replace(",", "."))
    if _EN_GROUPED.match(raw):
        return float(raw.replace(",", ""))
    if _DECIMAL_COMMA.match(raw):
        return float(raw.replace(",", "."))
    try:
        return float(raw)
    except ValueError:
        hint = (
            " (thousands and decimal marks: 16500, 16.500 or 16,500; 1.5 or 1,5)" if any(c in raw for c in ".,") else ""
        )
        raise NumberFormatError(f"{text!r} is not a number{hint}") from None


def _plain(x: float) -> str:
    return f"{x:.0f}" if float(x).is_integer() else f"{x:g}"


def number(x: float, decimals: int = 0, lang: str = "en", trim: bool = False) -> str:
    """A number as people read it in `lang`: 1,234.5 in English, 1.234,5 in Indonesian.

    With `trim`, a whole number drops its decimals (2 detik, not 2,000 detik, which reads as two thousand).
    """
    if trim and decimals and round(x, decimals) == round(x):
        decimals = 0
    text = f"{x:,.{decimals}f}"
    return text.translate(str.maketrans(",.", ".,")) if lang == "id" else text
