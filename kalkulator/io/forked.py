"""Run functions in forked child processes on the other cores; the children end by themselves.

A child computes, writes its pickled result to a pipe and exits: it never waits for more work, so a parent that
is killed leaves no process behind (the child's write fails on the closed pipe, or it has already finished).
`concurrent.futures` and `multiprocessing.Pool` workers wait for tasks and can outlive a SIGKILLed parent.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
from collections.abc import Callable, Sequence
from typing import Any


def available() -> bool:
    """More than one core, and fork (children share the loaded modules and data without pickling them)."""
    return (os.cpu_count() or 1) > 1 and "fork" in multiprocessing.get_all_start_methods()


class ChildError(RuntimeError):
    """A child raised an exception that could not be sent back as itself."""


def start(fn: Callable[..., Any], *args: Any) -> Callable[[], Any]:
    """Run fn(*args) in a forked child now; return a function that waits for its result (or re-raises its error).

    Without `available()` cores, fn runs when the result is asked for, in this process.
    """
    if not available():
        return lambda: fn(*args)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: compute, send, leave (no cleanup handlers of the parent run here)
        code = 0
        try:
            os.close(read)
            try:
                payload = pickle.dumps((True, fn(*args)))
            except BaseException as exc:  # noqa: BLE001 - sent to the parent, which re-raises it
                code = 1
                try:
                    payload = pickle.dumps((False, exc))
                except Exception:  # noqa: BLE001 - an exception that does not pickle
                    payload = pickle.dumps((False, ChildError(repr(exc))))
            with os.fdopen(write, "wb") as out:
                out.write(payload)
        except BaseException:  # noqa: BLE001 - e.g. the parent is gone: nothing left to tell
            code = 1
        finally:
            os._exit(code)
    os.close(write)

    def result() -> Any:
        with os.fdopen(read, "rb") as inp:
            data = inp.read()
        os.waitpid(pid, 0)
        if not data:
            raise ChildError(f"child process {pid} ended without a result")
        ok, value = pickle.loads(data)
        if not ok:
            raise value
        return value

    return result


def run_all(fn: Callable[..., Any], jobs: Sequence[tuple], meanwhile: Callable[[], object] = lambda: None) -> list:
    """fn(*job) for every job, each in its own child; `meanwhile` runs here while they work."""
    pending = [start(fn, *job) for job in jobs]
    meanwhile()
    return [wait() for wait in pending]
