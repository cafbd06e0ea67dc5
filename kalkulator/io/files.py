"""Files read within bounds and written whole: the one place for both.

Reads accept regular files only (a pipe or a device such as /dev/zero would hang or fill memory) up to a size
limit. Every writer first passes each output path through check_output (only an absent path or a regular file
that is none of the command's inputs may be replaced), then writes with write_synced (a whole, synced file keeping
the mode of the file it replaces) and puts it in place with replace_synced (one rename, made durable); open_atomic
and write_atomic are the three together for a single file, and kalkulator.io.staging uses them for sets of files.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO

MB = 1_000_000


class FileReadError(ValueError):
    """A file that cannot be read as asked; the message names it and says why."""


class OutputError(ValueError):
    """An output folder or file cannot be written; the message names it."""


_NOT_REGULAR = {
    stat.S_IFDIR: "a folder",
    stat.S_IFIFO: "a pipe (FIFO)",
    stat.S_IFSOCK: "a socket",
    stat.S_IFCHR: "a device",
    stat.S_IFBLK: "a device",
}


def check_output(path: Path, inputs: Iterable[Path | None] = ()) -> None:
    """Raise OutputError unless `path` is absent or a regular file that is none of `inputs` (the command's reads).

    Writers put a whole new file in place by rename, so whatever is at `path` is replaced: a device, pipe, socket
    or folder would become a file, a symbolic link would become a file instead of being written through (so links
    are refused, not followed: see docs/bad-input.md), and an input (the same file, by device and inode: also a
    hard link or a link to it) would be destroyed by its own command.
    """
    try:
        info = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return  # nothing there: a new file (an unusable folder is the caller's check_writable error)
    except OSError as exc:
        raise OutputError(f"{path}: cannot write there ({exc.strerror or exc})") from None
    if stat.S_ISLNK(info.st_mode):
        raise OutputError(
            f"{path}: is a symbolic link (to {os.readlink(path)}); outputs are never written through a link, "
            "which would replace the link itself: name the file it points to, or remove the link"
        )
    if not stat.S_ISREG(info.st_mode):
        what = _NOT_REGULAR.get(stat.S_IFMT(info.st_mode), "not a regular file")
        raise OutputError(f"{path}: is {what}, not a regular file; an output replaces only a regular file")
    for source in inputs:
        if source is None:
            continue
        try:
            same = os.path.samefile(path, source)
        except OSError:  # an input that does not exist (yet) cannot be the output
            continue
        if same:
            raise OutputError(
                f"{path}: is also an input of this command ({source}); writing it would destroy what is read: "
                "write to another file"
            )


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


XLSX_UNZIPPED_LIMIT_BYTES = 512 * MB  # all parts of a workbook unzipped; the shipped ones are about 12 MB
XLSX_RATIO_LIMIT = 200  # a part's unzipped ÷ zipped size; spreadsheet XML packs about 10–30×, a zip bomb 1000×
# A formula naming another workbook: '[book]Sheet'!A1, 'C:\\dir\\[book.xlsx]Sheet'!A1, '/etc/[passwd]Sheet1'!A1.
_EXTERNAL_REF = re.compile(rb"<f[^>]*>([^<]*\[[^\]<]*\][^<!]*!)")


def check_xlsx(source: Path | bytes, name: str) -> None:
    """Refuse a workbook (a file or its bytes) that would unzip beyond the limits or that links other files: a part
    packed more than XLSX_RATIO_LIMIT×, more than XLSX_UNZIPPED_LIMIT_BYTES in all, an external-link part or a
    formula naming another workbook (which an evaluator would open). Checked from the zip directory before any
    part is unzipped, then formulas part by part."""
    import io
    import zipfile
    import zlib

    try:
        z = zipfile.ZipFile(io.BytesIO(source) if isinstance(source, bytes) else source)
    except (zipfile.BadZipFile, OSError) as exc:
        raise FileReadError(f"{name}: not a readable .xlsx workbook ({exc})") from None
    with z:
        parts = z.infolist()
        total = sum(i.file_size for i in parts)
        if total > XLSX_UNZIPPED_LIMIT_BYTES:
            raise FileReadError(
                f"{name}: unzips to {total / MB:,.0f} MB, more than a workbook can be here "
                f"({XLSX_UNZIPPED_LIMIT_BYTES / MB:,.0f} MB)"
            )
        for i in parts:
            if i.file_size > XLSX_RATIO_LIMIT * max(i.compress_size, 1) and i.file_size > MB:
                raise FileReadError(
                    f"{name}: part {i.filename} unzips {i.file_size / max(i.compress_size, 1):,.0f}× its packed size "
                    f"(more than {XLSX_RATIO_LIMIT}×: a zip bomb, not a workbook)"
                )
            if i.filename.startswith("xl/externalLinks/"):
                raise FileReadError(f"{name}: links another workbook ({i.filename}); external links are not followed")
        for i in parts:
            if i.filename.startswith("xl/worksheets/") and i.filename.endswith(".xml"):
                try:
                    found = _EXTERNAL_REF.search(z.read(i))
                except (zipfile.BadZipFile, zlib.error, EOFError) as exc:
                    raise FileReadError(f"{name}: not a readable .xlsx workbook ({exc})") from None
                if found:
                    formula = found.group(1).decode("utf-8", "replace")[:120]
                    raise FileReadError(
                        f"{name}: {i.filename}: a formula names another workbook ({formula}); external links are "
                        "not followed"
                    )


def mode_of(path: Path, default: int | None = 0o644) -> int | None:
    """The permission bits of the file at `path`, or `default` where there is none, so a rewrite keeps them."""
    try:
        info = path.stat()
    except OSError:
        return default
    return stat.S_IMODE(info.st_mode) if stat.S_ISREG(info.st_mode) else default


def sync_folder(folder: Path) -> None:
    """Make the renames in `folder` durable (a no-op where folders cannot be opened)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_synced(path: Path, data: bytes, mode: int | None = None) -> None:
    """Write `data` to a new file `path`, on disk before returning; `mode` sets its permission bits."""
    with open(path, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    if mode is not None:
        os.chmod(path, mode)


def replace_synced(source: Path, target: Path) -> None:
    """Rename the whole file `source` over `target` (one step: readers see the old file or the new one)."""
    os.replace(source, target)
    sync_folder(target.parent)


@contextlib.contextmanager
def open_atomic(path: Path, mode: str = "wb", inputs: Iterable[Path | None] = (), **kwargs) -> Iterator[IO]:
    """Open a temporary file beside `path` for writing; on a clean exit it replaces `path` (keeping its mode),
    on an error it is removed, so readers never see half a file. OutputError (check_output) before anything is
    written when `path` is not a regular file or is one of `inputs`."""
    check_output(path, inputs)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, mode, **kwargs) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode_of(path) or 0o644)
        replace_synced(Path(tmp), path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_atomic(path: Path, data: bytes, inputs: Iterable[Path | None] = ()) -> None:
    """Write `data` to `path` atomically (check_output first)."""
    with open_atomic(path, inputs=inputs) as fh:
        fh.write(data)
