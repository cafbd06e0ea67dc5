"""`kalkulator plan`'s human output: the answer in words first, then a table that fits the terminal, then the
counts. Everything here is rendered from the ranked options; nothing is computed beside them."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

from kalkulator.catalog import Catalog
from kalkulator.cli.common import number, width
from kalkulator.scenario.planner import MODE_TCO, Option, Plan, hitung_command

# The reasons an option is left out, in Indonesian (the planner counts them under their English keys).
REASONS_ID = {
    "mode not asked for (--modes)": "mode tidak diminta (--modes)",
    "GeForce licence: no data-centre deployment (--allow-geforce-datacenter)": (
        "lisensi GeForce: bukan untuk pusat data (--allow-geforce-datacenter)"
    ),
    "data would leave Indonesia (--residency)": "data keluar dari Indonesia (--residency)",
    "capex above --max-capex": "capex di atas --max-capex",
    "facility power above --max-power-kw": "daya fasilitas di atas --max-power-kw",
    "GPUs above --max-gpus": "GPU di atas --max-gpus",
}
WORDS = {
    "en": {
        "demand": "Demand sized: {tokens} tokens a month ({requests} requests a day){users}.",
        "users": ", from {users} users at the peak",
        "cheapest": "Cheapest that meets the targets: {what} — Rp {month}/month over {years} years{extra}.",
        "none": "No GPU option meets the targets within your limits.",
        "api_same": "The same model by API ({offer}): Rp {month}/month{ratio}.",
        "api_other": "No API in the catalog serves {model}; the nearest, {offer} ({other}), is another model: "
        "Rp {month}/month{ratio}.",
        "ratio_cheaper": " — {x}× cheaper than the option above",
        "ratio_dearer": " — {x}× the cost of the option above",
        "outside": "Without your limits the cheapest would be {what} at Rp {month}/month (left out: {reason}).",
        "caveats": "Check before you buy: {caveats}.",
        "unmeasured": "; no shipped measurement of this engine, format and GPU: measure before you buy",
        "buy": "buy {gpus}× {gpu} ({n} per replica, {quant} on {engine}; {servers}, {deployment})",
        "colocation": "buy {gpus}× {gpu} and colocate at {offer} ({n} per replica, {quant} on {engine})",
        "cloud": "rent {gpus}× {gpu} at {offer} ({n} per replica, {quant} on {engine}){market}",
        "spot": "rent {gpus}× {gpu} at {offer}'s spot price, interruptible ({n} per replica, {quant} on {engine})"
        "{market}",
        "hybrid": "a hybrid: {gpus}× {gpu} bought for the base load, the peak on the API",
        "api": "the API {offer}",
        "market": ", a marketplace of third-party hosts",
        "power": "; {kw} kW at full load",
        "quality": "; {quant}'s published quality loss vs 16-bit: {loss} % ({metric})",
        "no_quality": "; no public quality measurement of {quant}",
        "ppl": "perplexity, an 8B model",
        "accuracy": "benchmark accuracy, an 8B model",
        "staff": ", {fte}",
        "head": (
            "#",
            "mode",
            "GPU / API",
            "n",
            "format",
            "loss %",
            "engine",
            "GPUs",
            "tok/s",
            "TTFT s",
            "Rp/month",
            "meas.",
        ),
        "yes": "yes",
        "no": "no",
        "legend": "Ranked by {by}; meas. no = speed not measured for this engine, format and GPU (ranked after the "
        "measured ones, as are speeds not calibrated); * = on the cost/TTFT/TPOT front; --details: each row's "
        "commands; --wide: every column.",
        "counts": "{configurations} configurations tried, {serving} serve this workload; {options} options ranked"
        "{outside}. Every count by reason: --wide or --json.",
        "outside_counts": ", {n} left out by your limits ({reasons})",
        "hitung": "reproduce: ",
        "launch": "run one replica: ",
        "note": "note: ",
        "all_caveats": "caveats: ",
    },
    "id": {
        "demand": "Kebutuhan yang dipakai: {tokens} token per bulan ({requests} permintaan per hari){users}.",
        "users": ", dari {users} pengguna bersamaan saat puncak",
        "cheapest": "Termurah yang memenuhi target: {what} — Rp {month}/bulan selama {years} tahun{extra}.",
        "none": "Tidak ada opsi GPU yang memenuhi target dalam batas Anda.",
        "api_same": "Model yang sama lewat API ({offer}): Rp {month}/bulan{ratio}.",
        "api_other": "Tidak ada API di katalog yang melayani {model}; yang terdekat, {offer} ({other}), adalah "
        "model lain: Rp {month}/bulan{ratio}.",
        "ratio_cheaper": " — {x}× lebih murah daripada opsi di atas",
        "ratio_dearer": " — {x}× biaya opsi di atas",
        "outside": "Tanpa batas Anda, yang termurah adalah {what} dengan Rp {month}/bulan (ditinggalkan: {reason}).",
        "caveats": "Periksa sebelum membeli: {caveats}.",
        "unmeasured": "; belum ada pengukuran mesin, format dan GPU ini: ukur sebelum membeli",
        "buy": "beli {gpus}× {gpu} ({n} per replika, {quant} di {engine}; {servers}, {deployment})",
        "colocation": "beli {gpus}× {gpu} dan titipkan di {offer} ({n} per replika, {quant} di {engine})",
        "cloud": "sewa {gpus}× {gpu} di {offer} ({n} per replika, {quant} di {engine}){market}",
        "spot": "sewa {gpus}× {gpu} di {offer} dengan harga spot, bisa dihentikan ({n} per replika, {quant} di "
        "{engine}){market}",
        "hybrid": "hybrid: {gpus}× {gpu} dibeli untuk beban dasar, puncaknya ke API",
        "api": "API {offer}",
        "market": ", marketplace host pihak ketiga",
        "power": "; {kw} kW saat beban penuh",
        "quality": "; penurunan kualitas {quant} yang dipublikasikan dibanding 16-bit: {loss} % ({metric})",
        "no_quality": "; belum ada pengukuran kualitas publik untuk {quant}",
        "ppl": "perplexity, model 8B",
        "accuracy": "akurasi benchmark, model 8B",
        "staff": ", {fte}",
        "head": (
            "#",
            "mode",
            "GPU / API",
            "n",
            "format",
            "turun %",
            "mesin",
            "GPU",
            "tok/s",
            "TTFT s",
            "Rp/bulan",
            "ukur",
        ),
        "yes": "ya",
        "no": "tidak",
        "legend": "Urut menurut {by}; ukur tidak = kecepatan mesin, format dan GPU ini belum terukur (diurutkan "
        "sesudah yang terukur, begitu pula kecepatan yang belum terkalibrasi); * = di garis depan biaya/TTFT/TPOT; "
        "--details: perintah tiap baris; --wide: semua kolom.",
        "counts": "{configurations} konfigurasi dicoba, {serving} melayani beban ini; {options} opsi diurutkan"
        "{outside}. Semua hitungan per alasan: --wide atau --json.",
        "outside_counts": ", {n} ditinggalkan oleh batas Anda ({reasons})",
        "hitung": "ulangi: ",
        "launch": "jalankan satu replika: ",
        "note": "catatan: ",
        "all_caveats": "catatan: ",
    },
}


def caveat_words(short: str, lang: str) -> str:
    """A caveat's short words (the plan evaluates in English) in `lang`: each check's own Indonesian words."""
    if lang != "id":
        return short
    from kalkulator.quantities.checks import ARCHITECTURE_CHECKS, CHECKS, CROSS_CHECKS

    words = {c.short.en: c.short.id for c in (*CHECKS, *CROSS_CHECKS, *ARCHITECTURE_CHECKS)}
    return words.get(short, short)


def option_caveats(o: Option, lang: str) -> list[str]:
    """An option's caveats in `lang`, the band of a speed no measurement calibrates named beside its words."""
    out = []
    for c in dict.fromkeys(c for c in o.caveats.split("; ") if c):
        words = caveat_words(c, lang)
        if c == "speed not calibrated" and any(o.band_floor):
            decode, prompt = (number(100 * f, 0, lang) for f in o.band_floor)
            words += (
                f" (pita ±{decode} % decode, ±{prompt} % prompt)"
                if lang == "id"
                else (f" (band ±{decode} % decode, ±{prompt} % prompt)")
            )
        out.append(words)
    return out


