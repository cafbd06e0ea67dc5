"""Model importers: derive a model-catalog row from a Hugging Face config.json or a GGUF file header.

Each importer returns a DerivedModel with exact parameter counts (integers, not billions) and the
per-part breakdown, so the numbers printed to the user can be checked by hand. Problems with a
file raise ModelFileError, whose message names the file and the field.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kalkulator.catalog.schema import MODEL, field_of

# Column order of assumptions/models.csv.
ROW_COLUMNS = tuple(f.name for f in MODEL.fields)


class ModelFileError(ValueError):
    """A model file cannot be imported; the message names the file and, where there is one, the field."""


# The derived values checked against the model catalog's upper bounds (its Fields): a file beyond them is corrupt or
# hostile, and its numbers would overflow the engine and the workbook (1e300 layers) instead of meaning anything.
_LIMITED = (
    "layers",
    "hidden",
    "heads",
    "kv_heads",
    "head_dim",
    "vocab",
    "max_context",
    "kv_latent_dim",
    "sliding_window",
    "linear_layers",
    "ffn_layers",
    "state_bytes",
    "sparse_tokens",
)


def limits() -> dict[str, int]:
    """The largest value of each derived count: the model columns' hard bounds (parameters: params_b × 10⁹)."""
    out = {"params": int(field_of("model", "params_b").domain.high * 1e9)}  # type: ignore[union-attr]
    return out | {key: int(field_of("model", key).domain.high) for key in _LIMITED}  # type: ignore[union-attr]


