"""Derive a catalog row from a Hugging Face config.json: shape, attention kind, sliding window and exact parameters.

The parameter count is rebuilt from the architecture (the same tensors the checkpoint holds), because a
config.json carries no count: embeddings and a separate output head unless tied, attention (GQA/MQA, biases,
per-head norms, attention sinks, MLA projections), gated MLPs, mixture-of-experts blocks (routed and shared
experts, routers, leading dense layers), norms, and Gemma 3's vision tower. "Active" is the total minus the
routed experts a token does not use.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from kalkulator.catalog.importers import (
    DerivedModel,
    ModelFileError,
    kv_check,
    plausible,
    sliding_from_pattern,
    too_large,
)
from kalkulator.io.files import MB, FileReadError, read_bounded

_MISSING = object()
_MAX_FIELD = 10_000_000_000  # no config.json field comes near; the model Fields bound the result

# transformers' Gemma3TextConfig defaults: the published Gemma 3 4B/12B/27B configs omit these in text_config.
_GEMMA3_DEFAULTS: dict[str, Any] = {
    "vocab_size": 262208,
    "num_attention_heads": 8,
    "num_key_value_heads": 4,
    "head_dim": 256,
    "max_position_embeddings": 131072,
    "sliding_window": 4096,
    "sliding_window_pattern": 6,
}


@dataclass(frozen=True)
class _Spec:
    """How one architecture is built. bias: none | qkv (Qwen2) | config (read attention_bias, all four)."""

    family: str
    bias: str = "none"
    mlp_bias: bool = False  # read mlp_bias (Llama)
    qk_norm: bool = False  # per-head RMSNorm on q and k (Qwen3, Gemma 3)
    norms_per_layer: int = 2
    tied_default: bool = False
    moe: str = ""  # mixtral | qwen | deepseek | gpt-oss | jamba | llama4
    window: str = "none"  # none | all | qwen | alternate | pattern | off | chunked (Llama 4)
    sinks: bool = False
    mla: bool = False
    nested: bool = False  # text model under text_config
    hybrid: str = ""  # qwen3-next (Gated DeltaNet + gated attention) | nemotron-h (Mamba-2, attention, MLP blocks)
    sparse: bool = False  # DeepSeek-V3.2 sparse attention (lightning indexer, index_topk)
    vision: bool = True  # count a nested config's vision tower (Gemma 3's SigLIP); False: not read, noted
    defaults: dict[str, Any] = field(default_factory=dict)


_GEMMA3 = _Spec(
    "Gemma 3",
    bias="config",
    qk_norm=True,
    norms_per_layer=4,
    tied_default=True,
    window="pattern",
    defaults=_GEMMA3_DEFAULTS,
)

ARCHITECTURES: dict[str, _Spec] = {
    "LlamaForCausalLM": _Spec("Llama", bias="config", mlp_bias=True),
    "MistralForCausalLM": _Spec("Mistral", window="all"),
    "MixtralForCausalLM": _Spec("Mixtral", moe="mixtral", window="all"),
    "Qwen2ForCausalLM": _Spec("Qwen2", bias="qkv", window="qwen"),
    "Qwen2MoeForCausalLM": _Spec("Qwen2-MoE", bias="qkv", moe="qwen", window="qwen"),
    "Qwen3ForCausalLM": _Spec("Qwen3", bias="config", qk_norm=True, window="qwen"),
    "Qwen3MoeForCausalLM": _Spec("Qwen3-MoE", bias="config", qk_norm=True, moe="qwen", window="qwen"),
    "Gemma2ForCausalLM": _Spec("Gemma 2", bias="config", norms_per_layer=4, tied_default=True, window="alternate"),
    "Gemma3ForCausalLM": _GEMMA3,
    "Gemma3ForConditionalGeneration": replace(_GEMMA3, nested=True),  # text_config inside a multimodal config
    "Phi3ForCausalLM": _Spec("Phi-3", window="off"),
    "DeepseekV2ForCausalLM": _Spec("DeepSeek", moe="deepseek", mla=True),
    "DeepseekV3ForCausalLM": _Spec("DeepSeek", moe="deepseek", mla=True),
    "DeepseekV32ForCausalLM": _Spec("DeepSeek", moe="deepseek", mla=True, sparse=True),
    "Qwen3NextForCausalLM": _Spec("Qwen3-Next", bias="config", qk_norm=True, moe="qwen", hybrid="qwen3-next"),
    "NemotronHForCausalLM": _Spec("Nemotron-H", norms_per_layer=1, hybrid="nemotron-h"),
    "JambaForCausalLM": _Spec("Jamba", moe="jamba", hybrid="jamba"),
    # Qwen3.5: Qwen3-Next's layers (Gated DeltaNet + gated attention, MoE with a shared expert) in a multimodal
    # config; the text model sits under text_config and its vision tower (not SigLIP) is not counted.
    "Qwen3_5MoeForCausalLM": _Spec("Qwen3.5", bias="config", qk_norm=True, moe="qwen", hybrid="qwen3-next"),
    "Qwen3_5MoeForConditionalGeneration": _Spec(
        "Qwen3.5", bias="config", qk_norm=True, moe="qwen", hybrid="qwen3-next", nested=True, vision=False
    ),
    # Llama 4: MoE with a shared expert on every interleave_moe_layer_step-th layer, chunked attention on the RoPE
    # layers (three in four), under text_config; the vision tower (not SigLIP) is not counted.
    "Llama4ForConditionalGeneration": _Spec("Llama 4", moe="llama4", window="chunked", nested=True, vision=False),
    "GptOssForCausalLM": _Spec("gpt-oss", bias="config", moe="gpt-oss", window="alternate", sinks=True),
}


class _Fields:
    """Typed access to one config dict; errors name the file and the (nested) field."""

    def __init__(self, path: Path, data: dict[str, Any], prefix: str = "", defaults: dict[str, Any] | None = None):
        self.path, self.data, self.prefix, self.defaults = path, data, prefix, defaults or {}
        self.defaulted: list[str] = []

    def where(self, key: str) -> str:
        return f"{self.path}: {self.prefix}{key}"

    def raw(self, key: str, default: Any = _MISSING) -> Any:
        value = self.data.get(key)
        if value is not None:
            return value
        if key in self.defaults:
            self.defaulted.append(f"{self.prefix}{key}={self.defaults[key]}")
            return self.defaults[key]
        if default is _MISSING:
            raise ModelFileError(f"{self.where(key)}: required field is missing")
        return default

    def int(self, key: str, default: Any = _MISSING, low: int = 1) -> int:
        value = self.raw(key, default)
        return self._whole(key, value, low)

    def opt_int(self, key: str, low: int = 1) -> int | None:
        value = self.raw(key, None)
        return None if value is None else self._whole(key, value, low)

    def _whole(self, key: str, value: Any, low: int) -> int:
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            raise ModelFileError(f"{self.where(key)}: expected a whole number, got {value!r}")
        if value < low:
            raise ModelFileError(f"{self.where(key)}: must be >= {low}, got {value}")
        if value > _MAX_FIELD:
            raise too_large(self.where(key), value, _MAX_FIELD)
        return value

    def flag(self, key: str, default: bool) -> bool:
        value = self.raw(key, default)
        if not isinstance(value, bool):
            raise ModelFileError(f"{self.where(key)}: expected true or false, got {value!r}")
        return value

    def int_list(self, key: str) -> list[int]:
        value = self.raw(key, [])
        if not isinstance(value, list) or not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
            raise ModelFileError(f"{self.where(key)}: expected a list of layer numbers, got {value!r}")
        return value


CONFIG_LIMIT_BYTES = 16 * MB  # Hugging Face config.json files are a few kB
# Longer integers are read (and refused as implausible by name); beyond Python's own limit of 4,300 digits, int()
# raises a ValueError, so such a file is refused here as a whole.
MAX_INT_DIGITS = 4000


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise ValueError(f"a {len(text)}-digit integer")
    return int(text)


def _load(path: Path) -> dict[str, Any]:
    try:
        text = read_bounded(path, CONFIG_LIMIT_BYTES, "config.json").decode("utf-8")
    except FileReadError as exc:
        raise ModelFileError(str(exc)) from None
    except UnicodeDecodeError:
        raise ModelFileError(f"{path}: not UTF-8 text (is this a config.json?)") from None
    try:
        data = json.loads(text, parse_int=_bounded_int)
    except json.JSONDecodeError as exc:
        raise ModelFileError(f"{path}:{exc.lineno}:{exc.colno}: not valid JSON ({exc.msg})") from None
    except RecursionError:
        raise ModelFileError(f"{path}: JSON nested too deeply to be a model configuration") from None
    except ValueError as exc:
        raise ModelFileError(f"{path}: a number too long to be a model figure ({exc})") from None
    if not isinstance(data, dict):
        raise ModelFileError(f"{path}: expected a JSON object at the top level, got {type(data).__name__}")
    return data


def _architecture(path: Path, data: dict[str, Any]) -> str:
    archs = data.get("architectures")
    if archs is None:
        raise ModelFileError(f"{path}: architectures: required field is missing")
    if not isinstance(archs, list) or not archs or not isinstance(archs[0], str):
        raise ModelFileError(f"{path}: architectures: expected a list of class names, got {archs!r}")
    if archs[0] not in ARCHITECTURES:
        raise ModelFileError(
            f"{path}: architectures: unknown architecture {archs[0]!r}; supported: {', '.join(ARCHITECTURES)}"
        )
    return archs[0]


def default_name(path: Path, data: dict[str, Any]) -> str:
    """`_name_or_path`'s last part, else the model folder (Hugging Face cache snapshots included), else the stem."""
    given = data.get("_name_or_path")
    last = given.strip().rstrip("/").split("/")[-1] if isinstance(given, str) else ""
    if last not in ("", ".", ".."):
        return last
    folder = path.resolve().parent
    if folder.parent.name == "snapshots" and folder.parent.parent.name.startswith("models--"):
        return folder.parent.parent.name.split("--")[-1]
    return folder.name if path.name == "config.json" and folder.name else path.stem


