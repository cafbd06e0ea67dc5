"""`kalkulator simulate` and `kalkulator preview`: feel a scenario's TTFT and tokens/s."""

from __future__ import annotations

import math
import sys
import textwrap
from pathlib import Path

import click

from kalkulator.cli.catalog_commands import cli_lang
from kalkulator.cli.common import CATALOG_OPTION, fail, load_catalog_or_fail, number, parse_sets, width
from kalkulator.engine.expr import Value
from kalkulator.engine.graph import Graph
from kalkulator.io.paths import default_out_dir
from kalkulator.preview.simulate import (
    LANGS,
    Playback,
    Screen,
    make_schedule,
    play,
    sample_tokens,
    summary,
    wrap_pieces,
)
from kalkulator.quantities import QUANTITIES
from kalkulator.scenario import ScenarioError, check_inputs, compute


def _settings(chosen: dict[str, Value | None], sets: tuple[str, ...], lang: str | None = None) -> dict[str, Value]:
    """Options first, then --set NAME=VALUE on top (the same precedence and parsing as `kalkulator hitung`).

    The playback is the users' batch on an otherwise idle replica (no queue) unless --set load_requests_per_s says.
    """
    settings: dict[str, Value] = {"load_requests_per_s": 0}
    settings.update({k: v for k, v in chosen.items() if v is not None})
    settings.update(parse_sets(Graph(QUANTITIES), sets, lang))
    return settings


def _number(values: dict[str, Value], name: str, positive: bool) -> float:
    """A finite number the simulation needs, or a ScenarioError naming it."""
    v = values[name]
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v) or v < 0 or (positive and v == 0):
        raise ScenarioError(f"cannot simulate: {name} is {v!r}")
    return float(v)


MAX_STREAMED_TOKENS = 100_000  # a long answer; the text is generated as it streams, never held whole
MAX_PLAY_S = 86_400.0  # one day of wall clock: a longer stream is a slip (decode_tok_s=1e-300), never played
# Engine checks that make the speed no answer at all: the engine does not run this GPU or format (status_text says why)
ENGINE_FLAGS = ("engine_backend_flag", "engine_format_flag", "engine_evidence_flag", "engine_compute_capability_flag")


class FiniteFloatRange(click.FloatRange):
    """click.FloatRange that also refuses nan (every comparison with nan is false, so the range alone passes it)."""

    name = "finite float range"

    def convert(self, value, param, ctx):  # noqa: ANN001, ANN201 - click's signature
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number ({self._describe_range()})", param, ctx)
        return number


def playable(values: dict[str, Value], where: str = "") -> None:
    """Refuse a scenario whose speed is no answer: an input rule broken (the rules `--set` obeys everywhere), or an
    engine that cannot run this GPU or format (its reason, never a tok/s)."""
    check_inputs(values, where)
    if any(values.get(flag) is False for flag in ENGINE_FLAGS):
        raise ScenarioError(f"cannot simulate: {values['status_text']}")


def _high(name: str) -> int:
    """The upper end of a typed number's domain (the same table --set uses)."""
    from kalkulator.quantities import QUANTITIES
    from kalkulator.quantities.domains import domain_of

    return int(domain_of(next(q for q in QUANTITIES if q.name == name)).high)