def counted(value: float, decimals: int, one: str, many: str, lang: str) -> str:
    """A count and its noun: "1 server", "3 servers", "0.10 engineers"; Indonesian nouns have no plural form."""
    noun = one if lang == "id" or value == 1 else many
    return f"{number(value, decimals, lang)} {noun}"


def _what(o: Option, lang: str) -> str:
    """An option in words ("buy 18× RTX PRO 6000 … (1 per replica, Q4_K_M on llama.cpp; 3 servers, server rak)")."""
    w, s = WORDS[lang], o.settings
    fields = {
        "gpus": number(o.gpus_bought or o.gpus_needed, 0, lang),
        "gpu": s.get("gpu_name", ""),
        "n": number(float(s.get("n_gpus", 0) or 0), 0, lang),
        "quant": s.get("quant_name", ""),
        "engine": s.get("engine", ""),
        "servers": counted(o.servers_needed, 0, "server", "servers", lang),
        "deployment": o.deployment,
        "offer": o.offer,
        "market": w["market"] if o.marketplace else "",
    }
    return w[o.mode].format(**fields)


def _extra(o: Option, lang: str) -> str:
    w = WORDS[lang]
    out = w["power"].format(kw=number(o.power_kw, 1, lang)) if o.power_kw else ""
    if o.staff_fte:
        out += w["staff"].format(fte=counted(o.staff_fte, 2, "engineer", "engineers", lang))
    if o.mode != "api" and not o.speed_measured:
        out += w["unmeasured"]
    quant = o.settings.get("quant_name", "")
    if o.mode != "api" and o.quality_loss_pct is not None and o.quality_metric in ("ppl", "accuracy"):
        out += w["quality"].format(quant=quant, loss=number(o.quality_loss_pct, 1, lang), metric=w[o.quality_metric])
    elif o.mode != "api" and o.quality_metric == "none":
        out += w["no_quality"].format(quant=quant)
    return out


