"""Replace a whole folder by a new one in one step: Linux's renameat2(RENAME_EXCHANGE).

The new folder is a sibling of the old one (same parent, so the same filesystem) that also carries every entry of
the old folder that is not an output: hard links (copies where a link is refused), symlinks as symlinks. One system
call then exchanges the two names, so a reader, or a process killed at any moment, finds the old folder or the new
one, never a mix. obstacle() says why a folder cannot be swapped so (kalkulator.io.staging then renames file by file):
no renameat2 (not Linux, or a libc without it), a folder holding sub-folders or special files that are not ours, a
mount point, a folder owned by another user or in a parent that cannot be written, or one that a running process
works in (its working folder would become the removed old one). A filesystem refusing the exchange (EINVAL, ENOSYS,
EXDEV, ENOTSUP, e.g. some overlayfs) is found by trying: exchange() raises OSError with that errno, see UNSUPPORTED.
"""

from __future__ import annotations

import ctypes
import errno
import os
import shutil
import stat
import sys
from collections.abc import Callable, Collection
from functools import cache
from pathlib import Path

RENAME_EXCHANGE = 2  # linux/fs.h
AT_FDCWD = -100  # linux/fcntl.h
UNSUPPORTED = frozenset({errno.EINVAL, errno.ENOSYS, errno.EXDEV, errno.ENOTSUP, errno.EOPNOTSUPP})


@cache
def _renameat2() -> Callable[..., int] | None:
    """glibc's renameat2 (2.28 and later), or None where there is none."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        fn = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return None
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    fn.restype = ctypes.c_int
    return fn


def exchange(first: Path, second: Path) -> None:
    """Swap the names of two existing folders atomically; OSError on failure (ENOSYS: no renameat2 here)."""
    fn = _renameat2()
    if fn is None:
        raise OSError(errno.ENOSYS, "renameat2 is not available", str(first), None, str(second))
    if fn(AT_FDCWD, os.fsencode(first), AT_FDCWD, os.fsencode(second), RENAME_EXCHANGE) != 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code), str(first), None, str(second))


def _working_in(folder: Path) -> list[int]:
    """Ids of running processes (of this user; others' are not readable) whose working folder is `folder` or
    inside it; only this process where there is no /proc."""
    found: list[int] = []
    inside = str(folder) + os.sep
    try:
        pids = [int(n) for n in os.listdir("/proc") if n.isdigit()]
    except OSError:
        pids = []
    for pid in pids:
        try:
            cwd = os.readlink(f"/proc/{pid}/cwd")
        except OSError:
            continue
        if cwd == str(folder) or cwd.startswith(inside):
            found.append(pid)
    if not pids:
        cwd = os.getcwd()
        if cwd == str(folder) or cwd.startswith(inside):
            found.append(os.getpid())
    return found


def _foreign(folder: Path, ours: Collection[str]) -> str | None:
    """The first entry of `folder` that is neither ours nor a file or symlink to carry over, as a reason."""
    for entry in sorted(os.scandir(folder), key=lambda e: e.name):
        if entry.name in ours:
            continue
        kind = stat.S_IFMT(entry.stat(follow_symlinks=False).st_mode)
        if kind == stat.S_IFDIR:
            return f"it holds the folder {entry.name}/"
        if kind not in (stat.S_IFREG, stat.S_IFLNK):
            return f"it holds {entry.name}, neither a file nor a folder"
    return None


def obstacle(folder: Path, ours: Collection[str]) -> str | None:
    """Why `folder` (real path, existing) cannot be exchanged for a new one holding `ours`; None if it can."""
    if _renameat2() is None:
        return "this system has no renameat2"
    info, above = folder.stat(), folder.parent.stat()
    if info.st_dev != above.st_dev:
        return "it is a mount point"
    if info.st_uid != os.geteuid() and os.geteuid() != 0:
        return "another user owns it"
    if not os.access(folder.parent, os.W_OK | os.X_OK):
        return f"its parent folder {folder.parent} is not writable"
    foreign = _foreign(folder, ours)
    if foreign:
        return foreign
    users = _working_in(folder)
    if users:
        return f"process {users[0]} works in it"
    return None


def carry_over(old: Path, new: Path, ours: Collection[str]) -> None:
    """Give `new` the entries of `old` that are not `ours` (hard links, else copies) and old's mode and owner.

    Raises ValueError naming the reason when an entry cannot be carried (a folder appeared meanwhile).
    """
    foreign = _foreign(old, ours)
    if foreign:
        raise ValueError(foreign)
    for entry in os.scandir(old):
        if entry.name in ours:
            continue
        source, target = Path(entry.path), new / entry.name
        try:
            os.link(source, target, follow_symlinks=False)  # the same file: writers holding it open stay in
        except OSError:
            if entry.is_symlink():
                os.symlink(os.readlink(source), target)
            else:
                shutil.copy2(source, target)
    info, made = old.stat(), new.stat()
    if (info.st_uid, info.st_gid) != (made.st_uid, made.st_gid):
        try:
            os.chown(new, info.st_uid, info.st_gid)
        except PermissionError:
            raise ValueError("its owner or group cannot be given to a new folder") from None
    os.chmod(new, stat.S_IMODE(info.st_mode))
