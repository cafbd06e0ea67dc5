"""Scenario checks: the status sentence, and which money answers each problem makes untrustworthy.

Each check is written once, with a full sentence for `status_text` and a short phrase that replaces
a number in the answer block (a cost of a setup that cannot run is not an answer).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from kalkulator.catalog.domain import BIG, Domain
from kalkulator.engine.expr import (
    AND,
    EQ,
    IF,
    IFERROR,
    JOIN,
    NE,
    NOT,
    OR,
    ROUND,
    ROUNDDOWN,
    Msg,
    Node,
    R,
    call,
    lift,
    safe_div,
)
from kalkulator.quantities.base import Quantity
from kalkulator.quantities.domains import PLAUSIBLE_WHY_ID, domain_of, plausible_of, settable_numbers
from kalkulator.quantities.workload import TOKENS_PER_MONTH_DEFAULT

OK = Msg("OK", "OK")
# A TTFT target that lets a replica run at most this share of its capacity is said to size the fleet (status).
TTFT_IDLE_FRAC = 0.25


def capability_text(x: Node) -> Node:
    """A CUDA compute capability as NVIDIA writes it, with its one decimal: 7.0, not the 7 a spreadsheet's text
    join makes of 7.0 (whole part, a point, the tenths)."""
    whole = ROUNDDOWN(x, 0)
    return JOIN(whole, ".", ROUND((x - whole) * 10, 0))


@dataclass(frozen=True)
class Check:
    voids: str  # run (every serving and money answer) | money (every money answer) | price (on-premise) | cloud |
    # dedicated | warn (none)
    cond: Node
    sentence: Node | None  # None: a missing comparator (no offer in the catalog), said in its answer cell only
    short: Msg
    speed: bool = False  # also voids the speeds: nothing to run (no model, GPU or format), an engine that cannot run
    # it, or weights and cache that do not fit


# First failing check wins; each sentence says what to change.
CHECKS = (
    Check(
        "run",
        R("model_params_b") <= 0,
        Msg(
            "Pilih model dari katalog (atau isi parameternya di Isi manual).",
            "Choose a model from the catalog (or type its parameters as manual values).",
        ),
        Msg("pilih model", "choose a model"),
        speed=True,
    ),
    Check(
        "run",
        NOT(R("usable_hardware_flag")),
        Msg(
            "Pilih GPU dari katalog: bandwidth, FLOPS atau efisiensi bernilai 0, jadi kecepatan ditampilkan 0.",
            "Choose a GPU from the catalog: bandwidth, FLOPS or an efficiency is 0, so speeds show as 0.",
        ),
        Msg("pilih GPU", "choose a GPU"),
        speed=True,
    ),
    Check(
        "run",
        R("weight_bits_per_param") <= 0,
        Msg("Pilih kuantisasi dari katalog.", "Choose a quantization from the catalog."),
        Msg("pilih kuantisasi", "choose a quantization"),
        speed=True,
    ),
    Check(
        "run",
        NOT(R("engine_backend_flag")),
        JOIN(
            Msg("Mesin ", "The engine "),
            R("engine"),
            Msg(" tidak berjalan di backend ", " does not run on the "),
            R("gpu_backend"),
            Msg(
                " GPU ini: pilih mesin lain (llama.cpp berjalan di semua backend kecuali Intel Gaudi; di Gaudi: vLLM).",
                " backend of this GPU: choose another engine (llama.cpp runs on every backend but Intel Gaudi's; on "
                "Gaudi: vLLM).",
            ),
        ),
        Msg("mesin tidak mendukung GPU ini", "engine does not support this GPU"),
        speed=True,
    ),
    Check(
        "run",
        NOT(R("engine_format_flag")),
        JOIN(
            Msg("Mesin ", "The engine "),
            R("engine"),
            Msg(" tidak menjalankan format ", " does not run the "),
            R("quant_name"),
            Msg(
                " di GPU ini: pilih format lain (GGUF untuk llama.cpp; FP8, AWQ, GPTQ untuk vLLM).",
                " format on this GPU: choose another format (GGUF for llama.cpp; FP8, AWQ, GPTQ for vLLM).",
            ),
        ),
        Msg("mesin tidak menjalankan format ini", "engine does not run this format"),
        speed=True,
    ),
    Check(
        "run",
        NOT(R("engine_evidence_flag")),
        JOIN(
            Msg("Mesin ", "The engine "),
            R("engine"),
            Msg(" dengan format ", " with the "),
            R("quant_name"),
            Msg(" di arsitektur ", " format on the "),
            R("gpu_arch_key_text"),
            Msg(" tercatat ", " architecture is "),
            R("engine_evidence_text"),
            Msg(
                " di katalog dukungan mesin (lihat sumbernya): pilih format atau mesin lain.",
                " in the engine-support catalog (see its source): choose another format or engine.",
            ),
        ),
        Msg("dilaporkan gagal atau tidak didukung", "reported broken or unsupported"),
        speed=True,
    ),
    Check(
        "run",
        NOT(R("engine_compute_capability_flag")),
        JOIN(
            Msg("Kernel ", "The "),
            R("engine"),
            Msg(" untuk format ", " kernels for the "),
            R("quant_name"),
            Msg(" butuh kapabilitas komputasi CUDA ", " format need CUDA compute capability "),
            capability_text(R("engine_min_compute_capability")),
            Msg(" atau lebih, GPU ini ", " or newer, this GPU has "),
            capability_text(R("gpu_compute_capability")),
            Msg(
                ": pilih GPU yang lebih baru atau format lain (GPTQ, GGUF).",
                ": choose a newer GPU or another format (GPTQ, GGUF).",
            ),
        ),
        Msg("GPU terlalu lama untuk kernel ini", "GPU too old for these kernels"),
        speed=True,
    ),
    Check(
        "run",
        NOT(R("fits_in_vram")),
        Msg(
            "Tidak muat di VRAM: tambah GPU, kurangi konteks atau pengguna, atau pakai kuantisasi lebih kecil.",
            "Does not fit in VRAM: add GPUs, shorten the context or users, or use a smaller quantization.",
        ),
        Msg("tidak muat di VRAM", "does not fit in VRAM"),
        speed=True,
    ),
    Check(
        "run",
        NE(R("sla_text"), OK),
        R("sla_text"),
        Msg("target latensi tak tercapai", "latency targets out of reach"),
    ),
    Check(
        "run",
        R("demand_capacity_frac") > 1,
        Msg(
            "Kebutuhan melebihi kapasitas armada dalam target latensi: tambah GPU (GPU yang dibutuhkan).",
            "Demand exceeds the fleet's capacity within the latency targets: add GPUs (GPUs needed).",
        ),
        Msg("melebihi kapasitas armada", "above the fleet's capacity"),
    ),
    Check(
        "warn",  # the fleet is sized to keep the prefill queue shorter than the TTFT target's slack: say what it costs
        AND(
            R("replicas_needed") >= 2 * R("tpot_target_replicas"),
            R("tpot_target_replicas") >= 1,
            R("sla_ttft_s") > R("sla_prefill_s"),
            R("sla_ttft_requests_per_s") < TTFT_IDLE_FRAC * R("max_requests_per_s"),
        ),
        JOIN(
            Msg("Target TTFT (", "The TTFT target ("),
            ROUND(R("sla_ttft_s"), 2),
            Msg(" s) menyisakan ", " s) leaves "),
            ROUND((R("sla_ttft_s") - R("sla_prefill_s")) * 1000, 0),
            Msg(
                " ms untuk antrean di atas prefill satu permintaan di ujung lambat (",
                " ms for queueing above one request's prefill at the slow end (",
            ),
            ROUND(R("sla_prefill_s"), 2),
            Msg(
                " s): menjaga antrean sependek itu berarti replika paling sibuk ",
                " s): keeping the queue that short lets a replica be at most ",
            ),
            ROUND(100 * safe_div(R("sla_ttft_requests_per_s"), R("max_requests_per_s")), 0),
            Msg(" % dan butuh ", " % busy and takes "),
            R("replicas_needed"),
            Msg(" replika, sedangkan target TPOT saja butuh ", " replicas, where the TPOT target alone needs "),
            R("tpot_target_replicas"),
            Msg(
                ". Longgarkan target TTFT, perpendek prompt, atau pilih GPU yang lebih cepat atau lebih banyak GPU "
                "per replika.",
                ". Relax the TTFT target, shorten the prompts, or choose a faster GPU or more GPUs per replica.",
            ),
        ),
        Msg("armada demi target TTFT", "fleet set by the TTFT target"),
    ),
    Check(
        "money",  # a cost per token at zero tokens is a division by zero, not Rp 0: every money answer says so
        R("tokens_per_day") <= 0,
        Msg(
            "Tidak ada kebutuhan (token terlayani per hari 0): biaya per token tidak terdefinisi; isi "
            "tokens_per_month, requests_per_day atau pengguna.",
            "No demand (0 tokens served a day): a cost per token has no value; give tokens_per_month, "
            "requests_per_day or the users.",
        ),
        Msg("tanpa kebutuhan", "no demand"),
    ),
    Check(
        "price",
        R("gpu_price_usd") <= 0,
        Msg(
            "Harga GPU tidak ada di katalog: biaya on-premise, TCO dan break-even baru benar setelah Anda mengisi "
            "Harga GPU (Isi manual).",
            "The catalog has no price for this GPU: on-premise cost, TCO and break-even hold only once you type "
            "the GPU price (manual value).",
        ),
        Msg("harga GPU belum diisi", "no GPU price"),
    ),
    Check(
        "price",
        R("replica_spans_servers_flag"),
        JOIN(
            Msg("Satu replika butuh ", "One replica needs "),
            R("n_gpus"),
            Msg(" GPU, satu server profil ", " GPUs, one server of the profile "),
            R("deployment_name"),
            Msg(" memuat ", " holds "),
            R("gpus_per_server"),
            Msg(
                ": replika berjalan di dalam satu chassis; pilih GPU per replika lebih sedikit atau profil dengan "
                "server lebih besar.",
                ": a replica runs inside one chassis; choose fewer GPUs per replica or a profile with bigger servers.",
            ),
        ),
        Msg("replika melewati batas server", "replica spans servers"),
    ),
    Check(
        "price",
        R("office_box_exceeded_flag"),
        Msg(
            "Armada ini melebihi satu kotak kantor (satu PC, satu PSU): hitung sebagai server rak (profil "
            "penempatan), dengan PUE dan SDM, atau kurangi GPU.",
            "This fleet is more than one office box (one PC, one PSU): price it as rack servers (deployment "
            "profile), with a PUE and staff, or use fewer GPUs.",
        ),
        Msg("melebihi satu kotak kantor", "beyond one office box"),
    ),
    Check(
        "cloud",
        R("cloud_row") <= 0,
        None,
        Msg("tidak ada penawaran cloud", "no cloud offer"),
    ),
    Check(
        "cloud",
        AND(R("cloud_row") > 0, NOT(R("cloud_gpu_match_flag"))),  # an offer chosen for another GPU
        Msg(
            "Penawaran cloud memakai GPU lain dari GPU skenario: biaya cloud per token tidak sebanding.",
            "The cloud offer rents another GPU than the scenario's: its cost per token is not comparable.",
        ),
        Msg("GPU cloud berbeda", "another GPU in the cloud"),
    ),
    Check(
        "dedicated",
        R("dedicated_idr_per_gpu_month") <= 0,
        None,
        Msg("tidak ada tarif dedicated", "no dedicated rent"),
    ),
    Check(
        "warn",  # the users (or a typed request count) size the demand; a typed monthly demand would otherwise vanish
        AND(
            NE(R("tokens_per_month"), TOKENS_PER_MONTH_DEFAULT),
            call("ABS", R("demand_tokens_per_month") - R("tokens_per_month")) > 1e-9 * R("tokens_per_month"),
        ),
        JOIN(
            Msg(
                "Kebutuhan dihitung dari pengguna (total_users, peak_concurrent_users) atau permintaan per hari yang "
                "diisi, jadi token per bulan yang diisi (tokens_per_month) diabaikan; ukuran armada memakai ",
                "The demand comes from the users (total_users, peak_concurrent_users) or a typed requests per day, "
                "so the typed tokens per month (tokens_per_month) are ignored; the sizing uses ",
            ),
            ROUND(R("demand_tokens_per_month") / 1e6, 0),
            Msg(
                " juta token/bulan (isi 0 pengguna untuk memakai token per bulan).",
                " million tokens a month (set the users to 0 to use the tokens per month).",
            ),
        ),
        Msg("token per bulan diabaikan", "tokens per month ignored"),
    ),
    Check(
        "warn",  # the numbers stand; the buyer decides, knowing the licence
        R("licence_datacenter_flag"),
        Msg(
            "Lisensi driver GeForce NVIDIA tidak mengizinkan penempatan di pusat data (2.1.3 'No Datacenter "
            "Deployment'): armada ini di ruang server atau rak; pakai kartu workstation/datacenter, atau satu kotak "
            "kantor.",
            "NVIDIA's GeForce driver licence does not allow data-centre deployment (2.1.3 'No Datacenter "
            "Deployment'): this fleet stands in a server room or rack; use workstation or data-centre cards, or one "
            "office box.",
        ),
        Msg("lisensi GeForce: bukan untuk pusat data", "GeForce licence: no data centre"),
    ),
    Check(
        "warn",  # measurements exist, or not, but none calibrates this family: its band is widened (issue 41)
        AND(R("usable_hardware_flag"), OR(R("speed_band_floor_frac") > 0, R("prefill_band_floor_frac") > 0)),
        JOIN(
            Msg("Kecepatan ", "The speed of "),
            R("engine"),
            Msg(" di ", " on "),
            R("gpu_backend"),
            Msg(" arsitektur ", " architecture "),
            R("gpu_arch_key_text"),
            Msg(
                " belum terkalibrasi oleh pengukuran (parameter ",
                " is not calibrated against measurements (parameters ",
            ),
            R("speed_params_name"),
            Msg("): pitanya dilebarkan ke paling sedikit ±", "): its band is widened to at least ±"),
            ROUND(100 * R("speed_band_floor_frac"), 0),
            Msg(" % untuk decode dan ±", " % for decode and ±"),
            ROUND(100 * R("prefill_band_floor_frac"), 0),
            Msg(
                " % untuk prompt (alasannya di assumptions/calibration/uncalibrated.csv); ukur sebelum membeli.",
                " % for the prompt (why: assumptions/calibration/uncalibrated.csv); measure before you buy.",
            ),
        ),
        Msg("kecepatan belum terkalibrasi", "speed not calibrated"),
    ),
    Check(
        "warn",  # the speed stands as the best estimate, but no measurement of this engine on this backend checks it
        AND(
            R("usable_hardware_flag"),
            NOT(R("speed_measured_flag")),
            EQ(R("speed_band_floor_frac"), 0),
            EQ(R("prefill_band_floor_frac"), 0),
        ),
        JOIN(
            Msg("Belum ada pengukuran ", "No measurement of "),
            R("engine"),
            Msg(" dengan format ", " with the "),
            R("quant_format_text"),
            Msg(" di ", " format on "),
            R("gpu_backend"),
            Msg(" arsitektur ", " architecture "),
            R("gpu_arch_key_text"),
            Msg(
                ": kecepatan memakai parameter ",
                ": the speed uses the parameters ",
            ),
            R("speed_params_name"),
            Msg(
                " (dipinjam atau asumsi): ukur sebelum membeli.",
                " (borrowed or assumed): measure before you buy.",
            ),
        ),
        Msg("kecepatan belum terukur", "speed not measured"),
    ),
    Check(
        "warn",  # the format's published loss is above the workload's floor: the answers stand, the buyer decides
        AND(NE(R("quant_quality_metric_type"), "none"), R("quant_quality_loss_frac") > R("max_quality_loss_frac")),
        Msg(
            "Penurunan kualitas format yang dipublikasikan (quant_quality_loss_frac) melebihi batas beban kerja "
            "(max_quality_loss_frac): pilih format dengan bit lebih banyak atau naikkan batasnya dengan sadar.",
            "The format's published quality loss (quant_quality_loss_frac) is above the workload's floor "
            "(max_quality_loss_frac): choose a format with more bits or raise the floor knowingly.",
        ),
        Msg("kualitas di bawah batas", "quality below the floor"),
    ),
    Check(
        "warn",  # no public measurement of the format's quality: kept (nothing says it is worse), but say so
        EQ(R("quant_quality_metric_type"), "none"),
        Msg(
            "Tidak ada pengukuran publik penurunan kualitas format ini terhadap bobot 16-bit (quants.csv): uji "
            "akurasinya pada tugas Anda sebelum mengandalkannya.",
            "No public measurement of this format's quality loss against 16-bit weights (quants.csv): test its "
            "accuracy on your task before relying on it.",
        ),
        Msg("kualitas belum terukur", "quality not measured"),
    ),
    Check(
        "warn",  # MoE at batch: no public measurement pins the fused-MoE kernels' share (docs/accuracy.md, MoE serving)
        AND(
            R("model_experts") > 0,
            OR(R("concurrent_users") > 1, R("serving_batch_users") > 1),  # a batch now or when the fleet is sized
            R("moe_kernel_efficiency_frac") >= 1,
        ),
        Msg(
            "MoE pada batch: efisiensi kernel decode untuk bobot expert belum dikalibrasi "
            "(moe_kernel_efficiency_frac = 1); pada satu-satunya pengujian TPOT MoE yang terbit (vLLM di 4× MI100) "
            "perkiraan ini lebih cepat daripada hasil ukur. Ukur, atau isi porsi yang terukur.",
            "MoE at batch: the decode kernels' efficiency on expert weights is not calibrated "
            "(moe_kernel_efficiency_frac = 1); on the one published MoE TPOT sweep (vLLM on 4× MI100) this estimate "
            "was faster than measured. Measure, or type a measured share.",
        ),
        Msg("MoE belum dikalibrasi", "MoE not calibrated"),
    ),
    Check(
        "warn",  # voids no answer: the prices stand, the status line says to check them
        NE(R("stale_prices_text"), ""),
        JOIN(
            Msg(
                "Harga katalog lebih tua dari 12 bulan, periksa ulang (lihat kolom Nama):",
                "Catalog prices older than 12 months, check them (see the Name column):",
            ),
            R("stale_prices_text"),
        ),
        Msg("harga lama", "old prices"),
    ),
    Check(
        "warn",  # said in the caveats only (no sentence): api_comparator_text names the nearest model
        AND(R("api_row") > 0, NOT(R("api_same_model_flag"))),
        None,
        Msg("API pembanding: model lain", "API compared: another model"),
    ),
)


def outside(q: Quantity) -> Node:
    """TRUE when the typed number of input `q` is outside its domain (kalkulator/catalog/input_domains.py, the catalog
    column's Field or its unit) or is not a number at all: text typed into the cell or an error value makes the
    test itself an error, which counts as outside. The one rule behind out_of_range_text and the message beside
    each input cell; a blank cell is 0, as everywhere."""
    d = domain_of(q)
    x = R(q.name)
    bad = [x <= d.low if d.above else x < d.low, x > d.high]
    if d.integer:
        bad.append(NE(x, ROUND(x, 0)))
    return IFERROR(OR(*bad), True)


def _number_words(x: float, lang: str) -> str:
    text = f"{x:,.0f}" if float(x).is_integer() and abs(x) < 1e12 else f"{x:g}"
    return text.translate(str.maketrans(",.", ".,")) if lang == "id" else text


def domain_words(d: Domain, lang: str) -> str:
    """The domain as short as the message beside an input cell can say it: "1–1,024", "> 0", "≥ 0"."""
    low, high = _number_words(d.low, lang), _number_words(d.high, lang)
    if d.high >= BIG:
        return f"{'>' if d.above else '≥'} {low}"
    return f"{'>' if d.above else ''}{low}–{high}" if not d.above else f"> {low}, ≤ {high}"


def input_message(q: Quantity) -> Node:
    """The message beside input `q`'s cell: blank when its value is in its domain, else "← type 1–1,024" (a whole
    number: "← whole 1–1,024"); the status names the input in full."""
    d = domain_of(q)
    whole_id, whole_en = (" bulat", " whole") if d.integer else ("", "")
    return IF(
        outside(q),
        Msg(f"← isi{whole_id} {domain_words(d, 'id')}", f"← type{whole_en} {domain_words(d, 'en')}"),
        Msg("", ""),
    )


def range_text(quantities: Iterable[Quantity]) -> Quantity:
    """The names of typed numbers outside their declared domain or not numbers at all, space-separated ("" when
    none).

    Concatenated rather than nested, so every offender is named without Excel's limit on nested IFs.
    """
    terms = []
    for q in settable_numbers(quantities):
        if not q.is_input:
            continue  # a replaced formula is checked where it is typed (CLI, data validation), not its result
        terms.append(IF(outside(q), f" {q.name}", ""))
    return Quantity(
        "out_of_range_text",
        "Isian di luar rentang",
        "Inputs out of range",
        "Names of typed numbers outside their allowed range (blank when none).",
        "kalkulator domain table",
        expr=JOIN(*terms),
        doc_id="Nama isian angka yang di luar rentang yang diizinkan (kosong bila tidak ada).",
        source_id="Tabel domain kalkulator",
    )


def _id_number(x: float) -> str:
    """A range bound as an Indonesian writes it: 16.000, 0,5."""
    return f"{x:,g}".translate(str.maketrans(",.", ".,"))


def plausible_text(quantities: Iterable[Quantity]) -> Quantity:
    """Typed numbers outside their plausible range, each with the range (blank when none)."""
    ranges = [(q.name, plausible_of(q)) for q in quantities]
    terms = [
        IF(
            OR(AND(NE(R(name), 0), R(name) < low), R(name) > high),
            Msg(
                f" {name} ({_id_number(low)}–{_id_number(high)} {PLAUSIBLE_WHY_ID[why]})",
                f" {name} ({low:,g}–{high:,g} {why})",
            ),
            "",
        )
        for name, (low, high, why) in ((name, p) for name, p in ranges if p is not None)
    ]
    return Quantity(
        "implausible_text",
        "Isian di luar kisaran wajar",
        "Inputs outside their plausible range",
        "Names of numbers outside the range they usually have, with that range (blank when none): allowed, but "
        "more often a slip of the keyboard than a real scenario.",
        "kalkulator plausibility table (quantities/domains.py)",
        expr=JOIN(*terms) if terms else Msg("", ""),
        doc_id=(
            "Nama angka yang berada di luar kisaran yang biasa, beserta kisarannya (kosong bila tidak "
            "ada): boleh, tetapi lebih sering salah ketik daripada skenario nyata."
        ),
        source_id="Tabel kewajaran kalkulator (quantities/domains.py)",
    )


PLAUSIBLE_CHECK = Check(
    "warn",
    NE(R("implausible_text"), ""),
    JOIN(
        Msg("Periksa nilai di luar kisaran wajar:", "Check values outside their plausible range:"),
        R("implausible_text"),
    ),
    Msg("nilai tidak wajar", "implausible value"),
)
ARCHITECTURE_CHECKS = (
    Check(
        "run",
        R("model_sliding_layers") + R("model_linear_layers") + R("model_ffn_layers") > R("model_layers"),
        Msg(
            "Layer sliding-window, linear/SSM dan MLP saja (model_sliding_layers + model_linear_layers + "
            "model_ffn_layers) lebih banyak dari layer model (model_layers).",
            "More sliding-window, linear/SSM and MLP-only layers (model_sliding_layers + model_linear_layers + "
            "model_ffn_layers) than the model has layers (model_layers).",
        ),
        Msg("jenis layer > layer", "layer kinds > layers"),
    ),
    Check(
        "run",
        R("model_active_params_b") > R("model_params_b"),
        Msg(
            "Parameter aktif (model_active_params_b) lebih besar dari parameter total (model_params_b).",
            "Active parameters (model_active_params_b) exceed the total parameters (model_params_b).",
        ),
        Msg("parameter aktif > total", "active > total parameters"),
    ),
    Check(
        "run",
        AND(
            R("model_kv_heads") > 0,
            NE(
                safe_div(R("model_heads"), R("model_kv_heads")),
                ROUND(safe_div(R("model_heads"), R("model_kv_heads")), 0),
            ),
        ),
        Msg(
            "Jumlah head KV (model_kv_heads) harus membagi habis jumlah head attention (model_heads).",
            "The KV heads (model_kv_heads) must divide the attention heads (model_heads) evenly.",
        ),
        Msg("head KV tidak membagi head", "KV heads do not divide heads"),
    ),
    Check(
        "run",
        AND(
            R("model_params_b") > 0,
            OR(
                R("model_layers") <= 0,
                R("model_hidden") <= 0,
                R("model_heads") <= 0,
                R("model_max_context_tokens") <= 0,
            ),
        ),
        Msg(
            "Model tanpa layer, lebar (hidden), head atau konteks maksimum: isi angkanya (file model rusak?).",
            "The model has no layers, width (hidden), heads or maximum context: give them (a damaged model file?).",
        ),
        Msg("arsitektur model tidak lengkap", "model shape incomplete"),
    ),
    Check(
        "run",
        R("gpus_needed") > 1_000_000,
        Msg(
            "Lebih dari sejuta GPU dibutuhkan: periksa kebutuhan, jam aktif dan target latensi.",
            "More than a million GPUs needed: check the demand, the active hours and the latency targets.",
        ),
        Msg("lebih dari sejuta GPU", "over a million GPUs"),
    ),
)
RANGE_CHECK = Check(
    "run",
    NE(R("out_of_range_text"), ""),
    JOIN(
        Msg(
            "Isian di luar rentang atau bukan angka (lihat pesan di samping selnya):",
            "Input out of range or not a number (see the message beside its cell):",
        ),
        R("out_of_range_text"),
    ),
    Msg("input di luar rentang", "input out of range"),
    speed=True,  # a speed or fleet computed from −2 GPUs or from text is no answer either
)
# What the answer block shows in place of an answer whose inputs are out of range or not numbers.
OUT_OF_RANGE = RANGE_CHECK.short
# What the caveats show should a warning fail to compute (text in a number cell): the status says which input.
CAVEATS_ERROR = Msg("tidak bisa dihitung: periksa sel kuning", "cannot be computed: check the yellow cells")
# What the status shows should any check itself fail to compute (an error value never reaches the status cell).
STATUS_ERROR = Msg(
    "Ada isian yang tidak bisa dihitung: periksa sel kuning (teks di sel angka?).",
    "An input cannot be computed: check the yellow cells (text in a number cell?).",
)
CROSS_CHECKS = (
    Check(
        "run",
        AND(R("context_tokens") > 0, R("context_tokens") < R("prompt_tokens") + R("output_tokens")),
        Msg(
            "Konteks (context_tokens) lebih pendek dari token prompt + output (0 = tanpa KV cache).",
            "The context (context_tokens) is shorter than the prompt + output tokens (0 = no KV cache).",
        ),
        Msg("konteks < prompt + output", "context < prompt + output"),
    ),
    Check(
        "run",
        AND(R("model_max_context_tokens") > 0, R("context_tokens") > R("model_max_context_tokens")),
        Msg(
            "Konteks (context_tokens) melebihi konteks maksimum model (model_max_context_tokens).",
            "The context (context_tokens) exceeds the model's maximum context (model_max_context_tokens).",
        ),
        Msg("konteks > maksimum model", "context > model maximum"),
    ),
)


def chain(checks: tuple[Check, ...], short: bool, skip_errors: bool = False) -> Node:
    """IF(first condition, its message, IF(second …, OK)). `skip_errors` (the status): a condition that cannot be
    computed (a bandwidth of 0 makes the fleet #DIV/0!) is passed over, so a later check that holds still speaks."""
    node: Node = OK
    for check in reversed(checks):
        cond = IFERROR(check.cond, False) if skip_errors else check.cond
        node = IF(cond, check.short if short else check.sentence, node)
    return node


def caveats(checks: tuple[Check, ...]) -> Node:
    """The short words of every check that holds, joined by "; " ("" when none): the status line names only the
    first problem, so a second caveat (old prices behind an unmeasured speed) is not lost."""
    node: Node = lift("")
    parts = []
    for i, check in enumerate(checks):
        earlier = [c.cond for c in checks[:i]]
        sep = IF(OR(*earlier), "; ", "") if earlier else ""
        parts.append(IF(check.cond, JOIN(sep, check.short), ""))
    if parts:
        node = JOIN(*parts)
    return node


def quantities(others: Iterable[Quantity]) -> tuple[Quantity, ...]:
    """The status and check quantities; the range check covers every share among `others`."""
    checks = (RANGE_CHECK, *CROSS_CHECKS, *ARCHITECTURE_CHECKS, *CHECKS, PLAUSIBLE_CHECK)

    def of(*voids: str) -> tuple[Check, ...]:
        return tuple(c for c in checks if c.voids in voids)

    return (
        range_text(others),
        plausible_text(others),
        Quantity(
            "input_check_text",
            "Pemeriksaan: isian",
            "Check: inputs",
            "OK, or the first input outside its range or inconsistent with another (the CLI stops with it).",
            "Consistency checks",
            expr=chain((RANGE_CHECK, *CROSS_CHECKS, *ARCHITECTURE_CHECKS[:4]), short=False),
            doc_id=(
                "OK, atau isian pertama yang di luar rentang atau tidak cocok dengan isian lain (CLI "
                "berhenti dengan pesan ini)."
            ),
            source_id="Pemeriksaan konsistensi",
        ),
        Quantity(
            "status_text",
            "Status skenario",
            "Scenario status",
            "The first problem that makes the results unusable or not comparable, or OK.",
            "Consistency checks",
            expr=IFERROR(
                chain(tuple(c for c in checks if c.sentence is not None), short=False, skip_errors=True), STATUS_ERROR
            ),
            doc_id="Masalah pertama yang membuat hasil tidak bisa dipakai atau tidak sebanding, atau OK.",
            source_id="Pemeriksaan konsistensi",
        ),
        Quantity(
            "caveats_text",
            "Catatan hasil",
            "Caveats",
            "Every warning that holds, in short words (the status line gives the first in full): answers stand, "
            "but check these before relying on them.",
            "Consistency checks",
            expr=IFERROR(caveats(of("warn")), CAVEATS_ERROR),
            doc_id="Semua peringatan yang berlaku, singkat (status memberi yang pertama secara lengkap): jawaban "
            "tetap berlaku, tetapi periksa hal ini sebelum mengandalkannya.",
            source_id="Pemeriksaan konsistensi",
        ),
        Quantity(
            "run_check_text",
            "Pemeriksaan: bisa dilayani?",
            "Check: can it serve?",
            "OK, or why the setup cannot serve the workload (every serving and money answer then shows this).",
            "Consistency checks",
            expr=chain(of("run"), short=True),
            doc_id=(
                "OK, atau alasan konfigurasi ini tidak bisa melayani beban kerja (semua jawaban serving dan "
                "biaya lalu menampilkan alasan ini)."
            ),
            source_id="Pemeriksaan konsistensi",
        ),
        Quantity(
            "speed_check_text",
            "Pemeriksaan: bisa berjalan?",
            "Check: can it run?",
            "OK, or why the setup cannot run at all (no model, GPU or format chosen, an engine that does not run "
            "it, or weights and cache that do not fit in VRAM): every speed and serving answer then shows this "
            "instead of a number.",
            "Consistency checks",
            expr=chain(tuple(c for c in checks if c.speed), short=True),
            doc_id=(
                "OK, atau alasan konfigurasi ini sama sekali tidak bisa berjalan (model, GPU atau format belum "
                "dipilih, mesin tidak menjalankannya, atau bobot dan cache tidak muat di VRAM): semua jawaban "
                "kecepatan dan serving lalu menampilkan alasan ini."
            ),
            source_id="Pemeriksaan konsistensi",
        ),
        Quantity(
            "onprem_check_text",
            "Pemeriksaan: biaya on-premise",
            "Check: on-premise money",
            "OK, or why on-premise cost, TCO and break-even cannot be trusted.",
            "Consistency checks",
            expr=chain(of("run", "money", "price"), short=True),
            doc_id="OK, atau alasan biaya on-premise, TCO dan break-even tidak bisa dipercaya.",
            source_id="Pemeriksaan konsistensi",
        ),
        Quantity(
            "cloud_check_text",
            "Pemeriksaan: biaya cloud",
            "Check: cloud money",
            "OK, or why the cloud cost cannot be compared.",
            "Consistency checks",
            expr=chain(of("run", "money", "cloud"), short=True),
            doc_id="OK, atau alasan biaya cloud tidak bisa dibandingkan.",
            source_id="Pemeriksaan konsistensi",
        ),
        Quantity(
            "dedicated_check_text",
            "Pemeriksaan: biaya dedicated",
            "Check: dedicated money",
            "OK, or why the dedicated-server cost cannot be compared.",
            "Consistency checks",
            expr=chain(of("run", "money", "dedicated"), short=True),
            doc_id="OK, atau alasan biaya server dedicated tidak bisa dibandingkan.",
            source_id="Pemeriksaan konsistensi",
        ),
    )