def _ratio(api: Option, first: Option | None, lang: str) -> str:
    if first is None or api.idr_per_month <= 0 or first.idr_per_month <= 0:
        return ""
    w = WORDS[lang]
    if api.idr_per_month < first.idr_per_month:
        return w["ratio_cheaper"].format(x=number(first.idr_per_month / api.idr_per_month, 1, lang))
    return w["ratio_dearer"].format(x=number(api.idr_per_month / first.idr_per_month, 1, lang))


def _wrap(text: str, indent: str = "") -> list[str]:
    return textwrap.wrap(text, width(), initial_indent=indent, subsequent_indent=indent + "  ") or [""]


def answer_lines(options: Sequence[Option], plan: Plan, catalog: Catalog, model: str, lang: str) -> list[str]:
    """The answer in words: the demand sized, the cheapest GPU option that meets the targets, the same model by
    API (or the nearest, labelled), the cheapest option a limit left out, and the caveats that change the decision,
    each once."""
    w = WORDS[lang]
    years = number(_years(plan), 1, lang)
    users = plan.base.get("peak_concurrent_users")
    text = [
        w["demand"].format(
            tokens=number(plan.demand_tokens_per_month, 0, lang),
            requests=number(plan.requests_per_day, 0, lang),
            users=w["users"].format(users=number(float(users), 0, lang)) if users else "",
        )
    ]
    first = next((o for o in options if o.mode != "api"), None)
    if first is None:
        text.append(w["none"])
    else:
        text.append(
            w["cheapest"].format(
                what=_what(first, lang),
                month=number(first.idr_per_month, 0, lang),
                years=years,
                extra=_extra(first, lang),
            )
        )
    api_models = {r["name"]: str(r["model"]) for r in catalog["api"].rows}
    apis = [o for o in options if o.mode == "api"]
    same = [o for o in apis if api_models.get(o.offer, "").lower() == model.lower()]
    if same:
        text.append(
            w["api_same"].format(
                offer=same[0].offer, month=number(same[0].idr_per_month, 0, lang), ratio=_ratio(same[0], first, lang)
            )
        )
    elif apis:
        text.append(
            w["api_other"].format(
                model=model,
                offer=apis[0].offer,
                other=api_models.get(apis[0].offer, ""),
                month=number(apis[0].idr_per_month, 0, lang),
                ratio=_ratio(apis[0], first, lang),
            )
        )
    best = plan.best_outside
    shown = options[0] if options else None
    if best is not None and (shown is None or best[0].idr_per_month < shown.idr_per_month):
        reason = REASONS_ID.get(best[1], best[1]) if lang == "id" else best[1]
        text.append(
            w["outside"].format(what=_what(best[0], lang), month=number(best[0].idr_per_month, 0, lang), reason=reason)
        )
    caveats = option_caveats(first, lang) if first else []
    if caveats:
        text.append(w["caveats"].format(caveats="; ".join(caveats)))
    lines: list[str] = []
    for sentence in text:
        lines += _wrap(sentence)
    return lines


