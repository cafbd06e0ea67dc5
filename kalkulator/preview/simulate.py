"""Feel a scenario's speed: turn the engine's TTFT and TPOT into a token schedule and play it as text.

The engine (compute()) predicts when the first token arrives (`ttft_s`) and the mean time between the
following tokens (`tpot_ms`). This module adds no formula of its own: it paces sample text by those two
numbers, with seeded jitter whose mean is exactly TPOT, so what you watch is what the engine predicts.
"""

from __future__ import annotations

import math
import os
import random
import re
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import TextIO

from kalkulator.catalog.numbers import number

# Tokens per word of the sample text. Indonesian: the book's rule of thumb "500 kata × 1.5 = 750 token"
# (Kalkulasi Token Generation, chapter on tokenisation). English: OpenAI's rule of thumb "100 tokens ≈ 75
# words" (help.openai.com, "What are tokens and how to count them") ≈ 1.33, rounded to 1.3 — an assumption
# that varies by tokenizer.
TOKENS_PER_WORD = {"id": 1.5, "en": 1.3}
LANGS = tuple(TOKENS_PER_WORD)
# Reading-speed yardsticks (idea article, seeds/000): people read ≈5–8 words/s ≈ 7–11 tokens/s, and
# 20–30 tokens/s feels fine for chat.
READING_TOK_S = (7.0, 11.0)
CHAT_OK_TOK_S = (20.0, 30.0)
_MIN_FACTOR = 0.05  # no inter-token delay shorter than 5 % of TPOT, whatever the jitter
_WORD = re.compile(r"\s*\S+")


def load_sample(lang: str) -> str:
    """The shipped sample prose for `lang` (kalkulator/preview/samples/<lang>.txt)."""
    if lang not in TOKENS_PER_WORD:
        raise ValueError(f"no sample text for language {lang!r}; choose {', '.join(LANGS)}")
    return (resources.files("kalkulator") / "preview" / "samples" / f"{lang}.txt").read_text(encoding="utf-8")


def _space(ws: str) -> str:
    """Normalise the whitespace before a word: a blank line stays a paragraph break, the rest is one space."""
    if not ws:
        return ""
    return "\n\n" if ws.count("\n") >= 2 else " "