def _linear(n_in: int, n_out: int, bias: bool) -> int:
    return n_in * n_out + (n_out if bias else 0)


def _gated_mlp(hidden: int, inner: int, bias: bool = False) -> int:
    """gate, up (hidden → inner) and down (inner → hidden)."""
    return 3 * hidden * inner + ((2 * inner + hidden) if bias else 0)


def _attention(c: _Fields, spec: _Spec, hidden: int, heads: int, kv_heads: int, head_dim: int) -> int:
    qkv_bias = spec.bias == "qkv" or (spec.bias == "config" and c.flag("attention_bias", False))
    o_bias = spec.bias == "config" and c.flag("attention_bias", False)
    total = _linear(hidden, heads * head_dim, qkv_bias) + 2 * _linear(hidden, kv_heads * head_dim, qkv_bias)
    total += _linear(heads * head_dim, hidden, o_bias)
    if spec.qk_norm:
        total += 2 * head_dim
    if spec.sinks:
        total += heads
    return total


def _mla(c: _Fields, hidden: int, heads: int) -> tuple[int, int, int]:
    """DeepSeek multi-head latent attention: (parameters, cached latent width, value head dim)."""
    q_rank = c.opt_int("q_lora_rank")
    kv_rank = c.int("kv_lora_rank")
    nope, rope, v_dim = c.int("qk_nope_head_dim"), c.int("qk_rope_head_dim"), c.int("v_head_dim")
    bias = c.flag("attention_bias", False)
    q_head = nope + rope
    if q_rank is None:
        total = hidden * heads * q_head  # q_proj
    else:
        total = _linear(hidden, q_rank, bias) + q_rank + q_rank * heads * q_head  # q_a, q_a_layernorm, q_b
    total += _linear(hidden, kv_rank + rope, bias) + kv_rank  # kv_a_proj_with_mqa, kv_a_layernorm
    total += kv_rank * heads * (nope + v_dim)  # kv_b_proj
    total += _linear(heads * v_dim, hidden, bias)  # o_proj
    return total, kv_rank + rope, v_dim


