"""Derive a catalog row and the exact weight size from a GGUF file's header (llama.cpp's model format).

Only the header is parsed: gguf.GGUFReader memory-maps the file, and the tensor data is never read. Each
tensor's type and shape give its exact size (GGML_QUANT_SIZES: block size and bytes per block), so the
weight bytes and the effective bits per weight are the file's own, not a quantization's nominal figure.
"""

from __future__ import annotations

import mmap
import re
import struct
from collections import Counter
from pathlib import Path
from typing import Any

from kalkulator.catalog.importers import DerivedModel, ModelFileError, kv_check, plausible, sliding_from_pattern
from kalkulator.io.files import FileReadError, check_regular

GGUF_REQUIREMENT = "gguf>=0.18"  # 0.18 added MXFP4 (gpt-oss) to the tensor types the reader knows

# Global-attention period of architectures whose GGUF has a window but no pattern key (llama.cpp set_swa_pattern).
_SWA_PATTERN = {"gemma2": 2, "gemma3": 6, "gpt-oss": 2, "cohere2": 4}
_FAMILY = {
    "llama": "Llama",
    "qwen2": "Qwen2",
    "qwen2moe": "Qwen2-MoE",
    "qwen3": "Qwen3",
    "qwen3moe": "Qwen3-MoE",
    "gemma2": "Gemma 2",
    "gemma3": "Gemma 3",
    "phi3": "Phi-3",
    "deepseek2": "DeepSeek",
    "gpt-oss": "gpt-oss",
}
_ROUTED_EXPERTS = re.compile(r"\.ffn_\w+_exps\.(weight|bias)$")  # stacked routed experts (not *_shexp shared ones)
_READ_ERRORS = (ValueError, KeyError, IndexError, OverflowError, TypeError, struct.error)


GGUF_LIMIT_BYTES = 4 * 10**12  # the largest GGUF files (1T-parameter models at 16 bits) are about 2 TB
# GGUF metadata value types (gguf.GGUFValueType) → bytes per value; 8 = string, 9 = array.
_SCALAR_BYTES = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}


def _precheck(path: Path) -> int:
    """Reject what is plainly not a whole GGUF header before the reader walks it; return the file size.

    The metadata is walked once, lengths only: a string or array claiming more bytes than the file holds is refused
    here, before the reader would allocate for it."""
    try:
        size = check_regular(path, GGUF_LIMIT_BYTES, "GGUF file")
        with path.open("rb") as fh:
            head = fh.read(24)
            if head[:4] == b"GGUF" and len(head) == 24:
                tensors, keys = struct.unpack("<QQ", head[8:24])
                if keys * 13 + tensors * 24 <= size:
                    with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
                        _walk_metadata(path, mm, keys, size)
    except FileReadError as exc:
        raise ModelFileError(str(exc)) from None
    except OSError as exc:
        raise ModelFileError(f"{path}: cannot read ({exc.strerror or exc})") from None
    if head[:4] != b"GGUF":
        raise ModelFileError(f"{path}: not a GGUF file (it does not start with the bytes GGUF)")
    if len(head) < 24:
        raise ModelFileError(f"{path}: truncated GGUF file ({size} bytes, shorter than the fixed header)")
    tensors, keys = struct.unpack("<QQ", head[8:24])
    # Smallest possible entries: a metadata key/value takes 13 bytes, a tensor description 24.
    if keys * 13 + tensors * 24 > size:
        raise ModelFileError(
            f"{path}: truncated or corrupt GGUF file: the header lists {tensors} tensors and {keys} metadata keys "
            f"but the file has only {size} bytes"
        )
    return size


