"""Load and validate the catalogs in assumptions/ into typed rows, with errors naming file:row:column.

Every catalog is a CSV with a `name` key, a `source` and an `as_of` date per row. A catalog error is
raised before anything is written, so a bad row never yields a half-built workbook.
"""

from __future__ import annotations

import codecs
import csv
import datetime as dt
import io
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from kalkulator.files import MB, FileReadError, read_bounded
from kalkulator.paths import CATALOG_DIR

# Characters that make a name unsafe as a MATCH key (wildcards) or as CSV/spreadsheet text.
_NAME_FORBIDDEN = set('*?~,"')
CSV_LIMIT_BYTES = 256 * MB  # a catalog or a scenario batch: 100,000 scenario rows take a few MB
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")  # text a spreadsheet may read as a formula


class CatalogError(ValueError):
    """One or more catalog rows are invalid; each message names file:line:column."""

    def __init__(self, messages: list[str]):
        self.messages = messages
        super().__init__("\n".join(messages))


class CsvFileError(ValueError):
    """A CSV file cannot be read as a table; the message names the file and, where there is one, the line."""


@dataclass(frozen=True)
class Field:
    name: str
    kind: str  # text | number | int | enum | date
    required: bool = True
    low: float | None = None  # inclusive lower bound
    positive: bool = False  # > 0
    high: float | None = None  # inclusive upper bound
    choices: tuple[str, ...] = ()
    doc: str = ""


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
        labels = FIELD_LABELS.get(f"{self.key}.{name}") or FIELD_LABELS[name]
        return labels[0] if lang == "id" else labels[1]