@dataclass
class _Ffn:
    dense: int = 0
    routed: int = 0
    shared: int = 0
    routers: int = 0
    unselected: int = 0  # routed-expert parameters a token does not use
    experts: int = 0  # routed experts per MoE layer
    used: int = 0  # routed experts per token
    how: str = ""  # the config fields the expert figures come from


def _moe(c: _Fields, spec: _Spec, hidden: int, layers: int) -> _Ffn:
    ffn = _Ffn()
    if spec.moe == "":
        inner = c.int("intermediate_size")
        ffn.dense = layers * _gated_mlp(hidden, inner, spec.mlp_bias and c.flag("mlp_bias", False))
        return ffn
    shared = 0
    router_bias = 0
    if spec.moe == "mixtral":
        experts, used = c.int("num_local_experts"), c.int("num_experts_per_tok")
        expert = _gated_mlp(hidden, c.int("intermediate_size"))
        sparse = list(range(layers))
    elif spec.moe == "gpt-oss":
        experts = c.int("num_local_experts")
        used = c.int("experts_per_token", c.data.get("num_experts_per_tok", _MISSING))
        inner = c.int("intermediate_size")
        expert = _linear(hidden, 2 * inner, True) + _linear(inner, hidden, True)  # gate_up and down, with biases
        router_bias = experts
        sparse = list(range(layers))
    elif spec.moe == "jamba":
        experts, used = c.int("num_experts"), c.int("num_experts_per_tok")
        expert = _gated_mlp(hidden, c.int("intermediate_size"))
        period, offset = c.int("expert_layer_period", 2), c.int("expert_layer_offset", 1, low=0)
        sparse = [i for i in range(layers) if i % period == offset] if experts > 1 else []
    elif spec.moe == "llama4":
        experts, used = c.int("num_local_experts"), c.int("num_experts_per_tok")
        expert = _gated_mlp(hidden, c.int("intermediate_size"))
        shared = expert  # one shared expert of the routed experts' size on every MoE layer
        listed = c.data.get("moe_layers")
        if isinstance(listed, list) and all(isinstance(i, int) and 0 <= i < layers for i in listed):
            sparse = sorted(set(listed))
        else:
            step = c.int("interleave_moe_layer_step", 1)
            sparse = [i for i in range(layers) if (i + 1) % step == 0]
    elif spec.moe == "qwen":
        experts, used = c.int("num_experts"), c.int("num_experts_per_tok")
        expert = _gated_mlp(hidden, c.int("moe_intermediate_size"))
        shared_inner = c.int("shared_expert_intermediate_size", 0, low=0)
        shared = _gated_mlp(hidden, shared_inner) + hidden if shared_inner else 0  # + shared_expert_gate
        step, dense_only = c.int("decoder_sparse_step", 1), set(c.int_list("mlp_only_layers"))
        sparse = [i for i in range(layers) if i not in dense_only and (i + 1) % step == 0]
    else:  # deepseek
        experts, used = c.int("n_routed_experts"), c.int("num_experts_per_tok")
        moe_inner = c.int("moe_intermediate_size")
        expert = _gated_mlp(hidden, moe_inner)
        shared = _gated_mlp(hidden, moe_inner * c.int("n_shared_experts", 0, low=0))
        router_bias = experts if c.data.get("topk_method") == "noaux_tc" else 0  # e_score_correction_bias
        first, freq = c.int("first_k_dense_replace", 0, low=0), c.int("moe_layer_freq", 1)
        sparse = [i for i in range(layers) if i >= first and i % freq == 0]
    if used > experts:
        raise ModelFileError(f"{c.where('num_experts_per_tok')}: {used} active experts but only {experts} experts")
    n_sparse = len(sparse)
    if n_sparse < layers:
        dense_key = "intermediate_size_mlp" if spec.moe == "llama4" else "intermediate_size"
        ffn.dense = (layers - n_sparse) * _gated_mlp(hidden, c.int(dense_key))
    ffn.routed = n_sparse * experts * expert
    ffn.shared = n_sparse * shared
    ffn.routers = n_sparse * (experts * hidden + router_bias)
    ffn.unselected = n_sparse * (experts - used) * expert
    ffn.experts, ffn.used = experts, used
    ffn.how = (
        f"config.json ({spec.moe} MoE keys): {experts} routed experts, {used} per token, on {n_sparse} of {layers} "
        f"layers; {expert:,} parameters per expert"
    )
    return ffn


