"""Workload: the demand in requests with prompt and output tokens, when it arrives, and the latency promised."""

from __future__ import annotations

from kalkulator.engine.expr import EQ, IF, INDEX, MAX, Col, R, safe_div
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
        doc_id=(
            "Jenis pemakaian: menentukan token prompt dan output, porsi prefix cache, target latensi "
            "dan jam aktif (masing-masing tetap bisa diganti dengan angka yang diisi)."
        ),
        source_id=("Katalog profil beban kerja (assumptions/workloads.csv); buku, bab 5 dan bagian agentic/multimodal"),
    ),
    row_of(
        "workload",
        "workload_name",
        "Baris profil beban kerja",
        "Workload preset row",
        doc_id=("Posisi workload_name yang dipilih di katalog profil beban kerja (0 = tidak ada di katalog)."),
        source_id="Katalog profil beban kerja",
    ),
    lookup(
        "text_prompt_tokens",
        "workload",
        "text_prompt_tokens",
        fallback=1000,
        doc_id=(
            "Teks yang ditambahkan satu permintaan ke prompt: seluruh prompt permintaan tunggal, atau "
            "pesan baru / hasil tool pada satu langkah agen. Dari profil beban kerja."
        ),
    ),
    lookup(
        "request_images",
        "workload",
        "images_per_request",
        doc_id=("Gambar yang dikirim bersama setiap permintaan (setiap langkah agen), dari profil beban kerja."),
    ),
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
        doc_id=(
            "Token hasil vision encoder untuk satu gambar: (sisi gambar ÷ sisi patch)², mis. CLIP "
            "ViT-L/14 pada 336 px: (336 ÷ 14)² = 24 × 24 = 576. Dari encoder visi yang dipilih, selain "
            "itu dari profil beban kerja."
        ),
    ),
    Quantity(
        "step_input_tokens",
        "Token input baru per permintaan/langkah",
        "New input tokens per request/step",
        "New text + images × tokens per image.",
        "Buku, bagian multimodal (token visual ditambahkan ke prompt)",
        expr=R("text_prompt_tokens") + R("request_images") * R("image_tokens"),
        doc_id="Teks baru + gambar × token per gambar.",
    ),
    lookup(
        "session_steps",
        "workload",
        "session_steps",
        fallback=1,
        doc_id=(
            "Panggilan model dalam satu sesi: tool call agen dan jawabannya (1 = permintaan tunggal). "
            "Setiap langkah mengirim ulang system prompt, definisi tool dan semua langkah sebelumnya. "
            "Dari profil beban kerja."
        ),
    ),
    lookup(
        "arrival_cv_ratio",
        "workload",
        "arrival_cv_ratio",
        fallback=1,
        doc_id=(
            "Koefisien variasi jarak antar-kedatangan permintaan (1 = Poisson, banyak pengguna independen; di "
            "atas 1 = lalu lintas bergerombol), dari profil beban kerja."
        ),
    ),
    lookup(
        "tool_definition_tokens",
        "workload",
        "tool_definition_tokens",
        doc_id=(
            "System prompt dan definisi tool (JSON schema) yang dikirim di setiap langkah sesi, dari "
            "profil beban kerja."
        ),
    ),
    Quantity(
        "language_name",
        "Bahasa teks",
        "Text language",
        "Language of the prompts and answers: sets the tokens per word.",
        "Buku, Bab 1 (estimasi token per bahasa)",
        default="Indonesia",
        options=("Indonesia", "English"),
        doc_id="Bahasa prompt dan jawaban: menentukan token per kata.",
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
        doc_id=(
            "Bahasa Indonesia ≈ 1,5 (aturan buku: 500 kata × 1,5 = 750 token), bahasa Inggris ≈ 1,3 "
            "(aturan OpenAI: 100 token ≈ 75 kata); bergantung pada tokenizer: hitung teks Anda sendiri "
            "untuk menggantinya."
        ),
        source_id="Buku, bab 1 (500 kata × 1,5 = 750 token); bahasa Inggris: panduan token OpenAI (≈ 1,33)",
    ),
    Quantity(
        "tokens_per_month",
        "Token per bulan (kebutuhan)",
        "Tokens per month (demand)",
        "Tokens your users send and receive per month (input + output); turned into requests below.",
        "Assumption: a small team's assistant (the book's example uses 500 M)",
        default=TOKENS_PER_MONTH_DEFAULT,
        doc_id=(
            "Token yang dikirim dan diterima pengguna Anda per bulan (input + output); di bawah diubah "
            "menjadi jumlah permintaan."
        ),
        source_id=(
            "Asumsi: asisten untuk tim kecil (contoh perusahaan menengah dan retail di buku memakai 500 "
            "juta token/bulan)"
        ),
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
        doc_id=(
            "Pertumbuhan majemuk token per bulan, bulan ke bulan (negatif bila lalu lintas turun). "
            "Mengubah bulan armada kehabisan kapasitas, biaya kumulatif API dan break-even; armada, "
            "biaya per token dan TCO tetap dihitung untuk lalu lintas hari ini."
        ),
        source_id="Buku, studi kasus startup Bandung: traffic naik 10-20% per bulan",
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
        doc_id=(
            "Token per bulan ÷ hari per bulan ÷ (token prompt + output); dengan pengguna bersamaan saat "
            "puncak, laju permintaan mereka × jam aktif × 3.600 detik ÷ rasio puncak ÷ rata-rata (jam "
            "puncak milik mereka, jam aktif lain rata-rata sebesar porsi itu). Isi jumlah permintaan "
            "untuk memakainya langsung."
        ),
        source_id="Buku, bab 11.3 (pengguna bersamaan) dan bab 16.1 (token per hari)",
    ),
    Quantity(
        "input_tokens_per_month",
        "Token input per bulan",
        "Input tokens per month",
        "Requests per day × days per month × prompt tokens.",
        BOOK_CAP,
        expr=R("requests_per_day") * R("month_days") * R("prompt_tokens"),
        doc_id="Permintaan per hari × hari per bulan × token prompt.",
        source_id="Buku, bab 16.1 dan 17.2 (token input dan output)",
    ),
    Quantity(
        "output_tokens_per_month",
        "Token output per bulan",
        "Output tokens per month",
        "Requests per day × days per month × output tokens.",
        BOOK_CAP,
        expr=R("requests_per_day") * R("month_days") * R("output_tokens"),
        doc_id="Permintaan per hari × hari per bulan × token output.",
        source_id="Buku, bab 16.1 dan 17.2 (token input dan output)",
    ),
    Quantity(
        "demand_tokens_per_month",
        "Token kebutuhan per bulan (input + output)",
        "Demand tokens per month (input + output)",
        "Input + output tokens per month: what an API would bill.",
        BOOK_CAP,
        expr=R("input_tokens_per_month") + R("output_tokens_per_month"),
        doc_id="Token input + output per bulan: yang akan ditagih API.",
        source_id="Buku, bab 17.2 (biaya API per token)",
    ),
    lookup(
        "active_hours_per_day",
        "workload",
        "active_hours_per_day",
        fallback=12,
        doc_id="Jam per hari saat permintaan datang (jam kantor: sekitar 10), dari profil beban kerja.",
        source_id="Profil beban kerja; asumsi: jam kerja ditambah pemakaian malam (buku: retail 13 jam aktif)",
    ),
    Quantity(
        "peak_to_average_ratio",
        "Rasio puncak ÷ rata-rata",
        "Peak ÷ average ratio",
        "Busiest hour's request rate ÷ the active hours' average rate; the fleet is sized for the peak.",
        "Assumption: 2 (measure it from your gateway's request log)",
        default=2,
        doc_id=(
            "Laju permintaan di jam tersibuk ÷ rata-rata laju selama jam aktif; armada dihitung untuk beban puncak."
        ),
        source_id="Asumsi: 2 (ukur dari log permintaan gateway Anda)",
    ),
    Quantity(
        "average_requests_per_s",
        "Permintaan per detik (rata-rata jam aktif)",
        "Requests per second (active-hours average)",
        "Requests per day ÷ (active hours × 3,600 s).",
        BOOK_CAP,
        expr=safe_div(R("requests_per_day"), R("active_hours_per_day") * 3600),
        doc_id="Permintaan per hari ÷ (jam aktif × 3.600 detik).",
        source_id="Buku, bab 4 (throughput) dan bab 11.3",
    ),
    lookup(
        "sla_ttft_s",
        "workload",
        "sla_ttft_s",
        fallback=2,
        doc_id=(
            "Rata-rata waktu tunggu token pertama terlama yang masih diterima pada jam puncak, dari profil beban kerja."
        ),
        source_id="Buku, bab 5: di atas 2 detik pengguna mulai kehilangan fokus",
    ),
    Quantity(
        "max_quality_loss_frac",
        "Batas penurunan kualitas",
        "Quality loss allowed",
        "The largest published quality loss of the weight format this workload accepts (max_quality_loss_pct of "
        "the workload preset ÷ 100; 0.08 without a preset); `plan` leaves out formats above it.",
        "Workload presets: column max_quality_loss_pct (its basis in source)",
        expr=IF(R("workload_row") > 0, INDEX(Col("workload", "max_quality_loss_pct"), R("workload_row")) / 100, 0.08),
        overridable=True,
        doc_id="Penurunan kualitas terbesar yang dipublikasikan yang diterima beban kerja ini (max_quality_loss_pct "
        "profil beban kerja ÷ 100; 0,08 tanpa profil); `plan` membuang format di atasnya.",
        source_id="Profil beban kerja: kolom max_quality_loss_pct (dasarnya di kolom source)",
    ),
    lookup(
        "sla_tpot_ms",
        "workload",
        "sla_tpot_ms",
        fallback=100,
        doc_id=(
            "Waktu per token output terlama yang masih diterima pada jam puncak (100 ms = 10 tok/s per "
            "pengguna; buku menyarankan 20–30 tok/s untuk aplikasi interaktif), dari profil beban "
            "kerja."
        ),
        source_id="Buku, bab 5: ambang 20–30 tok/s untuk aplikasi interaktif",
    ),
    Quantity(
        "total_users",
        "Jumlah pengguna (karyawan)",
        "Users (employees)",
        "People who use the service (e.g. employees with access); with the share active at the peak they give the "
        "concurrent users at the peak (0 = the demand comes from the tokens per month).",
        "Book L2093 (50 employees), L2161 (1,000 concurrent users × 10 responses an hour × 13 active hours)",
        default=0,
        doc_id=(
            "Orang yang memakai layanan (mis. karyawan yang punya akses); bersama porsi yang aktif saat "
            "puncak menjadi pengguna bersamaan saat puncak (0 = kebutuhan dari token per bulan)."
        ),
        source_id="Buku L2093 ('50 karyawan'), L2161 ('1000 concurrent user × … 10 response/jam × 13 jam aktif')",
    ),
    lookup(
        "peak_active_share_frac",
        "workload",
        "peak_active_share_frac",
        fallback=0.25,
        doc_id=(
            "Porsi pengguna yang aktif memakai layanan pada jam tersibuk (mengirim permintaan dalam jam "
            "itu), dari profil beban kerja."
        ),
        source_id="Profil beban kerja (kolom peak_active_share_frac, sumbernya di baris profil)",
    ),
    Quantity(
        "peak_concurrent_users",
        "Pengguna bersamaan saat puncak",
        "Concurrent users at the peak",
        "Users × share active at the peak: the people using the service in the busiest hour (0 = the demand comes "
        "from the tokens per month instead). Each sends a request every 3,600 ÷ requests per user per hour seconds "
        "(at most one in flight); the requests per day, the monthly tokens and the money follow from them. Type a "
        "count to use it instead.",
        "Book L2161 (1,000 concurrent users × 500 tokens a response × 10 responses an hour × 13 active hours); "
        "Little 1961",
        expr=R("total_users") * R("peak_active_share_frac"),
        overridable=True,
        doc_id=(
            "Pengguna × porsi yang aktif saat puncak: orang yang memakai layanan pada jam tersibuk (0 = "
            "kebutuhan dari token per bulan). Tiap pengguna mengirim permintaan setiap 3.600 ÷ "
            "permintaan per pengguna per jam detik (paling banyak satu yang berjalan). Isi jumlah untuk "
            "memakainya langsung."
        ),
        source_id=(
            "Buku L2161 ('1000 concurrent user × 500 token/response × 10 response/jam × 13 jam aktif'); "
            "hukum Little (Little 1961)"
        ),
    ),
    lookup(
        "requests_per_user_per_hour",
        "workload",
        "requests_per_user_per_hour",
        fallback=10,
        doc_id=(
            "Permintaan yang dikirim satu pengguna aktif per jam (buku: 10 respons per jam; 0 = "
            "berturut-turut tanpa jeda, seperti pekerja batch), dari profil beban kerja."
        ),
        source_id="Buku L2161 (10 response/jam); profil beban kerja",
    ),
    Quantity(
        "think_time_s",
        "Waktu jeda pengguna",
        "User think time",
        "Seconds a user waits between receiving an answer and sending the next request: 3,600 ÷ requests per user "
        "per hour − (TTFT target + output tokens × TPOT target), at least 0; 0 when the requests per hour are 0 (a "
        "batch worker or a load test: always a request in flight). Type seconds to use them instead.",
        "Book L2161 (10 responses an hour); Little 1961",
        expr=IF(
            R("requests_per_user_per_hour") > 0,
            MAX(
                0,
                3600 / R("requests_per_user_per_hour")
                - (R("sla_ttft_s") + R("output_tokens") * R("sla_tpot_ms") / 1000),
            ),
            0,
        ),
        overridable=True,
        doc_id=(
            "Detik antara pengguna menerima jawaban dan mengirim permintaan berikutnya: 3.600 ÷ "
            "permintaan per pengguna per jam − (target TTFT + token output × target TPOT), minimal 0; 0 "
            "bila permintaan per jam 0 (pekerja batch atau uji beban: selalu ada permintaan berjalan). "
            "Isi detik untuk memakainya langsung."
        ),
        source_id="Buku L2161 (10 response/jam); hukum Little (Little 1961)",
    ),
    Quantity(
        "users_requests_per_s",
        "Permintaan per detik dari pengguna puncak",
        "Requests per second of the peak users",
        "Concurrent users at the peak ÷ (think time + TTFT target + output tokens × TPOT target): the rate at which "
        "they send requests while answers arrive at the promised latency (0 without concurrent users). A closed "
        "population: each user has at most one request in flight, so by Little's law the requests in flight never "
        "exceed the users.",
        "Little's law (L = λ × W): Little 1961",
        expr=safe_div(
            R("peak_concurrent_users"),
            R("think_time_s") + R("sla_ttft_s") + R("output_tokens") * R("sla_tpot_ms") / 1000,
        ),
        doc_id=(
            "Pengguna bersamaan saat puncak ÷ (waktu jeda + target TTFT + token output × target TPOT): "
            "laju permintaan mereka selama jawaban datang pada latensi yang dijanjikan (0 tanpa "
            "pengguna bersamaan). Populasi tertutup: tiap pengguna paling banyak punya satu permintaan "
            "berjalan, jadi menurut hukum Little permintaan yang berjalan tidak pernah melebihi jumlah "
            "pengguna."
        ),
        source_id="Hukum Little (L = λ × W): Little 1961",
    ),
    Quantity(
        "peak_requests_per_s",
        "Permintaan per detik (puncak)",
        "Requests per second (peak)",
        "Average rate × peak ÷ average ratio.",
        BOOK_CAP,
        expr=R("average_requests_per_s") * R("peak_to_average_ratio"),
        doc_id="Laju rata-rata × rasio puncak ÷ rata-rata.",
        source_id="Buku, bab 4 (throughput) dan bab 11.3",
    ),
)
