"""The catalog columns: one Field per column of assumptions/*.csv, the only place its facts are stated.

A Field gives a column's type, hard domain (what any value must satisfy, in a CSV row, a `--set` value or a
workbook cell), plausible range (allowed, but the status line names it), bilingual label, unit, doc and the column
that cites it. The catalog loader, the quantities that look a column up (their label, doc and domain, hence the
CLI and the workbook's data validation), the model importers' limits and the catalog sheets' headers read it here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from kalkulator.catalog.domain import BIG, Domain
from kalkulator.catalog.input_domains import BY_UNIT
from kalkulator.catalog.input_domains import DOMAINS as SCENARIO


@dataclass
class Field:
    """One catalog column (mutable only so a test can change a fact in its one place and watch every reader)."""

    name: str
    kind: str  # text | number | int | enum | date
    label_id: str = ""
    label_en: str = ""
    unit_id: str = ""  # shown after the label in the catalog sheet's header: "Memory bandwidth (GB/s)"
    unit_en: str = ""
    doc: str = ""
    required: bool = True  # False: a blank cell is allowed (the formulas read it as 0)
    domain: Domain | None = None  # number and int columns: the hard bounds of any value
    plausible: tuple[float, float, str] | None = None  # (low, high, what the range is) of a typical value
    choices: tuple[str, ...] = ()  # enum columns
    source: str = "source"  # the column that cites this value (link figures: link_source, ...)
    doc_id: str = ""  # the Indonesian note of a quantity that reads the column (the Indonesian workbook's doc)

    def label(self, lang: str) -> str:
        return self.label_id if lang == "id" else self.label_en

    def header(self, lang: str) -> str:
        """The catalog sheet's column header in `lang` (id or en): the label and its unit in parentheses."""
        label, unit = self.label(lang), self.unit_id if lang == "id" else self.unit_en
        if not unit:
            return label
        return f"{label[:-1]}, {unit})" if label.endswith(")") else f"{label} ({unit})"


# Text columns that are prose (besides `source` and every `*_source`): written in Indonesian in assumptions/*.csv,
# shown in English by the English workbook from assumptions/english/. Other text columns are names and codes.
PROSE_COLUMNS = frozenset({"description", "quality_raw", "quality_model", "hardware", "build"})


def is_prose(f: Field) -> bool:
    """Whether a column is prose to translate (a source or note), not a name or code kept as written."""
    return f.kind == "text" and (f.name == "source" or f.name.endswith("_source") or f.name in PROSE_COLUMNS)


def _pair(text: str | tuple[str, str]) -> tuple[str, str]:
    return (text, text) if isinstance(text, str) else text


def _text(name: str, label: tuple[str, str], unit: str | tuple[str, str] = "", **kw: object) -> Field:
    return Field(name, "text", *label, *_pair(unit), **kw)  # type: ignore[arg-type]


def _enum(name: str, label: tuple[str, str], unit: str | tuple[str, str] = "", **kw: object) -> Field:
    return Field(name, "enum", *label, *_pair(unit), **kw)  # type: ignore[arg-type]


def _date(name: str, label: tuple[str, str], **kw: object) -> Field:
    return Field(name, "date", *label, **kw)  # type: ignore[arg-type]


def _num(
    name: str,
    label: tuple[str, str],
    low: float,
    high: float,
    above: bool = False,
    unit: str | tuple[str, str] = "",
    **kw: object,
) -> Field:
    """A number column from `low` (exclusive when `above`) to `high`."""
    return Field(name, "number", *label, *_pair(unit), domain=Domain(low, high, above=above), **kw)  # type: ignore[arg-type]


def _int(
    name: str, label: tuple[str, str], low: int, high: float, unit: str | tuple[str, str] = "", **kw: object
) -> Field:
    """A whole-number column from `low` to `high`."""
    return Field(name, "int", *label, *_pair(unit), domain=Domain(low, high, integer=True), **kw)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Schema:
    key: str  # short table id used in formulas: gpu, model, ...
    file: str
    fields: tuple[Field, ...]
    title_id: str
    title_en: str
    checks: tuple[Callable[[dict], str | None], ...] = ()

    def field(self, name: str) -> Field:
        return next(f for f in self.fields if f.name == name)

    def header(self, name: str, lang: str) -> str:
        """The workbook column header of field `name` in `lang` (id or en); the CSV keeps the field name."""
        return self.field(name).header(lang)


_SOURCE = (
    _text("source", ("Sumber", "Source"), doc="where the figures come from"),
    _date("as_of", ("Per tanggal", "As of"), doc="date of the figures"),
)
PER_1M_USD = ("USD/1 juta token", "USD/1M tokens")
# Where an offer keeps the data it processes, by its terms (a region, or unspecified when the terms commit to none);
# `plan --residency` keeps the offers of one region.
DATA_REGIONS = ("indonesia", "singapore", "united-states", "europe", "china", "unspecified")


def _data_region() -> Field:
    return _enum(
        "data_region",
        ("Wilayah data", "Data region"),
        choices=DATA_REGIONS,
        doc="where the provider keeps and processes the data by its terms (unspecified: the terms commit to no "
        "region); the row's source cites it",
        doc_id="tempat penyedia menyimpan dan memproses data menurut ketentuannya (unspecified: tidak terikat "
        "wilayah); sumber baris mengutipnya",
    )


BACKENDS = ("cuda", "rocm", "metal", "vulkan", "sycl", "hpu", "cpu")  # hpu: Intel Gaudi (SynapseAI)
# GPU architecture families (gpus.csv `arch`): NVIDIA generations, AMD GCN/CDNA (Instinct) and RDNA (Radeon), Intel
# Xe-HPG (Alchemist), Xe2-HPG (Battlemage) and Gaudi, Apple M generations (the two-die Ultra chips apart: M1Ultra …).
ARCHS = (
    "Maxwell",
    "Pascal",
    "Volta",
    "Turing",
    "Ampere",
    "Ada",
    "Hopper",
    "Blackwell",
    "GCN5",
    "CDNA1",
    "CDNA2",
    "CDNA3",
    "CDNA4",
    "RDNA2",
    "RDNA3",
    "RDNA3.5",
    "RDNA4",
    "Alchemist",
    "Battlemage",
    "Gaudi",
    "M1",
    "M2",
    "M3",
    "M1Ultra",
    "M2Ultra",
    "M3Ultra",
    "M4",
)
# Interconnect kinds: one-hop kinds (a switch or a full mesh) need two hops per all-reduce whatever the GPU count.
LINK_KINDS = (
    "pcie3x16",
    "pcie4x8",
    "pcie4x16",
    "pcie5x8",
    "pcie5x16",
    "nvlink-bridge",
    "nvlink",
    "nvswitch",
    "xgmi-mesh",
    "roce-mesh",
    "network",
    "unified",
)


def _street_price_sourced(row: dict) -> str | None:
    """A street price carries its own source and date (the list price keeps the row's)."""
    if row["street_price_usd"]:
        if not (row["street_source"] or "").strip():
            return "street_source: required when street_price_usd is given"
        if not row["street_as_of"]:
            return "street_as_of: required when street_price_usd is given"
    return None