# Column headers of the catalog sheets, (Indonesian, English), by field name or "table.field" when the same
# field name means something else in another table. The CSV field names stay the names contract.
FIELD_LABELS: dict[str, tuple[str, str]] = {
    "name": ("Nama", "Name"),
    "source": ("Sumber", "Source"),
    "as_of": ("Per tanggal", "As of"),
    "vendor": ("Vendor", "Vendor"),
    "segment": ("Segmen", "Segment"),
    "backend": ("Backend", "Backend"),
    "mem_bandwidth_gbs": ("Bandwidth memori (GB/s)", "Memory bandwidth (GB/s)"),
    "vram_gib": ("Memori (GiB)", "Memory (GiB)"),
    "fp16_tflops": ("FP16 dense (TFLOPS)", "FP16 dense (TFLOPS)"),
    "fp32_tflops": ("FP32 non-tensor (TFLOPS)", "FP32 non-tensor (TFLOPS)"),
    "fp8_tflops": ("FP8 dense (TFLOPS)", "FP8 dense (TFLOPS)"),
    "fp4_tflops": ("FP4 dense (TFLOPS)", "FP4 dense (TFLOPS)"),
    "memory_type": ("Jenis memori", "Memory type"),
    "tdp_w": ("Daya (W)", "Power (W)"),
    "price_usd": ("Harga (USD)", "Price (USD)"),
    "link_kind": ("Jenis interkoneksi", "Interconnect"),
    "link_bandwidth_gbs": ("Bandwidth interkoneksi per arah (GB/s)", "Link bandwidth per direction (GB/s)"),
    "link_latency_us": ("Latensi per lompatan (µs)", "Latency per hop (µs)"),
    "p2p": ("P2P antar-GPU", "GPU peer-to-peer"),
    "link_source": ("Sumber interkoneksi", "Interconnect source"),
    "fp16_fp32acc_tflops": ("FP16 akumulasi FP32 (TFLOPS)", "FP16, FP32 accumulate (TFLOPS)"),
    "fp8_fp32acc_tflops": ("FP8 akumulasi FP32 (TFLOPS)", "FP8, FP32 accumulate (TFLOPS)"),
    "accumulate_source": ("Sumber laju akumulasi", "Accumulation source"),
    "compute_capability": ("Kapabilitas komputasi CUDA", "CUDA compute capability"),
    "compute_capability_source": ("Sumber kapabilitas komputasi", "Compute capability source"),
    "min_compute_capability": ("Kapabilitas komputasi minimum", "Minimum compute capability"),
    "allreduces_per_layer": ("Pertukaran per layer (tensor parallel)", "Exchanges per layer (tensor parallel)"),
    "stage_boundary_us": ("Biaya per batas layer split (µs)", "Cost per layer-split boundary (µs)"),
    "accumulate": ("Akumulasi kernel", "Kernel accumulation"),
    "parallel_source": ("Sumber multi-GPU", "Multi-GPU source"),
    "default_split": ("Mode multi-GPU bawaan", "Default multi-GPU split"),
    "family": ("Keluarga", "Family"),
    "params_b": ("Parameter total (miliar)", "Total parameters (billions)"),
    "active_params_b": ("Parameter aktif (miliar)", "Active parameters (billions)"),
    "layers": ("Jumlah layer", "Layers"),
    "hidden": ("Dimensi hidden", "Hidden size"),
    "heads": ("Jumlah attention head", "Attention heads"),
    "kv_heads": ("Jumlah KV head", "KV heads"),
    "head_dim": ("Dimensi per head", "Head size"),
    "vocab": ("Ukuran vocab", "Vocabulary"),
    "max_context": ("Konteks maksimum (token)", "Maximum context (tokens)"),
    "attention": ("Jenis attention", "Attention type"),
    "kv_latent_dim": ("Lebar laten KV (MLA)", "KV latent width (MLA)"),
    "sliding_window": ("Sliding window (token)", "Sliding window (tokens)"),
    "sliding_layers": ("Layer sliding window", "Sliding-window layers"),
    "experts": ("Jumlah expert (MoE)", "Experts (MoE)"),
    "active_experts": ("Expert aktif per token", "Active experts per token"),
    "expert_params_b": ("Parameter expert (miliar)", "Expert parameters (billions)"),
    "moe_source": ("Sumber MoE", "MoE source"),
    "quant.kind": ("Jenis format", "Format kind"),
    "bits_per_weight": ("Bit per bobot", "Bits per weight"),
    "compute": ("Presisi komputasi", "Compute precision"),
    "dequant": ("Dekuantisasi", "Dequantisation"),
    "bits_per_value": ("Bit per nilai", "Bits per value"),
    "description": ("Keterangan", "Description"),
    "max_batch": ("Batch maksimum", "Maximum batch"),
    "decode_efficiency_frac": ("Efisiensi bandwidth decode (0–1)", "Decode bandwidth efficiency (0–1)"),
    "decode_efficiency_hbm_frac": ("Efisiensi decode di HBM (0–1)", "Decode efficiency on HBM (0–1)"),
    "layer_overhead_ms": ("Overhead per layer (ms)", "Overhead per layer (ms)"),
    "attention_ns": ("Attention per token konteks (ns)", "Attention per context token (ns)"),
    "prefill_efficiency_frac": ("Efisiensi prefill (0–1)", "Prefill efficiency (0–1)"),
    "prefill_efficiency_quant_frac": ("Efisiensi prefill terkuantisasi (0–1)", "Quantized prefill efficiency (0–1)"),
    "prefill_layer_overhead_us": ("Overhead prefill per layer (µs)", "Prefill overhead per layer (µs)"),
    "decode_flop_per_byte": ("Kerja ALU decode (FLOP/byte)", "Decode ALU work (FLOP/byte)"),
    "decode_superblock_work_ratio": ("Rasio kerja format super-blok", "Super-block format work ratio"),
    "prefill_attention_efficiency_frac": ("Efisiensi attention prefill (0–1)", "Prefill attention efficiency (0–1)"),
    "prefill_alu_work_ratio": ("Kerja ALU prefill terkuantisasi (op/FLOP)", "Quantized prefill ALU work (op/FLOP)"),
    "prefill_chunk_tokens": ("Potongan prefill (token)", "Prefill chunk (tokens)"),
    "fp8_fp4_units": ("Unit FP8/FP4 (0/1)", "FP8/FP4 units (0/1)"),
    "serial_frac": ("Porsi serial (0–1)", "Serial share (0–1)"),
    "error_low_frac": ("Galat bawah (0–1)", "Lower error (0–1)"),
    "error_high_frac": ("Galat atas (0–1)", "Upper error (0–1)"),
    "prefill_error_low_frac": ("Galat bawah prefill (0–1)", "Prefill lower error (0–1)"),
    "prefill_error_high_frac": ("Galat atas prefill (0–1)", "Prefill upper error (0–1)"),
    "fit_points": ("Jumlah pengukuran", "Measurements"),
    "tariff.kind": ("Jenis tarif", "Tariff kind"),
    "idr_per_kwh": ("Rp/kWh", "Rp/kWh"),
    "provider": ("Penyedia", "Provider"),
    "gpu": ("GPU", "GPU"),
    "cloud.gpus": ("GPU per instance", "GPUs per instance"),
    "usd_per_hour": ("USD/jam", "USD/hour"),
    "idr_per_hour": ("Rp/jam", "Rp/hour"),
    "spot_usd_per_hour": ("Spot USD/jam", "Spot USD/hour"),
    "region": ("Region", "Region"),
    "input_usd_per_1m": ("Input USD/1 juta token", "Input USD/1M tokens"),
    "output_usd_per_1m": ("Output USD/1 juta token", "Output USD/1M tokens"),
    "cached_input_usd_per_1m": ("Input dari cache USD/1 juta token", "Cached input USD/1M tokens"),
    "mode": ("Mode", "Mode"),
    "idr_per_month": ("Rp/bulan", "Rp/month"),
    "hosting.gpus": ("GPU dalam paket", "GPUs in the plan"),
    "kw_included": ("Daya termasuk (kW)", "Power included (kW)"),
    "api.model": ("Model yang dilayani", "Model served"),
    "family_class": ("Keluarga|kelas ukuran", "Family|size class"),
    "batch_discount_frac": ("Diskon batch (0–1)", "Batch discount (0–1)"),
    "board.gpus": ("GPU per board", "GPUs per board"),
    "board.price_usd": ("Harga board (USD)", "Board price (USD)"),
    "deployment.gpus_per_server": ("GPU per server", "GPUs per server"),
    "deployment.whole_servers": ("Beli per server utuh (0/1)", "Bought in whole servers (0/1)"),
    "deployment.server_capex_idr": ("Platform per server tanpa GPU (Rp)", "Platform per server without GPUs (Rp)"),
    "deployment.host_power_w": ("Daya host per server (W)", "Host power per server (W)"),
    "deployment.network_capex_idr": ("Jaringan per server (Rp)", "Network per server (Rp)"),
    "deployment.storage_capex_idr": ("Penyimpanan per server (Rp)", "Storage per server (Rp)"),
    "deployment.setup_capex_idr": ("Instalasi per server (Rp)", "Installation per server (Rp)"),
    "deployment.maintenance_frac": ("Pemeliharaan per tahun (porsi capex)", "Maintenance per year (share of capex)"),
    "deployment.staff_fte_per_server": ("SDM per server (FTE)", "Staff per server (FTE)"),
    "deployment.staff_salary_idr_per_month": ("Gaji per FTE per bulan (Rp)", "Salary per FTE per month (Rp)"),
    "deployment.cooling_type": ("Pendinginan", "Cooling"),
    "deployment.tariff_name": ("Tarif listrik", "Electricity tariff"),
    "deployment.colocation_name": ("Paket colocation", "Colocation plan"),
    "workload.text_prompt_tokens": ("Token teks baru per permintaan/langkah", "New text tokens per request/step"),
    "workload.output_tokens": ("Token output", "Output tokens"),
    "workload.prefix_cache_hit_frac": ("Porsi dari prefix cache (0–1)", "Share from the prefix cache (0–1)"),
    "workload.sla_ttft_s": ("Target TTFT (detik)", "TTFT target (s)"),
    "workload.sla_tpot_ms": ("Target TPOT (ms)", "TPOT target (ms)"),
    "workload.active_hours_per_day": ("Jam aktif per hari", "Active hours per day"),
    "workload.session_steps": ("Langkah per sesi", "Steps per session"),
    "workload.tool_definition_tokens": ("Token system + definisi tool", "System + tool-definition tokens"),
    "workload.images_per_request": ("Gambar per permintaan", "Images per request"),
    "workload.image_tokens": ("Token per gambar", "Tokens per image"),
    "measured.gpu_name": ("GPU (katalog)", "GPU (catalog)"),
    "measured.model_name": ("Model (katalog)", "Model (catalog)"),
    "image_px": ("Sisi gambar (px)", "Image side (px)"),
    "patches_per_image": ("Patch per gambar", "Patches per image"),
    "tokens_per_image": ("Token per gambar", "Tokens per image"),
    "measured.quant_name": ("Kuantisasi", "Quantization"),
    "measured.kv_cache_type": ("Presisi KV cache", "KV-cache precision"),
    "measured.engine": ("Mesin inferensi", "Inference engine"),
    "measured.n_gpus": ("Jumlah GPU", "GPUs"),
    "measured.concurrent_users": ("Batch (pengguna)", "Batch (users)"),
    "measured.cpu_offload_frac": ("Porsi bobot di RAM sistem", "Share of weights in system RAM"),
    "measured.prefix_cache_hit_frac": ("Porsi prompt dari prefix cache", "Share of the prompt from a prefix cache"),
    "measured.prompt_tokens": ("Token prompt", "Prompt tokens"),
    "measured.output_tokens": ("Token output", "Output tokens"),
    "measured.context_tokens": ("Konteks saat diukur (token)", "Context when measured (tokens)"),
    "measured.measured_metric_type": ("Yang diukur (tg/pp)", "Measured (tg/pp)"),
    "measured.measured_tok_s": ("Kecepatan terukur (tok/s)", "Measured speed (tok/s)"),
    "measured.build": ("Build", "Build"),
    "measured.build_era_text": ("Generasi build", "Build era"),
    "measured.hardware": ("Perangkat menurut sumber", "Device as published"),
}


