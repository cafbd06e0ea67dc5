"""Capacity: continuous-batching serving per replica, latency under load, the latency targets and the fleet.

A replica is `n_gpus` GPUs holding one copy of the model. Its capacity comes from the GPU time one request takes
when the engine runs its largest batch (prefill compute + its share of the decode steps), the latency at a load
from Little's law (decoding users) and an M/D/1 queue on prefill (DistServe, Zhong et al. 2024), and the fleet
from the peak load and the latency targets. Everything is closed-form so the workbook computes it live.
"""

from __future__ import annotations

from kalkulator.engine.expr import (
    AND,
    EQ,
    IF,
    IFERROR,
    LN,
    MAX,
    MIN,
    NOT,
    OR,
    ROUND,
    ROUNDDOWN,
    ROUNDUP,
    Msg,
    Node,
    R,
    safe_div,
)
from kalkulator.quantities.base import Quantity
from kalkulator.quantities.speed import (
    QUEUE_UNBOUNDED,
    decode_step,
    moe_weight_read_ms,
    prefill_busy_s,
    prefill_weight_read_s,
    weights_touched,
)

BOOK_BATCH = "Buku, Bab 11: continuous batching"
QUEUE = "M/D/1 queue on prefill (DistServe, Zhong et al. 2024); Little's law for decoding users"
PCT = "Allen–Cunneen G/D/1 mean wait (c_a² × M/D/1) with an exponential tail P(W > t) = ρ·exp(−t·ρ ÷ W̄)"
PCT_ID = "Rata-rata tunggu G/D/1 Allen–Cunneen (c_a² × M/D/1) dengan ekor eksponensial P(W > t) = ρ·exp(−t·ρ ÷ W̄)"
ROOFLINE = "Roofline model per request: weights once per step shared by the batch, every sequence's KV, all FLOPs"


NO_REPLICA = Msg(
    "Satu replika tidak dapat melayani satu permintaan: model atau konteks tidak muat (tambah n_gpus).",
    "One replica cannot serve a single request: the model or the context does not fit (raise n_gpus).",
)
TTFT_IN_BAND = Msg(
    "Target TTFT berada dalam pita galat perkiraan: prefill satu permintaan memakan antara ujung cepat dan ujung "
    "lambat (prefill_fast_s–prefill_slow_s), jadi target bisa tercapai atau tidak; armada dihitung untuk ujung "
    "lambat, yang melewati target (naikkan target, GPU lebih cepat atau prompt lebih pendek).",
    "TTFT target within the estimate's error band: one request's prefill takes between the fast and the slow end "
    "(prefill_fast_s–prefill_slow_s), so the target may or may not be met; the fleet is sized for the slow end, "
    "which misses it (a higher target, a faster GPU or shorter prompts).",
)
TTFT_BELOW_PREFILL = Msg(
    "Target TTFT lebih kecil dari waktu prefill satu permintaan tanpa antrean: tidak ada batch yang memenuhinya di "
    "GPU ini (GPU lebih cepat, tensor parallel, prompt lebih pendek atau prefix cache).",
    "The TTFT target is below one request's prefill time on an idle replica: no batch meets it on this GPU (a "
    "faster GPU, tensor parallel, shorter prompts or a prefix cache).",
)
TPOT_MISSED = Msg(
    "Target TPOT tidak tercapai bahkan oleh satu pengguna: GPU ini terlalu lambat untuk model ini.",
    "The TPOT target is missed even by a single user: this GPU is too slow for this model.",
)


def batch_at(load: Node) -> Node:
    """Decoding users at `load` requests/s (Little's law: users = load × output × TPOT(users) ÷ 1000, TPOT the
    decode step plus the prefill chunks it carries: step(users) + users × prefill per user)."""
    k = load * R("output_tokens") / 1000

    def line(base: str, per_user: str) -> Node:
        a, b = R(base), R(per_user) + R("prefill_per_user_ms")
        return IF(k * b < 1, safe_div(k * a, 1 - k * b), R("serving_batch_users"))

    return MIN(
        R("serving_batch_users"),
        MAX(
            line("memory_bound_step_base_ms", "memory_bound_step_per_user_ms"),
            line("compute_bound_step_base_ms", "compute_bound_step_per_user_ms"),
        ),
    )


def queue_parts(prefill: Node, service: Node) -> tuple[Node, Node]:
    """(stretched prefill, M/D/1 wait) at the replica's load for a prefill time D and service time S, d = S − D:
    D ÷ (1 − λd) and λD² ÷ (2(1 − λd)(1 − λS)); their sum is D(2 − λ(2S − D)) ÷ (2(1 − λ(S − D))(1 − λS))."""
    load = R("load_requests_per_s")
    stretch = 1 - load * (service - prefill)
    return prefill / stretch, load * prefill**2 / (2 * stretch * (1 - load * service))


def queue_ttft(prefill: Node, service: Node) -> Node:
    """Mean TTFT (s): the stretched prefill + the M/D/1 wait × c_a² (Allen–Cunneen for G/D/1 arrivals of
    coefficient of variation c_a; c_a = 1 gives the M/D/1 queue of DistServe)."""
    stretched, wait = queue_parts(prefill, service)
    return IF(R("load_requests_per_s") * service < 1, stretched + R("arrival_cv_ratio") ** 2 * wait, QUEUE_UNBOUNDED)


def queue_ttft_pct(prefill: Node, service: Node, pct: float | Node) -> Node:
    """TTFT (s) at percentile `pct`: stretched prefill + the wait's exponential tail P(W > t) = ρ·exp(−t·ρ ÷ W̄)
    (W̄ the Allen–Cunneen mean wait, so the conditional wait has mean W̄ ÷ ρ = c_a²·S' ÷ (2(1 − ρ))):
    t_p = W̄ ÷ ρ × ln(ρ ÷ (1 − p)) when ρ > 1 − p, else 0."""
    stretched, wait = queue_parts(prefill, service)
    rho = R("load_requests_per_s") * service
    tail = safe_div(R("arrival_cv_ratio") ** 2 * wait, rho) * LN(MAX(1, rho / MAX(1e-9, 1 - pct / 100)))
    return IF(rho < 1, stretched + tail, QUEUE_UNBOUNDED)


def ttft_root(wait_per_load: Node, wait_fixed: Node) -> Node:
    """Smaller root λ of T(1 − λd)(1 − λS) = D(1 − λS) + λ·a + b (T the TTFT target, D and S the slow-end prefill
    and service, d = S − D): the largest load whose TTFT meets the target when the wait is λa ÷ ((1 − λd)(1 − λS))
    + b ÷ ((1 − λd)(1 − λS)). 2C ÷ (B + √(B² − 4AC)), A = TdS, B = T(d + S) − DS + a, C = T − D − b; 0 when C ≤ 0."""
    t, d, s = R("sla_ttft_s"), R("sla_prefill_s"), R("sla_service_s")
    a_ = t * (s - d) * s
    b_ = t * (2 * s - d) - d * s + wait_per_load
    c_ = t - d - wait_fixed
    return IF(
        c_ > 0,
        safe_div(2 * c_, b_ + MAX(0, b_**2 - 4 * a_ * c_) ** 0.5, R("max_requests_per_s")),
        0,
    )


def _pct_terms() -> tuple[Node, Node, Node, Node, Node, Node]:
    """T, D, S, d = S − D, k = c_a²D² ÷ (2S) and 1 − p of the percentile sizing (slow-end prefill and service)."""
    t, d, s = R("sla_ttft_s"), R("sla_prefill_s"), R("sla_service_s")
    k = safe_div(R("arrival_cv_ratio") ** 2 * d**2, 2 * s)
    return t, d, s, s - d, k, MAX(1e-9, 1 - R("sla_percentile_pct") / 100)


def pct_gap(load: Node) -> Node:
    """F(λ) = (1 − λS)(T(1 − λd) − D) − k·ln(max(1, λS ÷ (1 − p))): TTFT at the percentile meets the target T while
    F ≥ 0 (the percentile formula times (1 − λd)(1 − λS)); F falls with λ and is convex above λS = 1 − p."""
    t, d, s, dd, k, q = _pct_terms()
    return (1 - load * s) * (t * (1 - load * dd) - d) - k * LN(MAX(1, load * s / q))


def pct_newton(load: Node) -> Node:
    """One Newton step on F from a load at or below its root: λ + F ÷ (−F′), F′ = −S(T(1 − λd) − D) − Td(1 − λS) −
    k ÷ λ. F being convex and falling there, the step stays at or below the root (0 stays 0)."""
    t, d, s, dd, k, _q = _pct_terms()
    slope = s * (t * (1 - load * dd) - d) + t * dd * (1 - load * s) + safe_div(k, load)
    return IF(load > 0, load + safe_div(pct_gap(load), slope), 0)