GPU = Schema(
    "gpu",
    "gpus.csv",
    (
        _text("name", ("Nama", "Name")),
        _enum("vendor", ("Vendor", "Vendor"), choices=("NVIDIA", "AMD", "Intel", "Apple", "CPU")),
        _enum("segment", ("Segmen", "Segment"), choices=("consumer", "workstation", "datacenter", "apple", "cpu")),
        _enum(
            "backend",
            ("Backend", "Backend"),
            choices=BACKENDS,
            doc="Compute backend: cuda, rocm, metal, vulkan, sycl, hpu (Intel Gaudi), cpu.",
        ),
        _num(
            "mem_bandwidth_gbs",
            ("Bandwidth memori", "Memory bandwidth"),
            0,
            1_000_000,
            above=True,
            unit="GB/s",
            plausible=(1, 100000, "GB/s of one accelerator (HBM3e: about 8,000)"),
            doc="Peak memory bandwidth per GPU (vendor figure).",
        ),
        _num(
            "vram_gib",
            ("Memori GPU, angka pemasaran", "GPU memory, as marketed"),
            0,
            100_000,
            above=True,
            unit="GiB",
            doc="Vendors' '24 GB' is 24 GiB of memory.",
        ),
        _num(
            "fp16_tflops",
            ("FP16 dense", "FP16 dense"),
            0,
            1_000_000,
            above=True,
            unit="TFLOPS",
            plausible=(0.01, 100000, "TFLOPS of one accelerator"),
            doc="Peak dense FP16 matrix throughput per GPU.",
        ),
        _num(
            "fp32_tflops",
            ("FP32 non-tensor", "FP32 non-tensor"),
            0,
            1_000_000,
            above=True,
            unit="TFLOPS",
            doc="Peak FP32 throughput of the GPU's shader ALUs (CUDA cores, stream processors), not its tensor units.",
        ),
        _num(
            "fp8_tflops",  # blank: no FP8 tensor units, as 0
            ("FP8 dense", "FP8 dense"),
            0,
            1_000_000,
            unit="TFLOPS",
            required=False,
            doc="Peak dense FP8 matrix throughput per GPU (0 = no FP8 tensor units).",
        ),
        _num(
            "fp4_tflops",  # blank: no FP4 tensor units, as 0
            ("FP4 dense", "FP4 dense"),
            0,
            1_000_000,
            unit="TFLOPS",
            required=False,
            doc="Peak dense FP4 (NVFP4/MXFP4) matrix throughput per GPU (0 = none).",
        ),
        _enum(
            "memory_type",
            ("Jenis memori", "Memory type"),
            choices=("gddr", "hbm", "lpddr", "ddr"),
            doc="gddr, hbm, lpddr or ddr: llama.cpp reaches a smaller share of HBM's peak bandwidth.",
        ),
        _num(
            "tdp_w", ("Daya GPU (TDP)", "GPU power (TDP)"), 0, 100_000, above=True, unit="W", doc="Board power per GPU."
        ),
        _num(
            "price_usd",
            ("Harga", "Price"),
            0,
            10_000_000,
            unit="USD",
            required=False,
            doc="list price (MSRP) or, without one, the estimate its source names, USD",
        ),
        *_SOURCE,
        _enum(
            "link_kind",
            ("Interkoneksi antar-GPU", "GPU interconnect"),
            choices=LINK_KINDS,
            required=False,
            doc="PCIe generation × lanes, NVLink bridge, NVLink, NVSwitch, an all-to-all mesh, a network or unified "
            "memory.",
            source="link_source",
        ),
        _num(
            "link_bandwidth_gbs",  # blank (a GPU described by --set alone): exchanges cost nothing, fine for one GPU
            ("Bandwidth interkoneksi per arah", "Link bandwidth per direction"),
            0,
            1_000_000,
            above=True,
            unit="GB/s",
            required=False,
            doc="What one GPU can send to the others per second (PCIe 4.0 x16: 31.5 GB/s; NVLink 4: 450 GB/s).",
            source="link_source",
        ),
        _num(
            "link_latency_us",  # blank: 0
            ("Latensi per lompatan", "Latency per hop"),
            0,
            1_000_000,
            unit="µs",
            required=False,
            doc="Time of one GPU-to-GPU step of an exchange with peer-to-peer access (copy start, flag, "
            "synchronisation).",
            source="link_source",
        ),
        _enum(
            "p2p",
            ("P2P antar-GPU aktif?", "GPU peer-to-peer enabled?"),
            choices=("yes", "no"),
            required=False,
            doc="yes when the driver lets GPUs copy to each other directly; no (GeForce) stages every copy through "
            "host memory: two copies per hop.",
            source="link_source",
        ),
        _text(
            "link_source",
            ("Sumber interkoneksi", "Interconnect source"),
            required=False,
            doc="where the link figures come from",
        ),
        _num(
            "fp16_fp32acc_tflops",  # blank: the FP16 figure
            ("FP16 dense, akumulasi FP32", "FP16 dense, FP32 accumulate"),
            0,
            1_000_000,
            unit="TFLOPS",
            required=False,
            doc="Peak dense FP16 matrix throughput when products are summed in FP32 (GeForce: half the FP16-accumulate"
            " peak; 0 = the FP16 figure).",
            source="accumulate_source",
        ),
        _num(
            "fp8_fp32acc_tflops",  # blank: the FP8 figure
            ("FP8 dense, akumulasi FP32", "FP8 dense, FP32 accumulate"),
            0,
            1_000_000,
            unit="TFLOPS",
            required=False,
            doc="Peak dense FP8 matrix throughput when products are summed in FP32 (GeForce: half; 0 = the FP8 "
            "figure).",
            source="accumulate_source",
        ),
        _text(
            "accumulate_source",
            ("Sumber laju akumulasi", "Accumulation source"),
            required=False,
            doc="where the FP32-accumulate rates come from",
        ),
        _num(
            "compute_capability",
            ("Kapabilitas komputasi CUDA", "CUDA compute capability"),
            0,
            99,
            required=False,
            doc="NVIDIA's SM version of the GPU (7.0 Volta, 7.5 Turing, 8.0/8.6 Ampere, 8.9 Ada, 9.0 Hopper, "
            "10.0/12.0 Blackwell); 0 = not an NVIDIA GPU or not known, and then no engine kernel limit is applied.",
            source="compute_capability_source",
        ),
        _text(
            "compute_capability_source",
            ("Sumber kapabilitas komputasi", "Compute capability source"),
            required=False,
            doc="where the compute capability comes from",
        ),
        _enum(
            "arch",
            ("Arsitektur GPU", "GPU architecture"),
            choices=ARCHS,
            required=False,
            doc="The chip's architecture family (Ampere, Ada, RDNA3, CDNA2, GCN5, Alchemist, M4, ...): a speed "
            "row named engine/backend.arch@era, when calibrated, replaces the backend's row for GPUs of this "
            "architecture; blank = the backend's row.",
            source="arch_source",
        ),
        _text(
            "arch_source",
            ("Sumber arsitektur", "Architecture source"),
            required=False,
            doc="where the architecture comes from",
        ),
        _enum(
            "datacenter_use",
            ("Boleh di pusat data?", "Data-centre use"),
            choices=("allowed", "forbidden"),
            doc="whether the card's driver licence allows data-centre deployment (GeForce: forbidden); a server room "
            "or colocation counts as one, a desktop in an office does not",
            doc_id="apakah lisensi driver kartu ini mengizinkan penempatan di pusat data (GeForce: forbidden); ruang "
            "server atau colocation termasuk, desktop di kantor tidak",
            source="licence_source",
        ),
        _text(
            "licence_source",
            ("Sumber lisensi", "Licence source"),
            doc="the licence clause behind datacenter_use",
        ),
        _num(
            "street_price_usd",
            ("Harga jalanan", "Street price"),
            0,
            10_000_000,
            above=True,
            unit="USD",
            required=False,
            source="street_source",
            doc="what the card sells for in shops where a public source gives it, USD; used instead of price_usd",
            doc_id="harga jual kartu di toko bila ada sumber publik, USD; dipakai menggantikan price_usd",
        ),
        _text(
            "street_source",
            ("Sumber harga jalanan", "Street price source"),
            required=False,
            doc="where the street price comes from",
        ),
        _date("street_as_of", ("Per tanggal (harga jalanan)", "Street price as of"), required=False, doc="its date"),
    ),
    "Katalog GPU",
    "GPU catalog",
    (_street_price_sourced,),
)


def _active_le_total(row: dict) -> str | None:
    if row["active_params_b"] > row["params_b"] * (1 + 1e-9):
        return "active_params_b: greater than params_b"
    return None


def _sliding_le_layers(row: dict) -> str | None:
    if row["sliding_layers"] > row["layers"]:
        return "sliding_layers: greater than layers"
    if row["sliding_layers"] > 0 and row["sliding_window"] <= 0:
        return "sliding_window: must be > 0 when sliding_layers > 0"
    return None