def _text(name: str, doc: str = "", required: bool = True) -> Field:
    return Field(name, "text", required=required, doc=doc)


def _num(name: str, doc: str = "", **kw: object) -> Field:
    return Field(name, "number", doc=doc, **kw)  # type: ignore[arg-type]


def _int(name: str, doc: str = "", **kw: object) -> Field:
    return Field(name, "int", doc=doc, **kw)  # type: ignore[arg-type]


BACKENDS = ("cuda", "rocm", "metal", "vulkan", "sycl", "cpu")
_SOURCE = (_text("source", "where the figures come from"), Field("as_of", "date", doc="date of the figures"))
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

GPU = Schema(
    "gpu",
    "gpus.csv",
    (
        _text("name"),
        Field("vendor", "enum", choices=("NVIDIA", "AMD", "Intel", "Apple", "CPU")),
        Field("segment", "enum", choices=("consumer", "workstation", "datacenter", "apple", "cpu")),
        Field("backend", "enum", choices=BACKENDS),
        _num("mem_bandwidth_gbs", "peak memory bandwidth, GB/s", positive=True),
        _num("vram_gib", "memory as marketed (GiB)", positive=True),
        _num("fp16_tflops", "dense FP16 matrix TFLOPS", positive=True),
        _num(
            "fp32_tflops",
            "FP32 TFLOPS of the shader ALUs (CUDA cores, stream processors), not the tensor units",
            positive=True,
        ),
        _num("fp8_tflops", "dense FP8 matrix TFLOPS (0 or blank = no FP8 tensor units)", required=False, low=0),
        _num("fp4_tflops", "dense FP4 (NVFP4/MXFP4) matrix TFLOPS (0 or blank = none)", required=False, low=0),
        Field("memory_type", "enum", choices=("gddr", "hbm", "lpddr", "ddr"), doc="memory technology"),
        _num("tdp_w", "board power, W", positive=True),
        _num("price_usd", "list/street price, USD", required=False, low=0),
        *_SOURCE,
        Field(
            "link_kind",
            "enum",
            required=False,
            choices=LINK_KINDS,
            doc="how GPUs of one replica talk: PCIe generation × lanes, an NVLink bridge, NVLink, NVSwitch, an "
            "all-to-all mesh (Infinity Fabric, RoCE), a network, or unified memory (one device)",
        ),
        _num(
            "link_bandwidth_gbs",
            "link bandwidth per GPU and direction, GB/s (blank, as for a GPU described by --set alone: exchanges "
            "cost nothing, fine for one GPU)",
            required=False,
            positive=True,
        ),
        _num(
            "link_latency_us",
            "latency of one hop with peer-to-peer access, µs (blank: 0)",
            required=False,
            positive=True,
        ),
        Field(
            "p2p",
            "enum",
            required=False,
            choices=("yes", "no"),
            doc="whether the driver lets GPUs copy to each other directly (GeForce: no, so traffic is staged "
            "through host memory)",
        ),
        _text("link_source", "where the link figures come from", required=False),
        _num(
            "fp16_fp32acc_tflops",
            "dense FP16 matrix TFLOPS with FP32 accumulation (GeForce: half; blank = the FP16 figure)",
            required=False,
            positive=True,
        ),
        _num(
            "fp8_fp32acc_tflops",
            "dense FP8 matrix TFLOPS with FP32 accumulation (GeForce: half; blank = the FP8 figure)",
            required=False,
            low=0,
        ),
        _text("accumulate_source", "where the FP32-accumulate rates come from", required=False),
        _num(
            "compute_capability",
            "NVIDIA CUDA compute capability (SM version: 7.0 Volta, 7.5 Turing, 8.0/8.6 Ampere, 8.9 Ada, 9.0 Hopper, "
            "10.0/12.0 Blackwell); 0 or blank = not an NVIDIA GPU (no kernel limit applies)",
            required=False,
            low=0,
            high=99,
        ),
        _text("compute_capability_source", "where the compute capability comes from", required=False),
    ),
    "Katalog GPU",
    "GPU catalog",
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
    (
        _text("name"),
        _text("family"),
        _num("params_b", "total parameters, billions", positive=True),
        _num("active_params_b", "parameters active per token, billions", positive=True),
        _int("layers", positive=True),
        _int("hidden", positive=True),
        _int("heads", positive=True),
        _int("kv_heads", positive=True),
        _int("head_dim", positive=True),
        _int("vocab", positive=True),
        _int("max_context", positive=True),
        Field("attention", "enum", choices=("mha", "gqa", "mqa", "mla")),
        _int("kv_latent_dim", "MLA cached width per layer (0 = not MLA)", low=0),
        _int("sliding_window", "tokens (0 = none)", low=0),
        _int("sliding_layers", "layers using the window", low=0),
        *_SOURCE,
        _int("experts", "routed experts per MoE layer (0 = dense)", required=False, low=0),
        _int("active_experts", "routed experts each token uses (top-k; 0 = dense)", required=False, low=0),
        _num(
            "expert_params_b",
            "parameters of all routed experts of all layers, billions (shared experts excluded; 0 = dense)",
            required=False,
            low=0,
        ),
        _text("moe_source", "where the expert figures come from", required=False),
    ),
    "Katalog Model",
    "Model catalog",
    (_active_le_total, _sliding_le_layers, _heads_divisible, _experts_consistent),
)