# z of the standard normal at p50, p95, p99 (any statistics table: Φ(1.6449) = 0.95, Φ(2.3263) = 0.99).
NORMAL_Z = {50: 0.0, 95: 1.6449, 99: 2.3263}


def tpot_pct(z: float) -> Node:
    """TPOT (ms) when the decoding users are z standard deviations above their mean: users N = arrivals within one
    answer's decode time, whose variance for renewal arrivals is ≈ c_a² × mean (Cox 1962, the counting process'
    index of dispersion), N_p = mean + z·c_a·√mean within the largest batch; the TPOT at load scaled by step(N_p) ÷
    step(mean)."""
    users = R("concurrent_users")
    high = MIN(R("serving_batch_users"), users + z * R("arrival_cv_ratio") * users**0.5)
    scaled = R("tpot_at_load_ms") * safe_div(decode_step(MAX(users, high)), decode_step(users), 1)
    return IF(R("prefill_time_frac") < 1, scaled, QUEUE_UNBOUNDED)  # as tpot_at_load_ms: no TPOT past capacity


def mean_context_step(users: Node) -> Node:
    """Decode step time (ms) for `users` sequences at the mean context (prompt + half the answer): the memory-bound
    line with each user's KV cache read at that length (÷ the bandwidth efficiency and the attention kernels' KV-read
    efficiency), the compute-bound line as in decode_step."""
    ratio = R("mean_context_ratio")
    per_user = (
        safe_div(R("decode_user_memory_ms") * ratio, R("decode_efficiency_frac") * R("kv_read_efficiency_frac"))
        + R("decode_user_overhead_ms") * ratio
        + R("multi_gpu_per_user_ms")
    )
    return MAX(
        R("memory_bound_step_base_ms")
        + per_user * users
        + safe_div(moe_weight_read_ms(users), R("decode_efficiency_frac")),
        R("compute_bound_step_base_ms") + R("compute_bound_step_per_user_ms") * users,
    )


def newton_step(k: int) -> Quantity:
    """The k-th Newton step of the percentile sizing, from the start (k = 1) or the step before."""
    before = "sla_ttft_pct_start_requests_per_s" if k == 1 else f"sla_ttft_pct_newton{k - 1}_requests_per_s"
    return Quantity(
        f"sla_ttft_pct_newton{k}_requests_per_s",
        f"Beban untuk target TTFT persentil, langkah Newton {k}",
        f"Load within the percentile TTFT target, Newton step {k}",
        "One Newton step on F from the load above: at or below the root, closer to it.",
        PCT,
        expr=pct_newton(R(before)),
        doc_id="Satu langkah Newton pada F dari beban di atas: sama atau di bawah akarnya, makin dekat.",
        source_id=PCT_ID,
    )


def _whole(x: Node) -> Node:
    """Round up to a whole number, ignoring float noise below 1e-9."""
    return ROUNDUP(ROUND(x, 9), 0)


def replicas_for(capacity: Node) -> Node:
    """Replicas the peak load needs at `capacity` requests/s each, rounded up (0 when the capacity is 0)."""
    return IF(capacity > 0, MAX(1, _whole(R("peak_requests_per_s") / capacity)), 0)