def _layer_kinds(row: dict) -> str | None:
    linear, ffn = row["linear_layers"] or 0, row["ffn_layers"] or 0
    if row["sliding_layers"] + linear + ffn > row["layers"]:
        return "linear_layers: sliding_layers + linear_layers + ffn_layers greater than layers"
    if linear and not row["state_bytes"]:
        return "state_bytes: must be > 0 when linear_layers > 0"
    return None


def _experts_consistent(row: dict) -> str | None:
    experts, active = row["experts"] or 0, row["active_experts"] or 0
    if active > experts:
        return "active_experts: greater than experts"
    if (row["expert_params_b"] or 0) > row["params_b"]:
        return "expert_params_b: greater than params_b"
    if experts and not row["expert_params_b"]:
        return "expert_params_b: must be > 0 when experts > 0"
    return None


def _heads_divisible(row: dict) -> str | None:
    if row["heads"] % row["kv_heads"]:
        return "kv_heads: does not divide heads"
    return None


MODEL = Schema(
    "model",
    "models.csv",
    # Hard bounds far beyond any published model (the largest today: ≈ 2·10¹² parameters, ≈ 160 layers, widths of
    # ≈ 2·10⁴, ≈ 2.6·10⁵-token vocabularies, ≈ 10⁷-token contexts), so only a typo or a corrupt file breaks them. They
    # used to differ between the formulas' domains and the importers' limits (hidden 10⁶ vs 10⁷, heads 10⁴ vs 10⁶,
    # head_dim 10⁵ vs 10⁶, contexts 10⁹ vs 10¹⁰, parameters 10¹⁴ vs 10¹⁵): the tighter bound is kept, still ≥ 50×
    # the largest real value (hidden ≤ 10⁶ is plenty; heads ≤ 10⁴).
    (
        _text("name", ("Nama", "Name")),
        _text("family", ("Keluarga", "Family")),
        _num(
            "params_b",
            ("Parameter total", "Total parameters"),
            0,
            100_000,
            above=True,
            unit=("miliar", "billions"),
            doc="All parameters held in memory (for MoE: every expert).",
        ),
        _num(
            "active_params_b",
            ("Parameter aktif per token", "Active parameters per token"),
            0,
            100_000,
            above=True,
            unit=("miliar", "billions"),
            doc="Parameters used per token (MoE: routed experts only).",
        ),
        _int("layers", ("Jumlah layer", "Layers"), 1, 10_000, doc="Transformer blocks."),
        _int("hidden", ("Dimensi hidden", "Hidden size"), 1, 1_000_000, doc="Model width."),
        _int("heads", ("Jumlah attention head", "Attention heads"), 1, 10_000, doc="Query heads per layer."),
        _int(
            "kv_heads",
            ("Jumlah KV head", "KV heads"),
            1,
            10_000,
            doc="Key/value heads per layer (GQA/MQA share them across query heads).",
        ),
        _int("head_dim", ("Dimensi per head", "Head dimension"), 1, 100_000, doc="Width of one head."),
        _int("vocab", ("Ukuran vocab", "Vocabulary"), 1, 100_000_000, doc="Tokens in the vocabulary."),
        _int(
            "max_context",
            ("Konteks maksimum model", "Model max context"),
            1,
            1_000_000_000,
            unit=("token", "tokens"),
            doc="Longest context the model supports.",
        ),
        _enum("attention", ("Jenis attention", "Attention type"), choices=("mha", "gqa", "mqa", "mla")),
        _int(
            "kv_latent_dim",
            ("Lebar laten KV (MLA)", "KV latent width (MLA)"),
            0,
            1_000_000,
            doc="MLA models cache one latent vector per layer and token instead of K and V (0 = not MLA).",
        ),
        _int(
            "sliding_window",
            ("Jendela sliding window", "Sliding window"),
            0,
            1_000_000_000,
            unit=("token", "tokens"),
            doc="Tokens kept by sliding-window (local) attention layers (0 = none).",
        ),
        _int(
            "sliding_layers",
            ("Layer sliding window", "Sliding-window layers"),
            0,
            10_000,
            doc="Layers that keep only the window instead of the whole context.",
        ),
        *_SOURCE,
        _int(
            "experts",
            ("Jumlah expert per layer MoE", "Experts per MoE layer"),
            0,
            100_000,  # published MoE layers route among a few hundred experts at most
            required=False,
            source="moe_source",
            doc="Routed experts each MoE layer chooses from (0 = dense model).",
        ),
        _int(
            "active_experts",
            ("Expert aktif per token", "Active experts per token"),
            0,
            100_000,
            required=False,
            source="moe_source",
            doc="Routed experts each token goes to (top-k; shared experts are always read and counted elsewhere).",
        ),
        _num(
            "expert_params_b",
            ("Parameter semua expert terarah", "Parameters of all routed experts"),
            0,
            100_000,  # as params_b
            unit=("miliar", "billions"),
            required=False,
            source="moe_source",
            doc="All routed experts of all layers; the rest (attention, embeddings, shared experts) is read every "
            "step.",
        ),
        _text("moe_source", ("Sumber MoE", "MoE source"), required=False, doc="where the expert figures come from"),
        _int(
            "linear_layers",
            ("Layer linear attention / SSM", "Linear-attention / SSM layers"),
            0,
            10_000,
            required=False,
            doc="Layers that keep a fixed-size state per sequence instead of a KV cache (Gated DeltaNet, Mamba-2, "
            "lightning attention; 0 = none).",
        ),
        _int(
            "ffn_layers",
            ("Layer tanpa attention (MLP saja)", "Layers without attention (MLP only)"),
            0,
            10_000,
            required=False,
            doc="Layers with neither attention nor a state (Nemotron-H's MLP-only blocks); they keep no cache.",
        ),
        _int(
            "state_bytes",
            ("State per sekuens per layer linear", "State per sequence per linear layer"),
            0,
            1_000_000_000_000,
            unit=("byte", "bytes"),
            required=False,
            doc="Bytes of the recurrent state (and convolution window) one sequence keeps in each linear-attention "
            "or SSM layer, whatever the context length (at the checkpoint's dtype).",
        ),
        _int(
            "sparse_tokens",
            ("Anggaran token sparse attention", "Sparse-attention token budget"),
            0,
            1_000_000_000,
            unit=("token", "tokens"),
            required=False,
            doc="Past tokens each query reads in a full-attention layer under sparse attention (DeepSeek-V3.2 "
            "index_topk; 0 = dense: all of them).",
        ),
    ),
    "Katalog Model",
    "Model catalog",
    (_active_le_total, _sliding_le_layers, _layer_kinds, _heads_divisible, _experts_consistent),
)

# What a weight format costs in quality against 16-bit weights (docs/catalogs.md, "Quality of weight formats"):
# one headline percent, the kind of measurement behind it, the published figures, the model measured, and their own
# source and date (a row's `source` cites its bits per weight).
QUALITY_METRICS = ("ppl", "accuracy", "reference", "none")
_QUALITY = (
    _num(
        "quality_loss_pct",
        ("Penurunan kualitas vs 16-bit", "Quality loss vs 16-bit"),
        -100,
        100_000,
        unit="%",
        required=False,
        plausible=(-2, 100, "published loss of a usable format"),
        source="quality_source",
        doc="Published quality loss against the same model's 16-bit weights: for quality_metric ppl the "
        "perplexity increase (PPL ratio − 1, in %), for accuracy 100 − the accuracy recovery on standard "
        "benchmarks (%); 0 for the 16-bit reference; blank = no public measurement. Measured on one model "
        "(quality_model); smaller models lose more, larger ones less.",
        doc_id="Penurunan kualitas yang dipublikasikan terhadap bobot 16-bit model yang sama: untuk quality_metric "
        "ppl kenaikan perplexity (rasio PPL − 1, dalam %), untuk accuracy 100 − pemulihan akurasi pada benchmark "
        "standar (%); 0 untuk acuan 16-bit; kosong = tidak ada pengukuran publik. Diukur pada satu model "
        "(quality_model); model lebih kecil kehilangan lebih banyak, model lebih besar lebih sedikit.",
    ),
    _enum(
        "quality_metric",
        ("Dasar angka kualitas", "Basis of the quality figure"),
        choices=QUALITY_METRICS,
        source="quality_source",
        doc="ppl (perplexity increase), accuracy (100 − benchmark recovery), reference (16-bit or wider: the "
        "baseline itself) or none (no public measurement).",
        doc_id="ppl (kenaikan perplexity), accuracy (100 − pemulihan benchmark), reference (16-bit atau lebih "
        "lebar: acuannya sendiri) atau none (tidak ada pengukuran publik).",
    ),
    _text(
        "quality_raw",
        ("Angka terukur", "Published figures"),
        required=False,
        source="quality_source",
        doc="the published figures the loss is computed from (perplexities, KL divergence, benchmark averages)",
    ),
    _text(
        "quality_model",
        ("Model yang diukur", "Model measured"),
        required=False,
        source="quality_source",
        doc="the model (and size) the quality figure was measured on",
    ),
    _text(
        "quality_source",
        ("Sumber kualitas", "Quality source"),
        doc="where the quality figure comes from, or which sources were searched when none was found",
    ),
    _date("quality_as_of", ("Per tanggal (kualitas)", "Quality as of"), doc="date of the quality figure"),
)

