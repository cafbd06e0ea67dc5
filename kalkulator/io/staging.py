"""Write a set of output files together: stage them in a hidden folder, swap them in, clean up after a kill.

A folder being created is staged beside it and appears with one rename, complete. An existing folder is
replaced whole: its new version is staged beside it, with links to every other file it holds, and the two are
exchanged in one step (kalkulator.io.folder_swap, Linux's renameat2), so a kill at any moment leaves the old set or
the new one. Where that cannot be done (another system, a filesystem refusing the exchange, a sub-folder that is
not ours, a process working in the folder: folder_swap.obstacle) the files are swapped one by one, journaled:
a hidden staging folder inside the output folder gets every file, then a `.complete` list, then the files are
renamed over the old ones. A kill before the list exists leaves the old files; one between the renames leaves
the list, and the next run finishes the renames, unless a newer build has swapped its files in since (then the
old staging is removed, never rolled forward). An output name taken by anything but a regular file (a folder,
device, pipe, socket or symbolic link: kalkulator.io.files.check_output), or naming one of the command's inputs, is
an error before anything is written. A symlinked output folder is followed: its target is replaced, the link stays.
Each staging folder is locked (flock) while its process lives, so a later run can tell a leftover from a
folder another process is still writing, and removes only leftovers.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import time
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

from kalkulator.io import folder_swap
from kalkulator.io.files import OutputError, check_output, mode_of, sync_folder, write_atomic, write_synced

try:
    import fcntl
except ImportError:  # Windows: no flock; a staging folder older than STALE_S counts as left over
    fcntl = None  # type: ignore[assignment]

STAGING = ".kalkulator-staging-"  # a staging folder inside the output folder
COMPLETE = ".complete"  # written last into a staging folder: its files are whole; the names to move, one a line
STALE_S = 3600.0


def _why(exc: OSError) -> str:
    return exc.strerror or str(exc)


def _lock(folder: Path) -> int | None:
    """Hold an exclusive lock on `folder` until the returned descriptor is closed or the process ends.

    None when another process holds it; -1 (nothing to close) where flock does not exist.
    """
    if fcntl is None:
        return -1
    fd = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


@contextlib.contextmanager
def _swap_lock(folder: Path) -> Iterator[None]:
    """Wait for, then hold, an exclusive lock on the output folder (a no-op where flock does not exist).

    The lock is on the folder the name leads to once it is held: a build that exchanged the folder while this
    one waited leaves the old folder locked, so the lock is taken again on the new one.
    """
    if fcntl is None:
        yield
        return
    while True:
        fd = os.open(folder, os.O_RDONLY)
        fcntl.flock(fd, fcntl.LOCK_EX)
        if _still_ours(folder, fd):
            break
        os.close(fd)
    try:
        yield
    finally:
        os.close(fd)


def _unlock(fd: int) -> None:
    if fd >= 0:
        os.close(fd)


def _still_ours(path: Path, fd: int) -> bool:
    """Whether `path` is still the folder locked by `fd` (a cleaner may remove it between mkdir and lock)."""
    try:
        return fd < 0 or os.stat(path).st_ino == os.fstat(fd).st_ino
    except FileNotFoundError:
        return False


@contextlib.contextmanager
def staging_folder(parent: Path, prefix: str) -> Iterator[Path]:
    """A new hidden folder `parent/prefix…`, locked while in use.

    Afterwards it is removed, unless it holds a `.complete` list (renames were interrupted: the next clean()
    finishes them) or was renamed away.
    """
    for _ in range(10):
        path = parent / f"{prefix}{os.getpid()}-{secrets.token_hex(4)}"
        os.mkdir(path)  # mode 0o777 less the umask, like any folder the user creates
        fd = _lock(path)
        if fd is not None and _still_ours(path, fd):
            break
        if fd is not None:
            _unlock(fd)
    else:
        raise OutputError(f"{parent}: cannot create a staging folder")
    try:
        yield path
    finally:
        if not (path / COMPLETE).exists():
            shutil.rmtree(path, ignore_errors=True)
        _unlock(fd)


def _is_leftover(path: Path) -> bool:
    """Whether a staging folder's process is gone (its lock is free)."""
    if fcntl is None:
        return time.time() - path.stat().st_mtime > STALE_S
    try:
        fd = _lock(path)
    except OSError:
        return False
    if fd is None:
        return False
    _unlock(fd)
    return True


