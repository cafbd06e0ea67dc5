"""Files that appear whole or not at all: written beside their target, then renamed over it."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO


@contextlib.contextmanager
def open_atomic(path: Path, mode: str = "wb", **kwargs) -> Iterator[IO]:
    """Open a temporary file beside `path` for writing; on a clean exit it replaces `path`, on an error it is
    removed, so readers never see half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, mode, **kwargs) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_atomic(path: Path, data: bytes) -> None:
    """Write `data` to `path` atomically."""
    with open_atomic(path) as fh:
        fh.write(data)
