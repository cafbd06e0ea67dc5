"""Special files made inside a test's tmp_path, so no test touches the machine's real devices or system files."""

from __future__ import annotations

import os
import socket
import stat
from pathlib import Path

import pytest

ZERO = (1, 5)  # /dev/zero's major and minor numbers: an endless source of bytes
NULL = (1, 3)


def device_node(path: Path, numbers: tuple[int, int] = NULL) -> Path:
    """A character device node with `numbers` (major, minor) at `path`; skip unless this user may make one."""
    if os.geteuid() != 0:
        pytest.skip("a device node needs root")
    try:
        os.mknod(path, stat.S_IFCHR | 0o600, os.makedev(*numbers))
    except (PermissionError, OSError) as exc:
        pytest.skip(f"mknod refused here ({exc})")
    return path


def unix_socket(path: Path) -> Path:
    """A bound (then closed) Unix socket at `path`; skip when tmp_path is too long for a socket's name."""
    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind(str(path))
    except OSError as exc:
        pytest.skip(f"cannot bind a socket in tmp_path ({exc})")
    finally:
        sock.close()
    return path