def leftovers(out_dir: Path, names: tuple[str, ...] = ()) -> list[Path]:
    """Staging folders and temporary files an interrupted run left in (or, for a new folder, beside) out_dir.

    `names` are the output file names whose temporary copies of older versions (`.NAME.*.tmp`) count too.
    """
    found: list[Path] = []
    out_dir = Path(os.path.realpath(out_dir))
    if out_dir.is_dir():
        for entry in sorted(out_dir.iterdir()):
            if entry.name.startswith(STAGING) or any(
                entry.name.startswith(f".{n}.") and entry.name.endswith(".tmp") for n in names
            ):
                found.append(entry)
    beside = f".{out_dir.name}{STAGING}"
    if out_dir.name and out_dir.parent.is_dir():
        found += sorted(e for e in out_dir.parent.iterdir() if e.name.startswith(beside))
    return found


def _finish(stage: Path, out_dir: Path) -> list[str]:
    """Move the files a complete staging folder still holds into out_dir; return their names."""
    names = (stage / COMPLETE).read_text(encoding="utf-8").splitlines()
    moved = [n for n in names if (stage / n).exists()]
    for name in moved:
        os.replace(stage / name, out_dir / name)
    sync_folder(out_dir)
    return moved


def _superseded(stage: Path, out_dir: Path) -> bool:
    """Whether a file in out_dir that the interrupted build would still replace was written after that build's
    set was complete: a newer build swapped in since, and rolling the old one forward would undo it."""
    finished = (stage / COMPLETE).stat().st_mtime_ns
    names = (stage / COMPLETE).read_text(encoding="utf-8").splitlines()
    return any(
        (stage / n).exists() and (out_dir / n).is_file() and (out_dir / n).stat().st_mtime_ns > finished for n in names
    )


def clean(out_dir: Path, names: tuple[str, ...] = ()) -> list[str]:
    """Finish or remove what interrupted runs left; return what was done, one line each.

    A staging folder with its `.complete` list is rolled forward (its remaining files replace the old ones), any
    other is removed; a folder another process still holds is left alone.
    """
    done: list[str] = []
    out_dir = Path(os.path.realpath(out_dir))  # as leftovers() names what it found
    found = leftovers(out_dir, names)
    complete = [p for p in found if p.is_dir() and (p / COMPLETE).exists()]
    found.sort(key=lambda p: -(p / COMPLETE).stat().st_mtime_ns if p in complete else 0)  # newest set first
    for path in found:
        if path.is_dir():
            if not _is_leftover(path):
                continue
            if path.parent == out_dir and (path / COMPLETE).exists() and _superseded(path, out_dir):
                done.append(f"removed {path.name} (an interrupted build older than the files in place)")
            elif path.parent == out_dir and (path / COMPLETE).exists():
                with _swap_lock(out_dir):
                    moved = _finish(path, out_dir)
                done.append(f"finished the renames of an interrupted build ({', '.join(moved) or 'none left'})")
            else:
                done.append(f"removed {path.name} (left by an interrupted build)")
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
            done.append(f"removed {path.name} (left by an interrupted build)")
    return done


def remove_leftovers(folder: Path, prefix: str) -> list[str]:
    """Remove the folders `folder/prefix…` whose process is gone (e.g. a killed `model add`); return their names."""
    removed = []
    for path in sorted(folder.iterdir()) if folder.is_dir() else ():
        if path.name.startswith(prefix) and path.is_dir() and _is_leftover(path):
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path.name)
    return removed


def check_writable(out_dir: Path) -> None:
    """Raise OutputError early when out_dir plainly cannot be written (a file in the way, no write permission)."""
    folder = Path(os.path.abspath(out_dir))
    too_long = [part for part in folder.parts if len(os.fsencode(part)) > 255]  # NAME_MAX of Linux, macOS, Windows
    if too_long:
        raise OutputError(
            f"{out_dir}: cannot write there (a name of {len(os.fsencode(too_long[0])):,} bytes; at most 255)"
        )
    above = next(p for p in (folder, *folder.parents) if p.exists())
    if not above.is_dir():
        raise OutputError(f"{out_dir}: {above} is a file, not a folder")
    if not os.access(above, os.W_OK | os.X_OK):
        raise OutputError(f"{out_dir}: cannot write there ({above} is not writable)")


def check_outputs(out_dir: Path, names: Iterable[str], inputs: Iterable[Path | None] = ()) -> None:
    """Raise OutputError naming the first output of out_dir that must not be written (kalkulator.io.files.check_output:
    a folder, device, pipe, socket or symbolic link in its place, or one of the command's `inputs`)."""
    check_writable(out_dir)
    inputs = tuple(inputs)
    for name in names:
        check_output(out_dir / name, inputs)