QUANT = Schema(
    "quant",
    "quants.csv",
    (
        _text("name", ("Nama", "Name")),
        _enum(
            "kind",
            ("Jenis format bobot", "Weight format kind"),
            choices=("float", "int", "gguf", "awq", "gptq", "exl2", "mxfp4", "nvfp4", "nf4"),
            doc="float, int, gguf, awq, gptq, exl2, mxfp4 or nf4: quantized weights prefill at another efficiency.",
        ),
        _num(
            "bits_per_weight",
            ("Bit per parameter", "Bits per parameter"),
            0,
            64,
            above=True,
            doc="Effective bits per weight of the chosen format.",
        ),
        _enum(
            "compute",
            ("Presisi komputasi format", "Compute precision of the format"),
            choices=("fp16", "fp8", "fp4"),
            doc="fp16, fp8 or fp4: the matrix units the format computes in (W4A16 formats such as Q4_K_M or AWQ: "
            "fp16).",
        ),
        _enum(
            "dequant",
            ("Jenis dekuantisasi", "Dequantisation kind"),
            choices=("none", "block", "superblock"),
            doc="none (float weights), block (one scale per block: Q4_0, Q8_0, AWQ…) or superblock (K-quants, "
            "I-quants): super-block formats cost the cores more work per weight byte in decode.",
        ),
        *_QUALITY,
        *_SOURCE,
    ),
    "Kuantisasi",
    "Quantizations",
)

KV_CACHE = Schema(
    "kv_cache",
    "kv_cache_types.csv",
    (
        _text("name", ("Nama", "Name")),
        _num(
            "bits_per_value",
            ("Bit per nilai KV", "Bits per KV value"),
            0,
            64,
            above=True,
            doc="Bits stored per cached key/value element.",
        ),
        *_SOURCE,
    ),
    "Presisi KV cache",
    "KV-cache precisions",
)

ENGINE = Schema(
    "engine",
    "engines.csv",
    (
        _text("name", ("Nama", "Name")),
        _text("description", ("Keterangan", "Description")),
        _int(
            "max_batch",
            ("Batas batch mesin", "Engine batch limit"),
            1,
            1_000_000,
            doc="Sequences one replica decodes at most (the engine's default; raise it in the engine's settings).",
        ),
        *_SOURCE,
        _int(
            "allreduces_per_layer",
            ("Pertukaran antar-GPU per layer (tensor parallel)", "GPU exchanges per layer (tensor parallel)"),
            1,
            100,
            source="parallel_source",
            doc="Exchanges per layer and step when layers are split across GPUs: 2 all-reduces (Megatron: after "
            "attention and after the MLP); llama.cpp row split gathers every split weight matrix's result (7 per "
            "layer).",
        ),
        _num(
            "stage_boundary_us",
            ("Biaya per batas layer split", "Cost per layer-split boundary"),
            0,
            1_000_000,
            unit="µs",
            doc="Fixed cost each time a step passes from one GPU's layers to the next (synchronise, hand over "
            "activations).",
            source="parallel_source",
        ),
        _enum(
            "accumulate",
            ("Akumulasi kernel matriks mesin", "Engine's matrix accumulation"),
            choices=("fp16", "fp32"),
            doc="fp32: the engine's FP16/FP8 kernels sum in FP32 (vLLM-class), at GeForce's half rate; fp16: they sum "
            "in FP16 (llama.cpp's cuBLAS path), at the full rate.",
            source="parallel_source",
        ),
        _text(
            "parallel_source",
            ("Sumber multi-GPU", "Multi-GPU source"),
            doc="where the multi-GPU and accumulation figures come from",
        ),
        _enum(
            "default_split",
            ("Mode multi-GPU bawaan", "Default multi-GPU split"),
            choices=("layer", "tensor"),
            doc="how the engine splits a model over GPUs unless told otherwise (layer: in turn; tensor: together)",
            source="parallel_source",
        ),
        _num(
            "exchange_us",
            ("Biaya per pertukaran tensor parallel", "Cost per tensor-parallel exchange"),
            0,
            1_000_000,
            unit="µs",
            doc="Fixed cost of each exchange in tensor parallel on top of the link's hops: the engine synchronises "
            "the GPUs and launches each GPU's share (llama.cpp row split: per split weight matrix).",
            source="parallel_source",
        ),
        _num(
            "exchange_bandwidth_frac",
            ("Porsi bandwidth link pada salinan tensor parallel", "Link bandwidth share of tensor-parallel copies"),
            0,
            1,
            above=True,
            unit=("porsi", "share"),
            doc="Share of the effective link bandwidth the engine's tensor-parallel copies reach (llama.cpp row "
            "split: fitted by kalkulator calibrate on the row-split prompt rows; 1 = the link's rate).",
            source="parallel_source",
        ),
        _enum(
            "tensor_exchange",
            ("Pertukaran tensor parallel", "Tensor-parallel exchange"),
            choices=("allreduce", "gather"),
            doc="allreduce: each exchange all-reduces one hidden vector per token (Megatron-style engines); gather: "
            "every split matrix's input goes from the main GPU to each other GPU and each GPU's slice of its output "
            "comes back (llama.cpp row split).",
            source="parallel_source",
        ),
        _num(
            "activation_bytes",
            ("Byte per nilai aktivasi antar-GPU", "Bytes per activation value between GPUs"),
            0,
            8,
            above=True,
            unit=("byte", "bytes"),
            doc="Bytes of each activation value copied between GPUs: 4 where the engine's graphs carry FP32 "
            "activations (llama.cpp), 2 for FP16/BF16 (vLLM-class engines).",
            source="parallel_source",
        ),
        _enum(
            "pipeline",
            ("Pipeline micro-batch layer split", "Layer-split micro-batch pipeline"),
            choices=("ubatch", "none"),
            doc="ubatch: in layer split a prompt's micro-batches flow through the GPUs' stages at once (llama.cpp "
            "since March 2024); none: one stage after another.",
            source="parallel_source",
        ),
        _int(
            "batch_tokens",
            ("Token prompt per panggilan mesin", "Prompt tokens per engine call"),
            0,
            10_000_000,
            unit="token",
            doc="Prompt tokens the engine takes per call (llama.cpp n_batch 2,048, cut into micro-batches of "
            "n_ubatch); 0 = the whole prompt in one call.",
            source="parallel_source",
        ),
    ),
    "Mesin inferensi",
    "Inference engines",
)