def _walk_metadata(path: Path, mm: mmap.mmap, keys: int, size: int) -> None:
    """Follow the metadata's lengths from byte 24; raise when one points past the end of the file."""
    pos = 24

    def need(n: int, what: str) -> None:
        if n < 0 or pos + n > size:
            raise ModelFileError(
                f"{path}: corrupt GGUF metadata: {what} needs {n:,} bytes at byte {pos:,} but the file has {size:,}"
            )

    def string(what: str) -> None:
        nonlocal pos
        need(8, what)
        (length,) = struct.unpack_from("<Q", mm, pos)
        pos += 8
        need(length, what)
        pos += length

    for k in range(keys):
        string(f"key {k + 1}")
        need(4, f"the type of key {k + 1}")
        (kind,) = struct.unpack_from("<I", mm, pos)
        pos += 4
        if kind == 8:
            string(f"the text of key {k + 1}")
        elif kind == 9:
            need(12, f"the array header of key {k + 1}")
            item, count = struct.unpack_from("<IQ", mm, pos)
            pos += 12
            if item == 8:
                need(8 * count, f"an array of {count:,} strings (key {k + 1})")
                for _ in range(count):
                    string(f"an array element of key {k + 1}")
            elif item in _SCALAR_BYTES:
                need(_SCALAR_BYTES[item] * count, f"an array of {count:,} values (key {k + 1})")
                pos += _SCALAR_BYTES[item] * count
            else:
                raise ModelFileError(f"{path}: corrupt GGUF metadata: key {k + 1} has array type {item}")
        elif kind in _SCALAR_BYTES:
            need(_SCALAR_BYTES[kind], f"the value of key {k + 1}")
            pos += _SCALAR_BYTES[kind]
        else:
            raise ModelFileError(f"{path}: corrupt GGUF metadata: key {k + 1} has value type {kind}")


def _quant_name(file_type: Any) -> str | None:
    import gguf

    try:
        name = gguf.LlamaFileType(int(file_type)).name
    except (ValueError, TypeError):
        return None
    return name.removeprefix("MOSTLY_").removeprefix("ALL_")


class _Meta:
    """Metadata access; a missing required key names the file and the key."""

    def __init__(self, path: Path, reader: Any):
        self.path, self.fields = path, reader.fields

    def get(self, key: str) -> Any:
        found = self.fields.get(key)
        return None if found is None else found.contents()

    def count(self, key: str) -> int | None:
        """Number of items in an array key, without decoding them (tokenizer.ggml.tokens)."""
        found = self.fields.get(key)
        return None if found is None else len(found.data)

    def _items(self, key: str, required: bool) -> list[int] | int | None:
        value = self.get(key)
        if value is None:
            if required:
                raise ModelFileError(f"{self.path}: {key}: required metadata is missing")
            return None
        items = value if isinstance(value, list) else [value]
        if not items or any(isinstance(v, bool) or not isinstance(v, int) or v < 0 for v in items):
            raise ModelFileError(f"{self.path}: {key}: expected a whole number, got {value!r}")
        return value

    def whole(self, key: str, required: bool = True) -> int | None:
        value = self._items(key, required)
        if isinstance(value, list):
            raise ModelFileError(f"{self.path}: {key}: expected one number, got a list of {len(value)}")
        return value

    def per_layer_max(self, key: str, notes: list[str], required: bool = True) -> int | None:
        """A value that may be given per layer (an array): the largest, which sizes the cache conservatively."""
        value = self._items(key, required)
        if isinstance(value, list):
            notes.append(f"{key} varies by layer ({min(value)}..{max(value)}); the largest is used")
            return max(value)
        return value


def read_gguf(path: Path, name: str | None = None) -> DerivedModel:
    """Derive the catalog values and exact weight bytes of the model in a GGUF file."""
    try:
        import gguf
    except ImportError:
        hint = f"pip install '{GGUF_REQUIREMENT}'"
        raise ModelFileError(f"{path}: reading GGUF files needs the gguf package: {hint}") from None
    size = _precheck(path)
    try:
        reader = gguf.GGUFReader(path)
        return _derive(path, reader, size, name)
    except ModelFileError:
        raise
    except OSError as exc:
        raise ModelFileError(f"{path}: cannot read ({exc.strerror or exc})") from None
    except _READ_ERRORS as exc:
        detail = f"{size:,} bytes; the reader stopped with {type(exc).__name__}: {exc}"
        raise ModelFileError(f"{path}: truncated or corrupt GGUF file ({detail})") from None