def _exchange_in(out_dir: Path, files: Mapping[str, bytes]) -> str | None:
    """Replace the existing folder out_dir by a copy holding `files` and its other entries, in one exchange.

    Returns None when done, else why it could not be (nothing changed then; the caller swaps file by file).
    """
    with staging_folder(out_dir.parent, f".{out_dir.name}{STAGING}") as stage:
        for name, data in files.items():
            write_synced(stage / name, data, mode_of(out_dir / name, None))
        with _swap_lock(out_dir):  # two builds into one folder swap one after the other
            try:
                folder_swap.carry_over(out_dir, stage, files)
            except ValueError as exc:
                return str(exc)
            sync_folder(stage)
            try:
                folder_swap.exchange(stage, out_dir)
            except OSError as exc:
                if exc.errno not in folder_swap.UNSUPPORTED:
                    raise
                return f"the filesystem cannot exchange folders: {_why(exc)}"
            sync_folder(out_dir.parent)
        # `stage` names the old folder now; leaving staging_folder removes it
    return None


def _rename_in(out_dir: Path, files: Mapping[str, bytes]) -> None:
    """Swap `files` into out_dir one rename at a time, journaled by a `.complete` list (see the module)."""
    with staging_folder(out_dir, STAGING) as stage:
        for name, data in files.items():
            write_synced(stage / name, data, mode_of(out_dir / name, None))
        listing = "".join(f"{n}\n" for n in files).encode("utf-8")
        write_synced(stage / f"{COMPLETE}.tmp", listing)
        os.replace(stage / f"{COMPLETE}.tmp", stage / COMPLETE)  # whole or absent, never half a list
        sync_folder(stage)
        with _swap_lock(out_dir):  # two builds into one folder swap their sets one after the other
            if not stage.is_dir():  # a build exchanged the whole folder meanwhile, taking this staging away
                raise OutputError(f"{out_dir}: another build replaced the folder while this one wrote; run again")
            try:
                for name in files:
                    os.replace(stage / name, out_dir / name)
            except BaseException:  # Ctrl-C between two renames: finish them rather than leave a mixed set
                _finish(stage, out_dir)
                (stage / COMPLETE).unlink()
                raise
            sync_folder(out_dir)
            (stage / COMPLETE).unlink()


def write_outputs(out_dir: Path, files: Mapping[str, bytes], inputs: Iterable[Path | None] = ()) -> list[str]:
    """Write `files` (name → bytes) into out_dir as one set; return what clean() did first, and a note when the
    set had to be swapped in file by file.

    Raises OutputError naming the folder when it cannot be created or written, or the file when it must not be
    replaced (check_outputs); nothing is changed then.
    """
    check_outputs(out_dir, files, inputs)  # anything in the way is found before a single file is written or renamed
    shown, out_dir = out_dir, Path(os.path.realpath(out_dir))  # a symlinked folder: its target is replaced
    try:
        done = clean(out_dir, tuple(files))
        if not out_dir.exists():
            out_dir.parent.mkdir(parents=True, exist_ok=True)
            with staging_folder(out_dir.parent, f".{out_dir.name}{STAGING}") as stage:
                for name, data in files.items():
                    write_synced(stage / name, data)
                try:
                    os.rename(stage, out_dir)  # the whole set appears at once
                    sync_folder(out_dir.parent)
                    return done
                except OSError:
                    if not out_dir.is_dir():
                        raise
            # another process created out_dir meanwhile: swap the files in below
        why = folder_swap.obstacle(out_dir, files)
        if why is None:
            why = _exchange_in(out_dir, files)
            if why is None:
                return done
        _rename_in(out_dir, files)
        done.append(f"{shown}: renamed in file by file, not as one folder, because {why}")
        return done
    except OSError as exc:
        raise OutputError(f"{shown}: cannot write there ({_why(exc)})") from None


def write_output(path: Path, data: bytes, inputs: Iterable[Path | None] = ()) -> list[str]:
    """Write one output file whole (kalkulator.io.files.write_atomic); return what clean() did first.

    A single file needs no set: one rename puts it in place, so the folder around it is never exchanged.
    Raises OutputError naming the file when it cannot or must not be written (check_outputs); nothing is changed
    then.
    """
    check_outputs(path.parent, (path.name,), inputs)
    try:
        done = clean(path.parent, (path.name,))
        write_atomic(path, data)
        return done
    except OSError as exc:
        raise OutputError(f"{path}: cannot write there ({_why(exc)})") from None
