"""Text the commands print: JSON that is always valid, and output that never crashes on a narrow encoding.

json_text() is the one way a `--json` output (hitung, plan, list, batch JSON lines) is written: JSON has no
Infinity or NaN, so a non-finite number (a price per token at zero demand) becomes null, and the object holding
it says why under NULL_BECAUSE. escape_unencodable() makes stdout and stderr write a character their encoding
cannot hold (Windows' cp1252 for `> out.txt`, ascii) as a \\uXXXX escape instead of raising UnicodeEncodeError;
inside a JSON string that escape is the character itself, so the JSON stays valid and exact.
"""

from __future__ import annotations

import codecs
import json
import math
import numbers
from typing import Any, TextIO

NULL_BECAUSE = "null_because"  # in an object with a non-finite number: name → why it is null
ESCAPE = "kalkulator-escape"  # the error handler escape_unencodable() gives the streams


def _why(number: float) -> str:
    if math.isnan(number):
        return "not a number (NaN: the answer is undefined for these inputs, e.g. 0/0)"
    sign = "+" if number > 0 else "-"
    return f"{sign}infinity: no finite answer (a division by zero, e.g. at zero demand, or an overflow)"


def _non_finite(value: object) -> bool:
    return (
        isinstance(value, numbers.Real) and not isinstance(value, numbers.Integral) and not math.isfinite(float(value))  # type: ignore[arg-type]
    )


def finite(value: Any) -> Any:
    """`value` with every non-finite number (inf, -inf, NaN) replaced by None, in nested dicts, lists and tuples;
    a dict that held one gets NULL_BECAUSE: {key: why}."""
    if _non_finite(value):
        return None
    if isinstance(value, dict):
        out = {key: finite(item) for key, item in value.items()}
        because = {str(key): _why(float(item)) for key, item in value.items() if _non_finite(item)}
        if because:
            out[NULL_BECAUSE] = because
        return out
    if isinstance(value, list | tuple):
        return [finite(item) for item in value]
    return value


def json_text(value: Any, **kwargs: Any) -> str:
    """json.dumps of finite(value): strict JSON (allow_nan=False), never an Infinity or NaN token."""
    return json.dumps(finite(value), allow_nan=False, **kwargs)


def _escape(exc: UnicodeError) -> tuple[str, int]:
    """Codec error handler: each character the encoding cannot hold as \\uXXXX (a surrogate pair above U+FFFF)."""
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    parts = []
    for char in exc.object[exc.start : exc.end]:
        code = ord(char)
        if code > 0xFFFF:
            code -= 0x10000
            parts.append(f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}")
        else:
            parts.append(f"\\u{code:04x}")
    return "".join(parts), exc.end


codecs.register_error(ESCAPE, _escape)


def escape_unencodable(*streams: TextIO) -> None:
    """Make each text stream escape (not fail on) characters its encoding cannot hold, unless it was told how
    already (PYTHONIOENCODING=cp1252:replace); streams that cannot be reconfigured are left as they are."""
    for stream in streams:
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None and getattr(stream, "errors", None) == "strict":
            try:
                reconfigure(errors=ESCAPE)
            except (ValueError, OSError):  # a closed or detached stream
                pass
