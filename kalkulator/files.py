"""Files read within bounds and written whole: the one place for both.

Reads accept regular files only (a pipe or a device such as /dev/zero would hang or fill memory) up to a size
limit; writes go to a temporary file beside the target, renamed over it once complete.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO

MB = 1_000_000


class FileReadError(ValueError):
    """A file that cannot be read as asked; the message names it and says why."""


def check_regular(path: Path, limit_bytes: int, what: str = "file") -> int:
    """The size of `path` after checking it is a regular file no larger than `limit_bytes`."""
    try:
        info = path.stat()
    except FileNotFoundError:
        raise FileReadError(f"{path}: file not found") from None
    except OSError as exc:
        raise FileReadError(f"{path}: cannot read ({exc.strerror or exc})") from None
    if stat.S_ISDIR(info.st_mode):
        raise FileReadError(f"{path}: is a folder, not a {what}")
    if not stat.S_ISREG(info.st_mode):
        raise FileReadError(f"{path}: not a regular file (a device, pipe or socket), so not a {what}")
    if info.st_size > limit_bytes:
        raise FileReadError(
            f"{path}: {info.st_size / MB:,.1f} MB is larger than a {what} can be here ({limit_bytes / MB:,.0f} MB)"
        )
    return info.st_size


def read_bounded(path: Path, limit_bytes: int, what: str = "file") -> bytes:
    """The bytes of a regular file no larger than `limit_bytes` (read no further than the limit even if it grows)."""
    check_regular(path, limit_bytes, what)
    try:
        with path.open("rb") as fh:
            data = fh.read(limit_bytes + 1)
    except OSError as exc:
        raise FileReadError(f"{path}: cannot read ({exc.strerror or exc})") from None
    if len(data) > limit_bytes:
        raise FileReadError(f"{path}: grew past {limit_bytes / MB:,.0f} MB while being read")
    return data


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