def tokenize(text: str, tokens_per_word: float) -> list[str]:
    """Split text into token-sized fragments: round(words × ratio) tokens, at least one per word.

    Each word gets one token plus a share of the remaining ones proportional to its length minus one
    (cumulative rounding: the total is exact, longer words split more, and no fragment is ever empty while
    the extra tokens do not outnumber those spare characters; beyond that they are dropped). The whitespace
    before a word rides on its first fragment, like " word" tokens of BPE tokenizers, so ''.join(result) is
    the text with its whitespace normalised.
    """
    words = []
    for match in _WORD.finditer(text.strip()):
        core = match.group().lstrip()
        words.append((_space(match.group()[: -len(core)]), core))
    spare = sum(len(core) - 1 for _, core in words)
    extra = min(spare, max(0, round(len(words) * tokens_per_word) - len(words)))
    pieces: list[str] = []
    done = 0
    for space, core in words:
        before = (2 * extra * done + spare) // (2 * spare) if spare else 0
        done += len(core) - 1
        after = (2 * extra * done + spare) // (2 * spare) if spare else 0
        k = 1 + after - before
        cuts = [j * len(core) // k for j in range(k + 1)]
        fragments = [core[cuts[j] : cuts[j + 1]] for j in range(k)]
        pieces.append(space + fragments[0])
        pieces.extend(fragments[1:])
    return pieces


def sample_tokens(lang: str, n: int) -> list[str]:
    """The first n tokens of the `lang` sample, looping it (after a paragraph break) when n exceeds it."""
    base = tokenize(load_sample(lang), TOKENS_PER_WORD[lang])
    out: list[str] = []
    while len(out) < n:
        out.extend(base if not out else ["\n\n" + base[0], *base[1:]])
    return out[:n]


def jitter_factors(n_gaps: int, jitter: float, seed: int) -> list[float]:
    """n_gaps positive delay multipliers with a mean of exactly 1 (to rounding), reproducible by seed.

    Each raw factor is 1 + jitter × z, z a standard normal clipped to ±3, floored at 5 %; the sequence is then
    rescaled to mean 1 so the run's mean inter-token delay is TPOT itself, not TPOT plus clipping bias.
    """
    if n_gaps <= 0:
        return []
    rng = random.Random(seed)
    raw = [max(_MIN_FACTOR, 1.0 + jitter * max(-3.0, min(3.0, rng.gauss(0.0, 1.0)))) for _ in range(n_gaps)]
    scale = n_gaps / math.fsum(raw)
    return [f * scale for f in raw]


def stream_seconds(ttft_s: float, tpot_ms: float, n_tokens: int) -> float:
    """Predicted time from request to last token: first token at TTFT, then n−1 gaps of TPOT.

    (The engine's e2e_latency_s also adds the network round trip and counts n gaps; this is what the stream shows.)
    """
    return ttft_s + max(0, n_tokens - 1) * tpot_ms / 1000


@dataclass(frozen=True)
class Schedule:
    """When each token appears (seconds after the request, real model time) and the text it carries."""

    ttft_s: float
    tpot_ms: float
    times: tuple[float, ...]
    pieces: tuple[str, ...]

    @property
    def end_s(self) -> float:
        return self.times[-1] if self.times else self.ttft_s


def make_schedule(
    ttft_s: float, tpot_ms: float, pieces: Sequence[str], jitter: float = 0.15, seed: int = 0
) -> Schedule:
    """First token at ttft_s, then one token per jittered TPOT; the mean gap equals tpot_ms exactly."""
    times = []
    t = ttft_s
    factors = jitter_factors(len(pieces) - 1, jitter, seed)
    for i in range(len(pieces)):
        if i:
            t += tpot_ms / 1000 * factors[i - 1]
        times.append(t)
    if len(times) > 1:  # pin the last token to the exact end so rounding never drifts the mean
        times[-1] = stream_seconds(ttft_s, tpot_ms, len(times))
    return Schedule(ttft_s, tpot_ms, tuple(times), tuple(pieces))


def wrap_pieces(pieces: Sequence[str], width: int) -> list[str]:
    """Word-wrap token pieces at `width` columns by turning the space before an overflowing word into a newline.

    Used on a terminal so the streaming code always knows the cursor column (for the status line below it).
    """
    words: list[list[str]] = []
    for p in pieces:
        if not words or p[:1].isspace():
            words.append([p])
        else:
            words[-1].append(p)
    out: list[str] = []
    col = 0
    for word in words:
        text = "".join(word)
        core = text.lstrip()
        lead = text[: len(text) - len(core)]
        if "\n" in lead:
            col = len(core)
        elif col and col + len(lead) + len(core) > width:
            word = ["\n" + word[0][len(lead) :], *word[1:]]
            col = len(core)
        else:
            col += len(lead) + len(core)
        out.extend(word)
    return out


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


class Screen:
    """Streams text to `out`; when `err` is a terminal, keeps a live status line on it.

    If `out` is the terminal too, the status line sits on the line below the text: text must then be pre-wrapped
    (wrap_pieces(width)) so the cursor column is known, and the status is drawn with relative cursor moves.
    """

    def __init__(self, out: TextIO, err: TextIO, width: int | None = None, status: bool | None = None):
        self.out, self.err = out, err
        self.status_on = _isatty(err) if status is None else status
        self.below = self.status_on and _isatty(out) and is_terminal_pair(out, err)
        self.width = max(20, (width or shutil.get_terminal_size().columns) - 1)
        self.col = 0

    def text(self, piece: str) -> None:
        if self.below:
            lines = piece.split("\n")
            for i, part in enumerate(lines):
                if i:
                    self.out.write("\n\x1b[K")  # the new line is where the status was: clear it
                    self.col = 0
                self.out.write(part)
                self.col += len(part)
        else:
            self.out.write(piece)
        self.out.flush()

    def status(self, message: str) -> None:
        if not self.status_on:
            return
        message = message[: self.width]
        if self.below:
            back = f"\x1b[{self.col}C" if self.col else ""
            self.err.write(f"\n\x1b[K{message}\x1b[A\r{back}")
        else:
            self.err.write(f"\r\x1b[K{message}")
        self.err.flush()

    def finish(self) -> None:
        """End the text with a newline and remove the status line."""
        self.out.write("\n")
        self.out.flush()
        if self.status_on:
            self.err.write("\x1b[K" if self.below else "\r\x1b[K")
            self.err.flush()


@dataclass
class Playback:
    """Wall-clock stamps of one run; `speedup` scales them back to model time for comparison."""

    speedup: float = 1.0
    start: float = 0.0
    stamps: list[float] = field(default_factory=list)

    @property
    def tokens(self) -> int:
        return len(self.stamps)

    @property
    def ttft_s(self) -> float | None:
        return (self.stamps[0] - self.start) * self.speedup if self.stamps else None

    @property
    def decode_tok_s(self) -> float | None:
        """Tokens per second after the first (what decode_tok_s predicts), in model time."""
        if len(self.stamps) < 2 or self.stamps[-1] <= self.stamps[0]:
            return None
        return (len(self.stamps) - 1) / (self.stamps[-1] - self.stamps[0]) / self.speedup

    @property
    def total_s(self) -> float | None:
        return (self.stamps[-1] - self.start) * self.speedup if self.stamps else None


def sleep_until(
    deadline: float,
    clock: Callable[[], float] = time.perf_counter,
    sleep: Callable[[float], None] = time.sleep,
    tick: float | None = None,
    on_tick: Callable[[], None] | None = None,
) -> None:
    """Sleep until the absolute `deadline` of `clock` (late wake-ups never accumulate over a run)."""
    while (remaining := deadline - clock()) > 0:
        sleep(min(remaining, tick) if tick else remaining)
        if on_tick:
            on_tick()


def _status_text(playback: Playback, now: float, ttft_s: float) -> str:
    elapsed = (now - playback.start) * playback.speedup
    pace = f" · ×{playback.speedup:g}" if playback.speedup != 1 else ""
    if not playback.stamps:
        return f"{elapsed:6.1f} s · waiting for the first token (TTFT {ttft_s:.2f} s){pace}"
    rate = playback.decode_tok_s
    shown = f"{rate:7.1f} tok/s" if rate is not None else "      – tok/s"
    return f"{elapsed:6.1f} s · {playback.tokens:>5} tokens · {shown}{pace}"


def play(
    schedule: Schedule,
    screen: Screen,
    playback: Playback,
    wait: bool = True,
    clock: Callable[[], float] = time.perf_counter,
    sleep: Callable[[float], None] = time.sleep,
) -> Playback:
    """Write each piece at its scheduled time ÷ speedup, stamping when it was written; fills `playback`.

    Deadlines are absolute, so late wake-ups never accumulate: the first token at start + TTFT, every later one at
    the first token's actual time + its scheduled offset. A late first token therefore shows in the measured TTFT
    instead of as a burst of catch-up tokens that would inflate the measured tok/s.
    """
    playback.start = clock()
    next_status = playback.start

    def status() -> None:
        nonlocal next_status
        now = clock()
        if screen.status_on and now >= next_status:
            screen.status(_status_text(playback, now, schedule.ttft_s))
            next_status = now + 0.1

    anchor, offset = playback.start, 0.0
    for t, piece in zip(schedule.times, schedule.pieces, strict=True):
        if wait:
            deadline = anchor + (t - offset) / playback.speedup
            sleep_until(deadline, clock, sleep, 0.1 if screen.status_on else None, status)
        screen.text(piece)
        playback.stamps.append(clock())
        if len(playback.stamps) == 1:
            anchor, offset = playback.stamps[0], t
        status()
    return playback


# The summary's words in each language.
WORDS = {
    "en": {
        "ttft": "time to first token (s)",
        "tokens": "tokens",
        "tok_s": "tok/s per user",
        "total": "total time (s)",
        "predicted": "predicted",
        "measured": "measured",
        "feel": (
            "slower than people read",
            "about reading speed",
            "a little faster than reading",
            "comfortable for chat",
            "faster than anyone reads",
        ),
        "verdict": "{tok_s} tok/s per user: {feel} (people read ≈{low}–{high} tok/s; {ok_low}–{ok_high} tok/s feels "
        "fine for chat)",
        "no_wait": "--no-wait: nothing was timed",
        "speedup": "played at ×{x}; measured values are scaled back to real time",
    },
    "id": {
        "ttft": "waktu ke token pertama (detik)",
        "tokens": "token",
        "tok_s": "tok/s per pengguna",
        "total": "waktu total (detik)",
        "predicted": "prediksi",
        "measured": "terukur",
        "feel": (
            "lebih lambat dari kecepatan membaca",
            "sekitar kecepatan membaca",
            "sedikit lebih cepat dari membaca",
            "nyaman untuk chat",
            "lebih cepat dari siapa pun membaca",
        ),
        "verdict": "{tok_s} tok/s per pengguna: {feel} (orang membaca ≈{low}–{high} tok/s; {ok_low}–{ok_high} tok/s "
        "terasa nyaman untuk chat)",
        "no_wait": "--no-wait: tidak ada yang diukur waktunya",
        "speedup": "diputar ×{x}; nilai terukur diskalakan kembali ke waktu nyata",
    },
}


def verdict(tok_s: float, lang: str = "en") -> str:
    """How a per-user speed feels next to reading speed, in `lang`."""
    low, high = READING_TOK_S
    w = WORDS[lang]
    if tok_s < low:
        feel = w["feel"][0]
    elif tok_s <= high:
        feel = w["feel"][1]
    elif tok_s < CHAT_OK_TOK_S[0]:
        feel = w["feel"][2]
    elif tok_s <= CHAT_OK_TOK_S[1]:
        feel = w["feel"][3]
    else:
        feel = w["feel"][4]
    return w["verdict"].format(
        tok_s=number(tok_s, 1, lang),
        feel=feel,
        low=number(low, 0, lang),
        high=number(high, 0, lang),
        ok_low=number(CHAT_OK_TOK_S[0], 0, lang),
        ok_high=number(CHAT_OK_TOK_S[1], 0, lang),
    )


def _cell(value: float | int | None, decimals: int, lang: str = "en") -> str:
    return "–" if value is None else number(value, decimals, lang)


def summary(schedule: Schedule, playback: Playback | None, title: str, lang: str = "en") -> str:
    """Predicted versus measured TTFT, tokens, tok/s and total time (measured scaled back to model time), in
    `lang`."""
    n = len(schedule.times)
    m = playback
    w = WORDS[lang]
    rows = [
        (w["ttft"], schedule.ttft_s, m.ttft_s if m else None, 3),
        (w["tokens"], n, m.tokens if m else None, 0),
        (w["tok_s"], 1000 / schedule.tpot_ms, m.decode_tok_s if m else None, 1),
        (w["total"], schedule.end_s, m.total_s if m else None, 2),
    ]
    lines = [title, f"{'':<32}{w['predicted']:>12}{w['measured']:>12}"]
    lines += [f"{label:<32}{_cell(p, d, lang):>12}{_cell(v, d, lang):>12}" for label, p, v, d in rows]
    lines.append(verdict(1000 / schedule.tpot_ms, lang))
    if m is None:
        lines.append(w["no_wait"])
    elif m.speedup != 1:
        lines.append(w["speedup"].format(x=f"{m.speedup:g}" if lang == "en" else f"{m.speedup:g}".replace(".", ",")))
    return "\n".join(lines)


def is_terminal_pair(out: TextIO, err: TextIO) -> bool:
    """True when both streams are the same terminal (the status line must then live below the text)."""
    try:
        return os.path.samestat(os.fstat(out.fileno()), os.fstat(err.fileno()))
    except (AttributeError, OSError, ValueError):
        return False