# A weight format's class as engines support it: the quant kind, with float formats computed in FP8 apart (FP8).
# What stands behind a support row, strongest first; the last two mean the pair does not run.
EVIDENCE = ("measured", "documented", "reported-broken", "unsupported")
FORMAT_CLASSES = ("float", "fp8", "int", "nf4", "awq", "gptq", "exl2", "mxfp4", "nvfp4", "gguf")
SUPPORT = Schema(
    "support",
    "engine_support.csv",
    (
        _text(
            "name",
            ("Nama", "Name"),
            doc="engine/backend, engine/format, engine/backend/format or engine/backend/format.arch (arch: smNN for "
            "CUDA, "
            "else the architecture family): one pair the engine runs (formats: float, "
            "fp8, int, nf4, awq, gptq, exl2, mxfp4, nvfp4, gguf)",
        ),
        *_SOURCE,
        _num(
            "min_compute_capability",
            ("Kapabilitas komputasi minimum", "Minimum compute capability"),
            0,
            99,
            required=False,
            doc="the lowest CUDA compute capability the engine's kernels for this pair run on (blank = no limit)",
        ),
        _enum(
            "evidence",
            ("Bukti", "Evidence"),
            choices=EVIDENCE,
            doc="measured: a public run the project ships (engine/backend/format.arch rows, held to the data by a "
            "test); documented: the engine's docs or release notes say it runs; reported-broken: an open issue "
            "(cited) says it fails; unsupported: the docs leave it out",
            doc_id="measured: ada pengukuran publik yang dikirim proyek (baris engine/backend/format.arch, dicocokkan "
            "dengan data oleh tes); documented: dokumentasi atau catatan rilis mesin menyatakan berjalan; "
            "reported-broken: ada laporan masalah (dikutip) bahwa gagal; unsupported: dokumentasi tidak mencakupnya",
        ),
    ),
    "Dukungan mesin",
    "Engine support",
)

SPEED = Schema(
    "speed",
    "speed_params.csv",
    (
        _text("name", ("Nama", "Name"), doc="engine/backend@era (or without @era), engine/any as the fallback"),
        _num(
            "decode_efficiency_frac",
            ("Efisiensi bandwidth decode", "Decode bandwidth efficiency"),
            0,
            1,
            above=True,
            unit="0–1",
            doc="share of peak bandwidth reached in decode (GDDR, LPDDR, DDR)",
        ),
        _num(
            "decode_efficiency_hbm_frac",
            ("Efisiensi decode di HBM", "Decode efficiency on HBM"),
            0,
            1,
            above=True,
            unit="0–1",
            doc="same on HBM memory",
        ),
        _num(
            "layer_overhead_ms",
            ("Overhead per layer per langkah", "Fixed cost per layer and step"),
            0,
            1000,
            unit="ms",
            doc="Kernel launches and synchronisation per layer of each decode step.",
        ),
        _num(
            "attention_ns",
            ("Biaya attention per layer per token konteks", "Attention cost per layer and context token"),
            0,
            1_000_000,
            unit="ns",
            doc="Extra time per layer for each token in the context (attention without a fused kernel grows with it).",
        ),
        _num(
            "prefill_efficiency_frac",
            ("Efisiensi prefill", "Prefill efficiency"),
            0,
            1,
            above=True,
            unit="0–1",
            doc="share of peak FP16 FLOPS reached in prefill, float weights",
        ),
        _num(
            "prefill_efficiency_quant_frac",
            ("Efisiensi prefill terkuantisasi", "Quantized prefill efficiency"),
            0,
            1,
            above=True,
            unit="0–1",
            doc="same with quantized weights",
        ),
        _num(
            "prefill_layer_overhead_us",
            ("Overhead prefill per layer per token", "Prefill cost per layer and prompt token"),
            0,
            1_000_000,
            unit="µs",
            doc="Fixed cost per layer for each prompt token (kernel launches).",
        ),
        _num(
            "decode_flop_per_byte",
            ("Kerja ALU per byte bobot saat decode", "ALU work per byte streamed in decode"),
            0,
            BIG,
            unit="FLOP/byte",
            doc="Peak FP16 FLOPs the GPU must have per byte it streams in decode (loads, dequantisation, dot "
            "products): a GPU with few cores for its bandwidth cannot reach the kernels' efficiency (0 = no such "
            "limit).",
        ),
        _num(
            "decode_superblock_work_ratio",
            ("Rasio kerja ALU format super-blok", "Super-block formats' ALU work ratio"),
            0,
            10,
            above=True,
            doc="ALU work per byte of super-block formats (K-quants such as Q4_K_M, I-quants) ÷ that of block formats "
            "such as Q4_0: their scales and codebooks cost more instructions per weight.",
        ),
        _num(
            "prefill_attention_efficiency_frac",
            ("Efisiensi komputasi attention prefill", "Prefill attention efficiency"),
            0,
            1,
            above=True,
            unit="0–1",
            doc="Share of the peak FLOPS the attention of a prompt reaches (query × key and softmax × value over the "
            "context): less than the weight matrix multiplies, and what makes a prompt after a long context slow.",
        ),
        _num(
            "prefill_alu_work_ratio",
            ("Kerja ALU prefill bobot terkuantisasi", "ALU work of quantized prefill"),
            0,
            10,
            unit="op/FLOP",
            doc="Shader-ALU operations per weight-multiply FLOP when the prompt's weights are quantized (dequantising,"
            " integer packing, scales): they run at the FP32 rate of the ordinary cores, beside the tensor units.",
        ),
        _int(
            "prefill_chunk_tokens",
            ("Ukuran potongan prefill", "Prefill chunk size"),
            0,
            BIG,
            unit=("token", "tokens"),
            doc="Prompt tokens the engine processes per step (llama.cpp micro-batch -ub 512; vLLM/TensorRT-LLM token "
            "budget): every chunk reads the weights it needs once.",
        ),
        _int(
            "fp8_fp4_units",
            ("Kernel FP8/FP4 dipakai?", "FP8/FP4 kernels used?"),
            0,
            1,
            unit="0/1",
            doc="1 when the engine computes FP4 formats (MXFP4, NVFP4) on the GPU's FP4 units; 0 when it widens them "
            "first (FP8 formats use FP8 units where the GPU has them).",
        ),
        _num(
            "serial_frac",
            ("Porsi waktu memori/komputasi yang tidak tumpang tindih", "Share of memory/compute time not overlapped"),
            0,
            1,
            unit="0–1",
            doc="A serving step takes the longer of its memory and compute time plus this share of the shorter one (0 "
            "= perfect overlap, the roofline; 1 = no overlap).",
        ),
        _num(
            "moe_kernel_efficiency_frac",
            ("Efisiensi kernel MoE", "MoE kernel efficiency"),
            0,
            1,
            above=True,
            required=False,
            unit="0–1",
            doc="Share of the dense kernels' bandwidth the engine's fused-MoE (grouped GEMM) kernels reach on the "
            "routed experts' weights in decode; blank = 1 (no MoE penalty).",
        ),
        _num(
            "moe_prefill_efficiency_frac",
            ("Efisiensi kernel MoE saat prefill", "MoE prefill kernel efficiency"),
            0,
            1,
            above=True,
            required=False,
            unit="0–1",
            doc="Share of the dense weight multiplies' FLOPS the engine's grouped-GEMM kernels reach on the routed "
            "experts in prefill (each expert multiplies only the tokens routed to it); blank = 1 (no MoE penalty).",
        ),
        _num(
            "kv_read_efficiency_frac",
            ("Efisiensi baca KV cache", "KV-cache read efficiency"),
            0,
            1,
            above=True,
            required=False,
            unit="0–1",
            doc="Share of the weight multiplies' decode bandwidth the engine's attention kernels reach reading the KV "
            "cache at a fixed concurrency (fixed_step_ms: many users × long contexts); fitted on NIM TensorRT-LLM "
            "runs at 1–250 requests in flight. The max-load serving fit reads the KV cache at the weights' rate. "
            "Blank = 1.",
        ),
        _num(
            "error_low_frac",
            ("Batas bawah galat kecepatan", "Speed error, lower bound"),
            -1,
            0,
            unit="0–1",
            doc="10th percentile of measured ÷ predicted − 1 on devices held out of the fit.",
        ),
        _num(
            "error_high_frac",
            ("Batas atas galat kecepatan", "Speed error, upper bound"),
            0,
            10,
            unit="0–1",
            doc="90th percentile of measured ÷ predicted − 1 on devices held out of the fit.",
        ),
        _num(
            "prefill_error_low_frac",
            ("Batas bawah galat kecepatan prefill", "Prefill speed error, lower bound"),
            -1,
            0,
            unit="0–1",
            doc="10th percentile of measured ÷ predicted − 1 for prompt speed on devices held out of the fit.",
        ),
        _num(
            "prefill_error_high_frac",
            ("Batas atas galat kecepatan prefill", "Prefill speed error, upper bound"),
            0,
            10,
            unit="0–1",
            doc="90th percentile of measured ÷ predicted − 1 for prompt speed on devices held out of the fit.",
        ),
        _num(
            "band_floor_frac",
            ("Pita minimum decode (belum terkalibrasi)", "Least decode band (not calibrated)"),
            0,
            1,
            required=False,
            unit="0–1",
            doc="The least half-width of the decode band, set where no measurement that holds a device out "
            "calibrates this family (assumptions/calibration/uncalibrated.csv, written by kalkulator calibrate): "
            "the band is at least ± this and the status says the speed is not calibrated. Blank or 0 = calibrated.",
            doc_id="Setengah lebar minimum pita decode, dipasang bila tidak ada pengukuran (dengan satu perangkat "
            "disisihkan) yang mengkalibrasi keluarga ini (assumptions/calibration/uncalibrated.csv, ditulis "
            "kalkulator calibrate): pita paling sedikit ± nilai ini dan status menyebut kecepatannya belum "
            "terkalibrasi. Kosong atau 0 = terkalibrasi.",
        ),
        _num(
            "prefill_band_floor_frac",
            ("Pita minimum prefill (belum terkalibrasi)", "Least prefill band (not calibrated)"),
            0,
            1,
            required=False,
            unit="0–1",
            doc="As band_floor_frac, for the prompt (prefill) speed. Blank or 0 = calibrated.",
            doc_id="Seperti band_floor_frac, untuk kecepatan prompt (prefill). Kosong atau 0 = terkalibrasi.",
        ),
        _int(
            "fit_points",
            ("Jumlah pengukuran", "Measurements"),
            0,
            BIG,
            doc="measurements behind the fit (0 = assumption)",
        ),
        *_SOURCE,
    ),
    "Parameter kecepatan",
    "Speed parameters",
)