REPLICA = (
    Quantity(
        "serving_batch_users",
        "Batch maksimum per replika",
        "Largest batch per replica",
        "Requests whose KV cache (at prompt + output tokens) fits beside the weights, within the engine's limit.",
        BOOK_BATCH + "; vLLM PagedAttention",
        expr=IF(
            R("kv_cache_gb_per_user") > 0,
            MIN(R("engine_max_batch_users"), R("max_concurrent_users")),
            R("engine_max_batch_users"),
        ),
        doc_id=("Permintaan yang KV cache-nya (pada token prompt + output) muat di samping bobot, dalam batas mesin."),
        source_id="Buku, bab 11.2 (continuous batching, PagedAttention vLLM) dan bab 15.2",
    ),
    Quantity(
        "mean_context_tokens",
        "Konteks rata-rata selama decode",
        "Mean context while decoding",
        "Context − output ÷ 2: the KV cache grows from the prompt to prompt + output while the answer is written.",
        ROOFLINE,
        expr=MAX(0, R("context_tokens") - R("output_tokens") / 2),
        doc_id=("Konteks − output ÷ 2: KV cache tumbuh dari prompt menjadi prompt + output selama jawaban ditulis."),
        source_id=(
            "Model roofline per permintaan: bobot dibaca sekali per langkah untuk seluruh batch, KV "
            "setiap sekuens, semua FLOP"
        ),
    ),
    Quantity(
        "mean_context_ratio",
        "Konteks rata-rata ÷ konteks penuh",
        "Mean ÷ full context",
        "Scales the per-user KV reads and attention cost to the mean context (sliding windows ignored).",
        ROOFLINE,
        expr=safe_div(R("mean_context_tokens"), R("context_tokens")),
        doc_id=(
            "Menyesuaikan pembacaan KV dan biaya attention per pengguna ke konteks rata-rata (sliding "
            "window diabaikan)."
        ),
        source_id=(
            "Model roofline per permintaan: bobot dibaca sekali per langkah untuk seluruh batch, KV "
            "setiap sekuens, semua FLOP"
        ),
    ),
    Quantity(
        "request_decode_tflop",
        "Komputasi decode per permintaan",
        "Decode compute per request",
        "Output tokens × (2 × active params + 4 × layers × mean context × heads × head_dim).",
        "Kaplan et al. 2020",
        expr=R("output_tokens")
        * (
            2 * R("model_active_params_b") * 1e9
            + 4 * R("model_layers") * R("mean_context_tokens") * R("model_heads") * R("model_head_dim")
        )
        / 1e12,
        doc_id="Token output × (2 × parameter aktif + 4 × layer × konteks rata-rata × head × head_dim).",
        source_id="Kaplan dkk. 2020",
    ),
    Quantity(
        "serving_prefill_memory_s",
        "Waktu baca bobot prefill per permintaan pada beban penuh",
        "Prefill weight-read time per request at full load",
        "New prompt tokens ÷ chunk × share of the weights a full chunk reads × one read of the weights: at full "
        "load the engine packs the prompts of many requests into each chunk, so a short prompt pays its share of a "
        "chunk's read, not a whole read (an MoE chunk reads nearly every expert).",
        "Continuous batching packs prefill tokens of many requests per step (vLLM max_num_batched_tokens, "
        "TensorRT-LLM max_num_tokens, llama.cpp n_batch across slots); Mixtral, Jiang et al. 2024 for the experts",
        expr=IF(
            R("prefill_chunk_tokens") > 0,
            safe_div(R("prefill_new_tokens"), R("prefill_chunk_tokens"))
            * weights_touched(R("prefill_chunk_tokens"))
            * prefill_weight_read_s(),
            R("prefill_memory_s"),
        ),
        doc_id=(
            "Token prompt baru ÷ potongan × porsi bobot yang dibaca satu potongan penuh × satu kali baca "
            "bobot: pada beban penuh mesin mengemas prompt banyak permintaan ke setiap potongan, sehingga "
            "prompt pendek membayar bagiannya dari baca satu potongan, bukan satu baca penuh (potongan MoE "
            "membaca hampir semua expert)."
        ),
        source_id=(
            "Continuous batching mengemas token prefill banyak permintaan per langkah (vLLM "
            "max_num_batched_tokens, TensorRT-LLM max_num_tokens, llama.cpp n_batch lintas slot); Mixtral, "
            "Jiang dkk. 2024 untuk expert"
        ),
    ),
    Quantity(
        "serving_prefill_s",
        "Waktu prefill per permintaan pada beban penuh",
        "Prefill time per request at full load",
        "Prefill time × (the longer of compute and the packed weight read) ÷ (the longer of compute and one "
        "request's own weight read), each × the pipeline's share + the GPU exchanges: the replica time a prompt "
        "takes when it shares its chunks with other requests' prompts (a typed prefill speed is scaled alike).",
        ROOFLINE + "; continuous batching packs prompts into chunks",
        expr=safe_div(R("prefill_new_tokens"), R("prefill_tok_s"))
        * safe_div(prefill_busy_s(R("serving_prefill_memory_s")), prefill_busy_s(R("prefill_memory_s")), 1)
        + R("vision_encode_s"),
        doc_id=(
            "Waktu prefill × (komputasi atau baca bobot terkemas, mana yang lebih lama) ÷ (komputasi atau "
            "baca bobot permintaan itu sendiri, mana yang lebih lama), masing-masing × porsi pipeline + "
            "pertukaran antar-GPU: waktu replika untuk satu prompt yang berbagi potongan dengan prompt "
            "permintaan lain (kecepatan prefill yang diisi diskalakan sama)."
        ),
        source_id=(
            "Model roofline per permintaan: bobot dibaca sekali per langkah untuk seluruh batch, KV "
            "setiap sekuens, semua FLOP; continuous batching mengemas prompt ke dalam potongan"
        ),
    ),
    Quantity(
        "request_compute_s",
        "Waktu komputasi per permintaan",
        "Compute time per request",
        "Prefill time at full load + decode FLOPs ÷ usable FLOPS for weight multiplies.",
        ROOFLINE,
        expr=R("serving_prefill_s") + safe_div(R("request_decode_tflop"), R("matmul_tflops")),
        doc_id="Waktu prefill pada beban penuh + FLOP decode ÷ FLOPS terpakai untuk perkalian bobot.",
        source_id=(
            "Model roofline per permintaan: bobot dibaca sekali per langkah untuk seluruh batch, KV "
            "setiap sekuens, semua FLOP"
        ),
    ),
    Quantity(
        "request_memory_s",
        "Waktu baca memori per permintaan",
        "Memory time per request",
        "Output tokens × (weight reads ÷ batch + own KV reads at the mean context) ÷ bandwidth efficiency; an MoE "
        "batch reads the experts its sequences touch, at the engine's MoE kernel efficiency.",
        ROOFLINE,
        expr=R("output_tokens")
        * safe_div(
            safe_div(
                R("decode_fixed_memory_ms") + moe_weight_read_ms(R("serving_batch_users")),
                R("serving_batch_users"),
            )
            + R("decode_user_memory_ms") * R("mean_context_ratio"),
            R("decode_efficiency_frac"),
        )
        / 1000,
        doc_id=(
            "Token output × (pembacaan bobot ÷ batch + pembacaan KV sendiri pada konteks rata-rata) ÷ "
            "efisiensi bandwidth; batch MoE membaca expert yang disentuh sekuensnya, pada efisiensi "
            "kernel MoE mesin ini."
        ),
        source_id=(
            "Model roofline per permintaan: bobot dibaca sekali per langkah untuk seluruh batch, KV "
            "setiap sekuens, semua FLOP"
        ),
    ),
    Quantity(
        "request_fixed_s",
        "Biaya tetap per permintaan",
        "Fixed costs per request",
        "Output tokens × (per-step fixed costs ÷ batch + own attention cost at the mean context + own share of "
        "the GPU exchanges).",
        ROOFLINE + "; fitted by kalkulator calibrate",
        expr=R("output_tokens")
        * (
            safe_div(R("compute_bound_step_base_ms"), R("serving_batch_users"))
            + R("decode_user_overhead_ms") * R("mean_context_ratio")
            + R("multi_gpu_per_user_ms")
        )
        / 1000,
        doc_id=("Token output × (biaya tetap per langkah ÷ batch + biaya attention sendiri pada konteks rata-rata)."),
        source_id="Model roofline per permintaan; di-fit oleh kalkulator calibrate",
    ),
    Quantity(
        "request_gpu_s",
        "Waktu replika per permintaan",
        "Replica time per request",
        "Longer of memory and compute time + the serial share of the shorter + fixed costs (0 when nothing fits).",
        ROOFLINE + "; serial share fitted on TensorRT-LLM H100 runs",
        expr=IF(
            AND(R("serving_batch_users") >= 1, R("usable_hardware_flag")),
            MAX(R("request_memory_s"), R("request_compute_s"))
            + R("serving_serial_frac") * MIN(R("request_memory_s"), R("request_compute_s"))
            + R("request_fixed_s"),
            0,
        ),
        doc_id=(
            "Waktu memori atau komputasi yang lebih lama + porsi serial dari yang lebih singkat + biaya "
            "tetap (0 bila tidak ada yang muat)."
        ),
        source_id="Model roofline per permintaan; porsi serial di-fit pada pengukuran TensorRT-LLM di H100",
    ),
    Quantity(
        "max_requests_per_s",
        "Kapasitas maksimum per replika",
        "Maximum capacity per replica",
        "1 ÷ replica time per request: what trtllm-bench or vllm bench throughput reports at full load. "
        "Type a measured figure to use it.",
        ROOFLINE,
        expr=safe_div(1, R("request_gpu_s")),
        overridable=True,
        doc_id=(
            "1 ÷ waktu replika per permintaan: angka yang dilaporkan trtllm-bench atau vllm bench "
            "throughput pada beban penuh. Isi angka hasil ukur untuk memakainya."
        ),
        source_id="Model roofline per permintaan; buku, bab 11.3 dan 15.1",
    ),
    Quantity(
        "max_throughput_tok_s",
        "Throughput output maksimum per replika",
        "Maximum output throughput per replica",
        "Maximum requests per second × output tokens.",
        ROOFLINE,
        expr=R("max_requests_per_s") * R("output_tokens"),
        doc_id="Permintaan maksimum per detik × token output.",
        source_id="Model roofline per permintaan; buku, bab 15.1",
    ),
    Quantity(
        "service_s",
        "Waktu layanan per permintaan",
        "Service time per request",
        "1 ÷ maximum capacity, never below the prefill time: the replica time each request uses.",
        QUEUE,
        expr=MAX(R("prefill_s"), safe_div(1, R("max_requests_per_s"))),
        doc_id=(
            "1 ÷ kapasitas maksimum, tidak pernah di bawah waktu prefill: waktu replika yang dipakai setiap permintaan."
        ),
        source_id=(
            "Antrean M/D/1 pada prefill (DistServe, Zhong dkk. 2024); hukum Little untuk pengguna yang sedang decode"
        ),
    ),
    Quantity(
        "prefill_share_frac",
        "Porsi waktu untuk prefill",
        "Share of time spent on prefill",
        "Prefill time ÷ service time: splits the cost between input and output tokens.",
        ROOFLINE,
        expr=MIN(1, safe_div(R("prefill_s"), R("service_s"))),
        doc_id="Waktu prefill ÷ waktu layanan: membagi biaya antara token input dan output.",
        source_id=(
            "Model roofline per permintaan: bobot dibaca sekali per langkah untuk seluruh batch, KV "
            "setiap sekuens, semua FLOP"
        ),
    ),
    Quantity(
        "continuous_users_per_hour",
        "Pengguna per jam (continuous batching)",
        "Users per hour (continuous batching)",
        "Maximum requests per second × 3,600 per replica.",
        BOOK_BATCH + " 11.3 (dikoreksi)",
        expr=R("max_requests_per_s") * 3600,
        doc_id="Permintaan maksimum per detik × 3.600 per replika.",
        source_id="Buku, bab 11.3 (dikoreksi, lihat errata di Panduan)",
    ),
    Quantity(
        "static_users_per_hour",
        "Pengguna per jam (static batching)",
        "Users per hour (static batching)",
        "Static batching of the concurrent users: a batch of N prompts, then N answers at TPOT; the next batch "
        "waits (equal lengths; unequal ones waste more).",
        BOOK_BATCH + " 11.3 (dikoreksi: 8 × 3.600 ÷ 17,5 s = 1.646, bukan 37)",
        expr=safe_div(
            R("concurrent_users") * 3600,
            R("concurrent_users") * R("prefill_s") + R("output_tokens") * R("tpot_ms") / 1000,
        ),
        doc_id=(
            "Static batching untuk pengguna bersamaan: satu batch berisi N prompt, lalu N jawaban "
            "dengan TPOT; batch berikutnya menunggu (panjang sama; panjang berbeda membuang lebih "
            "banyak waktu)."
        ),
        source_id="Buku, bab 11.3 (dikoreksi: 8 × 3.600 ÷ 17,5 detik = 1.646, bukan 37)",
    ),
)