@dataclass
class DerivedModel:
    """A model's catalog values as derived from one file, with the evidence behind them."""

    name: str
    family: str
    architecture: str  # config.json architectures[0] or GGUF general.architecture
    file_name: str
    params: int  # exact parameter count
    active_params: int  # params minus the routed experts a token does not use
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    head_dim: int
    vocab: int
    max_context: int
    kv_latent_dim: int = 0
    sliding_window: int = 0
    sliding_layers: int = 0
    experts: int = 0  # routed experts per MoE layer
    active_experts: int = 0  # routed experts per token (top-k)
    expert_params: int = 0  # parameters of all routed experts of all layers
    moe_source: str = ""  # how the expert figures were read
    linear_layers: int = 0  # linear-attention / SSM layers (fixed state, no KV)
    ffn_layers: int = 0  # MLP-only layers (no attention, no state)
    state_bytes: int = 0  # state one sequence keeps per linear layer
    sparse_tokens: int = 0  # sparse-attention token budget per query (0 = dense)
    parts: dict[str, int] = field(default_factory=dict)  # parameter breakdown, sums to params
    notes: list[str] = field(default_factory=list)
    source_extra: str = ""  # appended to the row's source text
    weight_bytes: int | None = None  # GGUF only: exact bytes of all tensors

    @property
    def attention(self) -> str:
        """The catalog's attention kind: mla, mha (one KV head per query head), mqa (one KV head) or gqa."""
        if self.kv_latent_dim > 0:
            return "mla"
        if self.kv_heads == self.heads:
            return "mha"
        return "mqa" if self.kv_heads == 1 else "gqa"

    @property
    def bits_per_weight(self) -> float | None:
        """Average stored bits per parameter (GGUF only)."""
        return None if self.weight_bytes is None else 8 * self.weight_bytes / self.params

    def source(self) -> str:
        text = f"derived from {self.file_name} by kalkulator model add"
        return f"{text}; {self.source_extra}" if self.source_extra else text

    def row(self, as_of: str) -> dict[str, str]:
        """The models.csv row as text; parameters in billions rounded to 3 decimals."""
        values: dict[str, object] = {
            "name": self.name,
            "family": self.family,
            "params_b": _billions(self.params),
            "active_params_b": _billions(self.active_params),
            "layers": self.layers,
            "hidden": self.hidden,
            "heads": self.heads,
            "kv_heads": self.kv_heads,
            "head_dim": self.head_dim,
            "vocab": self.vocab,
            "max_context": self.max_context,
            "attention": self.attention,
            "kv_latent_dim": self.kv_latent_dim,
            "sliding_window": self.sliding_window,
            "sliding_layers": self.sliding_layers,
            "source": self.source(),
            "as_of": as_of,
            "experts": self.experts,
            "active_experts": self.active_experts,
            "expert_params_b": _billions(self.expert_params) if self.experts else 0,
            "moe_source": self.moe_source if self.experts else "",
            "linear_layers": self.linear_layers,
            "ffn_layers": self.ffn_layers,
            "state_bytes": self.state_bytes,
            "sparse_tokens": self.sparse_tokens,
        }
        return {column: str(values[column]) for column in ROW_COLUMNS}

    def settings(self) -> dict[str, object]:
        """`--set`-style engine settings (exact counts, not the rounded catalog text)."""
        out: dict[str, object] = {
            "model_name": self.name,
            "model_params_b": self.params / 1e9,
            "model_active_params_b": self.active_params / 1e9,
            "model_layers": float(self.layers),
            "model_hidden": float(self.hidden),
            "model_heads": float(self.heads),
            "model_kv_heads": float(self.kv_heads),
            "model_head_dim": float(self.head_dim),
            "model_vocab": float(self.vocab),
            "model_max_context_tokens": float(self.max_context),
            "model_kv_latent_dim": float(self.kv_latent_dim),
            "model_sliding_window_tokens": float(self.sliding_window),
            "model_sliding_layers": float(self.sliding_layers),
            "model_experts": float(self.experts),
            "model_active_experts": float(self.active_experts),
            "model_expert_params_b": self.expert_params / 1e9,
            "model_linear_layers": float(self.linear_layers),
            "model_ffn_layers": float(self.ffn_layers),
            "model_state_bytes_per_layer": float(self.state_bytes),
            "model_sparse_tokens": float(self.sparse_tokens),
        }
        if self.weight_bytes is not None:
            out["weight_bits_per_param"] = self.bits_per_weight
            out["weights_gb"] = self.weight_bytes / 1e9
        return out

    def describe(self) -> str:
        """What was derived, for the terminal."""
        lines = [
            f"{self.name}: derived from {self.file_name} ({self.architecture}, family {self.family})",
            f"  parameters {self.params:,} ({self.params / 1e9:.3f} B), active per token {self.active_params:,} "
            f"({self.active_params / 1e9:.3f} B)",
        ]
        lines += [f"    {part:<28} {count:>18,}" for part, count in self.parts.items()]
        lines.append(
            f"  layers {self.layers}, hidden {self.hidden}, heads {self.heads}, KV heads {self.kv_heads}, "
            f"head dim {self.head_dim}, vocab {self.vocab}, max context {self.max_context}"
        )
        kv = f"attention {self.attention}"
        if self.kv_latent_dim:
            kv += f", KV latent width {self.kv_latent_dim}"
        if self.sliding_layers:
            kv += f", sliding window {self.sliding_window} tokens on {self.sliding_layers} of {self.layers} layers"
        if self.linear_layers or self.ffn_layers:
            kv += (
                f"; {self.linear_layers} linear-attention/SSM layers ({self.state_bytes:,} bytes of state per "
                f"sequence each), {self.ffn_layers} MLP-only layers: KV on "
                f"{self.layers - self.linear_layers - self.ffn_layers} of {self.layers} layers"
            )
        if self.sparse_tokens:
            kv += f"; sparse attention reads at most {self.sparse_tokens} past tokens per query"
        if self.experts:
            kv += f"; MoE {self.active_experts} of {self.experts} routed experts ({self.expert_params:,} parameters)"
        lines.append(f"  {kv}")
        if self.weight_bytes is not None:
            lines.append(f"  weights {self.weight_bytes:,} bytes = {self.bits_per_weight:.4f} bits per weight")
        lines += [f"  note: {note}" for note in self.notes]
        return "\n".join(lines)


def too_large(where: str, value: int, limit: int) -> ModelFileError:
    """The error for a whole number beyond any model's (shown exactly, or as a power of ten when huge)."""
    shown = f"{value:,}" if value < 10**15 else f"about 1e{len(str(value)) - 1}"
    return ModelFileError(f"{where}: {shown} is more than any model has (at most {limit:,}); the file looks corrupt")


def plausible(derived: DerivedModel, path: object) -> DerivedModel:
    """Return `derived`, or raise ModelFileError naming the first value above its column's bound (catalog names)."""
    for key, limit in limits().items():
        value = getattr(derived, key)
        if value > limit:
            raise too_large(f"{path}: {'parameters' if key == 'params' else key}", value, limit)
    return derived


def _billions(count: int) -> str:
    text = f"{round(count / 1e9, 3):.3f}".rstrip("0").rstrip(".")
    return text or "0"


def kv_check(path_label: str, heads: int, kv_heads: int) -> None:
    """Query heads must be a whole multiple of KV heads (GQA groups); the catalog checks the same."""
    if kv_heads <= 0 or heads % kv_heads:
        raise ModelFileError(f"{path_label}: {heads} attention heads is not a multiple of {kv_heads} KV heads")


def sliding_from_pattern(layers: int, pattern: int) -> int:
    """Local layers when every `pattern`-th layer is global (Gemma 3: 6; Gemma 2, gpt-oss: 2)."""
    return layers - layers // pattern if pattern > 0 else 0