def _one_currency(row: dict) -> str | None:
    if (row["usd_per_hour"] is None) == (row["idr_per_hour"] is None):
        return "idr_per_hour: give exactly one of usd_per_hour and idr_per_hour"
    return None


TARIFF = Schema(
    "tariff",
    "tariffs.csv",
    (
        _text("name", ("Nama", "Name")),
        _enum("kind", ("Jenis tarif", "Tariff kind"), choices=("pln", "datacenter")),
        _num(
            "idr_per_kwh",
            ("Harga listrik", "Electricity price"),
            0,
            1_000_000,
            unit="Rp/kWh",
            plausible=(300, 10000, "PLN tariffs are about Rp 1,000–2,500 per kWh"),
            doc="Rupiah per kWh of the tariff.",
        ),
        *_SOURCE,
    ),
    "Tarif listrik",
    "Electricity tariffs",
)

CLOUD = Schema(
    "cloud",
    "cloud_gpus.csv",
    (
        _text("name", ("Nama", "Name")),
        _text("provider", ("Penyedia", "Provider")),
        _text("gpu", ("GPU di penawaran", "GPU of the offer"), doc="GPU model of the instance."),
        _int("gpus", ("GPU per instance", "GPUs per instance"), 1, 1024, doc="GPUs in one instance."),
        _num(
            "usd_per_hour",
            ("Harga per jam (USD)", "Price per hour (USD)"),
            0,
            BIG,
            above=True,
            required=False,
            doc="On-demand price of the instance (blank, read as 0, when billed in rupiah).",
        ),
        _num(
            "idr_per_hour",
            ("Harga per jam (Rupiah)", "Price per hour (rupiah)"),
            0,
            BIG,
            above=True,
            required=False,
            doc="Price of providers billing in rupiah (blank, read as 0, when billed in USD).",
        ),
        _num(
            "spot_usd_per_hour",
            ("Harga spot per jam (USD)", "Spot price per hour (USD)"),
            0,
            BIG,
            above=True,
            required=False,
            doc="Spot (interruptible) or community-cloud price of the instance (blank, read as 0: none listed).",
            doc_id="Harga spot (bisa dihentikan penyedia) atau community cloud untuk instance (kosong, dibaca 0: "
            "tidak tercantum).",
        ),
        _text("region", ("Region", "Region")),
        _data_region(),
        _enum(
            "offer_kind",
            ("Jenis penawaran", "Kind of offer"),
            choices=("datacenter", "marketplace"),
            doc="datacenter: the provider's own machines in a data centre; marketplace: hosts of third parties (peer "
            "to peer), reliability and security as each host keeps them",
            doc_id="datacenter: mesin penyedia sendiri di pusat data; marketplace: host pihak ketiga (peer to peer), "
            "keandalan dan keamanan sesuai tiap host",
        ),
        *_SOURCE,
    ),
    "Cloud GPU per jam",
    "Cloud GPUs by the hour",
    (_one_currency,),
)

API = Schema(
    "api",
    "api_prices.csv",
    (
        _text("name", ("Nama", "Name")),
        _text("provider", ("Penyedia", "Provider")),
        _text(
            "model",
            ("Model yang dilayani API", "Model the API serves"),
            doc="the model the row serves: a catalog model name for open models, else the provider's model",
        ),
        _text(
            "family_class",
            ("Keluarga|kelas ukuran", "Family|size class"),
            required=False,
            doc="catalog family|size class of that model (small ≤ 15 B, medium ≤ 40 B, large ≤ 150 B, frontier), blank"
            " for closed models",
        ),
        _num(
            "input_usd_per_1m",
            ("Harga token input", "Input token price"),
            0,
            10_000,
            unit=PER_1M_USD,
            doc="USD per 1M prompt tokens.",
            doc_id="USD per 1 juta token input.",
        ),
        _num(
            "output_usd_per_1m",
            ("Harga token output", "Output token price"),
            0,
            10_000,
            unit=PER_1M_USD,
            doc="USD per 1M generated tokens.",
            doc_id="USD per 1 juta token output.",
        ),
        _num(
            "cached_input_usd_per_1m",
            ("Harga token input dari cache", "Cached input token price"),
            0,
            10_000,
            unit=PER_1M_USD,
            required=False,
            doc="USD per 1M prompt tokens read from the provider's prompt cache (blank in the catalog: the input "
            "price).",
            doc_id="USD per 1 juta token prompt yang dibaca dari cache penyedia (kosong di katalog: harga input).",
        ),
        _num(
            "batch_discount_frac",
            ("Diskon API batch", "Batch API discount"),
            0,
            1,
            unit="0–1",
            required=False,
            doc="Discount of the provider's batch API (blank: it has none); applies when the batch mode is on.",
            doc_id="Diskon API batch penyedia (0 bila tidak ada); berlaku bila mode batch 'on'.",
        ),
        _data_region(),
        *_SOURCE,
    ),
    "Harga API",
    "API prices",
)

HOSTING = Schema(
    "hosting",
    "hosting.csv",
    (
        _text("name", ("Nama", "Name")),
        _enum("mode", ("Mode", "Mode"), choices=("colocation", "dedicated")),
        _num(
            "idr_per_month",
            ("Sewa paket per bulan", "Plan rent per month"),
            0,
            BIG,
            above=True,
            unit="Rp",
            doc="Rent of the plan.",
        ),
        _int(
            "gpus",
            ("GPU yang dicakup paket", "GPUs the plan is sized for"),
            0,
            10_000,
            doc="0 = a fixed slot, not sized per GPU.",
        ),
        _text(
            "gpu", ("GPU", "GPU"), required=False, doc="GPU model a dedicated server comes with (blank for rack space)"
        ),
        _num(
            "kw_included",
            ("Daya termasuk dalam paket", "Power included in the plan"),
            0,
            10_000,
            unit="kW",
            doc="kW of power the rent includes; more is billed per kWh.",
            plausible=(0.1, 1_000, "kW included in a colocation plan (0: none)"),
        ),
        _data_region(),
        *_SOURCE,
    ),
    "Colocation dan dedicated",
    "Colocation and dedicated servers",
)