LOAD = (
    Quantity(
        "prefill_per_user_ms",
        "Prefill per pengguna per langkah (chunked prefill)",
        "Prefill per user and step (chunked prefill)",
        "1000 × prefill time ÷ output tokens: each decoding user's request brought a prompt whose prefill is "
        "spread over the decode steps of its answer, so every user adds this much to each step at steady load.",
        "Chunked prefill (Agrawal et al. 2024, Sarathi-Serve; vLLM --enable-chunked-prefill); Little's law",
        expr=safe_div(1000 * R("prefill_s"), R("output_tokens")),
        doc_id=(
            "1000 × waktu prefill ÷ token output: permintaan setiap pengguna yang sedang decode membawa "
            "prompt yang prefill-nya disebar ke langkah-langkah decode jawabannya, sehingga setiap "
            "pengguna menambah sebesar ini pada setiap langkah pada beban tetap."
        ),
        source_id=("Chunked prefill (Agrawal dkk. 2024, Sarathi-Serve; vLLM --enable-chunked-prefill); hukum Little"),
    ),
    Quantity(
        "prefill_time_frac",
        "Porsi waktu replika untuk prefill",
        "Share of the replica's time in prefill",
        "Load × prefill time: utilization × share of the service time spent on prefill.",
        QUEUE,
        expr=R("load_requests_per_s") * R("prefill_s"),
        doc_id="Beban × waktu prefill: utilisasi × porsi waktu layanan yang dipakai untuk prefill.",
        source_id="Antrean M/D/1 pada prefill (DistServe, Zhong dkk. 2024)",
    ),
    Quantity(
        "tpot_at_load_ms",
        "TPOT pada beban",
        "TPOT at load",
        "TPOT ÷ (1 − share of the replica's time in prefill): the decode steps carry the prefill chunks of the "
        "requests arriving meanwhile (at 80 % load with 60 % of the service in prefill: ÷ 0.52, 1.9× longer).",
        "Chunked prefill (Agrawal et al. 2024, Sarathi-Serve); " + QUEUE,
        expr=IF(R("prefill_time_frac") < 1, safe_div(R("tpot_ms"), 1 - R("prefill_time_frac")), QUEUE_UNBOUNDED),
        doc_id=(
            "TPOT ÷ (1 − porsi waktu replika untuk prefill): langkah decode membawa potongan prefill "
            "dari permintaan yang datang sementara itu (pada beban 80 % dengan 60 % layanan untuk "
            "prefill: ÷ 0,52, 1,9× lebih lama)."
        ),
        source_id="Chunked prefill (Agrawal dkk. 2024, Sarathi-Serve); antrean M/D/1 pada prefill",
    ),
    Quantity(
        "load_requests_per_s",
        "Beban per replika (puncak)",
        "Load per replica (peak)",
        "Peak requests per second ÷ replicas in the fleet. Type a rate to see the latency at that load.",
        QUEUE,
        expr=safe_div(R("peak_requests_per_s"), R("fleet_replicas")),
        overridable=True,
        doc_id=(
            "Permintaan per detik di jam puncak ÷ replika dalam armada. Isi laju tertentu untuk melihat "
            "latensi pada beban itu."
        ),
        source_id=(
            "Antrean M/D/1 pada prefill (DistServe, Zhong dkk. 2024); hukum Little untuk pengguna yang sedang decode"
        ),
    ),
    Quantity(
        "utilization_frac",
        "Utilisasi replika",
        "Replica utilization",
        "Load × service time: at 1 the queue grows without bound.",
        QUEUE,
        expr=R("load_requests_per_s") * R("service_s"),
        doc_id="Beban × waktu layanan: pada nilai 1 antrean tumbuh tanpa batas.",
        source_id="Antrean M/D/1 pada prefill (DistServe, Zhong dkk. 2024)",
    ),
    Quantity(
        "concurrent_users",
        "Pengguna bersamaan (decode)",
        "Concurrent users (decoding)",
        "Requests decoding at once at this load (Little's law, at least 1). Type a number to study a fixed batch.",
        QUEUE + "; " + BOOK_BATCH,
        expr=MAX(1, batch_at(R("load_requests_per_s"))),
        overridable=True,
        doc_id=(
            "Permintaan yang sedang di-decode bersamaan pada beban ini (hukum Little, minimal 1). Isi "
            "angka untuk mempelajari batch tetap."
        ),
        source_id="Hukum Little; antrean M/D/1 pada prefill (DistServe, Zhong dkk. 2024); buku, bab 11.2–11.3",
    ),
    Quantity(
        "ttft_s",
        "TTFT pada beban (di server, tanpa jaringan)",
        "TTFT at load (at the server, no network)",
        "Prefill time stretched by the decode work sharing the replica, plus the M/D/1 wait for the prefills ahead: "
        "D(2 − λ(2d + D)) ÷ (2(1 − λd)(1 − λS)), D prefill, d decode time per request, S = D + d.",
        QUEUE,
        expr=queue_ttft(R("prefill_s"), R("service_s")),
        doc_id=(
            "Waktu prefill yang diperpanjang oleh pekerjaan decode di replika yang sama, ditambah waktu "
            "tunggu M/D/1 untuk prefill di depannya: D(2 − λ(2d + D)) ÷ (2(1 − λd)(1 − λS)), D = waktu "
            "prefill, d = waktu decode per permintaan, S = D + d."
        ),
        source_id=("Antrean M/D/1 pada prefill (DistServe, Zhong dkk. 2024); buku, bab 3: TTFT ≈ prefill + antrean"),
    ),
    Quantity(
        "ttft_idle_s",
        "TTFT replika menganggur, termasuk jaringan",
        "TTFT on an idle replica, network included",
        "Network overhead + prefill time: the first token of a request that finds the replica idle (no queue, no "
        "other decoding users), what one person trying the box feels.",
        "Book, chapter 3: TTFT ≈ prefill time + network overhead + queue (here without the queue)",
        expr=R("network_overhead_ms") / 1000 + R("prefill_s"),
        doc_id=(
            "Overhead jaringan + waktu prefill: token pertama bagi permintaan yang mendapati replika "
            "menganggur (tanpa antrean, tanpa pengguna lain yang sedang decode), yang dirasakan satu orang "
            "yang mencoba mesin ini."
        ),
        source_id="Buku, bab 3: TTFT ≈ waktu prefill + overhead jaringan + antrean (di sini tanpa antrean)",
    ),
)

PCT_OUT = (
    Quantity(
        "sla_percentile_pct",
        "Persentil target TTFT",
        "Percentile of the TTFT target",
        'The share of requests that must meet the TTFT target at the peak (95: "p95 TTFT ≤ target", the usual '
        "form of a latency promise; the fleet also meets the target on average).",
        "Assumption: latency objectives are written as percentiles (Google SRE Book, ch. 4 Service Level "
        "Objectives: 'use percentiles', e.g. 99 % of requests under 100 ms)",
        default=95,
        doc_id=(
            'Porsi permintaan yang harus memenuhi target TTFT saat puncak (95: "p95 TTFT ≤ target", bentuk '
            "lazim janji latensi; armada juga memenuhi target rata-rata)."
        ),
        source_id="Asumsi: sasaran latensi ditulis sebagai persentil (Google SRE Book, bab 4 Service Level Objectives)",
    ),
    Quantity(
        "ttft_p50_s",
        "TTFT persentil ke-50",
        "TTFT, 50th percentile",
        "TTFT that 50 % of requests meet at this load: the stretched prefill + the wait's exponential tail "
        "(mean wait × c_a² ÷ ρ × ln(ρ ÷ (1 − 0.5)), 0 when ρ ≤ 0.5). Checked against a simulated "
        "queue in docs/accuracy.md.",
        PCT,
        expr=queue_ttft_pct(R("prefill_s"), R("service_s"), 50),
        doc_id=(
            "TTFT yang dipenuhi 50 % permintaan pada beban ini: prefill yang diperpanjang + ekor eksponensial "
            "waktu tunggu (rata-rata tunggu × c_a² ÷ ρ × ln(ρ ÷ (1 − 0.5)), 0 bila ρ ≤ 0.5). "
            "Diperiksa terhadap simulasi antrean di docs/accuracy.md."
        ),
        source_id=PCT_ID,
    ),
    Quantity(
        "ttft_p95_s",
        "TTFT persentil ke-95",
        "TTFT, 95th percentile",
        "TTFT that 95 % of requests meet at this load: the stretched prefill + the wait's exponential tail "
        "(mean wait × c_a² ÷ ρ × ln(ρ ÷ (1 − 0.95)), 0 when ρ ≤ 0.05). Checked against a simulated "
        "queue in docs/accuracy.md.",
        PCT,
        expr=queue_ttft_pct(R("prefill_s"), R("service_s"), 95),
        doc_id=(
            "TTFT yang dipenuhi 95 % permintaan pada beban ini: prefill yang diperpanjang + ekor eksponensial "
            "waktu tunggu (rata-rata tunggu × c_a² ÷ ρ × ln(ρ ÷ (1 − 0.95)), 0 bila ρ ≤ 0.05). "
            "Diperiksa terhadap simulasi antrean di docs/accuracy.md."
        ),
        source_id=PCT_ID,
    ),
    Quantity(
        "ttft_p99_s",
        "TTFT persentil ke-99",
        "TTFT, 99th percentile",
        "TTFT that 99 % of requests meet at this load: the stretched prefill + the wait's exponential tail "
        "(mean wait × c_a² ÷ ρ × ln(ρ ÷ (1 − 0.99)), 0 when ρ ≤ 0.01). Checked against a simulated "
        "queue in docs/accuracy.md.",
        PCT,
        expr=queue_ttft_pct(R("prefill_s"), R("service_s"), 99),
        doc_id=(
            "TTFT yang dipenuhi 99 % permintaan pada beban ini: prefill yang diperpanjang + ekor eksponensial "
            "waktu tunggu (rata-rata tunggu × c_a² ÷ ρ × ln(ρ ÷ (1 − 0.99)), 0 bila ρ ≤ 0.01). "
            "Diperiksa terhadap simulasi antrean di docs/accuracy.md."
        ),
        source_id=PCT_ID,
    ),
    Quantity(
        "tpot_p50_ms",
        "TPOT persentil ke-50",
        "TPOT, 50th percentile",
        "TPOT at load when the decoding users are at their 50th percentile: mean + 0 × c_a × √mean (the "
        "users are the arrivals within one answer's decode, variance ≈ c_a² × mean), within the largest batch. An "
        "upper bound: a request's TPOT averages the batch over its whole answer.",
        "Cox 1962 (Renewal Theory: variance of renewal counts ≈ c_a² × mean); Little's law; " + QUEUE,
        expr=tpot_pct(NORMAL_Z[50]),
        doc_id=(
            "TPOT pada beban saat pengguna yang sedang decode berada di persentil ke-50: rata-rata + 0 × c_a × "
            "√rata-rata (pengguna = kedatangan selama decode satu jawaban, varians ≈ c_a² × rata-rata), dalam "
            "batch terbesar. Batas atas: TPOT satu permintaan merata-ratakan batch sepanjang jawabannya."
        ),
        source_id="Cox 1962 (Renewal Theory: varians hitungan renewal ≈ c_a² × rata-rata); hukum Little",
    ),
    Quantity(
        "tpot_p95_ms",
        "TPOT persentil ke-95",
        "TPOT, 95th percentile",
        "TPOT at load when the decoding users are at their 95th percentile: mean + 1.645 × c_a × √mean (the "
        "users are the arrivals within one answer's decode, variance ≈ c_a² × mean), within the largest batch. An "
        "upper bound: a request's TPOT averages the batch over its whole answer.",
        "Cox 1962 (Renewal Theory: variance of renewal counts ≈ c_a² × mean); Little's law; " + QUEUE,
        expr=tpot_pct(NORMAL_Z[95]),
        doc_id=(
            "TPOT pada beban saat pengguna yang sedang decode berada di persentil ke-95: rata-rata + 1.645 × c_a × "
            "√rata-rata (pengguna = kedatangan selama decode satu jawaban, varians ≈ c_a² × rata-rata), dalam "
            "batch terbesar. Batas atas: TPOT satu permintaan merata-ratakan batch sepanjang jawabannya."
        ),
        source_id="Cox 1962 (Renewal Theory: varians hitungan renewal ≈ c_a² × rata-rata); hukum Little",
    ),
    Quantity(
        "tpot_p99_ms",
        "TPOT persentil ke-99",
        "TPOT, 99th percentile",
        "TPOT at load when the decoding users are at their 99th percentile: mean + 2.326 × c_a × √mean (the "
        "users are the arrivals within one answer's decode, variance ≈ c_a² × mean), within the largest batch. An "
        "upper bound: a request's TPOT averages the batch over its whole answer.",
        "Cox 1962 (Renewal Theory: variance of renewal counts ≈ c_a² × mean); Little's law; " + QUEUE,
        expr=tpot_pct(NORMAL_Z[99]),
        doc_id=(
            "TPOT pada beban saat pengguna yang sedang decode berada di persentil ke-99: rata-rata + 2.326 × c_a × "
            "√rata-rata (pengguna = kedatangan selama decode satu jawaban, varians ≈ c_a² × rata-rata), dalam "
            "batch terbesar. Batas atas: TPOT satu permintaan merata-ratakan batch sepanjang jawabannya."
        ),
        source_id="Cox 1962 (Renewal Theory: varians hitungan renewal ≈ c_a² × rata-rata); hukum Little",
    ),
)