@click.command("simulate")
@click.option("--model", "model_name", help="Model name from the catalog (see `kalkulator list models`).")
@click.option("--gpu", "gpu_name", help="GPU name from the catalog (see `kalkulator list gpus`).")
@click.option("--quant", "quant_name", help="Weight quantization, e.g. Q4_K_M, FP8, AWQ-4bit.")
@click.option("--engine", help="Inference engine, e.g. llama.cpp, vllm.")
@click.option(
    "--users",
    type=click.IntRange(1, _high("concurrent_users")),
    help="Concurrent users sharing the GPU (concurrent_users).",
)
@click.option(
    "--prompt-tokens", type=click.IntRange(0, _high("prompt_tokens")), help="Prompt length in tokens (sets the TTFT)."
)
@click.option(
    "--output-tokens",
    type=click.IntRange(1, MAX_STREAMED_TOKENS),
    help=f"Tokens to stream (default: output_tokens; at most {MAX_STREAMED_TOKENS:,}).",
)
@click.option(
    "--lang",
    type=click.Choice(LANGS),
    default=lambda: cli_lang(),
    show_default="$KALKULATOR_LANG, else id when $LANG starts with id, else en",
    help="Language of the sample text.",
)
@click.option("--set", "sets", multiple=True, metavar="NAME=VALUE", help="Set any input, as in `kalkulator hitung`.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the inter-token jitter.")
@click.option(
    "--jitter",
    type=FiniteFloatRange(0, 1),
    default=0.15,
    show_default=True,
    help="Relative spread of the inter-token delay; the mean stays exactly TPOT.",
)
@click.option(
    "--speedup",
    type=FiniteFloatRange(0.01, 1000),
    default=1.0,
    show_default=True,
    help="Play faster (or slower) than real time, 0.01–1000; measured values are scaled back.",
)
@click.option("--no-wait", is_flag=True, help="Print the text and the summary at once, without pacing.")
@CATALOG_OPTION
def simulate(
    model_name,
    gpu_name,
    quant_name,
    engine,
    users,
    prompt_tokens,
    output_tokens,
    lang,
    sets,
    seed,
    jitter,
    speedup,
    no_wait,
    catalog_dir,
) -> None:
    """Stream sample text at a scenario's predicted TTFT and tokens/s, then compare measured with predicted."""
    catalog = load_catalog_or_fail(catalog_dir)
    chosen: dict[str, Value | None] = {
        "model_name": model_name,
        "gpu_name": gpu_name,
        "quant_name": quant_name,
        "engine": engine,
        "concurrent_users": users,
        "prompt_tokens": prompt_tokens,
        "output_tokens": output_tokens,
    }
    try:
        values = compute(_settings(chosen, sets, lang), catalog)
        playable(values)
        ttft_s = _number(values, "ttft_s", positive=False)
        tpot_ms = _number(values, "tpot_ms", positive=True)
        n = round(_number(values, "output_tokens", positive=True))
        if n < 1:
            raise ScenarioError(f"cannot simulate: output_tokens is {values['output_tokens']!r}; need at least 1")
        seconds = (ttft_s + tpot_ms / 1000 * max(n - 1, 0) * (1 + jitter)) / speedup
        if not seconds <= MAX_PLAY_S:
            raise ScenarioError(
                f"cannot simulate: {n:,} tokens at a TTFT of {ttft_s:.3g} s and a TPOT of {tpot_ms:.3g} ms take "
                f"{seconds:.3g} s to play, more than a day ({MAX_PLAY_S:,.0f} s); check decode_tok_s and "
                f"prefill_tok_s, or raise --speedup"
            )
    except ScenarioError as exc:
        fail(str(exc))
        return
    if values["fits_in_vram"] is False:
        click.echo(
            f"note: does not fit in VRAM (needs {values['vram_total_gb']:.1f} GB, the GPU has "
            f"{values['gpu_vram_gb']:.1f} GB); the speeds assume it fits",
            err=True,
        )
    screen = Screen(sys.stdout, sys.stderr)
    pieces = sample_tokens(lang, n)
    schedule = make_schedule(
        ttft_s, tpot_ms, wrap_pieces(pieces, screen.width) if screen.below else pieces, jitter, seed
    )
    users = values["concurrent_users"]
    if lang == "id":
        who = f"{number(users, 0, lang)} pengguna · prompt {number(values['prompt_tokens'], 0, lang)} token"
        idle, stopped = "replika menganggur, tanpa antrean (TTFT hitung sudah memperhitungkan beban)", " · dihentikan"
    else:
        who = (
            f"{number(users, 0, lang)} user{'' if users == 1 else 's'} · "
            f"prompt {number(values['prompt_tokens'], 0, lang)} tokens"
        )
        idle, stopped = "idle replica, no queue (hitung's TTFT takes the load)", " · interrupted"
    title = (
        f"{values['model_name']} · {values['gpu_name']} · {values['quant_name']} · {values['engine']} · {who} · {idle}"
    )
    playback = Playback(speedup)
    try:
        play(schedule, screen, playback, wait=not no_wait)
    except KeyboardInterrupt:
        screen.finish()
        click.echo(_fit(summary(schedule, playback, title + stopped, lang)), err=True)
        sys.exit(130)
    screen.finish()
    click.echo(_fit(summary(schedule, None if no_wait else playback, title, lang)), err=True)


def _fit(text: str) -> str:
    """The summary within width(): a long line continues, indented, on the next."""
    return "\n".join(
        "\n".join(textwrap.wrap(line, width(), subsequent_indent="  ", break_on_hyphens=False)) or line
        for line in text.split("\n")
    )


@click.command("preview")
@click.option(
    "--out",
    "out_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=lambda: default_out_dir() / "preview.html",
    show_default="preview.html in the build's default --out folder",
    help="Where to write the self-contained HTML page.",
)
@CATALOG_OPTION
def preview(out_path: Path, catalog_dir: Path | None) -> None:
    """Write an offline HTML page that streams 1–4 configurations side by side at their predicted speeds."""
    from kalkulator.catalog import catalog_files
    from kalkulator.io.staging import OutputError
    from kalkulator.preview.page import write_preview

    catalog = load_catalog_or_fail(catalog_dir)
    notes: list[str] = []
    try:
        size = write_preview(out_path, catalog, notes, catalog_files(catalog_dir))
    except ScenarioError as exc:
        fail(str(exc))
        return
    except OutputError as exc:
        fail(f"--out: {exc}")
        return
    for note in notes:
        click.echo(f"note: {note}", err=True)
    click.echo(f"wrote {out_path} ({size / 1000:.0f} kB)")