def _derive(path: Path, reader: Any, size: int, name: str | None) -> DerivedModel:
    from gguf import GGML_QUANT_SIZES, GGMLQuantizationType

    meta = _Meta(path, reader)
    notes: list[str] = []
    shards = meta.get("split.count")
    if isinstance(shards, int) and shards > 1:
        raise ModelFileError(
            f"{path}: split.count: this is one of {shards} shards and holds only part of the weights; "
            "merge them first (llama-gguf-split --merge)"
        )
    arch = meta.get("general.architecture")
    if not isinstance(arch, str) or not arch:
        raise ModelFileError(f"{path}: general.architecture: required metadata is missing")
    layers = meta.whole(f"{arch}.block_count")
    hidden = meta.whole(f"{arch}.embedding_length")
    heads = meta.per_layer_max(f"{arch}.attention.head_count", notes)
    kv_heads = meta.per_layer_max(f"{arch}.attention.head_count_kv", notes, required=False) or heads
    context = meta.whole(f"{arch}.context_length")
    for key, value in (
        (f"{arch}.block_count", layers),
        (f"{arch}.embedding_length", hidden),
        (f"{arch}.attention.head_count", heads),
        (f"{arch}.context_length", context),
    ):
        if not value:
            raise ModelFileError(f"{path}: {key}: must be > 0")

    kv_latent = 0
    kv_rank = meta.whole(f"{arch}.attention.kv_lora_rank", required=False)
    if kv_rank:
        rope = meta.whole(f"{arch}.rope.dimension_count")
        kv_latent = kv_rank + rope
        head_dim = meta.whole(f"{arch}.attention.value_length_mla", required=False) or meta.whole(
            f"{arch}.attention.value_length"
        )
        kv_heads = heads  # MLA: every head reads the shared latent; the catalog lists heads
        notes.append(f"MLA: cached width per layer = kv_lora_rank {kv_rank} + rope dimension {rope} = {kv_latent}")
    else:
        head_dim = meta.whole(f"{arch}.attention.key_length", required=False)
        if not head_dim:
            if hidden % heads:
                raise ModelFileError(f"{path}: {arch}.attention.key_length: required metadata is missing")
            head_dim = hidden // heads
    kv_check(f"{path}: {arch}.attention.head_count_kv", heads, kv_heads)

    vocab = meta.count("tokenizer.ggml.tokens") or meta.whole(f"{arch}.vocab_size", required=False)
    if not vocab:
        raise ModelFileError(f"{path}: tokenizer.ggml.tokens: required metadata is missing (and no {arch}.vocab_size)")

    experts = meta.whole(f"{arch}.expert_count", required=False) or 0
    used = meta.whole(f"{arch}.expert_used_count", required=bool(experts)) or 0
    if used > experts:
        raise ModelFileError(f"{path}: {arch}.expert_used_count: {used} is more than expert_count {experts}")

    params = weight_bytes = unselected = routed = 0
    by_type: Counter[str] = Counter()
    for tensor in reader.tensors:
        qtype = GGMLQuantizationType(int(tensor.tensor_type))
        block, block_bytes = GGML_QUANT_SIZES[qtype]
        count = int(tensor.n_elements)
        if count % block:
            raise ModelFileError(f"{path}: tensor {tensor.name}: {count} weights is not a whole number of blocks")
        nbytes = count // block * block_bytes
        if int(tensor.data_offset) + nbytes > size:
            raise ModelFileError(f"{path}: truncated GGUF file: tensor {tensor.name} ends past the end of the file")
        params += count
        weight_bytes += nbytes
        by_type[qtype.name] += count
        if experts and _ROUTED_EXPERTS.search(tensor.name):
            if count % experts:
                raise ModelFileError(f"{path}: tensor {tensor.name}: not {experts} equal experts")
            unselected += count // experts * (experts - used)
            routed += count
    if params == 0:
        raise ModelFileError(f"{path}: no tensors in the file")

    window, sliding_layers = _sliding(meta, arch, layers, context, notes)
    linear_layers, ffn_layers, state_bytes = _layer_kinds(meta, arch, layers, notes)
    quant = _quant_name(meta.get("general.file_type"))
    general_name = meta.get("general.name")
    bpw = 8 * weight_bytes / params
    extra = [f"general.name {' '.join(general_name.split())}" if isinstance(general_name, str) else ""]
    extra.append(f"file type {quant}" if quant else "")
    extra.append(f"weights {weight_bytes} bytes = {bpw:.4f} bits per weight")
    if unselected:
        notes.append(f"active = total - unselected routed experts ({unselected:,}; {used} of {experts} used)")
    derived = DerivedModel(
        name=name or path.stem,
        family=_FAMILY.get(arch, arch),
        architecture=arch,
        file_name=path.name,
        params=params,
        active_params=params - unselected,
        layers=layers,
        hidden=hidden,
        heads=heads,
        kv_heads=kv_heads,
        head_dim=head_dim,
        vocab=vocab,
        max_context=context,
        kv_latent_dim=kv_latent,
        sliding_window=window,
        sliding_layers=sliding_layers,
        linear_layers=linear_layers,
        ffn_layers=ffn_layers,
        state_bytes=state_bytes,
        experts=experts,
        active_experts=used,
        expert_params=routed,
        moe_source=(
            f"GGUF {arch}.expert_count {experts}, {arch}.expert_used_count {used}; routed-expert tensors (*_exps) "
            f"{routed:,} parameters"
            if experts
            else ""
        ),
        parts={f"{kind} weights": n for kind, n in by_type.most_common()},
        notes=notes,
        source_extra="; ".join(part for part in extra if part),
        weight_bytes=weight_bytes,
    )
    return plausible(derived, path)


