"""Workload: the demand in requests with prompt and output tokens, when it arrives, and the latency promised."""

from __future__ import annotations

from kalkulator.expr import EQ, IF, INDEX, Col, R, safe_div
from kalkulator.quantities.base import Quantity, lookup, row_of

BOOK_CAP = "Buku, Bab 11 (concurrency) dan Bab 16–17 (token per bulan)"
# The monthly demand when none is typed; a check says when another value is ignored (checks.py).
TOKENS_PER_MONTH_DEFAULT = 100_000_000

QUANTITIES = (
    Quantity(
        "workload_name",
        "Profil beban kerja",
        "Workload preset",
        "The kind of use: sets the prompt and output tokens, the prefix-cache share, the latency targets and the "
        "active hours (each stays replaceable by a typed value).",
        "Katalog profil beban kerja (assumptions/workloads.csv)",
        default="chat",
        choices=("workload", "name"),
    ),
    row_of("workload", "workload_name", "Baris profil beban kerja", "Workload preset row"),
    lookup("text_prompt_tokens", "workload", "text_prompt_tokens", fallback=1000),
    lookup("request_images", "workload", "images_per_request"),
    Quantity(
        "image_tokens",
        "Token per gambar",
        "Tokens per image",
        "Tokens the vision encoder turns one image into: (image side ÷ patch side)², e.g. CLIP ViT-L/14 at "
        "336 px: (336 ÷ 14)² = 24 × 24 = 576. The chosen vision encoder's, else the workload preset's.",
        "Katalog encoder visi; katalog profil beban kerja",
        expr=IF(
            R("vision_encoder_row") > 0,
            INDEX(Col("vision", "tokens_per_image"), R("vision_encoder_row")),
            IF(R("workload_row") > 0, INDEX(Col("workload", "image_tokens"), R("workload_row")), 0),
        ),
        overridable=True,
        catalog_column=("workload", "image_tokens"),
    ),
    Quantity(
        "step_input_tokens",
        "Token input baru per permintaan/langkah",
        "New input tokens per request/step",
        "New text + images × tokens per image.",
        "Buku, bagian multimodal (token visual ditambahkan ke prompt)",
        expr=R("text_prompt_tokens") + R("request_images") * R("image_tokens"),
    ),
    lookup("session_steps", "workload", "session_steps", fallback=1),
    lookup("tool_definition_tokens", "workload", "tool_definition_tokens"),
    Quantity(
        "language_name",
        "Bahasa teks",
        "Text language",
        "Language of the prompts and answers: sets the tokens per word.",
        "Buku, Bab 1 (estimasi token per bahasa)",
        default="Indonesia",
        options=("Indonesia", "English"),
    ),
    Quantity(
        "tokens_per_word_ratio",
        "Token per kata",
        "Tokens per word",
        "Indonesian ≈ 1.5 (the book's rule: 500 words × 1.5 = 750 tokens), English ≈ 1.3 (OpenAI's rule: 100 "
        "tokens ≈ 75 words); it varies by tokenizer: count your own text to replace it.",
        "Buku, Bab 1 (500 kata × 1,5 = 750 token); bahasa Inggris: help.openai.com 'What are tokens' (≈ 1,33)",
        expr=IF(EQ(R("language_name"), "English"), 1.3, 1.5),
        overridable=True,
    ),
    Quantity(
        "tokens_per_month",
        "Token per bulan (kebutuhan)",
        "Tokens per month (demand)",
        "Tokens your users send and receive per month (input + output); turned into requests below.",
        "Assumption: a small team's assistant (the book's example uses 500 M)",
        default=TOKENS_PER_MONTH_DEFAULT,
    ),
    Quantity(
        "traffic_growth_pct_per_month",
        "Pertumbuhan lalu lintas per bulan",
        "Traffic growth per month",
        "Compound growth of the tokens per month, month on month (negative when traffic shrinks). It moves the "
        "month the fleet runs out of capacity, the API's cumulative cost and the break-even; the fleet, the "
        "cost per token and the TCO stay sized for today's traffic.",
        "Buku, Bab hybrid: skenario startup dengan pertumbuhan traffic 10-20%/bulan",
        default=0,
    ),
    Quantity(
        "requests_per_day",
        "Permintaan per hari",
        "Requests per day",
        "Tokens per month ÷ days per month ÷ (prompt + output tokens); with concurrent users at the peak, their "
        "request rate × active hours × 3,600 s ÷ the peak ÷ average ratio (the peak hour is theirs, the other "
        "active hours average a peak-to-average share of it). Type a request count to use it instead.",
        BOOK_CAP + "; Little's law",
        expr=IF(
            R("peak_concurrent_users") > 0,
            safe_div(R("users_requests_per_s") * R("active_hours_per_day") * 3600, R("peak_to_average_ratio")),
            safe_div(R("tokens_per_month"), R("month_days") * (R("prompt_tokens") + R("output_tokens"))),
        ),
        overridable=True,
    ),
    Quantity(
        "input_tokens_per_month",
        "Token input per bulan",
        "Input tokens per month",
        "Requests per day × days per month × prompt tokens.",
        BOOK_CAP,
        expr=R("requests_per_day") * R("month_days") * R("prompt_tokens"),
    ),
    Quantity(
        "output_tokens_per_month",
        "Token output per bulan",
        "Output tokens per month",
        "Requests per day × days per month × output tokens.",
        BOOK_CAP,
        expr=R("requests_per_day") * R("month_days") * R("output_tokens"),
    ),
    Quantity(
        "demand_tokens_per_month",
        "Token kebutuhan per bulan (input + output)",
        "Demand tokens per month (input + output)",
        "Input + output tokens per month: what an API would bill.",
        BOOK_CAP,
        expr=R("input_tokens_per_month") + R("output_tokens_per_month"),
    ),
    lookup("active_hours_per_day", "workload", "active_hours_per_day", fallback=12),
    Quantity(
        "peak_to_average_ratio",
        "Rasio puncak ÷ rata-rata",
        "Peak ÷ average ratio",
        "Busiest hour's request rate ÷ the active hours' average rate; the fleet is sized for the peak.",
        "Assumption: 2 (measure it from your gateway's request log)",
        default=2,
    ),
    Quantity(
        "average_requests_per_s",
        "Permintaan per detik (rata-rata jam aktif)",
        "Requests per second (active-hours average)",
        "Requests per day ÷ (active hours × 3,600 s).",
        BOOK_CAP,
        expr=safe_div(R("requests_per_day"), R("active_hours_per_day") * 3600),
    ),
    lookup("sla_ttft_s", "workload", "sla_ttft_s", fallback=2),
    lookup("sla_tpot_ms", "workload", "sla_tpot_ms", fallback=100),
    Quantity(
        "peak_concurrent_users",
        "Pengguna bersamaan saat puncak",
        "Concurrent users at the peak",
        "Users with a request open or about to send one in the busiest hour (0 = the demand comes from the tokens "
        "per month instead). Each sends its next request when the answer ends plus the think time; the requests "
        "per day, the monthly tokens and the money follow from them.",
        "Little's law (L = λ × W): Little 1961",
        default=0,
    ),
    Quantity(
        "think_time_s",
        "Waktu jeda pengguna",
        "User think time",
        "Seconds a user waits between receiving an answer and sending the next request (0 = a load test's "
        "concurrency: always a request in flight).",
        "Assumption: 0 (a closed-loop benchmark); people chatting take tens of seconds",
        default=0,
    ),
    Quantity(
        "users_requests_per_s",
        "Permintaan per detik dari pengguna puncak",
        "Requests per second of the peak users",
        "Concurrent users at the peak ÷ (think time + TTFT target + output tokens × TPOT target): the rate at which "
        "they send requests while answers arrive at the promised latency (0 without concurrent users).",
        "Little's law (L = λ × W): Little 1961",
        expr=safe_div(
            R("peak_concurrent_users"),
            R("think_time_s") + R("sla_ttft_s") + R("output_tokens") * R("sla_tpot_ms") / 1000,
        ),
    ),
    Quantity(
        "peak_requests_per_s",
        "Permintaan per detik (puncak)",
        "Requests per second (peak)",
        "Average rate × peak ÷ average ratio.",
        BOOK_CAP,
        expr=R("average_requests_per_s") * R("peak_to_average_ratio"),
    ),
)