def _sliding(c: _Fields, spec: _Spec, layers: int, max_context: int, notes: list[str]) -> tuple[int, int]:
    """(window tokens, layers that keep only the window)."""
    window = c.int("sliding_window", 0, low=0)
    layer_types = c.data.get("layer_types")
    if spec.window == "off":
        if window:
            notes.append(
                f"config sliding_window {window} not used: llama.cpp disables Phi-3 sliding-window attention, "
                "so the full cache is assumed (conservative)"
            )
        return 0, 0
    if layer_types is not None:
        if not isinstance(layer_types, list) or len(layer_types) != layers:
            raise ModelFileError(f"{c.where('layer_types')}: expected a list of {layers} layer types")
        count = sum(1 for t in layer_types if isinstance(t, str) and t.startswith("sliding"))
        how = "as listed in layer_types"
        if count and not window:
            raise ModelFileError(f"{c.where('sliding_window')}: required field is missing ({count} sliding layers)")
    elif spec.window in ("alternate", "pattern"):
        window = c.int("sliding_window")
        pattern = 2 if spec.window == "alternate" else c.int("sliding_window_pattern")
        count, how = sliding_from_pattern(layers, pattern), f"one layer in {pattern} global, the rest local"
    elif spec.window == "chunked":
        window = c.int("attention_chunk_size", 0, low=0)
        rope = c.data.get("no_rope_layers")  # 1 = RoPE layer with chunked attention, 0 = NoPE layer, full attention
        if isinstance(rope, list) and len(rope) == layers and all(v in (0, 1) for v in rope):
            count, how = sum(rope), "the RoPE layers of no_rope_layers (attention_chunk_size; chunks as a window)"
        else:
            interval = c.int("no_rope_layer_interval", 4)
            count = layers - layers // interval
            how = f"all but one layer in {interval} (attention_chunk_size; chunks as a window)"
        if not window:
            return 0, 0
    elif spec.window == "all" and window:
        count, how = layers, "every layer"
    elif spec.window == "qwen" and window and c.flag("use_sliding_window", False):
        first = c.int("max_window_layers", layers, low=0)
        count, how = max(0, layers - first), f"layers {first} and up (max_window_layers)"
    else:
        return 0, 0
    if count == 0:
        return 0, 0
    if window >= max_context:
        notes.append(f"sliding_window {window} is not below the context {max_context}, so it saves nothing")
        return 0, 0
    notes.append(f"sliding-window layers: {how}")
    return window, count