SLA = (
    Quantity(
        "ttft_fast_s",
        "TTFT, ujung cepat",
        "TTFT, fast end",
        "TTFT at this load with the prefill at the fast end of its error band (service time shortened alike).",
        "kalkulator accuracy (leave-one-device-out, prompt rows); " + QUEUE,
        expr=queue_ttft(R("prefill_fast_s"), R("service_s") + R("prefill_fast_s") - R("prefill_s")),
        doc_id=("TTFT pada beban ini dengan prefill di ujung cepat pita galatnya (waktu layanan ikut memendek)."),
        source_id="kalkulator accuracy (satu perangkat disisihkan, baris prompt); antrean M/D/1 pada prefill",
    ),
    Quantity(
        "ttft_slow_s",
        "TTFT, ujung lambat",
        "TTFT, slow end",
        "TTFT at this load with the prefill at the slow end of its error band: what the fleet is sized for.",
        "kalkulator accuracy (leave-one-device-out, prompt rows); " + QUEUE,
        expr=queue_ttft(R("sla_prefill_s"), R("sla_service_s")),
        doc_id=(
            "TTFT pada beban ini dengan prefill di ujung lambat pita galatnya: yang dipakai untuk menentukan armada."
        ),
        source_id="kalkulator accuracy (satu perangkat disisihkan, baris prompt); antrean M/D/1 pada prefill",
    ),
    Quantity(
        "sla_prefill_s",
        "Waktu prefill untuk menentukan armada",
        "Prefill time the fleet is sized for",
        "The slow end of the prefill time: the fleet meets the TTFT target even when the prompt speed is at the "
        "low end of the held-out error band.",
        "kalkulator accuracy (leave-one-device-out, prompt rows)",
        expr=R("prefill_slow_s"),
        doc_id=(
            "Ujung lambat waktu prefill: armada memenuhi target TTFT meskipun kecepatan prompt berada "
            "di ujung bawah pita galat uji."
        ),
        source_id="kalkulator accuracy (satu perangkat disisihkan, baris prompt)",
    ),
    Quantity(
        "sla_service_s",
        "Waktu layanan untuk menentukan armada",
        "Service time the fleet is sized for",
        "Service time with the prefill at its slow end.",
        QUEUE,
        expr=R("service_s") + R("sla_prefill_s") - R("prefill_s"),
        doc_id="Waktu layanan dengan prefill pada ujung lambatnya.",
        source_id="Antrean M/D/1 pada prefill (DistServe, Zhong dkk. 2024)",
    ),
    Quantity(
        "ttft_band_flag",
        "Target TTFT di dalam pita galat?",
        "TTFT target inside the error band?",
        "TRUE when the TTFT target lies between the fast and the slow end of one request's prefill time: whether it "
        "is met depends on the estimate's error, not on the fleet.",
        "kalkulator accuracy (leave-one-device-out, prompt rows)",
        expr=AND(R("sla_ttft_s") >= R("prefill_fast_s"), R("sla_ttft_s") <= R("sla_prefill_s")),
        doc_id=(
            "TRUE bila target TTFT berada di antara ujung cepat dan ujung lambat waktu prefill satu "
            "permintaan: tercapai atau tidaknya bergantung pada galat perkiraan, bukan pada armada."
        ),
        source_id="kalkulator accuracy (satu perangkat disisihkan, baris prompt)",
    ),
    Quantity(
        "sla_ttft_mean_requests_per_s",
        "Beban maksimum untuk target TTFT (rata-rata)",
        "Largest load within the TTFT target (mean)",
        "Load at which the mean TTFT reaches its target (the smaller root of the TTFT formula set equal to the "
        "target, the wait × c_a²); 0 when even an idle replica is slower. Sized with the prefill at the slow end of "
        "its error band.",
        QUEUE + "; " + PCT,
        expr=ttft_root(R("arrival_cv_ratio") ** 2 * R("sla_prefill_s") ** 2 / 2, 0),
        doc_id=(
            "Beban saat TTFT rata-rata mencapai targetnya (akar terkecil rumus TTFT yang disamakan dengan "
            "target, waktu tunggu × c_a²); 0 bila replika yang menganggur pun lebih lambat."
        ),
        source_id="Antrean M/D/1 pada prefill (DistServe, Zhong dkk. 2024); " + PCT_ID,
    ),
    Quantity(
        "sla_ttft_pct_start_requests_per_s",
        "Beban untuk target TTFT persentil, titik awal",
        "Load within the percentile TTFT target, start",
        "0 when the target is not above the slow-end prefill. Else, when F(λ) (the percentile's gap to the target) "
        "is ≤ 0 at ρ = 1 − p, the root of TTFT = target without the tail (the percentile does not wait there); "
        "otherwise the larger of that point and the root with ln(ρ ÷ (1 − p)) taken at ρ = 1: both at or below the "
        "load sought, where Newton's steps start.",
        PCT,
        expr=IF(
            R("sla_ttft_s") > R("sla_prefill_s"),
            IF(
                pct_gap(safe_div(_pct_terms()[5], R("sla_service_s"), R("max_requests_per_s"))) <= 0,
                ttft_root(0, 0),
                MAX(
                    safe_div(_pct_terms()[5], R("sla_service_s"), R("max_requests_per_s")),
                    ttft_root(0, _pct_terms()[4] * LN(1 / _pct_terms()[5])),
                ),
            ),
            0,
        ),
        doc_id=(
            "0 bila target tidak di atas prefill ujung lambat. Selain itu, bila F(λ) (selisih persentil terhadap "
            "target) ≤ 0 pada ρ = 1 − p, akar TTFT = target tanpa ekor (persentil itu tidak menunggu); bila tidak, "
            "yang lebih besar dari titik itu dan akar dengan ln(ρ ÷ (1 − p)) pada ρ = 1: keduanya sama atau di "
            "bawah beban yang dicari, titik awal langkah Newton."
        ),
        source_id=PCT_ID,
    ),
    *(newton_step(k) for k in (1, 2, 3)),
    Quantity(
        "sla_ttft_pct_requests_per_s",
        "Beban maksimum untuk target TTFT persentil",
        "Largest load within the percentile TTFT target",
        "A fourth Newton step: at or below the load where TTFT at the chosen percentile (sla_percentile_pct) equals "
        "the target (within 0.1 % of it for percentiles up to 99), so the fleet it sizes meets it.",
        PCT,
        expr=MIN(R("max_requests_per_s"), pct_newton(R("sla_ttft_pct_newton3_requests_per_s"))),
        doc_id=(
            "Langkah Newton keempat: sama atau di bawah beban saat TTFT pada persentil yang dipilih "
            "(sla_percentile_pct) sama dengan target (dalam 0,1 % untuk persentil sampai 99), jadi armadanya "
            "memenuhinya."
        ),
        source_id=PCT_ID,
    ),
    Quantity(
        "sla_ttft_requests_per_s",
        "Beban maksimum untuk target TTFT",
        "Largest load within the TTFT target",
        "The smaller of the loads where the mean TTFT and TTFT at the chosen percentile reach the target: the "
        "promise holds at that percentile and on average (at a light load the 95th percentile can lie below the "
        "mean, when most requests do not wait).",
        QUEUE + "; " + PCT,
        expr=MIN(R("sla_ttft_mean_requests_per_s"), R("sla_ttft_pct_requests_per_s")),
        doc_id=(
            "Yang lebih kecil dari beban saat TTFT rata-rata dan TTFT pada persentil yang dipilih mencapai target: "
            "janji berlaku pada persentil itu dan rata-rata (pada beban ringan persentil ke-95 bisa di bawah "
            "rata-rata, bila kebanyakan permintaan tidak menunggu)."
        ),
        source_id="Antrean M/D/1 pada prefill (DistServe, Zhong dkk. 2024); " + PCT_ID,
    ),
    Quantity(
        "sla_tpot_batch_users",
        "Batch maksimum untuk target TPOT",
        "Largest batch within the TPOT target",
        "Users per step before the TPOT at load (step time + users × prefill per user) passes the target, on both "
        "lines, within the largest batch.",
        "Buku, Bab 5 dan 11: TPOT naik dengan batch; chunked prefill (Sarathi-Serve)",
        expr=MAX(
            0,  # a target below the step's fixed part: no user meets it (not a negative batch)
            MIN(
                R("serving_batch_users"),
                safe_div(
                    R("sla_tpot_ms") - R("memory_bound_step_base_ms"),
                    R("memory_bound_step_per_user_ms") + R("prefill_per_user_ms"),
                    R("serving_batch_users"),
                ),
                safe_div(
                    R("sla_tpot_ms") - R("compute_bound_step_base_ms"),
                    R("compute_bound_step_per_user_ms") + R("prefill_per_user_ms"),
                    R("serving_batch_users"),
                ),
            ),
        ),
        doc_id=(
            "Jumlah pengguna per langkah sebelum waktu langkah melewati target TPOT (pada kedua garis), "
            "dalam batch terbesar."
        ),
        source_id="Buku, bab 3 (TPOT naik dengan jumlah permintaan bersamaan) dan bab 11.1",
    ),
    Quantity(
        "sla_tpot_requests_per_s",
        "Beban maksimum untuk target TPOT",
        "Largest load within the TPOT target",
        "That batch × 1000 ÷ (output tokens × its TPOT at load) (Little's law); 0 when one user alone is too slow.",
        QUEUE,
        expr=IF(
            R("sla_tpot_batch_users") >= 1,
            safe_div(
                1000 * R("sla_tpot_batch_users"),
                R("output_tokens")
                * (decode_step(R("sla_tpot_batch_users")) + R("sla_tpot_batch_users") * R("prefill_per_user_ms")),
                R("max_requests_per_s"),
            ),
            0,
        ),
        doc_id=(
            "Batch itu × 1000 ÷ (token output × waktu langkahnya) (hukum Little); 0 bila satu pengguna "
            "saja sudah terlalu lambat."
        ),
        source_id="Hukum Little",
    ),
    Quantity(
        "sla_max_requests_per_s",
        "Kapasitas per replika dalam target",
        "Capacity per replica within the targets",
        "The smaller of the two loads: the most requests per second one replica serves within both targets. "
        "Type a figure you measured at your targets to size the fleet with it.",
        QUEUE,
        expr=MIN(R("sla_ttft_requests_per_s"), R("sla_tpot_requests_per_s")),
        overridable=True,
        doc_id=(
            "Yang lebih kecil dari kedua beban: permintaan per detik terbanyak yang dilayani satu "
            "replika dalam kedua target. Isi angka hasil ukur Anda pada target tersebut untuk "
            "menghitung armada dengannya."
        ),
        source_id="Antrean M/D/1 pada prefill (DistServe, Zhong dkk. 2024); hukum Little",
    ),
    Quantity(
        "sla_max_concurrent_users",
        "Pengguna bersamaan dalam target (per replika)",
        "Concurrent users within the targets (per replica)",
        "Requests decoding at once at that load (Little's law).",
        QUEUE,
        expr=batch_at(R("sla_max_requests_per_s")),
        doc_id="Permintaan yang sedang di-decode bersamaan pada beban itu (hukum Little).",
        source_id="Hukum Little",
    ),
    Quantity(
        "sla_text",
        "Target latensi",
        "Latency targets",
        "Whether this GPU setup can meet the targets at all, and what to change when it cannot.",
        QUEUE,
        expr=IF(
            OR(R("serving_batch_users") < 1, NOT(R("usable_hardware_flag"))),
            NO_REPLICA,
            IF(
                R("ttft_band_flag"),
                TTFT_IN_BAND,
                IF(
                    R("sla_ttft_requests_per_s") <= 0,
                    TTFT_BELOW_PREFILL,
                    IF(R("sla_tpot_requests_per_s") <= 0, TPOT_MISSED, Msg("OK", "OK")),
                ),
            ),
        ),
        doc_id="Apakah konfigurasi GPU ini bisa memenuhi target, dan apa yang perlu diubah bila tidak.",
        source_id="Antrean M/D/1 pada prefill (DistServe, Zhong dkk. 2024); hukum Little",
    ),
)