QUANT = Schema(
    "quant",
    "quants.csv",
    (
        _text("name"),
        Field("kind", "enum", choices=("float", "int", "gguf", "awq", "gptq", "exl2", "mxfp4", "nvfp4", "nf4")),
        _num("bits_per_weight", "effective bits per weight", positive=True, high=64),
        Field(
            "compute",
            "enum",
            choices=("fp16", "fp8", "fp4"),
            doc="precision of the matrix units the format computes in (W4A16 formats: fp16)",
        ),
        Field(
            "dequant",
            "enum",
            choices=("none", "block", "superblock"),
            doc="how a weight is unpacked in decode: none (float weights), block (one scale per block: Q4_0, Q8_0, "
            "AWQ, GPTQ, MXFP4…), superblock (scales inside 256-weight super-blocks or codebook lookups: K-quants, "
            "I-quants, ternary; more core work per byte)",
        ),
        *_SOURCE,
    ),
    "Kuantisasi",
    "Quantizations",
)

KV_CACHE = Schema(
    "kv_cache",
    "kv_cache_types.csv",
    (_text("name"), _num("bits_per_value", positive=True, high=64), *_SOURCE),
    "Presisi KV cache",
    "KV-cache precisions",
)

ENGINE = Schema(
    "engine",
    "engines.csv",
    (
        _text("name"),
        _text("description"),
        _int("max_batch", "sequences one replica decodes at most (the engine's default limit)", positive=True),
        *_SOURCE,
        _int(
            "allreduces_per_layer",
            "exchanges per layer and step in tensor parallel (Megatron: 2; llama.cpp row split: one per weight matrix)",
            positive=True,
        ),
        _num("stage_boundary_us", "fixed cost per layer-split boundary and step (synchronise, copy), µs", low=0),
        Field(
            "accumulate",
            "enum",
            choices=("fp16", "fp32"),
            doc="accumulation of the engine's FP16/FP8 matrix kernels: fp32 runs at GeForce's half rate",
        ),
        _text("parallel_source", "where the multi-GPU and accumulation figures come from"),
        Field(
            "default_split",
            "enum",
            choices=("layer", "tensor"),
            doc="how the engine splits a model over GPUs unless told otherwise (layer: in turn; tensor: together)",
        ),
    ),
    "Mesin inferensi",
    "Inference engines",
)

# A weight format's class as engines support it: the quant kind, with float formats computed in FP8 apart (FP8).
FORMAT_CLASSES = ("float", "fp8", "int", "nf4", "awq", "gptq", "exl2", "mxfp4", "nvfp4", "gguf")
SUPPORT = Schema(
    "support",
    "engine_support.csv",
    (
        _text(
            "name",
            "engine/backend, engine/format or engine/backend/format: one pair the engine runs (formats: "
            + ", ".join(FORMAT_CLASSES)
            + ")",
        ),
        *_SOURCE,
        _num(
            "min_compute_capability",
            "the lowest CUDA compute capability the engine's kernels for this pair run on (blank = no limit)",
            required=False,
            low=0,
            high=99,
        ),
    ),
    "Dukungan mesin",
    "Engine support",
)