@dataclass
class _Kinds:
    """The layers of a hybrid model by kind, with the linear layers' parameters and state."""

    attention: int  # layers with attention (full or sliding)
    linear: int = 0  # linear-attention / SSM layers
    ffn: int = 0  # MLP-only layers
    linear_params: int = 0  # parameters of one linear layer's mixer
    state_bytes: int = 0  # state one sequence keeps per linear layer


def _dtype_bytes(c: _Fields, key: str, default: int = 2) -> int:
    """Bytes per value of a state dtype field (float32 → 4; bfloat16/float16/absent → `default`)."""
    value = c.data.get(key)
    return 4 if value in ("float32", "fp32") else default


def _qwen3_next_kinds(c: _Fields, layers: int, notes: list[str]) -> _Kinds:
    """Qwen3-Next: Gated DeltaNet layers with one full-attention layer every `full_attention_interval`."""
    layer_types = c.data.get("layer_types")
    if layer_types is not None:
        if not isinstance(layer_types, list) or len(layer_types) != layers:
            raise ModelFileError(f"{c.where('layer_types')}: expected a list of {layers} layer types")
        full = sum(1 for t in layer_types if t == "full_attention")
        notes.append("layer kinds as listed in layer_types")
    else:
        interval = c.int("full_attention_interval")
        full = layers // interval
        notes.append(f"one full-attention layer in {interval} (full_attention_interval), the rest Gated DeltaNet")
    k_heads, k_dim = c.int("linear_num_key_heads"), c.int("linear_key_head_dim")
    v_heads, v_dim = c.int("linear_num_value_heads"), c.int("linear_value_head_dim")
    kernel, hidden = c.int("linear_conv_kernel_dim"), c.int("hidden_size")
    key_dim, value_dim = k_heads * k_dim, v_heads * v_dim
    conv_dim = 2 * key_dim + value_dim
    mixer = hidden * (conv_dim + value_dim) + hidden * 2 * v_heads  # in_proj_qkvz, in_proj_ba
    mixer += conv_dim * kernel + 2 * v_heads + v_dim + value_dim * hidden  # conv1d, dt_bias + A_log, norm, out_proj
    recurrent, conv = v_heads * k_dim * v_dim, (kernel - 1) * conv_dim
    state = recurrent * _dtype_bytes(c, "mamba_ssm_dtype") + conv * 2
    notes.append(
        f"state per sequence and linear layer: {v_heads} x {k_dim} x {v_dim} recurrent + {kernel - 1} x {conv_dim} "
        f"convolution values = {state:,} bytes"
    )
    return _Kinds(full, layers - full, 0, mixer, state)