FIXED_SRC = (
    "Closed loop at a fixed concurrency (vllm bench serve --max-concurrency, genai-perf --concurrency): each of the "
    "batch's requests brings one prompt per cycle, whose prefill (chunked prefill, Agrawal et al. 2024, "
    "Sarathi-Serve) stalls every decoding user"
)
FIXED_SRC_ID = (
    "Loop tertutup pada konkurensi tetap (vllm bench serve --max-concurrency, genai-perf --concurrency): setiap "
    "permintaan dalam batch membawa satu prompt per siklus, yang prefill-nya (chunked prefill, Agrawal dkk. 2024, "
    "Sarathi-Serve) menahan semua pengguna yang sedang decode"
)

FIXED = (
    Quantity(
        "fixed_batch_users",
        "Pengguna decode pada konkurensi tetap",
        "Decoding users at a fixed concurrency",
        "Concurrent users (the requests a benchmark keeps in flight), at most the largest batch: the rest wait in "
        "the queue for a slot (0 when not even one request fits).",
        FIXED_SRC,
        expr=IF(R("serving_batch_users") >= 1, MAX(1, MIN(R("concurrent_users"), R("serving_batch_users"))), 0),
        doc_id=(
            "Pengguna bersamaan (permintaan yang dijaga tetap berjalan oleh benchmark), paling banyak batch "
            "terbesar: sisanya menunggu slot di antrean (0 bila satu permintaan pun tidak muat)."
        ),
        source_id=FIXED_SRC_ID,
    ),
    Quantity(
        "fixed_step_ms",
        "Langkah decode pada konkurensi tetap",
        "Decode step at a fixed concurrency",
        "Decode step of those users with each one's KV cache at the mean context (prompt + half the answer), read "
        "at the attention kernels' KV-read efficiency: with many users × long contexts the KV reads, not the "
        "weights, set the step.",
        FIXED_SRC + "; " + ROOFLINE,
        expr=mean_context_step(R("fixed_batch_users")),
        doc_id=(
            "Langkah decode pengguna tersebut dengan KV cache masing-masing pada konteks rata-rata (prompt + "
            "separuh jawaban), dibaca pada efisiensi baca KV kernel attention: dengan banyak pengguna × konteks "
            "panjang, pembacaan KV, bukan bobot, yang menentukan langkah."
        ),
        source_id=FIXED_SRC_ID,
    ),
    Quantity(
        "fixed_cycle_s",
        "Siklus per permintaan pada konkurensi tetap",
        "Cycle per request at a fixed concurrency",
        "Decoding users × prefill time + output tokens × decode step: in one request's cycle every user of the "
        "batch sends one prompt, and each prompt's prefill (quadratic attention included) holds up the decode steps "
        "of all; long prompts make this share large (20K-token prompts: seconds per cycle).",
        FIXED_SRC,
        expr=R("fixed_batch_users") * R("prefill_s") + R("output_tokens") * R("fixed_step_ms") / 1000,
        doc_id=(
            "Pengguna decode × waktu prefill + token output × langkah decode: dalam satu siklus permintaan setiap "
            "pengguna batch mengirim satu prompt, dan prefill setiap prompt (termasuk attention kuadratik) menahan "
            "langkah decode semuanya; prompt panjang membuat porsi ini besar (prompt 20K token: beberapa detik "
            "per siklus)."
        ),
        source_id=FIXED_SRC_ID,
    ),
    Quantity(
        "fixed_stall_frac",
        "Porsi siklus tertahan prefill",
        "Share of the cycle stalled by prefills",
        "Decoding users × prefill time ÷ cycle: the share of a request's cycle in which the batch's prompts are "
        "prefilled and no decode step runs (0 when nothing fits).",
        FIXED_SRC,
        expr=safe_div(R("fixed_batch_users") * R("prefill_s"), R("fixed_cycle_s")),
        doc_id=(
            "Pengguna decode × waktu prefill ÷ siklus: porsi siklus satu permintaan saat prompt batch sedang "
            "di-prefill dan tidak ada langkah decode (0 bila tidak ada yang muat)."
        ),
        source_id=FIXED_SRC_ID,
    ),
    Quantity(
        "fixed_throughput_tok_s",
        "Throughput output pada konkurensi tetap",
        "Output throughput at a fixed concurrency",
        "Decoding users × output tokens ÷ cycle: what a benchmark at that concurrency reports as output token "
        "throughput (prefill stalls and long-context KV reads included; 0 when nothing fits).",
        FIXED_SRC,
        expr=IF(
            R("usable_hardware_flag"),
            safe_div(R("fixed_batch_users") * R("output_tokens"), R("fixed_cycle_s")),
            0,
        ),
        doc_id=(
            "Pengguna decode × token output ÷ siklus: yang dilaporkan benchmark pada konkurensi itu sebagai "
            "throughput token output (termasuk jeda prefill dan pembacaan KV konteks panjang; 0 bila tidak ada "
            "yang muat)."
        ),
        source_id=FIXED_SRC_ID,
    ),
    Quantity(
        "fixed_ttft_s",
        "TTFT pada konkurensi tetap",
        "TTFT at a fixed concurrency",
        "(Users + 1) ÷ 2 × prefill time + the wait for a slot when more requests are in flight than the batch holds "
        "((in flight − batch) × cycle ÷ batch). Requests of equal length, as benchmarks send them, end together and "
        "come back together: each wave's prompts are prefilled one after another, the k-th waits for k − 1 others.",
        FIXED_SRC + "; requests of equal length keep in step (one wave of prompts per cycle)",
        expr=(R("fixed_batch_users") + 1) / 2 * R("prefill_s")
        + IF(
            R("concurrent_users") > R("fixed_batch_users"),
            safe_div((R("concurrent_users") - R("fixed_batch_users")) * R("fixed_cycle_s"), R("fixed_batch_users")),
            0,
        ),
        doc_id=(
            "(Pengguna + 1) ÷ 2 × waktu prefill + tunggu slot bila permintaan yang berjalan lebih banyak dari batch "
            "((berjalan − batch) × siklus ÷ batch). Permintaan sama panjang, seperti dikirim benchmark, selesai "
            "bersama dan kembali bersama: prompt setiap gelombang di-prefill bergantian, yang ke-k menunggu k − 1 "
            "lainnya."
        ),
        source_id=FIXED_SRC_ID + "; permintaan sama panjang tetap seirama (satu gelombang prompt per siklus)",
    ),
    Quantity(
        "fixed_itl_ms",
        "Jeda antar-token pada konkurensi tetap",
        "Inter-token latency at a fixed concurrency",
        "1000 × (cycle − (users + 1) ÷ 2 × prefill time) ÷ output tokens: the decode steps plus the prefills of the "
        "wave after one's own first token, spread over the answer (mean ITL/TPOT of the benchmark).",
        FIXED_SRC + "; requests of equal length keep in step (one wave of prompts per cycle)",
        expr=safe_div(
            1000 * (R("fixed_cycle_s") - (R("fixed_batch_users") + 1) / 2 * R("prefill_s")), R("output_tokens")
        ),
        doc_id=(
            "1000 × (siklus − (pengguna + 1) ÷ 2 × waktu prefill) ÷ token output: langkah decode ditambah prefill "
            "gelombang yang sama sesudah token pertama sendiri, tersebar di sepanjang jawaban (rata-rata ITL/TPOT "
            "benchmark)."
        ),
        source_id=FIXED_SRC_ID + "; permintaan sama panjang tetap seirama (satu gelombang prompt per siklus)",
    ),
)