def _sliding(meta: _Meta, arch: str, layers: int, context: int, notes: list[str]) -> tuple[int, int]:
    window = meta.whole(f"{arch}.attention.sliding_window", required=False) or 0
    if not window:
        return 0, 0
    if arch == "phi3":
        notes.append(f"sliding_window {window} not used: llama.cpp disables Phi-3 sliding-window attention")
        return 0, 0
    pattern = meta.get(f"{arch}.attention.sliding_window_pattern")
    if isinstance(pattern, list):
        count, how = sum(1 for p in pattern if p), "sliding_window_pattern per layer"
    elif isinstance(pattern, int) and not isinstance(pattern, bool):
        count, how = sliding_from_pattern(layers, pattern), f"one layer in {pattern} global (sliding_window_pattern)"
    elif arch in _SWA_PATTERN:
        period = _SWA_PATTERN[arch]
        count, how = sliding_from_pattern(layers, period), f"one layer in {period} global ({arch} in llama.cpp)"
    else:
        count, how = layers, "assumed on every layer (the file gives no pattern)"
    if window >= context or count == 0:
        return 0, 0
    notes.append(f"sliding-window layers: {how}")
    return window, count


def _layer_kinds(meta: _Meta, arch: str, layers: int, notes: list[str]) -> tuple[int, int, int]:
    """(linear/SSM layers, MLP-only layers, state bytes per sequence and linear layer) of a hybrid GGUF.

    llama.cpp's keys: `{arch}.ssm.*` size the recurrent state; `{arch}.full_attention_interval` marks Gated DeltaNet
    hybrids (qwen3next, qwen35, qwen35moe: a layer is recurrent unless (i + 1) % interval == 0); otherwise the
    per-layer `{arch}.attention.head_count_kv` array (0 = no attention) and, for nemotron_h, the per-layer
    `{arch}.feed_forward_length` (a block with neither is Mamba-2, with only a feed-forward is MLP-only).
    The state is counted at 2 bytes per value like the config importer (llama.cpp keeps it in F32: twice that).
    """
    kernel = meta.whole(f"{arch}.ssm.conv_kernel", required=False)
    if not kernel:
        return 0, 0, 0
    state_size, inner = meta.whole(f"{arch}.ssm.state_size"), meta.whole(f"{arch}.ssm.inner_size")
    groups = meta.whole(f"{arch}.ssm.group_count", required=False) or 0
    interval = meta.whole(f"{arch}.full_attention_interval", required=False)
    ffn = 0
    if interval:
        linear = sum(1 for i in range(layers) if (i + 1) % interval)
        how = f"one full-attention layer in {interval} ({arch}.full_attention_interval), the rest Gated DeltaNet"
    else:
        kv = meta.get(f"{arch}.attention.head_count_kv")
        if not isinstance(kv, list) or len(kv) != layers:
            notes.append(f"{arch}.ssm.* present but no per-layer {arch}.attention.head_count_kv: layer kinds not read")
            return 0, 0, 0
        mixerless = [i for i in range(layers) if kv[i] == 0]
        if arch.startswith("nemotron_h"):
            ff = meta.get(f"{arch}.feed_forward_length")
            if not isinstance(ff, list) or len(ff) != layers:
                raise ModelFileError(f"{meta.path}: {arch}.feed_forward_length: expected a list of {layers} values")
            ffn = sum(1 for i in mixerless if ff[i] > 0)
        linear = len(mixerless) - ffn
        how = f"per-layer {arch}.attention.head_count_kv: {layers - linear - ffn} attention, {linear} SSM, {ffn} MLP"
    conv = (kernel - 1) * (inner + 2 * groups * state_size)
    state = (inner * state_size + conv) * 2
    notes.append(
        f"layer kinds: {how}; state per sequence and linear layer: {inner} x {state_size} recurrent + {kernel - 1} "
        f"x {inner + 2 * groups * state_size} convolution values = {state:,} bytes"
    )
    return linear, ffn, state