def _nemotron_h_kinds(c: _Fields, layers: int, notes: list[str]) -> _Kinds:
    """Nemotron-H: hybrid_override_pattern M (Mamba-2), * (attention), - (MLP) per block."""
    pattern = c.raw("hybrid_override_pattern")
    if not isinstance(pattern, str) or len(pattern) != layers or set(pattern) - set("M*-"):
        raise ModelFileError(
            f"{c.where('hybrid_override_pattern')}: expected {layers} characters of M (Mamba-2), * (attention) "
            f"and - (MLP), got {pattern!r} (MoE blocks E are not read yet)"
        )
    heads, head_dim = c.int("mamba_num_heads"), c.int("mamba_head_dim")
    groups = c.int("n_groups", c.data.get("mamba_num_groups", _MISSING))
    state_size, kernel, hidden = c.int("ssm_state_size"), c.int("conv_kernel"), c.int("hidden_size")
    inner = heads * head_dim
    conv_dim = inner + 2 * groups * state_size
    mixer = hidden * (inner + conv_dim + heads) + conv_dim * kernel
    mixer += conv_dim if c.flag("use_conv_bias", True) else 0
    mixer += 3 * heads + inner + _linear(inner, hidden, c.flag("use_bias", False))  # dt_bias, A_log, D, norm, out
    state = (heads * head_dim * state_size) * _dtype_bytes(c, "mamba_ssm_cache_dtype") + (kernel - 1) * conv_dim * 2
    notes.append(
        f"hybrid_override_pattern: {pattern.count('*')} attention, {pattern.count('M')} Mamba-2, "
        f"{pattern.count('-')} MLP blocks; state per sequence and Mamba layer: {heads} x {head_dim} x {state_size} "
        f"SSM + {kernel - 1} x {conv_dim} convolution values = {state:,} bytes"
    )
    return _Kinds(pattern.count("*"), pattern.count("M"), pattern.count("-"), mixer, state)