CLOSED = (
    "Closed population (finite source): N users have at most N requests in flight; a user never queues behind "
    "themselves"
)


FLEET = (
    Quantity(
        "closed_replica_users",
        "Pengguna per replika, semua mengirim bersamaan",
        "Users per replica, all sending at once",
        "Users one replica serves within both targets even when all of them send a request at the same moment: the "
        "last prompt waits for the others' prefills (users × prefill time at the slow end ≤ TTFT target) and all "
        "decode together (≤ the largest batch within the TPOT target). 0 when not even one fits.",
        CLOSED,
        expr=MAX(
            0,
            MIN(
                ROUNDDOWN(ROUND(R("sla_tpot_batch_users"), 9), 0),
                ROUNDDOWN(ROUND(safe_div(R("sla_ttft_s"), R("sla_prefill_s")), 9), 0),
            ),
        ),
        doc_id=(
            "Pengguna yang dilayani satu replika dalam kedua target meskipun semuanya mengirim "
            "permintaan pada saat yang sama: prompt terakhir menunggu prefill yang lain (pengguna × "
            "waktu prefill ujung lambat ≤ target TTFT) dan semuanya di-decode bersama (≤ batch terbesar "
            "dalam target TPOT). 0 bila satu pun tidak muat."
        ),
        source_id=(
            "Populasi tertutup (sumber terbatas): N pengguna paling banyak punya N permintaan berjalan; "
            "pengguna tidak pernah mengantre di belakang dirinya sendiri"
        ),
    ),
    Quantity(
        "closed_requests_per_s",
        "Kapasitas per replika, populasi tertutup",
        "Capacity per replica, closed population",
        "Users per replica, all sending at once × each user's request rate at the peak (peak requests per second ÷ "
        "users at the peak): what one replica serves when it holds that many users (0 without users at the peak).",
        CLOSED,
        expr=IF(
            R("peak_concurrent_users") > 0,
            safe_div(R("closed_replica_users") * R("peak_requests_per_s"), R("peak_concurrent_users")),
            0,
        ),
        doc_id=(
            "Pengguna per replika (semua mengirim bersamaan) × laju permintaan tiap pengguna saat puncak "
            "(permintaan per detik puncak ÷ pengguna saat puncak): yang dilayani satu replika bila "
            "menampung pengguna sebanyak itu (0 tanpa pengguna saat puncak)."
        ),
        source_id=(
            "Populasi tertutup (sumber terbatas): N pengguna paling banyak punya N permintaan berjalan; "
            "pengguna tidak pernah mengantre di belakang dirinya sendiri"
        ),
    ),
    Quantity(
        "fleet_sla_requests_per_s",
        "Kapasitas per replika untuk armada",
        "Capacity per replica for the fleet",
        "Capacity per replica within the targets (the open M/D/1 queue), or the closed population's when that is "
        "larger: Poisson arrivals assume endless users, while N users have at most N requests in flight, so a "
        "replica that holds its users even when all send at once needs no room for a longer queue (one user on one "
        "replica never waits). The open figure when the targets cannot be met or there are no users at the peak.",
        QUEUE + "; " + CLOSED,
        expr=IF(
            AND(R("sla_max_requests_per_s") > 0, R("closed_replica_users") >= 1),
            MAX(R("sla_max_requests_per_s"), R("closed_requests_per_s")),
            R("sla_max_requests_per_s"),
        ),
        doc_id=(
            "Kapasitas per replika dalam target (antrean terbuka M/D/1), atau milik populasi tertutup "
            "bila lebih besar: kedatangan Poisson mengandaikan pengguna tak terbatas, sedangkan N "
            "pengguna paling banyak punya N permintaan berjalan, jadi replika yang menampung "
            "penggunanya meskipun semua mengirim bersamaan tidak perlu ruang untuk antrean lebih panjang "
            "(satu pengguna di satu replika tidak pernah menunggu). Angka antrean terbuka bila target "
            "tak tercapai atau tanpa pengguna saat puncak."
        ),
        source_id=("Antrean M/D/1 pada prefill (DistServe, Zhong dkk. 2024); populasi tertutup (sumber terbatas)"),
    ),
    Quantity(
        "replicas_needed",
        "Replika yang dibutuhkan",
        "Replicas needed",
        "Peak requests per second ÷ capacity per replica for the fleet, rounded up (0 = targets not reachable). "
        "With users at the peak never more than users ÷ users per replica (all sending at once), rounded up.",
        QUEUE + "; " + CLOSED,
        expr=replicas_for(R("fleet_sla_requests_per_s")),
        doc_id=(
            "Permintaan per detik di jam puncak ÷ kapasitas per replika untuk armada, dibulatkan ke "
            "atas (0 = target tidak tercapai). Dengan pengguna saat puncak tidak pernah lebih dari "
            "pengguna ÷ pengguna per replika (semua mengirim bersamaan), dibulatkan ke atas."
        ),
        source_id=(
            "Antrean M/D/1 pada prefill (DistServe, Zhong dkk. 2024); hukum Little; populasi tertutup (sumber terbatas)"
        ),
    ),
    Quantity(
        "tpot_target_replicas",
        "Replika untuk target TPOT saja",
        "Replicas for the TPOT target alone",
        "Peak requests per second ÷ capacity per replica within the TPOT target, rounded up: the fleet a TTFT "
        "target with room for queueing would leave (compare with replicas needed).",
        QUEUE,
        expr=replicas_for(R("sla_tpot_requests_per_s")),
        doc_id=(
            "Permintaan per detik di jam puncak ÷ kapasitas per replika dalam target TPOT, dibulatkan ke "
            "atas: armada bila target TTFT memberi ruang untuk antrean (bandingkan dengan replika yang "
            "dibutuhkan)."
        ),
        source_id=(
            "Antrean M/D/1 pada prefill (DistServe, Zhong dkk. 2024); hukum Little untuk pengguna yang sedang decode"
        ),
    ),
    Quantity(
        "gpus_needed",
        "GPU yang dibutuhkan (armada)",
        "GPUs needed (fleet)",
        "(Replicas + spare replicas) × GPUs per replica (one replica when the targets cannot be met). Capex, "
        "power, rent and cloud hours use this fleet. Type a number to price a fleet you choose.",
        QUEUE,
        expr=(MAX(1, R("replicas_needed")) + R("spare_replicas")) * R("n_gpus"),
        overridable=True,
        doc_id=(
            "Replika × GPU per replika (satu replika bila target tidak tercapai). Capex, daya, sewa dan "
            "jam cloud memakai armada ini. Isi angka untuk menghitung armada pilihan Anda."
        ),
        source_id="Antrean M/D/1 pada prefill (DistServe, Zhong dkk. 2024); hukum Little",
    ),
    Quantity(
        "spare_replicas",
        "Replika cadangan (N+1)",
        "Spare replicas (N+1)",
        "Replicas bought, powered and paid for but kept out of the capacity, so the targets hold when one fails.",
        "Redundansi N+1 (buku: biaya HA/N+1)",
        default=0,
        doc_id=(
            "Replika yang dibeli, dinyalakan dan dibayar tetapi tidak dihitung sebagai kapasitas, agar "
            "target tetap terpenuhi saat satu replika rusak."
        ),
        source_id="Redundansi N+1 (buku: biaya HA/N+1)",
    ),
    Quantity(
        "fleet_hint_text",
        "Catatan armada",
        "Fleet note",
        "Says when the engine's batch limit, not the GPU, sets the number of replicas (blank otherwise, and blank "
        "when an input is not a number: the status says which).",
        QUEUE,
        expr=IFERROR(
            IF(
                AND(R("replicas_needed") > 1, EQ(R("serving_batch_users"), R("engine_max_batch_users"))),
                Msg(
                    "Batas batch mesin (engine_max_batch_users) yang menentukan jumlah replika: mesin dengan "
                    "batch lebih besar (vLLM, TensorRT-LLM, SGLang; atau --parallel lebih besar di llama.cpp) "
                    "butuh lebih sedikit GPU.",
                    "The engine's batch limit (engine_max_batch_users) sets the number of replicas: an engine that "
                    "batches more (vLLM, TensorRT-LLM, SGLang; or a larger --parallel in llama.cpp) needs fewer GPUs.",
                ),
                "",
            ),
            "",
        ),
        doc_id=(
            "Menyebut bila batas batch mesin, bukan GPU, yang menentukan jumlah replika (kosong bila tidak, dan "
            "kosong bila ada isian yang bukan angka: status menyebutnya)."
        ),
        source_id="Antrean dan batch per replika (lihat sheet TPS)",
    ),
    Quantity(
        "fleet_replicas",
        "Replika yang melayani",
        "Replicas serving",
        "Fleet GPUs ÷ GPUs per replica, rounded down, less the spare replicas; at least 1.",
        QUEUE,
        expr=MAX(1, ROUNDDOWN(ROUND(safe_div(R("gpus_needed"), R("n_gpus")), 9), 0) - R("spare_replicas")),
        doc_id="GPU armada ÷ GPU per replika, dibulatkan ke bawah, dikurangi replika cadangan; minimal 1.",
        source_id="Kapasitas armada",
    ),
    Quantity(
        "servers_needed",
        "Server yang dibutuhkan",
        "Servers needed",
        "Fleet GPUs ÷ the GPUs of whole replicas one server holds (8 per server with 4-GPU replicas: 8; with "
        "3-GPU replicas: 6), rounded up: a replica never spans two servers.",
        "Buku, Bab TCO",
        expr=MAX(
            1,
            _whole(
                safe_div(
                    R("gpus_needed"),
                    IF(
                        R("n_gpus") <= R("gpus_per_server"),
                        ROUNDDOWN(safe_div(R("gpus_per_server"), R("n_gpus")), 0) * R("n_gpus"),
                        R("gpus_per_server"),
                    ),
                )
            ),
        ),
        doc_id="GPU armada ÷ GPU dari replika utuh yang dimuat satu server (8 per server dengan replika 4 GPU: 8; "
        "dengan replika 3 GPU: 6), dibulatkan ke atas: satu replika tidak pernah melewati dua server.",
        source_id="Buku, subbab TCO 5 tahun",
    ),
    Quantity(
        "capacity_requests_per_day",
        "Kapasitas permintaan per hari",
        "Capacity in requests per day",
        "Replicas × capacity per replica for the fleet (or the maximum when they cannot be met) × active hours × 3,600 "
        "÷ peak-to-average ratio: the most daily requests with this traffic shape.",
        QUEUE,
        expr=R("fleet_replicas")
        * IF(R("fleet_sla_requests_per_s") > 0, R("fleet_sla_requests_per_s"), R("max_requests_per_s"))
        * R("active_hours_per_day")
        * 3600
        / MAX(1, R("peak_to_average_ratio")),
        doc_id=(
            "Replika × kapasitas per replika untuk armada (atau kapasitas maksimum bila target tak tercapai) × jam "
            "aktif × 3.600 ÷ rasio puncak ÷ rata-rata: permintaan harian terbanyak dengan pola lalu "
            "lintas ini."
        ),
        source_id="Antrean M/D/1 pada prefill (DistServe, Zhong dkk. 2024); hukum Little",
    ),
    Quantity(
        "served_requests_per_day",
        "Permintaan terlayani per hari",
        "Requests served per day",
        "The smaller of demand and capacity.",
        QUEUE,
        expr=MIN(R("requests_per_day"), R("capacity_requests_per_day")),
        doc_id="Yang lebih kecil dari kebutuhan dan kapasitas.",
        source_id="Kapasitas armada",
    ),
    Quantity(
        "served_frac",
        "Porsi kebutuhan yang terlayani",
        "Share of demand served",
        "Requests served ÷ requests (1 when there is no demand).",
        QUEUE,
        expr=safe_div(R("served_requests_per_day"), R("requests_per_day"), 1),
        doc_id="Permintaan terlayani ÷ permintaan (1 bila tidak ada kebutuhan).",
        source_id="Kapasitas armada",
    ),
    Quantity(
        "demand_capacity_frac",
        "Kebutuhan ÷ kapasitas",
        "Demand ÷ capacity",
        "Above 1 the fleet cannot serve the demand within the targets.",
        "Consistency check",
        expr=safe_div(R("requests_per_day"), R("capacity_requests_per_day")),
        doc_id="Di atas 1, armada tidak mampu melayani kebutuhan dalam target.",
        source_id="Pemeriksaan konsistensi",
    ),
)

QUANTITIES = (*REPLICA, *LOAD, *FIXED, *PCT_OUT, *SLA, *FLEET)
