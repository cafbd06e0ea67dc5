"""Progress bars of long commands: drawn on a terminal, never into pipes, logs or CI output."""

from __future__ import annotations

import fcntl
import io
import os
import pty
import struct
import termios

import pytest

from kalkulator.io import progress


def _terminal_stderr(monkeypatch: pytest.MonkeyPatch) -> tuple[io.TextIOWrapper, int]:
    """A pseudo-terminal in stderr's place (made here, not the machine's own terminal); returns it and its reader."""
    reader, writer = pty.openpty()
    fcntl.ioctl(writer, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))  # 24 rows × 100 columns
    stream = open(writer, "w", buffering=1, encoding="utf-8", closefd=True)  # noqa: SIM115 (closed by the caller)
    monkeypatch.setattr("sys.stderr", stream)
    return stream, reader


def test_a_pipe_gets_the_items_and_no_bar(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    monkeypatch.delenv("CI", raising=False)
    assert list(progress.steps(range(5), "fits")) == [0, 1, 2, 3, 4]
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize(("ci", "drawn"), [(None, True), ("true", False), ("1", False), ("false", True)])
def test_a_terminal_gets_a_bar_unless_ci(monkeypatch: pytest.MonkeyPatch, ci: str | None, drawn: bool) -> None:
    if ci is None:
        monkeypatch.delenv("CI", raising=False)
    else:
        monkeypatch.setenv("CI", ci)
    stream, reader = _terminal_stderr(monkeypatch)
    try:
        assert list(progress.steps(["a", "b", "c"], "held-out fits")) == ["a", "b", "c"]
        stream.flush()
        os.set_blocking(reader, False)
        try:
            seen = os.read(reader, 65536).decode("utf-8", "replace")
        except BlockingIOError:
            seen = ""
    finally:
        stream.close()
        os.close(reader)
    assert ("held-out fits" in seen) is drawn