def _jamba_kinds(c: _Fields, layers: int, notes: list[str]) -> _Kinds:
    """Jamba: one attention layer every `attn_layer_period` (at `attn_layer_offset`), the rest Mamba (v1)."""
    period, offset = c.int("attn_layer_period", 8), c.int("attn_layer_offset", 4, low=0)
    attention = sum(1 for i in range(layers) if i % period == offset)
    hidden, d_state, d_conv = c.int("hidden_size"), c.int("mamba_d_state", 16), c.int("mamba_d_conv", 4)
    inner = c.int("mamba_expand", 2) * hidden
    dt_rank = c.int("mamba_dt_rank", -(-hidden // 16))
    mixer = _linear(hidden, 2 * inner, c.flag("mamba_proj_bias", False))  # in_proj
    mixer += inner * d_conv + (inner if c.flag("mamba_conv_bias", True) else 0)  # conv1d
    mixer += inner * (dt_rank + 2 * d_state) + dt_rank * inner + inner  # x_proj, dt_proj (with bias)
    mixer += inner * d_state + inner + dt_rank + 2 * d_state  # A_log, D, dt/B/C layernorms
    mixer += _linear(inner, hidden, c.flag("mamba_proj_bias", False))  # out_proj
    state = inner * d_state * _dtype_bytes(c, "mamba_ssm_cache_dtype") + (d_conv - 1) * inner * 2
    notes.append(
        f"one attention layer in {period} (offset {offset}): {attention} attention, {layers - attention} Mamba layers; "
        f"state per sequence and Mamba layer: {inner} x {d_state} SSM + {d_conv - 1} x {inner} convolution values "
        f"= {state:,} bytes"
    )
    return _Kinds(attention, layers - attention, 0, mixer, state)


def _context(c: _Fields, notes: list[str]) -> int:
    context = c.int("max_position_embeddings")
    scaling = c.data.get("rope_scaling") or c.data.get("rope_parameters")
    if isinstance(scaling, dict):
        kind = scaling.get("rope_type") or scaling.get("type")
        factor, original = scaling.get("factor"), scaling.get("original_max_position_embeddings")
        if kind and kind != "default":
            since = f" from {original}" if original else ""
            notes.append(f"rope scaling {kind}, factor {factor}{since}; max_position_embeddings {context}")
        if kind == "yarn" and isinstance(factor, int | float) and isinstance(original, int):
            scaled = int(factor * original)
            if scaled > context:
                notes.append(f"YaRN extends the context to {original} x {factor:g} = {scaled}")
                context = scaled
    return context


def _siglip(path: Path, vision: Any, text_hidden: int) -> tuple[int, int]:
    """Gemma 3's SigLIP vision tower and its projector into the text model: (tower, projector)."""
    if not isinstance(vision, dict):
        raise ModelFileError(f"{path}: vision_config: expected an object")
    v = _Fields(path, vision, "vision_config.")
    h, inner, depth = v.int("hidden_size"), v.int("intermediate_size"), v.int("num_hidden_layers")
    patch, image, channels = v.int("patch_size"), v.int("image_size"), v.int("num_channels", 3)
    layer = 4 * _linear(h, h, True) + _linear(h, inner, True) + _linear(inner, h, True) + 2 * 2 * h  # + 2 LayerNorms
    tower = channels * patch * patch * h + h  # patch embedding (conv with bias)
    tower += (image // patch) ** 2 * h  # position embedding
    tower += depth * layer + 2 * h  # encoder layers + post LayerNorm
    return tower, h * text_hidden + h  # mm_input_projection and mm_soft_emb_norm


def read_config(path: Path, name: str | None = None) -> DerivedModel:
    """Derive the catalog values of the model a config.json (or a model folder holding one) describes."""
    if path.is_dir():
        path = path / "config.json"
    data = _load(path)
    arch = _architecture(path, data)
    spec = ARCHITECTURES[arch]
    text = data
    if spec.nested:
        text = data.get("text_config")
        if not isinstance(text, dict):
            raise ModelFileError(f"{path}: text_config: required field is missing")
    c = _Fields(path, text, "text_config." if spec.nested else "", spec.defaults)
    notes: list[str] = []

    layers, hidden = c.int("num_hidden_layers"), c.int("hidden_size")
    heads = c.int("num_attention_heads")
    kv_heads = c.int("num_key_value_heads", heads)
    vocab = c.int("vocab_size")
    max_context = _context(c, notes)
    tied = c.flag("tie_word_embeddings", data.get("tie_word_embeddings", spec.tied_default))

    kv_latent = 0
    if spec.mla:
        attention, kv_latent, head_dim = _mla(c, hidden, heads)
        notes.append(f"MLA: cached width per layer = kv_lora_rank + qk_rope_head_dim = {kv_latent}")
    else:
        if "head_dim" not in c.data and "head_dim" not in c.defaults and hidden % heads:
            raise ModelFileError(f"{c.where('head_dim')}: required field is missing ({hidden} / {heads} heads)")
        head_dim = c.int("head_dim", hidden // heads)
        attention = _attention(c, spec, hidden, heads, kv_heads, head_dim)
    kv_check(c.where("num_key_value_heads"), heads, kv_heads)
    kinds = _Kinds(layers)
    if spec.hybrid == "qwen3-next":
        kinds = _qwen3_next_kinds(c, layers, notes)
        attention += hidden * heads * head_dim  # the output gate doubles q_proj (attn_output_gate)
    elif spec.hybrid == "nemotron-h":
        kinds = _nemotron_h_kinds(c, layers, notes)
    elif spec.hybrid == "jamba":
        kinds = _jamba_kinds(c, layers, notes)
    sparse_tokens = 0
    if spec.sparse:
        sparse_tokens = c.int("index_topk")
        index_heads, index_dim = c.int("index_n_heads"), c.int("index_head_dim")
        q_rank = c.int("q_lora_rank")
        # lightning indexer: wq_b, wk, k_norm (LayerNorm), weights_proj
        attention += q_rank * index_heads * index_dim + hidden * index_dim + 2 * index_dim + hidden * index_heads
        notes.append(f"sparse attention: each query reads at most index_topk = {sparse_tokens} past tokens")
    if spec.hybrid == "nemotron-h":
        inner = c.int("intermediate_size")
        mlp = _linear(hidden, inner, c.flag("mlp_bias", False)) + _linear(inner, hidden, c.flag("mlp_bias", False))
        ffn = _Ffn(dense=kinds.ffn * mlp)
    else:
        ffn = _moe(c, spec, hidden, layers)
    window, sliding_layers = (0, 0) if spec.hybrid else _sliding(c, spec, layers, max_context, notes)

    embed = vocab * hidden
    parts = {"token embeddings": embed, "output head": 0 if tied else embed, "attention": kinds.attention * attention}
    parts["linear attention / SSM"] = kinds.linear * kinds.linear_params
    parts.update({"dense MLP": ffn.dense, "routed experts": ffn.routed, "shared experts": ffn.shared})
    parts.update({"routers": ffn.routers, "norms": (layers * spec.norms_per_layer + 1) * hidden})
    if spec.nested and data.get("vision_config") is not None:
        if spec.vision:
            parts["vision tower"], parts["multimodal projector"] = _siglip(path, data["vision_config"], hidden)
            notes.append("includes the vision tower, which stays in memory beside the text model")
        else:
            notes.append("the vision tower (vision_config) is not counted: text model only")
    parts = {k: v for k, v in parts.items() if v}
    if tied:
        notes.append("output head tied to the token embeddings (counted once)")
    if c.defaulted:
        notes.append(f"transformers' config defaults for fields the file omits: {', '.join(c.defaulted)}")
    mtp = data.get("num_nextn_predict_layers", c.data.get("mtp_num_hidden_layers"))
    if isinstance(mtp, int) and mtp > 0:
        notes.append(f"{mtp} multi-token-prediction layer(s) in the checkpoint not counted (not used to decode)")
    total = sum(parts.values())
    if ffn.unselected:
        notes.append(f"active = total - unselected routed experts ({ffn.unselected:,})")
    derived = DerivedModel(
        name=name or default_name(path, data),
        family=spec.family,
        architecture=arch,
        file_name=path.name,
        params=total,
        active_params=total - ffn.unselected,
        layers=layers,
        hidden=hidden,
        heads=heads,
        kv_heads=kv_heads,
        head_dim=head_dim,
        vocab=vocab,
        max_context=max_context,
        kv_latent_dim=kv_latent,
        sliding_window=window,
        sliding_layers=sliding_layers,
        experts=ffn.experts,
        active_experts=ffn.used,
        expert_params=ffn.routed,
        moe_source=ffn.how,
        linear_layers=kinds.linear,
        ffn_layers=kinds.ffn,
        state_bytes=kinds.state_bytes,
        sparse_tokens=sparse_tokens,
        parts=parts,
        notes=notes,
    )
    return plausible(derived, path)