COOLING_TYPES = ("data-centre", "precision-ac", "liquid", "immersion", "office-ac", "none")

DEPLOYMENT = Schema(
    "deployment",
    "deployments.csv",
    (
        _text("name", ("Nama", "Name")),
        _int("gpus_per_server", ("GPU per server", "GPUs per server"), 1, 1024, doc="GPUs one server (or board) holds"),
        _int(
            "whole_servers",
            ("Beli per server utuh", "Bought in whole servers"),
            0,
            1,
            unit="0/1",
            doc="1 = GPUs are bought only in whole servers or boards (SXM: HGX/DGX)",
        ),
        _num(
            "server_capex_idr",
            ("Platform per server (tanpa GPU)", "Platform per server (without GPUs)"),
            0,
            BIG,
            unit="Rp",
            doc="CPUs, board, memory, PSUs and chassis of one server, from the deployment profile.",
        ),
        _num(
            "host_power_w",
            ("Daya server selain GPU", "Server power besides the GPUs"),
            0,
            1_000_000,
            unit="W",
            doc="CPU, memory, disks, fans and PSU losses at load, per server, from the deployment profile.",
        ),
        _num(
            "network_capex_idr",
            ("Jaringan per server", "Network per server"),
            0,
            BIG,
            unit="Rp",
            doc="NICs, switch ports and cabling per server, from the deployment profile.",
            doc_id="NIC, port switch dan kabel per server, dari profil penempatan.",
        ),
        _num(
            "storage_capex_idr",
            ("Penyimpanan per server", "Storage per server"),
            0,
            BIG,
            unit="Rp",
            doc="NVMe (RAID) per server, from the deployment profile.",
            doc_id="NVMe (RAID) per server, dari profil penempatan.",
        ),
        _num(
            "setup_capex_idr",
            ("Instalasi dan setup per server", "Installation and setup per server"),
            0,
            BIG,
            unit="Rp",
            doc="Racking, wiring and installation per server, from the deployment profile.",
            doc_id="Pemasangan rak, kabel dan instalasi per server, dari profil penempatan.",
        ),
        _num(
            "maintenance_frac",
            ("Pemeliharaan per tahun", "Maintenance per year"),
            0,
            1,
            unit=("porsi capex", "share of capex"),
            doc="Spare parts, support contract and repairs per year as a share of the capex, from the deployment "
            "profile.",
        ),
        _num(
            "staff_fte_per_server",
            ("SDM per server", "Staff per server"),
            0,
            BIG,
            unit="FTE",
            doc="Engineers (full-time equivalents) per server, from the deployment profile (0 for a workstation).",
        ),
        _num(
            "staff_salary_idr_per_month",
            ("Biaya satu engineer per bulan", "One engineer per month"),
            0,
            BIG,
            unit="Rp",
            doc="Monthly cost of one full-time engineer.",
        ),
        _enum(
            "cooling_type",
            ("Jenis pendinginan", "Cooling type"),
            choices=COOLING_TYPES,
            doc="How the room is cooled, from the deployment profile; sets the PUE unless one is typed (none: a "
            "workstation in a room cooled for people).",
        ),
        _text(
            "tariff_name",
            ("Tarif listrik", "Electricity tariff"),
            doc="PLN tariff group or data-centre power rate (a name in tariffs.csv), from the deployment profile "
            "(choose another as a manual value).",
        ),
        _text(
            "colocation_name",
            ("Paket colocation", "Colocation plan"),
            doc="Rack space rented for your own servers (a name in hosting.csv), from the deployment profile (choose "
            "another as a manual value).",
        ),
        _int(
            "max_servers",
            ("Server maksimum", "Most servers"),
            0,
            BIG,
            required=False,
            doc="Most servers (boxes) the profile holds: an office box is one PC (blank = no limit).",
            doc_id="Server (kotak) terbanyak yang dimuat profil: kotak kantor adalah satu PC (kosong = tanpa batas).",
        ),
        _num(
            "max_server_power_w",
            ("Daya maksimum per server", "Most power per server"),
            0,
            BIG,
            unit="W",
            required=False,
            doc="Most a server's PSU delivers: GPUs at TDP plus host power above it do not run (blank = no limit).",
            doc_id="Daya terbesar PSU satu server: GPU pada TDP ditambah host di atasnya tidak berjalan (kosong = "
            "tanpa "
            "batas).",
        ),
        _int(
            "datacenter",
            ("Penempatan pusat data?", "Data-centre deployment?"),
            0,
            1,
            doc="1 when the profile stands in a server room or data centre (licences that forbid data-centre use "
            "apply), 0 for a desktop in an office.",
            doc_id="1 bila profil berada di ruang server atau pusat data (lisensi yang melarang pemakaian di pusat "
            "data berlaku), 0 untuk desktop di kantor.",
        ),
        *_SOURCE,
    ),
    "Profil penempatan",
    "Deployment profiles",
)

BOARD = Schema(
    "board",
    "boards.csv",
    (
        _text("name", ("Nama", "Name")),
        _text("gpu", ("GPU", "GPU"), doc="catalog GPU the board carries"),
        _int("gpus", ("GPU per board", "GPUs per board"), 1, BIG, doc="GPUs on one board"),
        _num(
            "price_usd", ("Harga board", "Board price"), 0, BIG, above=True, unit="USD", doc="price of the whole board"
        ),
        *_SOURCE,
    ),
    "GPU yang dijual per board (SXM/OAM)",
    "GPUs sold only as boards (SXM/OAM)",
)

