"""Progress of long commands on a terminal (accuracy's and calibrate's fits, build, batches): a tqdm bar on stderr.

Quiet unless stderr is a terminal, and under CI (`CI` set), so pipes, logs and tests see only the command's output.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator
from typing import TypeVar

from tqdm import tqdm

T = TypeVar("T")


def shown() -> bool:
    """Whether a progress bar may be drawn: stderr is a terminal and no CI variable says otherwise."""
    ci = os.environ.get("CI", "").strip().lower()
    return sys.stderr.isatty() and ci in ("", "0", "false", "no")


def steps(items: Iterable[T], label: str, total: int | None = None) -> Iterator[T]:
    """`items`, drawing a bar labelled `label` on the terminal while they are consumed; the bar is erased at the end."""
    if not shown():
        yield from items
        return
    bar = tqdm(items, desc=label, total=total, file=sys.stderr, leave=False, dynamic_ncols=True, unit="", disable=False)
    yield from bar  # disable=False: shown() decided (CI sets TQDM_DISABLE, which only tqdm would read)