SPEED = Schema(
    "speed",
    "speed_params.csv",
    (
        _text("name", "engine/backend@era (or without @era), engine/any as the fallback"),
        _num(
            "decode_efficiency_frac",
            "share of peak bandwidth reached in decode (GDDR, LPDDR, DDR)",
            positive=True,
            high=1,
        ),
        _num("decode_efficiency_hbm_frac", "same on HBM memory", positive=True, high=1),
        _num("layer_overhead_ms", "fixed cost per layer and decode step, ms", low=0),
        _num("attention_ns", "attention cost per layer and context token, ns", low=0),
        _num(
            "prefill_efficiency_frac",
            "share of peak FP16 FLOPS reached in prefill, float weights",
            positive=True,
            high=1,
        ),
        _num("prefill_efficiency_quant_frac", "same with quantized weights", positive=True, high=1),
        _num("prefill_layer_overhead_us", "fixed cost per layer and prompt token, µs", low=0),
        _num(
            "decode_flop_per_byte",
            "peak FP16 FLOPs needed per byte streamed in decode; decode bandwidth ≤ FP16 peak ÷ this (0 = no limit)",
            low=0,
        ),
        _num(
            "decode_superblock_work_ratio",
            "ALU work per byte of super-block formats (K-, I-quants) ÷ that of block formats (Q4_0); 1 = the same",
            positive=True,
            high=10,
        ),
        _num(
            "prefill_attention_efficiency_frac",
            "share of peak FP16 FLOPS reached by prompt attention (query × key, softmax × value)",
            positive=True,
            high=1,
        ),
        _num(
            "prefill_alu_work_ratio",
            "shader-ALU operations per weight-multiply FLOP in prefill of quantized weights (dequantising, integer "
            "packing, scales), run at the GPU's FP32 rate; 0 = none",
            low=0,
            high=10,
        ),
        _int("prefill_chunk_tokens", "prompt tokens per prefill step (llama.cpp -ub; 0 = the whole prompt)", low=0),
        _int("fp8_fp4_units", "1 = FP8/FP4 formats run on the GPU's FP8/FP4 units; 0 = widened to FP16", low=0, high=1),
        _num(
            "serial_frac",
            "share of the shorter of memory and compute time a serving step does not overlap (0 = roofline max)",
            low=0,
            high=1,
        ),
        _num("error_low_frac", "10th percentile of measured/predicted − 1 (held-out devices)", low=-1, high=0),
        _num("error_high_frac", "90th percentile of measured/predicted − 1 (held-out devices)", low=0),
        _num("prefill_error_low_frac", "the same for prompt speed (10th percentile)", low=-1, high=0),
        _num("prefill_error_high_frac", "the same for prompt speed (90th percentile)", low=0),
        _int("fit_points", "measurements behind the fit (0 = assumption)", low=0),
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
    (_text("name"), Field("kind", "enum", choices=("pln", "datacenter")), _num("idr_per_kwh", positive=True), *_SOURCE),
    "Tarif listrik",
    "Electricity tariffs",
)

CLOUD = Schema(
    "cloud",
    "cloud_gpus.csv",
    (
        _text("name"),
        _text("provider"),
        _text("gpu"),
        _int("gpus", positive=True),
        _num("usd_per_hour", "on-demand price of the instance", required=False, positive=True),
        _num("idr_per_hour", "price of the instance in rupiah", required=False, positive=True),
        _num("spot_usd_per_hour", "spot/community price", required=False, positive=True),
        _text("region"),
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
        _text("name"),
        _text("provider"),
        _text("model", "the model the row serves: a catalog model name for open models, else the provider's model"),
        _text(
            "family_class",
            "catalog family|size class of that model (small ≤ 15 B, medium ≤ 40 B, large ≤ 150 B, frontier), "
            "blank for closed models",
            required=False,
        ),
        _num("input_usd_per_1m", positive=True),
        _num("output_usd_per_1m", positive=True),
        _num(
            "cached_input_usd_per_1m",
            "price of prompt tokens read from the provider's cache",
            required=False,
            positive=True,
        ),
        _num(
            "batch_discount_frac",
            "discount of the provider's batch API (blank = no batch API)",
            required=False,
            low=0,
            high=1,
        ),
        *_SOURCE,
    ),
    "Harga API",
    "API prices",
)

HOSTING = Schema(
    "hosting",
    "hosting.csv",
    (
        _text("name"),
        Field("mode", "enum", choices=("colocation", "dedicated")),
        _num("idr_per_month", positive=True),
        _int("gpus", low=0),
        _text("gpu", "GPU model a dedicated server comes with (blank for rack space)", required=False),
        _num("kw_included", "power included in the rent, kW (more is billed per kWh)", low=0),
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
        _text("name"),
        _int("gpus_per_server", "GPUs one server (or board) holds", positive=True),
        _int("whole_servers", "1 = GPUs are bought only in whole servers or boards (SXM: HGX/DGX)", low=0, high=1),
        _num("server_capex_idr", "platform of one server without its GPUs: CPUs, memory, board, PSUs, chassis", low=0),
        _num("host_power_w", "power of one server besides its GPUs, at load", low=0),
        _num("network_capex_idr", "NICs, switch ports and cabling per server", low=0),
        _num("storage_capex_idr", "NVMe (RAID) per server", low=0),
        _num("setup_capex_idr", "racking, wiring and installation per server", low=0),
        _num(
            "maintenance_frac",
            "spare parts, support contract and repairs per year, as a share of the capex",
            low=0,
            high=1,
        ),
        _num("staff_fte_per_server", "engineers (full-time equivalents) per server", low=0),
        _num("staff_salary_idr_per_month", "cost of one engineer per month", low=0),
        Field("cooling_type", "enum", choices=COOLING_TYPES, doc="how the room is cooled (sets the PUE)"),
        _text("tariff_name", "electricity tariff (a name in tariffs.csv)"),
        _text("colocation_name", "rack plan in colocation (a name in hosting.csv)"),
        *_SOURCE,
    ),
    "Profil penempatan",
    "Deployment profiles",
)

BOARD = Schema(
    "board",
    "boards.csv",
    (
        _text("name"),
        _text("gpu", "catalog GPU the board carries"),
        _int("gpus", "GPUs on one board", positive=True),
        _num("price_usd", "price of the whole board", positive=True),
        *_SOURCE,
    ),
    "GPU yang dijual per board (SXM/OAM)",
    "GPUs sold only as boards (SXM/OAM)",
)

MEASURED = Schema(
    "measured",
    "measurements.csv",
    (
        _text("name"),
        _text("gpu_name", "catalog GPU the measurement ran on"),
        _text("model_name", "catalog model"),
        _text("quant_name", "catalog quantization"),
        _text("kv_cache_type", "catalog KV-cache precision"),
        _text("engine", "catalog engine"),
        _int("n_gpus", positive=True),
        _int("concurrent_users", "sequences decoded at once (llama-bench: 1)", positive=True),
        _num("cpu_offload_frac", "share of weights in system RAM (llama-bench -ngl 99: 0)", low=0, high=1),
        _num("prefix_cache_hit_frac", "share of the prompt already in the KV cache", low=0, high=1),
        _int("prompt_tokens", "tokens before generation (tg) or processed (pp)", low=0),
        _int("output_tokens", "tokens generated", low=0),
        _num(
            "context_tokens",
            "KV-cache length the speed is estimated at: prompt + output/2 for tg (llama-bench averages the "
            "run), the prompt for pp",
            low=0,
        ),
        Field("measured_metric_type", "enum", choices=("tg", "pp"), doc="tg = decode tok/s, pp = prefill tok/s"),
        _num("measured_tok_s", "the published figure", positive=True),
        _text("build", "engine build (commit or build number) as published"),
        _text("build_era_text", "speed-parameter era of that build: 2025 = current builds, 2024 = up to mid-2024"),
        _text("hardware", "the device as the source names it"),
        *_SOURCE,
    ),
    "Pengukuran terbitan",
    "Published measurements",
)

WORKLOAD = Schema(
    "workload",
    "workloads.csv",
    (
        _text("name"),
        _int("text_prompt_tokens", "new text tokens in one request's prompt (an agent: per step)", low=0),
        _int("output_tokens", "tokens generated per request (an agent: per step)", positive=True),
        _num("prefix_cache_hit_frac", "share of the prompt already in the KV cache", low=0, high=1),
        _num("sla_ttft_s", "longest acceptable wait for the first token, s", positive=True),
        _num("sla_tpot_ms", "longest acceptable time per output token, ms", positive=True),
        _num("active_hours_per_day", "hours per day in which the requests arrive", positive=True, high=24),
        _int("session_steps", "model calls per session (an agent's tool calls + its answer; 1 = one request)", low=1),
        _int("tool_definition_tokens", "system prompt + tool definitions sent with every step", low=0),
        _int("images_per_request", "images sent with each request", low=0),
        _int("image_tokens", "tokens the vision encoder gives one image", low=0),
        *_SOURCE,
    ),
    "Profil beban kerja",
    "Workload presets",
)

VISION = Schema(
    "vision",
    "vision_encoders.csv",
    (
        _text("name"),
        _num("params_b", "encoder parameters, billions (kept at 16 bits beside a quantized model)", positive=True),
        _int("image_px", "image side the encoder works at, pixels (one tile or crop)", positive=True),
        _int("patches_per_image", "patches the encoder computes per image (its sequence length)", positive=True),
        _int("tokens_per_image", "tokens one image adds to the prompt (after any merging or pooling)", positive=True),
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


@dataclass(frozen=True)
class Table:
    schema: Schema
    rows: tuple[dict, ...]
    lines: tuple[int, ...] = ()  # the file line each row starts on, for error messages

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(r["name"] for r in self.rows)

    def column(self, name: str) -> tuple:
        return tuple(r[name] for r in self.rows)

    def find(self, name: str) -> dict | None:
        """The row whose name matches case-insensitively (as Excel's MATCH does)."""
        low = name.lower()
        return next((r for r in self.rows if r["name"].lower() == low), None)


@dataclass(frozen=True)
class Catalog:
    tables: dict[str, Table] = field(default_factory=dict)

    def __getitem__(self, key: str) -> Table:
        return self.tables[key]

    def columns(self) -> dict[tuple[str, str], tuple]:
        """Every column as (table, column) → values, the shape formulas' Col nodes read."""
        return {(k, f.name): t.column(f.name) for k, t in self.tables.items() for f in t.schema.fields}


def _parse(value: str, f: Field) -> object:
    """Parse one CSV cell; raise ValueError with a short reason."""
    text = value.strip()
    if text == "":
        if f.required:
            raise ValueError("required value is blank")
        return None
    if f.kind == "text":
        return text
    if f.kind == "enum":
        if text not in f.choices:
            raise ValueError(f"{text!r} is not one of {', '.join(f.choices)}")
        return text
    if f.kind == "date":
        try:
            return dt.date.fromisoformat(text).isoformat()
        except ValueError:
            raise ValueError(f"{text!r} is not a date (YYYY-MM-DD)") from None
    try:
        number = float(text)
    except ValueError:
        raise ValueError(f"{text!r} is not a number") from None
    if not math.isfinite(number):
        raise ValueError(f"{text!r} is not a finite number")
    if f.kind == "int":
        if not number.is_integer():
            raise ValueError(f"{text!r} is not a whole number")
        number = int(number)
    if f.positive and number <= 0:
        raise ValueError(f"{text} must be > 0")
    if f.low is not None and number < f.low:
        raise ValueError(f"{text} must be >= {f.low:g}")
    if f.high is not None and number > f.high:
        raise ValueError(f"{text} must be <= {f.high:g}")
    return number


def check_name(name: str) -> str | None:
    """Why a catalog name is unusable as a dropdown item and MATCH key, or None."""
    if len(name) > 40:
        return "longer than 40 characters"
    if name.startswith(FORMULA_START):
        return "must not start with = + - @ or a control character"
    bad = sorted(set(name) & _NAME_FORBIDDEN)
    if bad:
        return f"must not contain {' '.join(bad)}"
    return None


# Byte-order marks Excel writes: "CSV UTF-8" starts with the UTF-8 mark, "Unicode Text" is UTF-16 LE.
_BOMS = ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))
_SAVE_AS_UTF8 = "save it as CSV UTF-8 (Excel: File > Save As > CSV UTF-8)"


def _decode(data: bytes, label: str) -> str:
    """The text of a CSV file: UTF-8 (with or without a byte-order mark) or UTF-16 with one.

    Bytes that are not UTF-8 are kept as lone surrogates (surrogateescape) so the caller can name the line and
    column holding them. Legacy code pages (cp1252, Latin-1, …) are not guessed: almost any bytes decode in each
    of them, so a wrong guess would silently change names instead of failing.
    """
    bom, encoding = next(((b, e) for b, e in _BOMS if data.startswith(b)), (b"", "utf-8"))
    body = data[len(bom) :]
    if encoding == "utf-8":
        text = body.decode("utf-8", errors="surrogateescape")
    else:
        try:
            text = body.decode(encoding)
        except UnicodeDecodeError as exc:
            line = body[: exc.start].decode(encoding, errors="ignore").count("\n") + 1
            raise CsvFileError(
                f"{label}:{line}: not valid UTF-16 text (byte {exc.start + len(bom)}); {_SAVE_AS_UTF8}"
            ) from None
    if "\x00" in text:
        line = text[: text.index("\x00")].count("\n") + 1
        raise CsvFileError(
            f"{label}:{line}: holds NUL bytes, so it is not a CSV text file (UTF-16 without a byte-order mark?); "
            + _SAVE_AS_UTF8
        )
    return text


def _undecodable(value: str) -> str | None:
    """The first byte that was not UTF-8 in a surrogate-escaped value, as 0xNN, or None."""
    bad = next((c for c in value if "\udc80" <= c <= "\udcff"), None)
    return None if bad is None else f"0x{ord(bad) - 0xDC00:02X}"


def read_records(path: Path, label: str | None = None) -> tuple[int, list[str], list[tuple[int, list[str]]]]:
    """Read a CSV file: (header line, header names, [(file line, fields)]) with one field per header name.

    See `iter_records` for the rules; an empty file gives (0, [], []).
    """
    records = iter_records(path, label)
    header_line, header = next(records)
    return header_line, header, list(records)


def iter_records(path: Path, label: str | None = None) -> Iterator[tuple[int, list[str]]]:
    """The records of a CSV file, one at a time: first (header line, header names), then (file line, fields) with
    one field per header name.

    Line numbers are lines of the file (a quoted field may span several; a record is numbered by its first line).
    Blank lines and rows of empty cells are skipped. The delimiter is a comma, or a tab or semicolon when the
    header has no comma (Excel's "Unicode Text" and some locales' "CSV"). Raises CsvFileError naming file:line
    for a missing, unreadable or undecodable file, a duplicate or unnamed column, a short row, or a long row.
    An empty file gives (0, []) and nothing more.
    """

    label = label or str(path)
    try:
        data = read_bounded(path, CSV_LIMIT_BYTES, "CSV file")
    except FileReadError as exc:
        raise CsvFileError(str(exc).replace(str(path), label, 1)) from None
    text = _decode(data, label)
    first = next((line for line in text.splitlines() if line.strip(" ,;\t")), "")
    delimiter = next((d for d in (",", "\t", ";") if d in first), ",")
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    header: list[str] = []
    previous = 0
    while True:
        start = previous + 1
        try:
            fields = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            raise CsvFileError(f"{label}:{start}: not a well-formed CSV record ({exc}; a quote left open?)") from None
        previous = reader.line_num
        if not any(f.strip() for f in fields):
            continue
        for i, value in enumerate(fields):
            byte = _undecodable(value)
            if byte:
                where = header[i] if header and i < len(header) else f"column {i + 1}"
                shown = value.encode("utf-8", errors="surrogateescape")
                raise CsvFileError(
                    f"{label}:{start}:{where}: byte {byte} in {shown!r} is not UTF-8 text "
                    f"(saved in a Windows code page?); {_SAVE_AS_UTF8}"
                )
        if not header:
            header = [f.strip() for f in fields]
            _check_header(header, label, start)
            yield start, header
            continue
        if len(fields) < len(header):
            raise CsvFileError(
                f"{label}:{start}: {len(fields)} field{'s' if len(fields) != 1 else ''} but the header has "
                f"{len(header)} columns (a short row; keep a blank cell as an empty field between commas)"
            )
        if len(fields) > len(header):
            if any(f.strip() for f in fields[len(header) :]):
                raise CsvFileError(
                    f"{label}:{start}: {len(fields)} fields but the header has {len(header)} columns "
                    "(more fields than header columns)"
                )
            fields = fields[: len(header)]  # trailing empty cells carry nothing
        yield start, fields
    if not header:
        yield 0, []


def _check_header(header: list[str], label: str, line: int) -> None:
    seen: dict[str, int] = {}
    for i, name in enumerate(header, start=1):
        if not name:
            raise CsvFileError(f"{label}:{line}: column {i} has no name in the header row")
        if name in seen:
            raise CsvFileError(f"{label}:{line}:{name}: the column appears twice (columns {seen[name]} and {i})")
        seen[name] = i


def load_table(schema: Schema, folder: Path) -> Table:
    """Read and validate one catalog file; errors name file:line:column with lines of the file."""
    path = folder / schema.file
    label = str(path)
    expected = [f.name for f in schema.fields]
    try:
        header_line, header, records = read_records(path, label)
    except CsvFileError as exc:
        raise CatalogError([str(exc)]) from None
    if not header:
        raise CatalogError([f"{label}:1: empty file; expected the header {','.join(expected)} and rows"])
    if header != expected:
        missing = [c for c in expected if c not in header]
        extra = [c for c in header if c not in expected]
        detail = "; ".join(
            part
            for part in (
                f"missing {', '.join(missing)}" if missing else "",
                f"unexpected {', '.join(map(str, extra))}" if extra else "",
                "columns out of order" if not missing and not extra else "",
            )
            if part
        )
        raise CatalogError([f"{label}:{header_line}: header must be {','.join(expected)} ({detail})"])
    errors: list[str] = []
    rows: list[dict] = []
    lines: list[int] = []
    seen: dict[str, int] = {}
    for line, fields in records:
        raw = dict(zip(expected, fields, strict=True))
        row: dict = {}
        for f in schema.fields:
            try:
                row[f.name] = _parse(raw[f.name], f)
            except ValueError as exc:
                errors.append(f"{label}:{line}:{f.name}: {exc}")
        if len(row) != len(schema.fields):
            continue
        problem = check_name(row["name"])
        if problem:
            errors.append(f"{label}:{line}:name: {row['name']!r} {problem}")
        key = row["name"].lower()
        if key in seen:
            errors.append(f"{label}:{line}:name: {row['name']!r} duplicates line {seen[key]}")
        seen[key] = line
        for check in schema.checks:
            message = check(row)
            if message:
                errors.append(f"{label}:{line}:{message}")
        rows.append(row)
        lines.append(line)
    if not rows and not errors:
        errors.append(f"{label}:{header_line}: no rows below the header")
    if errors:
        raise CatalogError(errors)
    return Table(schema, tuple(rows), tuple(lines))


def _cheapest_first(
    table: Table, folder: Path, group: str, price: Callable[[dict], float | None], per: str = "per GPU"
) -> list[str]:
    """The workbook picks a GPU's (a model's) first offer by MATCH, so the cheapest must come first in the file."""
    first: dict[str, tuple[float, str]] = {}
    errors = []
    for line, row in zip(table.lines, table.rows, strict=True):
        key, value = row[group], price(row)
        if not key or value is None:
            continue
        if key not in first:
            first[key] = (value, row["name"])
        elif value < first[key][0]:
            kind = group.replace("gpu", "GPU")
            errors.append(
                f"{folder / table.schema.file}:{line}:name: {row['name']!r} is cheaper {per} than "
                f"{first[key][1]!r} listed before it for {key}; list each {kind}'s cheapest offer first"
            )
    return errors


def _per_gpu(column: str) -> Callable[[dict], float | None]:
    return lambda row: row[column] / row["gpus"] if row[column] is not None and row["gpus"] else None


def _support_names(tables: dict[str, Table], folder: Path) -> list[str]:
    """Each support row names a catalog engine and a known backend and/or format class."""
    engines = {n.lower() for n in tables["engine"].names}
    errors = []
    table = tables["support"]
    for line, name in zip(table.lines, table.names, strict=True):
        engine, *rest = name.split("/")
        known = [BACKENDS] if len(rest) == 1 and rest[0] in BACKENDS else [FORMAT_CLASSES]
        if len(rest) == 2:
            known = [BACKENDS, FORMAT_CLASSES]
        where = f"{folder / table.schema.file}:{line}:name"
        if engine.lower() not in engines:
            errors.append(f"{where}: {engine!r} is not an engine of engines.csv")
        elif not rest or len(rest) > 2 or any(part not in words for part, words in zip(rest, known, strict=True)):
            errors.append(
                f"{where}: {name!r} must be engine/backend, engine/format or engine/backend/format "
                f"(backends: {', '.join(BACKENDS)}; formats: {', '.join(FORMAT_CLASSES)})"
            )
    return errors


def _api_list_price(row: dict) -> float:
    """The price the API catalog orders by: input + output per 1M tokens (a 1:1 mix)."""
    return row["input_usd_per_1m"] + row["output_usd_per_1m"]


def _names_exist(tables: dict[str, Table], folder: Path) -> list[str]:
    """A deployment's tariff and colocation plan must be rows of their catalogs."""
    wanted = (("deployment", "tariff_name", "tariff"), ("deployment", "colocation_name", "hosting"))
    errors = []
    for key, column, other in wanted:
        names = {n.lower() for n in tables[other].names}
        table = tables[key]
        for row, line in zip(table.rows, table.lines, strict=True):
            if row[column].lower() not in names:
                where = f"{folder / table.schema.file}:{line}:{column}"
                errors.append(f"{where}: {row[column]!r} is not a name in {tables[other].schema.file}")
    return errors


def _engines_have_speed(tables: dict[str, Table], folder: Path) -> list[str]:
    """Every engine needs a fallback speed row (engine/any, or engine/any@era): without one its speeds are 0."""
    speed_names = tables["speed"].names
    return [
        f"{folder / ENGINE.file}:{line}:name: engine {row['name']!r} has no speed parameters; add a row "
        f"{row['name']}/any to {SPEED.file} (or run kalkulator calibrate)"
        for row, line in zip(tables["engine"].rows, tables["engine"].lines, strict=True)
        if not any(n.startswith(f"{row['name']}/any") for n in speed_names)
    ]


def load_catalog(folder: Path | None = None) -> Catalog:
    """Load every catalog; collect all errors before raising."""
    folder = folder or CATALOG_DIR
    tables: dict[str, Table] = {}
    errors: list[str] = []
    for schema in SCHEMAS:
        try:
            tables[schema.key] = load_table(schema, folder)
        except CatalogError as exc:
            errors.extend(exc.messages)
    if not errors:
        errors += _cheapest_first(tables["cloud"], folder, "gpu", _per_gpu("usd_per_hour"))
        errors += _cheapest_first(tables["cloud"], folder, "gpu", _per_gpu("idr_per_hour"))
        errors += _cheapest_first(tables["hosting"], folder, "gpu", _per_gpu("idr_per_month"))
        errors += _cheapest_first(tables["api"], folder, "model", _api_list_price, "(input + output)")
        errors += _cheapest_first(tables["api"], folder, "family_class", _api_list_price, "(input + output)")
        errors += _names_exist(tables, folder)
        from kalkulator.quantities.domains import catalog_problems  # the quantities' domains, one table

        errors += catalog_problems(tables, folder)
        errors += _engines_have_speed(tables, folder)
        errors += _support_names(tables, folder)
    if errors:
        raise CatalogError(errors)
    return Catalog(tables)