WORKLOAD = Schema(
    "workload",
    "workloads.csv",
    (
        _text("name", ("Nama", "Name")),
        _int(
            "text_prompt_tokens",
            ("Token teks baru per permintaan/langkah", "New text tokens per request/step"),
            0,
            100_000_000,
            doc="Text a request adds to the prompt: the whole prompt of a single request, or an agent step's new "
            "message or tool result. From the workload preset.",
        ),
        _int(
            "output_tokens",
            ("Token output", "Output tokens"),
            1,
            10_000_000,
            doc="Tokens generated per request (decode), from the workload preset; type a count to replace it.",
        ),
        _num(
            "prefix_cache_hit_frac",
            ("Porsi prompt dari prefix cache", "Share of the prompt from the prefix cache"),
            0,
            1,
            unit="0–1",
            doc="Share of each prompt already in the KV cache (a shared system prompt, earlier turns of a chat): no "
            "prefill compute for it, though new tokens still attend to it; APIs bill it at their cached price. "
            "From the workload preset; type a share to replace it.",
        ),
        _num(
            "sla_ttft_s",
            ("Target TTFT", "TTFT target"),
            0,
            100_000,
            above=True,
            unit=("detik", "s"),
            doc="Longest acceptable average wait for the first token at the peak, from the workload preset.",
        ),
        _num(
            "sla_tpot_ms",
            ("Target TPOT", "TPOT target"),
            0,
            1_000_000,
            above=True,
            unit="ms",
            doc="Longest acceptable time per output token at the peak (100 ms = 10 tok/s per user, faster than "
            "reading), from the workload preset.",
        ),
        _num(
            "active_hours_per_day",
            ("Jam aktif per hari", "Active hours per day"),
            0,
            24,
            above=True,
            plausible=(0.5, 24, "hours a day with traffic"),
            doc="Hours per day in which the requests arrive (office hours: about 10), from the workload preset.",
        ),
        _int(
            "session_steps",
            ("Langkah per sesi", "Steps per session"),
            1,
            10_000,
            doc="Model calls in one session: an agent's tool calls and its answer (1 = a single request). Each step "
            "re-sends the system prompt, the tool definitions and every earlier step. From the workload preset.",
        ),
        _int(
            "tool_definition_tokens",
            ("Token system + definisi tool", "System + tool-definition tokens"),
            0,
            100_000_000,
            doc="System prompt and tool definitions (JSON schemas) sent with every step of a session, from the "
            "workload preset.",
        ),
        _int(
            "images_per_request",
            ("Gambar per permintaan", "Images per request"),
            0,
            10_000,
            doc="Images sent with each request (each step of an agent), from the workload preset.",
        ),
        _int(
            "image_tokens",
            ("Token per gambar", "Tokens per image"),
            0,
            1_000_000,
            doc="tokens the vision encoder gives one image",
        ),
        _num(
            "requests_per_user_per_hour",
            ("Permintaan per pengguna aktif per jam", "Requests per active user per hour"),
            0,
            100_000,
            plausible=(0, 600, "requests an hour from one person"),
            doc="Requests one active user sends per hour (the book: 10 responses an hour; 0 = back to back, like a "
            "batch worker), from the workload preset.",
        ),
        _num(
            "peak_active_share_frac",
            ("Porsi pengguna aktif saat puncak", "Share of users active at the peak"),
            0,
            1,
            unit="0–1",
            doc="Share of the users who use the service in the busiest hour, from the workload preset.",
        ),
        _num(
            "max_quality_loss_pct",
            ("Batas penurunan kualitas", "Quality loss allowed"),
            0,
            100_000,
            unit="%",
            doc="The largest published quality loss of the weight format (quality_loss_pct of quants.csv) this "
            "workload accepts; `plan` leaves out formats above it. From the workload preset.",
            doc_id="Penurunan kualitas terbesar yang dipublikasikan (quality_loss_pct di quants.csv) yang diterima "
            "beban kerja ini; `plan` membuang format di atasnya. Dari profil beban kerja.",
        ),
        _enum(
            "api_batch_mode",
            ("Pakai API batch?", "Use the batch API?"),
            choices=("on", "off"),
            doc="on: the workload can wait (hours) for a provider's batch API, so the batch discount applies to "
            "every API that has one; from the workload preset (on for batch summarisation).",
            doc_id="Pilih 'on' bila beban kerja bisa menunggu (jam) API batch penyedia, sehingga diskon batch "
            "berlaku untuk setiap API yang punya; dari profil beban kerja ('on' untuk batch summarisation).",
        ),
        _num(
            "arrival_cv_ratio",
            ("Keragaman kedatangan (CV)", "Arrival burstiness (CV)"),
            0,
            100,
            plausible=(0.5, 5, "coefficient of variation of inter-arrival times"),
            doc="Coefficient of variation of the time between requests (1 = Poisson: many independent users; above "
            "1 = bursty traffic). It scales the queue wait by CV² (Allen–Cunneen); from the workload preset.",
            doc_id="Koefisien variasi jarak antar-permintaan (1 = Poisson: banyak pengguna independen; di atas 1 = "
            "lalu lintas bergerombol). Mengalikan waktu antre dengan CV² (Allen–Cunneen); dari profil beban kerja.",
        ),
        *_SOURCE,
    ),
    "Profil beban kerja",
    "Workload presets",
)

MEASURED = Schema(
    "measured",
    "measurements.csv",
    (
        _text("name", ("Nama", "Name")),
        _text("gpu_name", ("GPU", "GPU"), unit=("katalog", "catalog"), doc="catalog GPU the measurement ran on"),
        _text("model_name", ("Model", "Model"), unit=("katalog", "catalog"), doc="catalog model"),
        _text("quant_name", ("Kuantisasi", "Quantization"), doc="catalog quantization"),
        _text("kv_cache_type", ("Presisi KV cache", "KV-cache precision"), doc="catalog KV-cache precision"),
        _text("engine", ("Mesin inferensi", "Inference engine"), doc="catalog engine"),
        Field("n_gpus", "int", "Jumlah GPU", "GPUs", domain=SCENARIO["n_gpus"]),
        Field(
            "concurrent_users",
            "number",
            "Batch",
            "Batch",
            "pengguna",
            "users",
            doc="sequences decoded at once (llama-bench: 1)",
            domain=SCENARIO["concurrent_users"],
        ),
        Field(
            "cpu_offload_frac",
            "number",
            "Porsi bobot di RAM sistem",
            "Share of weights in system RAM",
            doc="share of weights in system RAM (llama-bench -ngl 99: 0)",
            domain=BY_UNIT["_frac"],
        ),
        Field(
            "prefix_cache_hit_frac",
            "number",
            "Porsi prompt dari prefix cache",
            "Share of the prompt from a prefix cache",
            doc="share of the prompt already in the KV cache",
            domain=WORKLOAD.field("prefix_cache_hit_frac").domain,
        ),
        # A measurement of one phase has none of the other: tg rows may have no prompt, pp rows no output.
        Field(
            "prompt_tokens",
            "int",
            "Token prompt",
            "Prompt tokens",
            doc="tokens before generation (tg) or processed (pp)",
            domain=replace(SCENARIO["prompt_tokens"], low=0),
        ),
        Field(
            "output_tokens",
            "int",
            "Token output",
            "Output tokens",
            doc="tokens generated",
            domain=replace(WORKLOAD.field("output_tokens").domain, low=0),
        ),
        Field(
            "context_tokens",
            "number",
            "Konteks saat diukur",
            "Context when measured",
            "token",
            "tokens",
            domain=SCENARIO["context_tokens"],
            doc="KV-cache length the speed is estimated at: prompt + output/2 for tg (llama-bench averages the run), "
            "the prompt for pp",
        ),
        _enum(
            "measured_metric_type",
            ("Yang diukur", "Measured"),
            unit="tg/pp",
            choices=("tg", "pp"),
            doc="tg = decode tok/s, pp = prefill tok/s",
        ),
        _num(
            "measured_tok_s",
            ("Kecepatan terukur", "Measured speed"),
            0,
            BIG,
            above=True,
            unit="tok/s",
            doc="the published figure",
        ),
        _text("build", ("Build", "Build"), doc="engine build (commit or build number) as published"),
        _text(
            "build_era_text",
            ("Generasi build", "Build era"),
            doc="speed-parameter era of that build: 2025 = current builds, 2024 = up to mid-2024",
        ),
        _text("hardware", ("Perangkat menurut sumber", "Device as published"), doc="the device as the source names it"),
        *_SOURCE,
    ),
    "Pengukuran terbitan",
    "Published measurements",
)

VISION = Schema(
    "vision",
    "vision_encoders.csv",
    (
        _text("name", ("Nama", "Name")),
        _num(
            "params_b",
            ("Parameter total", "Total parameters"),
            0,
            BIG,
            above=True,
            unit=("miliar", "billions"),
            doc="encoder parameters, billions (kept at 16 bits beside a quantized model)",
        ),
        _int(
            "image_px",
            ("Sisi gambar", "Image side"),
            1,
            BIG,
            unit="px",
            doc="image side the encoder works at, pixels (one tile or crop)",
        ),
        _int(
            "patches_per_image",
            ("Patch per gambar", "Patches per image"),
            1,
            BIG,
            doc="patches the encoder computes per image (its sequence length)",
        ),
        _int(
            "tokens_per_image",
            ("Token per gambar", "Tokens per image"),
            1,
            BIG,
            doc="tokens one image adds to the prompt (after any merging or pooling)",
        ),
        *_SOURCE,
    ),
    "Encoder visi",
    "Vision encoders",
)

SCHEMAS: tuple[Schema, ...] = (
    GPU,
    MODEL,
    QUANT,
    KV_CACHE,
    ENGINE,
    SUPPORT,
    SPEED,
    TARIFF,
    CLOUD,
    API,
    HOSTING,
    DEPLOYMENT,
    BOARD,
    WORKLOAD,
    VISION,
    MEASURED,
)


def field_of(table: str, column: str) -> Field:
    """The Field of `table`.`column` (table by its key: gpu, model, ...)."""
    return next(s for s in SCHEMAS if s.key == table).field(column)