def _years(plan: Plan) -> float:
    """The horizon in years, from any option (TCO ÷ monthly cost ÷ 12)."""
    for o in plan.options:
        if o.idr_per_month > 0:
            return o.tco_idr / o.idr_per_month / 12
    return 0.0


def _cells(o: Option, rank: int, lang: str) -> list[str]:
    w = WORDS[lang]
    s = o.settings
    if o.mode == "api":
        return [str(rank), "api", o.offer, "–", "–", "–", "–", "–", "–", "–", number(o.idr_per_month, 0, lang), "–"]
    return [
        f"{rank}{'*' if o.pareto else ''}",
        o.mode,
        str(s.get("gpu_name", "")),
        number(float(s.get("n_gpus", 0) or 0), 0, lang),
        str(s.get("quant_name", "")),
        "–" if o.quality_loss_pct is None else number(o.quality_loss_pct, 1, lang),
        str(s.get("engine", "")),
        number(o.gpus_needed, 0, lang),
        number(o.decode_tok_s, 1, lang),
        number(o.ttft_s, 2, lang),
        number(o.idr_per_month, 0, lang),
        w["yes"] if o.speed_measured else w["no"],
    ]


def compact_table(options: Sequence[Option], plan: Plan, by: str, lang: str, details: bool) -> list[str]:
    """The ranked options in columns that fit the terminal (the GPU/API name is shortened first); with `details`
    each row's hitung command, notes and launch command under it."""
    w = WORDS[lang]
    rows = [_cells(o, i, lang) for i, o in enumerate(options, start=1)]
    head = list(w["head"])
    numeric = {head[i] for i in (0, 3, 5, 7, 8, 9, 10)}
    # A narrow terminal loses TTFT, then the quality loss, then tok/s, before the name gets too short.
    for drop in (None, w["head"][9], w["head"][5], w["head"][8]):
        if drop is not None:
            at = head.index(drop)
            head, rows = head[:at] + head[at + 1 :], [r[:at] + r[at + 1 :] for r in rows]
        widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(head)]
        room = width() - (sum(widths) + 2 * (len(widths) - 1) - widths[2])
        if room >= 20:
            break
    widths[2] = max(12, min(widths[2], room))
    numeric = {i for i, h in enumerate(head) if h in numeric}

    def line(cells: list[str]) -> str:
        out = []
        for i, (c, n) in enumerate(zip(cells, widths, strict=True)):
            c = c if len(c) <= n else c[: (n - 1) // 2] + "…" + c[len(c) - (n - 1 - (n - 1) // 2) :]
            out.append(c.rjust(n) if i in numeric else c.ljust(n))
        return "  ".join(out).rstrip()

    lines = _wrap(w["legend"].format(by=by))
    lines.append(line(head))
    for o, r in zip(options, rows, strict=True):
        lines.append(line(r))
        if details:
            lines += _wrap(w["hitung"] + hitung_command(o, plan.base) + f"   [TCO: {MODE_TCO[o.mode]}]", "     ")
            if o.note:
                lines += _wrap(w["note"] + o.note, "     ")
            if o.caveats:
                lines += _wrap(w["all_caveats"] + "; ".join(option_caveats(o, lang)), "     ")
            if o.launch:
                lines += _wrap(w["launch"] + o.launch, "     ")
    return lines


def counts_lines(plan: Plan, lang: str) -> list[str]:
    """The counts in one sentence (every count by reason is in --wide and --json)."""
    w = WORDS[lang]
    limited = sum(plan.excluded_constraints.values())
    reasons = "; ".join(
        f"{number(n, 0, lang)} {REASONS_ID.get(r, r) if lang == 'id' else r}"
        for r, n in plan.excluded_constraints.most_common()
    )
    outside = w["outside_counts"].format(n=number(limited, 0, lang), reasons=reasons) if limited else ""
    text = w["counts"].format(
        configurations=number(plan.candidates, 0, lang),
        serving=number(plan.serving, 0, lang),
        options=number(len(plan.options), 0, lang),
        outside=outside,
    )
    return _wrap(text)
