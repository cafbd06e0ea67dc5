"""Per session, per image and per 1,000 words: the cost per token applied to an agent's session, an image, a text."""

from __future__ import annotations

from kalkulator.engine.expr import IF, R
from kalkulator.quantities.base import Quantity
from kalkulator.quantities.speed import QUEUE_UNBOUNDED

BOOK_AGENT = "Buku, Bagian 6 (agentic: biaya dan konteks per sesi)"
BOOK_IMAGE = "Buku, Bagian 6 (multimodal: token visual per gambar)"
BOOK_WORDS = "Buku, Bab 1 (estimasi token per kata)"


SESSION_TOKENS = R("session_input_tokens") + R("session_output_tokens")

QUANTITIES = (
    Quantity(
        "session_input_tokens",
        "Token input per sesi",
        "Input tokens per session",
        "Steps × prompt tokens (the mean step): system + tool definitions on every step, and each step's new "
        "input and output re-sent on every later step.",
        BOOK_AGENT,
        expr=R("session_steps") * R("prompt_tokens"),
        doc_id=(
            "Langkah × token prompt (rata-rata langkah): system + definisi tool di setiap langkah, dan "
            "input serta output setiap langkah dikirim ulang di semua langkah sesudahnya."
        ),
    ),
    Quantity(
        "session_cached_tokens",
        "Token input per sesi dari prefix cache",
        "Input tokens per session from the prefix cache",
        "Input tokens per session × the share from the prefix cache (an agent: the tool definitions and the "
        "earlier steps).",
        BOOK_AGENT,
        expr=R("session_input_tokens") * R("prefix_cache_hit_frac"),
        doc_id=("Token input per sesi × porsi dari prefix cache (agen: definisi tool dan langkah-langkah sebelumnya)."),
    ),
    Quantity(
        "session_output_tokens",
        "Token output per sesi",
        "Output tokens per session",
        "Steps × output tokens.",
        BOOK_AGENT,
        expr=R("session_steps") * R("output_tokens"),
        doc_id="Langkah × token output.",
    ),
    Quantity(
        "session_cost_idr",
        "Biaya on-premise per sesi",
        "On-premise cost per session",
        "On-premise cost per 1M tokens × (input + output tokens per session) ÷ 1,000,000.",
        BOOK_AGENT,
        expr=R("cost_idr_per_1m_tokens") * SESSION_TOKENS / 1e6,
        doc_id="Biaya on-premise per 1 juta token × (token input + output per sesi) ÷ 1.000.000.",
    ),
    Quantity(
        "session_cloud_cost_idr",
        "Biaya cloud GPU per sesi",
        "Cloud GPU cost per session",
        "Cloud cost per 1M tokens × (input + output tokens per session) ÷ 1,000,000.",
        BOOK_AGENT,
        expr=R("cloud_cost_idr_per_1m_tokens") * SESSION_TOKENS / 1e6,
        doc_id="Biaya cloud per 1 juta token × (token input + output per sesi) ÷ 1.000.000.",
    ),
    Quantity(
        "session_api_cost_idr",
        "Biaya API per sesi",
        "API cost per session",
        "API cost per 1M tokens (cached, other input and output tokens at their prices, in the workload's mix) "
        "× (input + output tokens per session) ÷ 1,000,000.",
        BOOK_AGENT,
        expr=R("api_cost_idr_per_1m_tokens") * SESSION_TOKENS / 1e6,
        doc_id=(
            "Biaya API per 1 juta token (token cache, input lain dan output pada harganya "
            "masing-masing, dengan campuran beban kerja) × (token input + output per sesi) ÷ 1.000.000."
        ),
    ),
    Quantity(
        "session_time_s",
        "Waktu per sesi",
        "Time per session",
        "Steps × end-to-end latency (TTFT + output × TPOT + network overhead) at the load; the tools' own "
        "run time is not included.",
        BOOK_AGENT,
        expr=IF(R("utilization_frac") < 1, R("session_steps") * R("e2e_latency_s"), QUEUE_UNBOUNDED),
        doc_id=(
            "Langkah × latensi end-to-end (TTFT + output × TPOT + overhead jaringan) pada beban ini; "
            "waktu kerja tool itu sendiri tidak termasuk."
        ),
    ),
    Quantity(
        "image_cost_idr",
        "Biaya on-premise per gambar",
        "On-premise cost per image",
        "Tokens per image × on-premise cost per 1M input tokens ÷ 1,000,000 (a vision encoder's time is in the "
        "prefill time that prices input tokens).",
        BOOK_IMAGE,
        expr=R("image_tokens") * R("cost_idr_per_1m_input_tokens") / 1e6,
        doc_id=(
            "Token per gambar × biaya on-premise per 1 juta token input ÷ 1.000.000 (waktu encoder visi "
            "termasuk dalam waktu prefill yang menentukan harga token input)."
        ),
    ),
    Quantity(
        "image_api_cost_idr",
        "Biaya API per gambar",
        "API cost per image",
        "Tokens per image × input price ÷ 1,000,000 × USD rate × taxes (APIs count image tokens their own way: "
        "type the provider's count in tokens per image).",
        BOOK_IMAGE,
        expr=R("image_tokens") * R("api_input_usd_per_1m") / 1e6 * R("usd_idr") * R("api_tax_multiplier_ratio"),
        doc_id=(
            "Token per gambar × harga input ÷ 1.000.000 × kurs USD × pajak (API menghitung token gambar "
            "dengan caranya sendiri: isi hitungan penyedia di token per gambar)."
        ),
    ),
    Quantity(
        "cost_idr_per_1000_words",
        "Biaya on-premise per 1.000 kata",
        "On-premise cost per 1,000 words",
        "On-premise cost per 1M tokens × tokens per word × 1,000 ÷ 1,000,000.",
        BOOK_WORDS,
        expr=R("cost_idr_per_1m_tokens") * R("tokens_per_word_ratio") * 1000 / 1e6,
        doc_id="Biaya on-premise per 1 juta token × token per kata × 1.000 ÷ 1.000.000.",
    ),
    Quantity(
        "api_cost_idr_per_1000_words",
        "Biaya API per 1.000 kata",
        "API cost per 1,000 words",
        "API cost per 1M tokens (the workload's input/output mix) × tokens per word × 1,000 ÷ 1,000,000.",
        BOOK_WORDS,
        expr=R("api_cost_idr_per_1m_tokens") * R("tokens_per_word_ratio") * 1000 / 1e6,
        doc_id=("Biaya API per 1 juta token (campuran input/output beban kerja) × token per kata × 1.000 ÷ 1.000.000."),
    ),
)
