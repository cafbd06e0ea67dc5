"""`kalkulator simulate`: text paced by the engine's TTFT and TPOT, a real timed run, terminal output, errors."""

from __future__ import annotations

import io
import os
import re
import select
import statistics
import time

import pytest
from click.testing import CliRunner

from kalkulator.cli.simulate_commands import simulate
from kalkulator.preview.simulate import (
    Playback,
    Screen,
    load_sample,
    make_schedule,
    play,
    sample_tokens,
    tokenize,
    wrap_pieces,
)

FAST = {"model_name": "Llama-3.1-8B", "gpu_name": "RTX 4090 24GB", "quant_name": "Q4_K_M", "load_requests_per_s": 0}
# A measured decode speed of 1 tok/s (--set decode_tok_s=1, TPOT follows): at ×200, 100 tokens span ≈0.5 s of wall
# clock, long enough that one late wake-up on a loaded machine stays far inside the 10 % tolerance.
SLOW = {**FAST, "decode_tok_s": 1.0}


def _invoke(*args: str):
    return CliRunner().invoke(simulate, list(args))


def _gaps(times: tuple[float, ...]) -> list[float]:
    return [b - a for a, b in zip(times, times[1:], strict=False)]


class FakeClock:
    """A clock that only moves when slept on: timing tests without waiting."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


class StampedOut(io.StringIO):
    """Records time.perf_counter() at every write: an independent measurement of when text appeared."""

    def __init__(self) -> None:
        super().__init__()
        self.stamps: list[float] = []

    def write(self, s: str) -> int:
        self.stamps.append(time.perf_counter())
        return super().write(s)


class FakeTTY(io.StringIO):
    def isatty(self) -> bool:
        return True


# --- pacing -----------------------------------------------------------------------------------------------


def test_first_token_at_ttft_and_mean_gap_is_exactly_tpot(calc):
    v = calc(**FAST)
    schedule = make_schedule(v["ttft_s"], v["tpot_ms"], sample_tokens("id", 400), jitter=0.15, seed=0)
    gaps = _gaps(schedule.times)
    assert schedule.times[0] == v["ttft_s"]
    assert len(gaps) == 399 and all(g > 0 for g in gaps)
    assert statistics.fmean(gaps) == pytest.approx(v["tpot_ms"] / 1000, rel=1e-9)
    assert schedule.end_s == pytest.approx(v["ttft_s"] + 399 * v["tpot_ms"] / 1000, rel=1e-12)
    # The jitter is real: a relative spread near the requested 0.15 (399 samples: standard error ≈0.005).
    assert 0.12 < statistics.pstdev(gaps) / (v["tpot_ms"] / 1000) < 0.18


def test_same_seed_same_schedule_other_seed_other_schedule(calc):
    v = calc(**FAST)
    pieces = sample_tokens("en", 200)
    a = make_schedule(v["ttft_s"], v["tpot_ms"], pieces, 0.15, seed=7)
    b = make_schedule(v["ttft_s"], v["tpot_ms"], pieces, 0.15, seed=7)
    c = make_schedule(v["ttft_s"], v["tpot_ms"], pieces, 0.15, seed=8)
    assert a == b
    assert a.times != c.times
    assert statistics.fmean(_gaps(c.times)) == pytest.approx(v["tpot_ms"] / 1000, rel=1e-9)


def test_no_jitter_means_every_gap_is_tpot():
    schedule = make_schedule(0.5, 40.0, ["x"] * 11, jitter=0.0, seed=3)
    assert schedule.times[0] == 0.5
    assert _gaps(schedule.times) == pytest.approx([0.040] * 10, rel=1e-12)


def test_large_jitter_keeps_delays_positive_and_the_mean_exact():
    schedule = make_schedule(0.0, 10.0, ["x"] * 1001, jitter=1.0, seed=0)
    gaps = _gaps(schedule.times)
    assert min(gaps) > 0
    assert statistics.fmean(gaps) == pytest.approx(0.010, rel=1e-9)


def test_play_writes_each_piece_at_its_deadline_on_an_injected_clock():
    clock = FakeClock()
    schedule = make_schedule(2.0, 500.0, ["a", " b", "c"], jitter=0.0)
    out = StampedOut()
    playback = play(
        schedule, Screen(out, io.StringIO(), status=False), Playback(speedup=4), clock=clock, sleep=clock.sleep
    )
    # Wall clock: TTFT 2 s ÷ 4, then two gaps of 0.5 s ÷ 4.
    assert [s - playback.start for s in playback.stamps] == pytest.approx([0.5, 0.625, 0.75])
    assert playback.ttft_s == pytest.approx(2.0)
    assert playback.decode_tok_s == pytest.approx(2.0)  # 1000 / 500 ms
    assert playback.total_s == pytest.approx(3.0)
    assert out.getvalue() == "a bc"


def test_a_late_first_token_delays_the_stream_instead_of_bursting():
    clock = FakeClock()
    late = [0.3]  # the first wake-up comes 0.3 s late (a busy machine); the others on time

    def sleep(seconds: float) -> None:
        clock.sleep(seconds + (late.pop() if late else 0.0))

    schedule = make_schedule(1.0, 100.0, ["a", "b", "c", "d"], jitter=0.0)
    playback = play(schedule, Screen(io.StringIO(), io.StringIO(), status=False), Playback(), clock=clock, sleep=sleep)
    assert [s - playback.start for s in playback.stamps] == pytest.approx([1.3, 1.4, 1.5, 1.6])
    assert playback.ttft_s == pytest.approx(1.3)
    assert playback.decode_tok_s == pytest.approx(10.0)


# --- a real timed run ---------------------------------------------------------------------------------------


def test_real_run_at_speedup_200_keeps_the_predicted_pace(calc):
    v = calc(**SLOW)
    speedup = 200
    pieces = sample_tokens("en", 100)
    schedule = make_schedule(v["ttft_s"], v["tpot_ms"], pieces, jitter=0.15, seed=0)
    out = StampedOut()
    before = time.perf_counter()
    playback = play(schedule, Screen(out, io.StringIO(), status=False), Playback(speedup))
    assert v["tpot_ms"] == pytest.approx(1000)  # 1000 ms / 1 tok/s
    measured_tok_s = (len(out.stamps) - 1) / (out.stamps[-1] - out.stamps[0])
    assert measured_tok_s / (v["decode_tok_s"] * speedup) == pytest.approx(1, rel=0.10)
    assert out.stamps[0] - before >= v["ttft_s"] / speedup  # never early: absolute deadlines
    assert out.stamps[0] - before < v["ttft_s"] / speedup + 0.1
    assert out.stamps[-1] - before >= schedule.end_s / speedup - 1e-9  # the whole stream takes at least its time
    assert playback.decode_tok_s == pytest.approx(v["decode_tok_s"], rel=0.10)  # scaled back to real time
    assert out.getvalue() == "".join(pieces)


def test_cli_timed_run_reports_measured_close_to_predicted(calc):
    v = calc(**SLOW)
    started = time.perf_counter()
    result = _invoke(
        "--model", "Llama-3.1-8B", "--gpu", "RTX 4090 24GB", "--quant", "Q4_K_M", "--set", "decode_tok_s=1",
        "--output-tokens", "100", "--speedup", "200", "--lang", "en",
    )  # fmt: skip
    wall = time.perf_counter() - started
    assert result.exit_code == 0, result.output
    assert wall >= (v["ttft_s"] + 99 * v["tpot_ms"] / 1000) / 200
    predicted, measured = re.search(r"tok/s per user\s+([\d.]+)\s+([\d.]+)", result.stderr).groups()
    assert float(predicted) == pytest.approx(v["decode_tok_s"], abs=0.05)
    assert float(measured) == pytest.approx(v["decode_tok_s"], rel=0.10)
    assert "played at ×200" in result.stderr


# --- the CLI without waiting ----------------------------------------------------------------------------------


def test_no_wait_prints_the_text_and_the_engine_numbers(calc):
    v = calc(**FAST, concurrent_users=4, prompt_tokens=2000, output_tokens=50)
    result = _invoke(
        "--model", "Llama-3.1-8B", "--gpu", "RTX 4090 24GB", "--quant", "Q4_K_M", "--users", "4",
        "--prompt-tokens", "2000", "--output-tokens", "50", "--lang", "en", "--no-wait",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert result.stdout == "".join(sample_tokens("en", 50)) + "\n"
    assert re.search(rf"time to first token \(s\)\s+{v['ttft_s']:.3f}\s+–", result.stderr)
    assert re.search(rf"tok/s per user\s+{v['decode_tok_s']:.1f}\s+–", result.stderr)
    assert re.search(rf"total time \(s\)\s+{v['ttft_s'] + 49 * v['tpot_ms'] / 1000:.2f}", result.stderr)
    assert "4 users" in result.stderr and "--no-wait: nothing was timed" in result.stderr


def test_set_works_like_hitung(calc):
    result = _invoke("--set", "decode_tok_s=12.5", "--set", "output_tokens=20", "--no-wait", "--lang", "id")
    assert result.exit_code == 0, result.output
    assert re.search(r"tok/s per pengguna\s+12,5\s", result.stderr)  # TPOT follows the measured speed
    assert re.search(r"token\s+20\s", result.stderr)
    assert result.stdout == "".join(sample_tokens("id", 20)) + "\n"


def test_does_not_fit_is_a_note_not_an_error():
    result = _invoke("--model", "Llama-3.3-70B", "--gpu", "RTX 3060 12GB", "--output-tokens", "3", "--no-wait")
    assert result.exit_code == 0
    assert result.stderr.startswith("note: does not fit in VRAM")


# --- errors --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--gpu", "RTX 4090"], "RTX 4090 24GB"),  # unknown GPU: closest names
        (["--model", "Llama-9"], "model_name"),
        (["--set", "no_such_name=1"], "unknown name"),
        (["--set", "context_tokens=many"], "needs a number"),
        (["--set", "context_tokens"], "expected NAME=VALUE"),
        (["--set", "decode_tok_s=0"], "decode_tok_s must be from 0 (exclusive)"),
    ],
)
def test_errors_exit_2_with_a_message(args, fragment):
    result = _invoke(*args, "--no-wait")
    assert result.exit_code == 2
    assert result.stderr.startswith("error: ")
    assert fragment in result.stderr
    assert result.stdout == ""


# --- sample text and tokens ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("lang", "ratio"), [("id", 1.5), ("en", 1.3)])
def test_samples_tokenize_at_the_documented_ratio(lang, ratio):
    text = load_sample(lang)
    words = text.split()
    pieces = tokenize(text, ratio)
    assert 380 <= len(words) <= 480
    assert len(pieces) == round(len(words) * ratio)
    assert all(pieces)
    assert "".join(pieces).split() == words  # fragments reassemble the words, in order
    assert "".join(pieces).count("\n\n") == text.strip().count("\n\n")  # paragraphs survive


def test_tokenize_splits_longer_words_more():
    pieces = tokenize("a b c internationalisation", 2.0)  # 4 words → 8 tokens, the long word takes the extra
    assert len(pieces) == 8
    assert pieces[:3] == ["a", " b", " c"]
    assert "".join(pieces[3:]) == " internationalisation"


def test_sample_loops_when_more_tokens_are_asked():
    base = tokenize(load_sample("en"), 1.3)
    pieces = sample_tokens("en", len(base) + 5)
    assert pieces[: len(base)] == base
    assert pieces[len(base)] == "\n\n" + base[0]
    assert pieces[len(base) + 1 : len(base) + 5] == base[1:5]


def test_wrap_pieces_keeps_tokens_and_fits_the_width():
    pieces = sample_tokens("en", 300)
    wrapped = wrap_pieces(pieces, 60)
    assert len(wrapped) == len(pieces)
    text = "".join(wrapped)
    assert text.split() == "".join(pieces).split()
    assert max(len(line) for line in text.split("\n")) <= 60


# --- the terminal status line ----------------------------------------------------------------------------------


def test_status_line_on_a_terminal_stderr():
    clock = FakeClock()
    out, err = io.StringIO(), FakeTTY()
    screen = Screen(out, err, width=80)
    schedule = make_schedule(0.35, 50.0, sample_tokens("en", 20), jitter=0.0)
    play(schedule, screen, Playback(), clock=clock, sleep=clock.sleep)
    screen.finish()
    assert screen.status_on and not screen.below
    assert out.getvalue() == "".join(sample_tokens("en", 20)) + "\n"  # stdout stays clean
    updates = err.getvalue().split("\r\x1b[K")
    assert any("waiting for the first token" in u for u in updates)
    assert any(re.search(r"\d+ tokens · +20\.0 tok/s", u) for u in updates)  # 1000 / 50 ms
    assert err.getvalue().endswith("\r\x1b[K")  # the status line is removed at the end


def test_no_status_line_when_stderr_is_not_a_terminal():
    clock = FakeClock()
    err = io.StringIO()
    play(make_schedule(0.2, 50.0, ["a", " b"]), Screen(io.StringIO(), err), Playback(), clock=clock, sleep=clock.sleep)
    assert err.getvalue() == ""


def _terminal(raw: str, rows: int = 80) -> list[str]:
    """The screen a terminal shows after `raw`: just the controls Screen uses (CR, LF, EL, CUU, CUF)."""
    screen = [[] for _ in range(rows)]
    row = col = 0
    for token in re.findall(r"\x1b\[(\d*)([A-Za-z])|(\r)|(\n)|(.)", raw, re.S):
        n, op, cr, lf, char = token
        if cr:
            col = 0
        elif lf:
            row += 1
        elif op == "K":
            del screen[row][col:]
        elif op == "A":
            row -= int(n or 1)
        elif op == "C":
            col += int(n or 1)
        elif char:
            line = screen[row]
            line.extend(" " * (col + 1 - len(line)))
            line[col] = char
            col += 1
    return ["".join(line).rstrip() for line in screen]


def test_status_line_below_the_text_on_a_shared_terminal():
    master, slave = os.openpty()
    try:
        with open(slave, "w", closefd=False) as out, open(slave, "w", closefd=False) as err:
            clock = FakeClock()
            screen = Screen(out, err, width=41)
            pieces = wrap_pieces(sample_tokens("en", 30), screen.width)
            play(make_schedule(0.3, 40.0, pieces, jitter=0.0), screen, Playback(), clock=clock, sleep=clock.sleep)
            screen.finish()
        chunks = []
        while select.select([master], [], [], 0.2)[0]:  # the pty hands data over in chunks, asynchronously
            chunks.append(os.read(master, 4096))
        raw = b"".join(chunks).decode()
    finally:
        os.close(master)
        os.close(slave)
    assert screen.below and screen.width == 40
    assert "\x1b[A" in raw  # the status is drawn one line below the text, then the cursor goes back up
    assert re.search(r"\d+ tokens · +25\.0 tok/s", raw)  # 1000 / 40 ms
    shown = "\n".join(_terminal(raw)).rstrip("\n")
    assert shown == "".join(pieces)  # the final screen is exactly the wrapped text: no status left behind
    assert max(len(line) for line in shown.split("\n")) <= 40
