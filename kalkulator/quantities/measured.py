"""A measured speed beside the engine's estimate of the same thing: decode (tg) or prefill (pp), and their ratio.

In the scenario the measured speed is one the user typed (0 = none); the TPS sheet's table of published
measurements binds each row's measured setup and value to these same quantities.
"""

from __future__ import annotations

from kalkulator.engine.expr import EQ, IF, JOIN, ROUND, Msg, R
from kalkulator.quantities.base import Quantity

LLAMA_BENCH = "llama-bench (llama.cpp tools/llama-bench): tgN = N generated tokens, ppN = an N-token prompt"

QUANTITIES = (
    Quantity(
        "measured_metric_type",
        "Yang diukur (tg = decode, pp = prefill)",
        "What was measured (tg = decode, pp = prefill)",
        "tg: tokens generated per second by one user (decode); pp: prompt tokens processed per second (prefill).",
        LLAMA_BENCH,
        default="tg",
        options=("tg", "pp"),
        doc_id=(
            "tg: token yang dihasilkan per detik untuk satu pengguna (decode); pp: token prompt yang "
            "diproses per detik (prefill)."
        ),
        source_id="llama-bench (llama.cpp): tgN = N token dihasilkan, ppN = prompt N token",
    ),
    Quantity(
        "measured_tok_s",
        "Kecepatan terukur",
        "Measured speed",
        "A speed measured for this scenario (0 = none), e.g. llama-bench's tg or pp figure; the table of "
        "published measurements below shows the estimate beside each of them.",
        LLAMA_BENCH,
        default=0,
        doc_id=(
            "Kecepatan hasil ukur untuk skenario ini (0 = belum ada), misalnya angka tg atau pp dari "
            "llama-bench; tabel pengukuran terbitan di bawah menampilkan perkiraan di samping setiap "
            "angka terbitan."
        ),
        source_id="llama-bench (llama.cpp): tgN = N token dihasilkan, ppN = prompt N token",
    ),
    Quantity(
        "measured_setup_text",
        "Konfigurasi yang dibandingkan",
        "Setup compared",
        "The llama-bench test, GPU, model and quantization the estimate is for: tg500 @ d1000 = 500 tokens "
        "generated after 1,000 tokens of context; pp1000 = a 1,000-token prompt (@ d: after cached tokens).",
        LLAMA_BENCH,
        expr=JOIN(
            IF(
                EQ(R("measured_metric_type"), "pp"),
                JOIN(
                    "pp",
                    ROUND(R("prefill_new_tokens"), 0),
                    IF(R("prefill_cached_tokens") > 0, JOIN(" @ d", ROUND(R("prefill_cached_tokens"), 0)), ""),
                ),
                JOIN("tg", R("output_tokens"), IF(R("prompt_tokens") > 0, JOIN(" @ d", R("prompt_tokens")), "")),
            ),
            " · ",
            IF(R("n_gpus") > 1, JOIN(R("n_gpus"), "× "), ""),
            R("gpu_name"),
            " · ",
            R("model_name"),
            " ",
            R("quant_name"),
        ),
        doc_id=(
            "Uji llama-bench, GPU, model dan kuantisasi yang diperkirakan: tg500 @ d1000 = 500 token "
            "dihasilkan setelah konteks 1.000 token; pp1000 = prompt 1.000 token (@ d: setelah token "
            "yang sudah ada di cache)."
        ),
        source_id="llama-bench (llama.cpp): tgN = N token dihasilkan, ppN = prompt N token",
    ),
    Quantity(
        "measured_estimate_tok_s",
        "Perkiraan kalkulator untuk yang diukur",
        "kalkulator's estimate of what was measured",
        "Decode tok/s per user for tg, prefill tok/s for pp: the engine's figure for the measured setup.",
        "Lembar TPS: decode_tok_s dan prefill_tok_s",
        expr=IF(EQ(R("measured_metric_type"), "pp"), R("prefill_tok_s"), R("decode_tok_s")),
        doc_id=(
            "Token/s decode per pengguna untuk tg, token/s prefill untuk pp: angka mesin kalkulator "
            "untuk setup yang diukur."
        ),
        source_id="Lembar TPS: decode_tok_s dan prefill_tok_s",
    ),
    Quantity(
        "estimate_measured_ratio",
        "Perkiraan ÷ terukur",
        "Estimate ÷ measured",
        "Above 1: the estimate is faster than the measurement; below 1: slower. A measured speed under 0.001 tok/s "
        "counts as none (the ratio would overflow).",
        "kalkulator accuracy: predicted ÷ measured",
        expr=IF(
            R("measured_tok_s") >= 0.001,
            R("measured_estimate_tok_s") / R("measured_tok_s"),
            Msg("belum ada hasil ukur", "no measurement"),
        ),
        doc_id=(
            "Di atas 1: perkiraan lebih cepat dari hasil ukur; di bawah 1: lebih lambat. Kecepatan "
            "terukur di bawah 0,001 tok/s dianggap tidak ada (rasionya akan meluap)."
        ),
        source_id="kalkulator accuracy: perkiraan ÷ hasil ukur",
    ),
)
