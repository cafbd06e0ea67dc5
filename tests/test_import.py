"""Model import from Hugging Face config.json and GGUF headers: counts, shapes, `model add`, clear errors.

The configs below reproduce the published config.json files field for field (URL above each). Expected
parameter counts are the publishers' figures or arithmetic written out here, never output of the importer.
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from kalkulator.catalog import MODEL, load_table
from kalkulator.catalog.importers import ROW_COLUMNS, ModelFileError
from kalkulator.catalog.importers.gguf_file import read_gguf
from kalkulator.catalog.importers.hf_config import read_config
from kalkulator.cli.model_commands import model, model_settings
from kalkulator.io.paths import CATALOG_DIR
from kalkulator.scenario import compute

try:
    import gguf
except ImportError:  # the config.json tests still run
    gguf = None
needs_gguf = pytest.mark.skipif(gguf is None, reason="GGUF tests need the gguf package")

# https://huggingface.co/meta-llama/Meta-Llama-3-8B/blob/main/config.json
LLAMA_3_8B = {
    "architectures": ["LlamaForCausalLM"],
    "attention_bias": False,
    "attention_dropout": 0.0,
    "bos_token_id": 128000,
    "eos_token_id": 128001,
    "hidden_act": "silu",
    "hidden_size": 4096,
    "initializer_range": 0.02,
    "intermediate_size": 14336,
    "max_position_embeddings": 8192,
    "model_type": "llama",
    "num_attention_heads": 32,
    "num_hidden_layers": 32,
    "num_key_value_heads": 8,
    "pretraining_tp": 1,
    "rms_norm_eps": 1e-05,
    "rope_scaling": None,
    "rope_theta": 500000.0,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "transformers_version": "4.40.0.dev0",
    "use_cache": True,
    "vocab_size": 128256,
}

# https://huggingface.co/meta-llama/Llama-3.1-8B/blob/main/config.json
LLAMA_3_1_8B = {
    **LLAMA_3_8B,
    "eos_token_id": 128001,
    "max_position_embeddings": 131072,
    "mlp_bias": False,
    "rope_scaling": {
        "factor": 8.0,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
        "original_max_position_embeddings": 8192,
        "rope_type": "llama3",
    },
    "transformers_version": "4.43.0.dev0",
}

# https://huggingface.co/Qwen/Qwen2.5-7B/blob/main/config.json
QWEN2_5_7B = {
    "architectures": ["Qwen2ForCausalLM"],
    "attention_dropout": 0.0,
    "bos_token_id": 151643,
    "eos_token_id": 151643,
    "hidden_act": "silu",
    "hidden_size": 3584,
    "initializer_range": 0.02,
    "intermediate_size": 18944,
    "max_position_embeddings": 131072,
    "max_window_layers": 28,
    "model_type": "qwen2",
    "num_attention_heads": 28,
    "num_hidden_layers": 28,
    "num_key_value_heads": 4,
    "rms_norm_eps": 1e-06,
    "rope_theta": 1000000.0,
    "sliding_window": 131072,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "transformers_version": "4.43.1",
    "use_cache": True,
    "use_mrope": False,
    "use_sliding_window": False,
    "vocab_size": 152064,
}

# https://huggingface.co/mistralai/Mixtral-8x7B-v0.1/blob/main/config.json
MIXTRAL_8X7B = {
    "architectures": ["MixtralForCausalLM"],
    "attention_dropout": 0.0,
    "bos_token_id": 1,
    "eos_token_id": 2,
    "hidden_act": "silu",
    "hidden_size": 4096,
    "initializer_range": 0.02,
    "intermediate_size": 14336,
    "max_position_embeddings": 32768,
    "model_type": "mixtral",
    "num_attention_heads": 32,
    "num_experts_per_tok": 2,
    "num_hidden_layers": 32,
    "num_key_value_heads": 8,
    "num_local_experts": 8,
    "output_router_logits": False,
    "rms_norm_eps": 1e-05,
    "rope_theta": 1000000.0,
    "router_aux_loss_coef": 0.02,
    "sliding_window": None,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "transformers_version": "4.36.0.dev0",
    "use_cache": True,
    "vocab_size": 32000,
}

# https://huggingface.co/deepseek-ai/DeepSeek-V3/blob/main/config.json
DEEPSEEK_V3 = {
    "architectures": ["DeepseekV3ForCausalLM"],
    "attention_bias": False,
    "attention_dropout": 0.0,
    "auto_map": {
        "AutoConfig": "configuration_deepseek.DeepseekV3Config",
        "AutoModel": "modeling_deepseek.DeepseekV3Model",
        "AutoModelForCausalLM": "modeling_deepseek.DeepseekV3ForCausalLM",
    },
    "aux_loss_alpha": 0.001,
    "bos_token_id": 0,
    "eos_token_id": 1,
    "ep_size": 1,
    "first_k_dense_replace": 3,
    "hidden_act": "silu",
    "hidden_size": 7168,
    "initializer_range": 0.02,
    "intermediate_size": 18432,
    "kv_lora_rank": 512,
    "max_position_embeddings": 163840,
    "model_type": "deepseek_v3",
    "moe_intermediate_size": 2048,
    "moe_layer_freq": 1,
    "n_group": 8,
    "n_routed_experts": 256,
    "n_shared_experts": 1,
    "norm_topk_prob": True,
    "num_attention_heads": 128,
    "num_experts_per_tok": 8,
    "num_hidden_layers": 61,
    "num_key_value_heads": 128,
    "num_nextn_predict_layers": 1,
    "pretraining_tp": 1,
    "q_lora_rank": 1536,
    "qk_nope_head_dim": 128,
    "qk_rope_head_dim": 64,
    "quantization_config": {
        "activation_scheme": "dynamic",
        "fmt": "e4m3",
        "quant_method": "fp8",
        "weight_block_size": [128, 128],
    },
    "rms_norm_eps": 1e-06,
    "rope_scaling": {
        "beta_fast": 32,
        "beta_slow": 1,
        "factor": 40,
        "mscale": 1.0,
        "mscale_all_dim": 1.0,
        "original_max_position_embeddings": 4096,
        "type": "yarn",
    },
    "rope_theta": 10000,
    "routed_scaling_factor": 2.5,
    "scoring_func": "sigmoid",
    "seq_aux": True,
    "tie_word_embeddings": False,
    "topk_group": 4,
    "topk_method": "noaux_tc",
    "torch_dtype": "bfloat16",
    "transformers_version": "4.33.1",
    "use_cache": True,
    "v_head_dim": 128,
    "vocab_size": 129280,
}

# https://huggingface.co/openai/gpt-oss-20b/blob/main/config.json
GPT_OSS_20B = {
    "architectures": ["GptOssForCausalLM"],
    "attention_bias": True,
    "attention_dropout": 0.0,
    "eos_token_id": 200002,
    "experts_per_token": 4,
    "head_dim": 64,
    "hidden_act": "silu",
    "hidden_size": 2880,
    "initial_context_length": 4096,
    "initializer_range": 0.02,
    "intermediate_size": 2880,
    "layer_types": ["sliding_attention", "full_attention"] * 12,
    "max_position_embeddings": 131072,
    "model_type": "gpt_oss",
    "num_attention_heads": 64,
    "num_experts_per_tok": 4,
    "num_hidden_layers": 24,
    "num_key_value_heads": 8,
    "num_local_experts": 32,
    "output_router_logits": False,
    "pad_token_id": 199999,
    "quantization_config": {
        "modules_to_not_convert": [
            "model.layers.*.self_attn",
            "model.layers.*.mlp.router",
            "model.embed_tokens",
            "lm_head",
        ],
        "quant_method": "mxfp4",
    },
    "rms_norm_eps": 1e-05,
    "rope_scaling": {
        "beta_fast": 32.0,
        "beta_slow": 1.0,
        "factor": 32.0,
        "original_max_position_embeddings": 4096,
        "rope_type": "yarn",
        "truncate": False,
    },
    "rope_theta": 150000,
    "router_aux_loss_coef": 0.9,
    "sliding_window": 128,
    "swiglu_limit": 7.0,
    "tie_word_embeddings": False,
    "transformers_version": "4.57.0",
    "use_cache": True,
    "vocab_size": 201088,
}

# https://huggingface.co/Qwen/Qwen3-30B-A3B/blob/main/config.json
QWEN3_30B_A3B = {
    "architectures": ["Qwen3MoeForCausalLM"],
    "attention_bias": False,
    "attention_dropout": 0.0,
    "bos_token_id": 151643,
    "decoder_sparse_step": 1,
    "eos_token_id": 151645,
    "head_dim": 128,
    "hidden_act": "silu",
    "hidden_size": 2048,
    "initializer_range": 0.02,
    "intermediate_size": 6144,
    "max_position_embeddings": 40960,
    "max_window_layers": 48,
    "mlp_only_layers": [],
    "model_type": "qwen3_moe",
    "moe_intermediate_size": 768,
    "norm_topk_prob": True,
    "num_attention_heads": 32,
    "num_experts": 128,
    "num_experts_per_tok": 8,
    "num_hidden_layers": 48,
    "num_key_value_heads": 4,
    "output_router_logits": False,
    "rms_norm_eps": 1e-06,
    "rope_scaling": None,
    "rope_theta": 1000000.0,
    "router_aux_loss_coef": 0.001,
    "sliding_window": None,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "transformers_version": "4.51.0",
    "use_cache": True,
    "use_sliding_window": False,
    "vocab_size": 151936,
}

# https://huggingface.co/google/gemma-3-27b-pt/blob/main/config.json (text_config omits vocab_size,
# max_position_embeddings and sliding_window_pattern: transformers' Gemma3TextConfig defaults apply)
GEMMA_3_27B = {
    "architectures": ["Gemma3ForConditionalGeneration"],
    "boi_token_index": 255999,
    "eoi_token_index": 256000,
    "eos_token_id": [1, 106],
    "image_token_index": 262144,
    "initializer_range": 0.02,
    "mm_tokens_per_image": 256,
    "model_type": "gemma3",
    "text_config": {
        "head_dim": 128,
        "hidden_size": 5376,
        "intermediate_size": 21504,
        "model_type": "gemma3_text",
        "num_attention_heads": 32,
        "num_hidden_layers": 62,
        "num_key_value_heads": 16,
        "query_pre_attn_scalar": 168,
        "rope_scaling": {"factor": 8.0, "rope_type": "linear"},
        "sliding_window": 1024,
    },
    "torch_dtype": "bfloat16",
    "transformers_version": "4.50.0.dev0",
    "vision_config": {
        "hidden_size": 1152,
        "image_size": 896,
        "intermediate_size": 4304,
        "model_type": "siglip_vision_model",
        "num_attention_heads": 16,
        "num_hidden_layers": 27,
        "patch_size": 14,
        "vision_use_head": False,
    },
}

# https://huggingface.co/google/gemma-3-1b-pt/blob/main/config.json
GEMMA_3_1B = {
    "architectures": ["Gemma3ForCausalLM"],
    "attention_bias": False,
    "attention_dropout": 0.0,
    "attn_logit_softcapping": None,
    "bos_token_id": 2,
    "cache_implementation": "hybrid",
    "eos_token_id": 1,
    "final_logit_softcapping": None,
    "head_dim": 256,
    "hidden_activation": "gelu_pytorch_tanh",
    "hidden_size": 1152,
    "initializer_range": 0.02,
    "intermediate_size": 6912,
    "max_position_embeddings": 32768,
    "model_type": "gemma3_text",
    "num_attention_heads": 4,
    "num_hidden_layers": 26,
    "num_key_value_heads": 1,
    "pad_token_id": 0,
    "query_pre_attn_scalar": 256,
    "rms_norm_eps": 1e-06,
    "rope_local_base_freq": 10000,
    "rope_scaling": None,
    "rope_theta": 1000000,
    "sliding_window": 512,
    "sliding_window_pattern": 6,
    "torch_dtype": "bfloat16",
    "transformers_version": "4.50.0.dev0",
    "use_cache": True,
    "vocab_size": 262144,
}

# https://huggingface.co/google/gemma-2-9b/blob/main/config.json
GEMMA_2_9B = {
    "architectures": ["Gemma2ForCausalLM"],
    "attention_bias": False,
    "attention_dropout": 0.0,
    "attn_logit_softcapping": 50.0,
    "bos_token_id": 2,
    "cache_implementation": "hybrid",
    "eos_token_id": 1,
    "final_logit_softcapping": 30.0,
    "head_dim": 256,
    "hidden_act": "gelu_pytorch_tanh",
    "hidden_activation": "gelu_pytorch_tanh",
    "hidden_size": 3584,
    "initializer_range": 0.02,
    "intermediate_size": 14336,
    "max_position_embeddings": 8192,
    "model_type": "gemma2",
    "num_attention_heads": 16,
    "num_hidden_layers": 42,
    "num_key_value_heads": 8,
    "pad_token_id": 0,
    "query_pre_attn_scalar": 256,
    "rms_norm_eps": 1e-06,
    "rope_theta": 10000.0,
    "sliding_window": 4096,
    "sliding_window_size": 4096,
    "torch_dtype": "float32",
    "transformers_version": "4.42.0.dev0",
    "use_cache": True,
    "vocab_size": 256000,
}

# https://huggingface.co/microsoft/Phi-3-mini-4k-instruct/blob/main/config.json
PHI_3_MINI_4K = {
    "_name_or_path": "Phi-3-mini-4k-instruct",
    "architectures": ["Phi3ForCausalLM"],
    "attention_dropout": 0.0,
    "bos_token_id": 1,
    "embd_pdrop": 0.0,
    "eos_token_id": 32000,
    "hidden_act": "silu",
    "hidden_size": 3072,
    "initializer_range": 0.02,
    "intermediate_size": 8192,
    "max_position_embeddings": 4096,
    "model_type": "phi3",
    "num_attention_heads": 32,
    "num_hidden_layers": 32,
    "num_key_value_heads": 32,
    "original_max_position_embeddings": 4096,
    "pad_token_id": 32000,
    "resid_pdrop": 0.0,
    "rms_norm_eps": 1e-05,
    "rope_scaling": None,
    "rope_theta": 10000.0,
    "sliding_window": 2047,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "transformers_version": "4.40.2",
    "use_cache": True,
    "attention_bias": False,
    "vocab_size": 32064,
}


def write_config(folder: Path, data: dict) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "config.json"
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path


def derived(tmp_path: Path, name: str, data: dict):
    return read_config(write_config(tmp_path / name, data))


# --- parameter counts against published figures (tolerance 0.5 %) -------------------------------------------


@pytest.mark.parametrize(
    ("name", "config", "total_b"),
    [
        # 8.03B: the safetensors parameter count shown on https://huggingface.co/meta-llama/Meta-Llama-3-8B
        ("Meta-Llama-3-8B", LLAMA_3_8B, 8.03),
        # "Number of Parameters: 7.61B" on https://huggingface.co/Qwen/Qwen2.5-7B (the Hub's badge rounds to 7.62B)
        ("Qwen2.5-7B", QWEN2_5_7B, 7.61),
        # "46.7B total parameters" on https://mistral.ai/news/mixtral-of-experts
        ("Mixtral-8x7B-v0.1", MIXTRAL_8X7B, 46.7),
        # "671B total parameters" on https://huggingface.co/deepseek-ai/DeepSeek-V3 (main model, MTP module excluded)
        ("DeepSeek-V3", DEEPSEEK_V3, 671),
        # 20.9B total in the gpt-oss model card, Table 1: https://arxiv.org/abs/2508.10925
        ("gpt-oss-20b", GPT_OSS_20B, 20.9),
        # "Number of Parameters: 30.5B in total" on https://huggingface.co/Qwen/Qwen3-30B-A3B
        ("Qwen3-30B-A3B", QWEN3_30B_A3B, 30.5),
        # Gemma 3 technical report Table 1 (https://arxiv.org/abs/2503.19786), 27B: vision encoder 417M +
        # embedding 1,416M + non-embedding 25,600M
        ("gemma-3-27b-pt", GEMMA_3_27B, (417 + 1416 + 25600) / 1000),
        # same table, 1B: embedding 302M + non-embedding 698M (no vision encoder)
        ("gemma-3-1b-pt", GEMMA_3_1B, (302 + 698) / 1000),
    ],
)
def test_total_parameters_match_published_figures(tmp_path, name, config, total_b):
    m = derived(tmp_path, name, config)
    assert m.params / 1e9 == pytest.approx(total_b, rel=0.005)


def test_mixtral_active_parameters_match_published_figure(tmp_path):
    # "only uses 12.9B parameters per token": https://mistral.ai/news/mixtral-of-experts
    m = derived(tmp_path, "Mixtral-8x7B-v0.1", MIXTRAL_8X7B)
    assert m.active_params / 1e9 == pytest.approx(12.9, rel=0.005)


def test_deepseek_v3_active_parameters_match_published_figure(tmp_path):
    # "Activation parameters: 36.6B (including 0.9B for the output Head)" -- DeepSeek's own count, which leaves out
    # the input-embedding table (a lookup); the importer's active count keeps it, like every other parameter
    # outside the unselected experts: https://github.com/deepseek-ai/DeepSeek-V3/blob/main/README_WEIGHTS.md
    m = derived(tmp_path, "DeepSeek-V3", DEEPSEEK_V3)
    input_embedding = 129280 * 7168
    assert (m.active_params - input_embedding) / 1e9 == pytest.approx(36.6, rel=0.005)
    # the model card's rounded "37B activated": https://huggingface.co/deepseek-ai/DeepSeek-V3
    assert m.active_params / 1e9 == pytest.approx(37, rel=0.02)


def test_gpt_oss_20b_counts_every_tensor_of_the_checkpoint(tmp_path):
    # Tensor shapes of the checkpoint (https://huggingface.co/openai/gpt-oss-20b, model.safetensors.index.json):
    # embed_tokens and lm_head [201088, 2880]; per layer q_proj [4096, 2880] + bias, k_proj and v_proj
    # [512, 2880] + bias, o_proj [2880, 4096] + bias, sinks [64], router [32, 2880] + bias [32],
    # experts gate_up_proj [32, 2880, 5760] + bias [32, 5760], down_proj [32, 2880, 2880] + bias [32, 2880],
    # two norms [2880]; final norm [2880].
    attention = (4096 * 2880 + 4096) + 2 * (512 * 2880 + 512) + (2880 * 4096 + 2880) + 64
    expert = (2880 * 5760 + 5760) + (2880 * 2880 + 2880)
    layer = attention + (32 * 2880 + 32) + 32 * expert + 2 * 2880
    total = 2 * 201088 * 2880 + 24 * layer + 2880
    m = derived(tmp_path, "gpt-oss-20b", GPT_OSS_20B)
    assert m.params == total == 20_914_757_184
    # 4 of 32 experts per token
    assert m.active_params == total - 24 * (32 - 4) * expert
    # "3.6B active" (model card, https://arxiv.org/abs/2508.10925) counts the output head but not the
    # input-embedding lookup; the importer's count keeps the lookup table.
    assert (m.active_params - 201088 * 2880) / 1e9 == pytest.approx(3.6, rel=0.005)
    assert (m.sliding_window, m.sliding_layers, m.head_dim, m.attention) == (128, 12, 64, "gqa")


def test_llama_3_8b_exact_count_and_shape(tmp_path):
    # embeddings + lm_head, per layer q/o 4096x4096, k/v 4096x1024, gate/up/down 4096x14336, 2 norms; final norm
    layer = 2 * 4096 * 4096 + 2 * 4096 * 1024 + 3 * 4096 * 14336 + 2 * 4096
    m = derived(tmp_path, "Meta-Llama-3-8B", LLAMA_3_8B)
    assert m.params == m.active_params == 2 * 128256 * 4096 + 32 * layer + 4096
    assert (m.layers, m.hidden, m.heads, m.kv_heads, m.head_dim, m.vocab, m.max_context) == (
        32,
        4096,
        32,
        8,
        128,
        128256,
        8192,
    )
    assert m.name == "Meta-Llama-3-8B"  # the model folder
    assert read_config(tmp_path / "Meta-Llama-3-8B").params == m.params  # the folder works as well as the file
    assert m.attention == "gqa"


def test_llama_3_1_rope_scaling_keeps_the_configured_context(tmp_path):
    m = derived(tmp_path, "Llama-3.1-8B", LLAMA_3_1_8B)
    assert m.max_context == 131072
    assert m.params == 2 * 128256 * 4096 + 32 * (2 * 4096 * 4096 + 2 * 4096 * 1024 + 3 * 4096 * 14336 + 2 * 4096) + 4096
    assert any("llama3" in note for note in m.notes)


def test_qwen2_counts_the_qkv_biases(tmp_path):
    # q/k/v carry biases (3584 + 512 + 512 per layer), o_proj does not
    layer = 2 * 3584 * 3584 + 2 * 3584 * 512 + (3584 + 512 + 512) + 3 * 3584 * 18944 + 2 * 3584
    m = derived(tmp_path, "Qwen2.5-7B", QWEN2_5_7B)
    assert m.params == 2 * 152064 * 3584 + 28 * layer + 3584
    assert (m.sliding_window, m.sliding_layers) == (0, 0)  # use_sliding_window is false


def test_qwen3_moe_active_count_by_hand(tmp_path):
    # per layer: q 2048x4096, k/v 2048x512, o 4096x2048, q_norm/k_norm 128 each, router 128x2048, 2 norms;
    # 128 experts of gate/up/down 2048x768, 8 used per token
    expert = 3 * 2048 * 768
    shared = 2048 * 4096 * 2 + 2048 * 512 * 2 + 2 * 128 + 128 * 2048 + 2 * 2048
    embeddings = 2 * 151936 * 2048 + 2048
    m = derived(tmp_path, "Qwen3-30B-A3B", QWEN3_30B_A3B)
    assert m.params == embeddings + 48 * (shared + 128 * expert)
    assert m.active_params == embeddings + 48 * (shared + 8 * expert)
    assert (m.head_dim, m.kv_heads, m.max_context) == (128, 4, 40960)


def test_phi3_fused_projections_count_like_separate_ones(tmp_path):
    # qkv_proj 3072x(3*3072) and o_proj 3072x3072, gate_up_proj 3072x(2*8192) and down_proj 8192x3072, 2 norms
    layer = 3072 * 3 * 3072 + 3072 * 3072 + 3072 * 2 * 8192 + 8192 * 3072 + 2 * 3072
    m = derived(tmp_path, "Phi-3-mini-4k-instruct", PHI_3_MINI_4K)
    assert m.params == 2 * 32064 * 3072 + 32 * layer + 3072
    assert (m.attention, m.head_dim, m.sliding_layers) == ("mha", 96, 0)  # catalog convention: no Phi-3 window


def test_gemma_2_alternates_local_and_global_layers(tmp_path):
    # tied embeddings; 4 norms per layer
    layer = 2 * 3584 * 4096 + 2 * 3584 * 2048 + 3 * 3584 * 14336 + 4 * 3584
    m = derived(tmp_path, "gemma-2-9b", GEMMA_2_9B)
    assert m.params == 256000 * 3584 + 42 * layer + 3584
    assert (m.sliding_window, m.sliding_layers, m.head_dim) == (4096, 21, 256)


# --- Gemma 3 sliding-window layers ------------------------------------------------------------------------


def test_gemma_3_sliding_layers_from_the_default_pattern(tmp_path):
    # text_config has no sliding_window_pattern: the default 6 means layers 6, 12, ..., 60 are global (10 of 62)
    m = derived(tmp_path, "gemma-3-27b-pt", GEMMA_3_27B)
    assert (m.sliding_window, m.sliding_layers) == (1024, 62 - 10)
    assert (m.heads, m.kv_heads, m.head_dim, m.vocab, m.max_context) == (32, 16, 128, 262208, 131072)
    assert "vision tower" in m.parts


def test_gemma_3_sliding_layers_from_an_explicit_pattern_or_layer_types(tmp_path):
    m = derived(tmp_path, "gemma-3-1b-pt", GEMMA_3_1B)
    assert (m.sliding_window, m.sliding_layers, m.attention) == (512, 26 - 4, "mqa")  # global: 6, 12, 18, 24
    pattern_2 = {**GEMMA_3_1B, "sliding_window_pattern": 2}
    assert derived(tmp_path, "pattern-2", pattern_2).sliding_layers == 13
    types = ["sliding_attention"] * 20 + ["full_attention"] * 6  # layer_types wins over the pattern
    assert derived(tmp_path, "typed", {**GEMMA_3_1B, "layer_types": types}).sliding_layers == 20


def test_deepseek_v3_mla_latent_width(tmp_path):
    m = derived(tmp_path, "DeepSeek-V3", DEEPSEEK_V3)
    assert m.kv_latent_dim == 512 + 64 == 576  # kv_lora_rank + qk_rope_head_dim
    assert (m.attention, m.head_dim, m.kv_heads) == ("mla", 128, 128)


# --- errors name the file and the field -------------------------------------------------------------------


def test_missing_field_names_file_and_field(tmp_path):
    data = {k: v for k, v in LLAMA_3_8B.items() if k != "hidden_size"}
    path = write_config(tmp_path / "m", data)
    with pytest.raises(ModelFileError, match=r"config\.json: hidden_size: required field is missing") as info:
        read_config(path)
    assert str(path) in str(info.value)


def test_missing_nested_field_names_the_nesting(tmp_path):
    text = {k: v for k, v in GEMMA_3_27B["text_config"].items() if k != "num_hidden_layers"}
    path = write_config(tmp_path / "g", {**GEMMA_3_27B, "text_config": text})
    with pytest.raises(ModelFileError, match=r"text_config\.num_hidden_layers: required field is missing"):
        read_config(path)


def test_unknown_architecture_is_named(tmp_path):
    path = write_config(tmp_path / "m", {**LLAMA_3_8B, "architectures": ["FalconForCausalLM"]})
    with pytest.raises(ModelFileError, match=r"architectures: unknown architecture 'FalconForCausalLM'"):
        read_config(path)


def test_malformed_json_gives_the_position(tmp_path):
    path = tmp_path / "config.json"
    path.write_text('{"architectures": ["LlamaForCausalLM"],\n "hidden_size": }', encoding="utf-8")
    with pytest.raises(ModelFileError, match=r"config\.json:2:\d+: not valid JSON"):
        read_config(path)


def test_row_columns_match_the_catalog_schema():
    assert ROW_COLUMNS == tuple(f.name for f in MODEL.fields)


# --- GGUF: exact bytes from the header ----------------------------------------------------------------------

VOCAB = [f"t{i}" for i in range(32)]


def write_gguf(path: Path, experts: int = 0) -> Path:
    """A tiny llama GGUF: F16 embeddings 32x64, a Q8_0 64x64 projection, an F32 norm of 64 (+ F32 experts)."""
    writer = gguf.GGUFWriter(path, "llama")
    writer.add_name("Tiny Llama")
    writer.add_file_type(gguf.LlamaFileType.MOSTLY_Q8_0)
    writer.add_block_count(1)
    writer.add_embedding_length(64)
    writer.add_head_count(4)
    writer.add_head_count_kv(2)
    writer.add_context_length(2048)
    writer.add_token_list(VOCAB)
    if experts:
        writer.add_expert_count(experts)
        writer.add_expert_used_count(1)
    rng = np.random.default_rng(0)
    writer.add_tensor("token_embd.weight", rng.standard_normal((32, 64)).astype(np.float16))
    q8 = gguf.quants.quantize(rng.standard_normal((64, 64)).astype(np.float32), gguf.GGMLQuantizationType.Q8_0)
    writer.add_tensor("blk.0.attn_q.weight", q8, raw_dtype=gguf.GGMLQuantizationType.Q8_0)
    writer.add_tensor("blk.0.attn_norm.weight", np.ones(64, dtype=np.float32))
    if experts:
        writer.add_tensor("blk.0.ffn_up_exps.weight", np.zeros((experts, 8, 64), dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


# F16: 2 bytes per weight; Q8_0: 34 bytes (fp16 scale + 32 int8) per 32 weights; F32: 4 bytes per weight
TINY_PARAMS = 32 * 64 + 64 * 64 + 64
TINY_BYTES = 32 * 64 * 2 + (64 * 64 // 32) * 34 + 64 * 4


@needs_gguf
def test_gguf_exact_bytes_and_bits_per_weight(tmp_path):
    m = read_gguf(write_gguf(tmp_path / "tiny-Q8_0.gguf"))
    assert (m.params, m.weight_bytes) == (TINY_PARAMS, TINY_BYTES) == (6208, 8704)
    assert m.bits_per_weight == pytest.approx(8 * 8704 / 6208, rel=1e-12)
    assert (m.layers, m.hidden, m.heads, m.kv_heads, m.head_dim, m.vocab, m.max_context) == (1, 64, 4, 2, 16, 32, 2048)
    assert m.name == "tiny-Q8_0"
    source = m.source()
    assert source.startswith("derived from tiny-Q8_0.gguf by kalkulator model add")
    assert "general.name Tiny Llama" in source and "file type Q8_0" in source and "8704 bytes" in source


@needs_gguf
def test_gguf_moe_active_excludes_unselected_experts(tmp_path):
    m = read_gguf(write_gguf(tmp_path / "moe.gguf", experts=4))
    expert_weights = 4 * 8 * 64  # F32, 4 bytes each
    assert m.params == TINY_PARAMS + expert_weights
    assert m.weight_bytes == TINY_BYTES + expert_weights * 4
    assert m.active_params == m.params - expert_weights // 4 * (4 - 1)  # 1 of 4 experts used
    # the row keeps the experts: 4 routed experts, 1 used, all expert tensors' parameters
    assert (m.experts, m.active_experts, m.expert_params) == (4, 1, expert_weights)
    row = m.row("2026-12-03")
    assert (row["experts"], row["active_experts"]) == ("4", "1") and row["moe_source"]


def write_hybrid_gguf(path: Path, arch: str, kv: int | list[int], ff: list[int] | None = None) -> Path:
    """A tiny hybrid GGUF: the tiny model's tensors with llama.cpp's SSM keys (Qwen3-Next's or Nemotron-H's sizes)."""
    writer = gguf.GGUFWriter(path, arch)
    layers = 8 if isinstance(kv, int) else len(kv)
    writer.add_block_count(layers)
    writer.add_embedding_length(64)
    writer.add_head_count(4)
    writer.add_head_count_kv(kv)
    writer.add_context_length(2048)
    writer.add_token_list(VOCAB)
    if isinstance(kv, int):  # qwen3next: 16 key heads x 128, 32 value heads x 128, conv kernel 4
        writer.add_uint32(f"{arch}.full_attention_interval", 4)
        sizes = {"conv_kernel": 4, "state_size": 128, "group_count": 16, "time_step_rank": 32, "inner_size": 4096}
    else:  # nemotron_h: 128 heads x 80, state 128, 8 groups, conv kernel 4
        writer.add_feed_forward_length(ff)
        sizes = {"conv_kernel": 4, "state_size": 128, "group_count": 8, "time_step_rank": 128, "inner_size": 10240}
    for key, value in sizes.items():
        writer.add_uint32(f"{arch}.ssm.{key}", value)
    writer.add_tensor("token_embd.weight", np.zeros((32, 64), dtype=np.float16))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


@needs_gguf
def test_gguf_gated_deltanet_layer_kinds_and_state(tmp_path):
    m = read_gguf(write_hybrid_gguf(tmp_path / "next.gguf", "qwen3next", 2))
    # full_attention_interval 4 over 8 blocks: layers 3 and 7 attend, 6 are Gated DeltaNet
    assert (m.layers, m.linear_layers, m.ffn_layers) == (8, 6, 0)
    # the same state as Qwen3-Next's config: 32 x 128 x 128 recurrent + 3 x (2 x 16 x 128 + 32 x 128) conv, 2 bytes
    assert m.state_bytes == (32 * 128 * 128 + 3 * (2 * 16 * 128 + 32 * 128)) * 2 == 1_097_728
    row = m.row("2026-12-03")
    assert (row["linear_layers"], row["state_bytes"]) == ("6", "1097728")


@needs_gguf
def test_gguf_nemotron_h_blocks_from_the_per_layer_arrays(tmp_path):
    # "M-*-": Mamba-2 (no KV heads, no feed-forward), MLP, attention, MLP
    path = write_hybrid_gguf(tmp_path / "nh.gguf", "nemotron_h", [0, 0, 2, 0], [0, 15680, 0, 15680])
    m = read_gguf(path)
    assert (m.layers, m.linear_layers, m.ffn_layers) == (4, 1, 2)
    # Nemotron Nano 2's config: 128 x 80 x 128 SSM + 3 x (10240 + 2 x 8 x 128) conv, 2 bytes
    assert m.state_bytes == (128 * 80 * 128 + 3 * (128 * 80 + 2 * 8 * 128)) * 2 == 2_695_168


@needs_gguf
@pytest.mark.parametrize("cut", ["half", "header", "garbage", "huge-counts", "empty"])
def test_malformed_gguf_is_a_clear_error(tmp_path, cut):
    path = write_gguf(tmp_path / "bad.gguf")
    data = path.read_bytes()
    broken = {
        "half": data[: len(data) // 2],
        "header": data[:20],
        "garbage": bytes(range(256)) * 4,
        "huge-counts": data[:8] + (2**40).to_bytes(8, "little") * 2 + data[24:],
        "empty": b"",
    }[cut]
    path.write_bytes(broken)
    with pytest.raises(ModelFileError, match=r"bad\.gguf: (truncated|not a GGUF)") as info:
        read_gguf(path)
    assert str(path) in str(info.value)


# --- model_settings() feeds the engine ------------------------------------------------------------------


def test_config_settings_give_weights_from_params_and_chosen_quant(tmp_path, catalog):
    settings = model_settings(write_config(tmp_path / "Meta-Llama-3-8B", LLAMA_3_8B), None, "My Llama 3 8B")
    out = compute({**settings, "quant_name": "F16", "kv_cache_type": "F16"}, catalog)
    params = 2 * 128256 * 4096 + 32 * (2 * 4096 * 4096 + 2 * 4096 * 1024 + 3 * 4096 * 14336 + 2 * 4096) + 4096
    assert out["model_name"] == "My Llama 3 8B"
    assert out["weights_gb"] == pytest.approx(params / 1e9 * 16 / 8, rel=1e-12)  # F16: 16 bits per weight
    assert out["kv_cache_bytes_per_token"] == 2 * 32 * 8 * 128 * 2  # K and V x layers x KV heads x dim x 2 bytes


@needs_gguf
def test_gguf_settings_give_the_file_size_as_weights(tmp_path, catalog):
    settings = model_settings(None, write_gguf(tmp_path / "tiny.gguf"), None)
    assert settings["weights_gb"] == 8704 / 1e9
    assert settings["weight_bits_per_param"] == pytest.approx(8 * 8704 / 6208, rel=1e-12)
    out = compute(settings, catalog)
    # params x bits / 8 = bytes
    assert out["weights_gb"] == pytest.approx(6208 / 1e9 * (8 * 8704 / 6208) / 8, rel=1e-12)
    assert out["model_params_b"] == pytest.approx(6208 / 1e9, rel=1e-12)


def test_model_settings_needs_exactly_one_file(tmp_path):
    with pytest.raises(ModelFileError, match="exactly one"):
        model_settings(None, None, None)


# --- `kalkulator model add` ---------------------------------------------------------------------------------


@pytest.fixture()
def catalog_dir(tmp_path) -> Path:
    target = tmp_path / "a"
    shutil.copytree(CATALOG_DIR, target)
    return target


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under folder (recursively) with its bytes."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def run_add(catalog_dir: Path, *args: str):
    return CliRunner().invoke(model, ["add", "--catalog", str(catalog_dir), *args])


def test_model_add_appends_one_valid_row(tmp_path, catalog_dir):
    csv_path = catalog_dir / "models.csv"
    before = csv_path.read_bytes()
    config = write_config(tmp_path / "DeepSeek-V3", DEEPSEEK_V3)
    result = run_add(catalog_dir, "--from-config", str(config), "--name", "DeepSeek-V3-imported")
    assert result.exit_code == 0, result.stderr
    after = csv_path.read_bytes()
    assert after.startswith(before)
    new_lines = after[len(before) :].decode("utf-8").splitlines()
    assert len(new_lines) == 1
    table = load_table(MODEL, catalog_dir)
    assert len(table.rows) == len(load_table(MODEL, CATALOG_DIR).rows) + 1
    row = table.find("DeepSeek-V3-imported")
    assert row["source"] == "derived from config.json by kalkulator model add"
    assert row["as_of"] == dt.date.today().isoformat()
    assert (row["attention"], row["kv_latent_dim"], row["layers"]) == ("mla", 576, 61)
    assert row["params_b"] == pytest.approx(671, rel=0.005)
    assert "parameters" in result.stdout and "appended DeepSeek-V3-imported" in result.stdout
    assert snapshot(catalog_dir).keys() == snapshot(CATALOG_DIR).keys()  # no temporary file left behind


@needs_gguf
def test_model_add_from_gguf_records_bytes_and_bpw(tmp_path, catalog_dir):
    # 1,000,000 F32 weights (so params_b rounds to 0.001) and 4 bytes each
    path = tmp_path / "million.gguf"
    writer = gguf.GGUFWriter(path, "llama")
    for add, value in ((writer.add_block_count, 1), (writer.add_embedding_length, 1000)):
        add(value)
    writer.add_head_count(8)
    writer.add_context_length(4096)
    writer.add_token_list(VOCAB)
    writer.add_tensor("blk.0.ffn_up.weight", np.zeros((1000, 1000), dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    result = run_add(catalog_dir, "--from-gguf", str(path))
    assert result.exit_code == 0, result.stderr
    row = load_table(MODEL, catalog_dir).find("million")
    assert row["params_b"] == 0.001
    assert "4000000 bytes = 32.0000 bits per weight" in row["source"]


def test_model_add_refuses_a_duplicate_name_case_insensitively(tmp_path, catalog_dir):
    csv_path = catalog_dir / "models.csv"
    before = csv_path.read_bytes()
    config = write_config(tmp_path / "Meta-Llama-3-8B", LLAMA_3_8B)
    result = run_add(catalog_dir, "--from-config", str(config), "--name", "llama-3-8b")  # shipped: Llama-3-8B
    assert result.exit_code == 2
    assert result.stderr.startswith("error: ") and "'Llama-3-8B' already exists" in result.stderr
    assert csv_path.read_bytes() == before
    assert run_add(catalog_dir, "--from-config", str(config)).exit_code == 0
    again = run_add(catalog_dir, "--from-config", str(config))
    assert again.exit_code == 2 and "'Meta-Llama-3-8B' already exists" in again.stderr


def test_model_add_dry_run_writes_nothing(tmp_path, catalog_dir):
    before = (catalog_dir / "models.csv").read_bytes()
    config = write_config(tmp_path / "Qwen3-30B-A3B", QWEN3_30B_A3B)
    result = run_add(catalog_dir, "--from-config", str(config), "--name", "Qwen3-MoE-30B", "--dry-run")
    assert result.exit_code == 0, result.stderr
    assert "row: Qwen3-MoE-30B,Qwen3-MoE,30.532,3.353," in result.stdout
    assert (catalog_dir / "models.csv").read_bytes() == before


def _bad_inputs(tmp_path: Path) -> dict[str, tuple[list[str], str]]:
    missing = write_config(tmp_path / "missing", {k: v for k, v in MIXTRAL_8X7B.items() if k != "num_local_experts"})
    unknown = write_config(tmp_path / "unknown", {**LLAMA_3_8B, "architectures": ["MambaForCausalLM"]})
    malformed = tmp_path / "malformed" / "config.json"
    malformed.parent.mkdir()
    malformed.write_text('{"architectures": ["LlamaForCausalLM"', encoding="utf-8")
    truncated = tmp_path / "cut.gguf"
    if gguf is not None:
        write_gguf(truncated)
        truncated.write_bytes(truncated.read_bytes()[:-100])
    return {
        "missing field": (["--from-config", str(missing)], "num_local_experts: required field is missing"),
        "unknown architecture": (["--from-config", str(unknown)], "unknown architecture 'MambaForCausalLM'"),
        "malformed JSON": (["--from-config", str(malformed)], "not valid JSON"),
        "truncated GGUF": (["--from-gguf", str(truncated)], "cut.gguf: truncated"),
        "two files": (["--from-config", str(missing), "--from-gguf", str(truncated)], "exactly one model file"),
        "bad name": (["--from-config", str(unknown), "--name", "=evil"], "must not start with"),
    }


@pytest.mark.parametrize(
    "case",
    [
        "missing field",
        "unknown architecture",
        "malformed JSON",
        pytest.param("truncated GGUF", marks=needs_gguf),
        "two files",
        "bad name",
    ],
)
def test_model_add_errors_leave_the_catalog_byte_identical(tmp_path, catalog_dir, case):
    args, message = _bad_inputs(tmp_path)[case]
    if case == "bad name":  # needs a readable file so the name is the only problem
        args = ["--from-config", str(write_config(tmp_path / "ok", LLAMA_3_8B)), "--name", "=evil"]
    before = snapshot(catalog_dir)
    result = run_add(catalog_dir, *args)
    assert result.exit_code == 2
    assert result.stderr.startswith("error: ") and message in result.stderr
    assert snapshot(catalog_dir) == before


# --- MoE fields and layer kinds survive `model add` (issue 40) -------------------------------------------------

# https://huggingface.co/Qwen/Qwen3-Coder-30B-A3B-Instruct/blob/main/config.json: Qwen3-MoE key names
QWEN3_CODER_30B_A3B = QWEN3_30B_A3B | {"max_position_embeddings": 262144, "_name_or_path": "Qwen3-Coder-30B-A3B"}

# https://huggingface.co/Qwen/Qwen3-Next-80B-A3B-Instruct/blob/main/config.json
QWEN3_NEXT_80B_A3B = {
    "architectures": ["Qwen3NextForCausalLM"],
    "attention_bias": False,
    "decoder_sparse_step": 1,
    "full_attention_interval": 4,
    "head_dim": 256,
    "hidden_size": 2048,
    "intermediate_size": 5120,
    "linear_conv_kernel_dim": 4,
    "linear_key_head_dim": 128,
    "linear_num_key_heads": 16,
    "linear_num_value_heads": 32,
    "linear_value_head_dim": 128,
    "max_position_embeddings": 262144,
    "mlp_only_layers": [],
    "model_type": "qwen3_next",
    "moe_intermediate_size": 512,
    "norm_topk_prob": True,
    "num_attention_heads": 16,
    "num_experts": 512,
    "num_experts_per_tok": 10,
    "num_hidden_layers": 48,
    "num_key_value_heads": 2,
    "shared_expert_intermediate_size": 512,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "vocab_size": 151936,
}

# https://huggingface.co/nvidia/NVIDIA-Nemotron-Nano-9B-v2/blob/main/config.json
NEMOTRON_NANO_9B_V2 = {
    "architectures": ["NemotronHForCausalLM"],
    "attention_bias": False,
    "conv_kernel": 4,
    "head_dim": 128,
    "hidden_size": 4480,
    "hybrid_override_pattern": "M-M-M-MM-M-M-M*-M-M-M*-M-M-M-M*-M-M-M-M*-M-MM-M-M-M-M-M-",
    "intermediate_size": 15680,
    "mamba_head_dim": 80,
    "mamba_num_heads": 128,
    "max_position_embeddings": 131072,
    "mlp_bias": False,
    "model_type": "nemotron_h",
    "n_groups": 8,
    "num_attention_heads": 40,
    "num_hidden_layers": 56,
    "num_key_value_heads": 8,
    "ssm_state_size": 128,
    "tie_word_embeddings": False,
    "use_bias": False,
    "use_conv_bias": True,
    "vocab_size": 131072,
}

# https://huggingface.co/Qwen/Qwen3.5-35B-A3B/blob/main/config.json (revision 59d61f3c): Qwen3-Next's layers under
# text_config of a multimodal config (the vision tower is not counted; its keys are not read)
QWEN3_5_35B_A3B = {
    "architectures": ["Qwen3_5MoeForConditionalGeneration"],
    "model_type": "qwen3_5_moe",
    "text_config": {
        "attention_bias": False,
        "full_attention_interval": 4,
        "head_dim": 256,
        "hidden_size": 2048,
        "layer_types": ["linear_attention", "linear_attention", "linear_attention", "full_attention"] * 10,
        "linear_conv_kernel_dim": 4,
        "linear_key_head_dim": 128,
        "linear_num_key_heads": 16,
        "linear_num_value_heads": 32,
        "linear_value_head_dim": 128,
        "max_position_embeddings": 262144,
        "model_type": "qwen3_5_moe_text",
        "moe_intermediate_size": 512,
        "mtp_num_hidden_layers": 1,
        "num_attention_heads": 16,
        "num_experts": 256,
        "num_experts_per_tok": 8,
        "num_hidden_layers": 40,
        "num_key_value_heads": 2,
        "shared_expert_intermediate_size": 512,
        "tie_word_embeddings": False,
        "vocab_size": 248320,
    },
    "tie_word_embeddings": False,
    "vision_config": {"depth": 27, "hidden_size": 1152, "model_type": "qwen3_5_moe"},
}

# https://huggingface.co/meta-llama/Llama-4-Scout-17B-16E/blob/main/config.json: the text model under text_config
LLAMA_4_SCOUT = {
    "architectures": ["Llama4ForConditionalGeneration"],
    "model_type": "llama4",
    "text_config": {
        "attention_bias": False,
        "attention_chunk_size": 8192,
        "head_dim": 128,
        "hidden_size": 5120,
        "interleave_moe_layer_step": 1,
        "intermediate_size": 8192,
        "intermediate_size_mlp": 16384,
        "max_position_embeddings": 10485760,
        "model_type": "llama4_text",
        "no_rope_layers": [1, 1, 1, 0] * 12,
        "num_attention_heads": 40,
        "num_experts_per_tok": 1,
        "num_hidden_layers": 48,
        "num_key_value_heads": 8,
        "num_local_experts": 16,
        "tie_word_embeddings": False,
        "use_qk_norm": True,
        "vocab_size": 202048,
    },
    "vision_config": {"hidden_size": 1408, "model_type": "llama4_vision_model", "num_hidden_layers": 34},
}

# https://huggingface.co/meta-llama/Llama-4-Maverick-17B-128E/blob/main/config.json: 128 experts on every second layer
LLAMA_4_MAVERICK = LLAMA_4_SCOUT | {
    "text_config": LLAMA_4_SCOUT["text_config"]
    | {"interleave_moe_layer_step": 2, "max_position_embeddings": 1048576, "num_local_experts": 128},
}

# https://huggingface.co/deepseek-ai/DeepSeek-V3.2-Exp/blob/main/config.json: DeepSeek-V3 plus the indexer keys
DEEPSEEK_V3_2 = DEEPSEEK_V3 | {
    "architectures": ["DeepseekV32ForCausalLM"],
    "index_topk": 2048,
    "index_n_heads": 64,
    "index_head_dim": 128,
}


@pytest.mark.parametrize(
    ("config", "experts", "active", "routed_params"),
    [
        # Qwen3-MoE names: num_experts, num_experts_per_tok, moe_intermediate_size; 48 MoE layers of 128 experts
        (QWEN3_CODER_30B_A3B, 128, 8, 48 * 128 * 3 * 2048 * 768),
        # DeepSeek-V3: n_routed_experts 256, 8 per token, layers 3..60 MoE (first_k_dense_replace 3)
        (DEEPSEEK_V3, 256, 8, 58 * 256 * 3 * 7168 * 2048),
        # Mixtral: num_local_experts 8, 2 per token, every one of 32 layers
        (MIXTRAL_8X7B, 8, 2, 32 * 8 * 3 * 4096 * 14336),
        # gpt-oss-20b: 32 experts, 4 per token; gate_up (2880 → 2 × 2880) and down with biases, 24 layers
        (GPT_OSS_20B, 32, 4, 24 * 32 * ((2880 * 5760 + 5760) + (2880 * 2880 + 2880))),
        # Qwen3-Next: 512 experts, 10 per token, all 48 layers, 2048 → 512
        (QWEN3_NEXT_80B_A3B, 512, 10, 48 * 512 * 3 * 2048 * 512),
        # Qwen3.5 (nested text_config): 256 experts, 8 per token, all 40 layers, 2048 → 512
        (QWEN3_5_35B_A3B, 256, 8, 40 * 256 * 3 * 2048 * 512),
        # Llama 4 Scout: 16 experts, 1 per token (+ a shared expert), all 48 layers, 5120 → 8192
        (LLAMA_4_SCOUT, 16, 1, 48 * 16 * 3 * 5120 * 8192),
        # Llama 4 Maverick: 128 experts on every second layer (interleave_moe_layer_step 2)
        (LLAMA_4_MAVERICK, 128, 1, 24 * 128 * 3 * 5120 * 8192),
    ],
)
def test_imported_row_keeps_the_experts(tmp_path, catalog_dir, config, experts, active, routed_params):
    path = write_config(tmp_path / "m", config)
    result = run_add(catalog_dir, "--from-config", str(path), "--name", "imported")
    assert result.exit_code == 0, result.stderr
    row = load_table(MODEL, catalog_dir).find("imported")
    assert (row["experts"], row["active_experts"]) == (experts, active)
    assert row["expert_params_b"] == pytest.approx(routed_params / 1e9, abs=0.0005)
    assert row["moe_source"]


def test_qwen3_next_layer_kinds_and_state_from_the_config(tmp_path):
    m = derived(tmp_path, "Qwen3-Next-80B-A3B", QWEN3_NEXT_80B_A3B)
    # full_attention_interval 4: 12 of 48 layers attend, 36 are Gated DeltaNet
    assert (m.layers - m.linear_layers - m.ffn_layers, m.linear_layers) == (12, 36)
    # state per sequence and layer: 32 value heads × 128 × 128 recurrent values + (4 − 1) × (2 × 16 × 128 + 32 × 128)
    # convolution values, bf16
    assert m.state_bytes == (32 * 128 * 128 + 3 * (2 * 16 * 128 + 32 * 128)) * 2
    # Published safetensors total 79,674,391,296 (https://huggingface.co/Qwen/Qwen3-Next-80B-A3B-Instruct, "80B")
    assert m.params == 79_674_391_296
    # active: minus 502 unused experts of 3 × 2048 × 512 on 48 layers ("3B activated" on the model card)
    assert m.active_params == 79_674_391_296 - 48 * 502 * 3 * 2048 * 512


def test_qwen3_5_layer_kinds_state_and_parameters_by_hand(tmp_path):
    m = derived(tmp_path, "Qwen3.5-35B-A3B", QWEN3_5_35B_A3B)
    # layer_types: three linear_attention then one full_attention, ten times
    assert (m.layers - m.linear_layers - m.ffn_layers, m.linear_layers) == (10, 30)
    assert m.state_bytes == (32 * 128 * 128 + 3 * (2 * 16 * 128 + 32 * 128)) * 2
    # q and its output gate, k, v, o, q/k norms
    attention = 2048 * 16 * 256 * 2 + 2 * 2048 * 2 * 256 + 16 * 256 * 2048 + 2 * 256
    conv = 2 * 16 * 128 + 32 * 128
    delta = 2048 * (conv + 32 * 128) + 2048 * 2 * 32 + conv * 4 + 2 * 32 + 128 + 32 * 128 * 2048
    expert = 3 * 2048 * 512
    moe = 256 * expert + (expert + 2048) + 256 * 2048  # routed, shared with its gate, router
    total = 2 * 248320 * 2048 + 10 * attention + 30 * delta + 40 * moe + (2 * 40 + 1) * 2048
    assert m.params == total
    # the text model's tensor count published beside the config (34,660,610,688); "A3B" on the model card
    assert total == 34_660_610_688
    assert m.active_params == total - 40 * 248 * expert
    assert m.active_params / 1e9 == pytest.approx(3.45, abs=0.01)
    assert any("vision tower" in note for note in m.notes) and any("multi-token" in note for note in m.notes)


def test_llama_4_experts_chunked_layers_and_parameters_by_hand(tmp_path):
    expert = 3 * 5120 * 8192
    attention = 5120 * 40 * 128 + 2 * 5120 * 8 * 128 + 40 * 128 * 5120  # q, k, v, o (L2 qk norm: no weights)
    base = 2 * 202048 * 5120 + 48 * attention + (2 * 48 + 1) * 5120  # untied embeddings, attention, norms
    scout = derived(tmp_path, "Llama-4-Scout", LLAMA_4_SCOUT)
    # every layer MoE: 16 routed experts + 1 shared + a router of 16 x 5120
    assert scout.params == base + 48 * (17 * expert + 16 * 5120)
    assert scout.active_params == scout.params - 48 * 15 * expert
    # model card: 17B active; 109B total including the vision encoder, which is not counted here
    assert scout.active_params / 1e9 == pytest.approx(17.17, abs=0.01)
    assert scout.params / 1e9 == pytest.approx(107.77, abs=0.01)
    # chunked attention (8192 tokens) on the RoPE layers, three of every four: 36 of 48
    assert (scout.sliding_window, scout.sliding_layers, scout.experts, scout.active_experts) == (8192, 36, 16, 1)
    maverick = derived(tmp_path, "Llama-4-Maverick", LLAMA_4_MAVERICK)
    # 24 MoE layers (128 routed + 1 shared + router) and 24 dense layers of intermediate_size_mlp 16384
    total = base + 24 * (129 * expert + 128 * 5120) + 24 * 3 * 5120 * 16384
    assert maverick.params == total and total / 1e9 == pytest.approx(400.7, abs=0.1)  # model card: 400B
    assert maverick.active_params == total - 24 * 127 * expert


def test_nemotron_h_layer_kinds_state_and_parameters(tmp_path):
    m = derived(tmp_path, "Nemotron-Nano-9B-v2", NEMOTRON_NANO_9B_V2)
    # the pattern's 4 '*' attention, 27 'M' Mamba-2 and 25 '-' MLP blocks (Jetson AI Lab model page: 27/25/4)
    assert (m.layers - m.linear_layers - m.ffn_layers, m.linear_layers, m.ffn_layers) == (4, 27, 25)
    inner, conv = 128 * 80, 128 * 80 + 2 * 8 * 128
    assert m.state_bytes == (128 * 80 * 128 + 3 * conv) * 2
    attention = 4480 * 5120 + 2 * 4480 * 1024 + 5120 * 4480
    mamba = 4480 * (inner + conv + 128) + conv * 4 + conv + 3 * 128 + inner + inner * 4480
    mlp = 2 * 4480 * 15680
    total = 2 * 131072 * 4480 + 4 * attention + 27 * mamba + 25 * mlp + 57 * 4480
    assert m.params == total
    assert total / 1e9 == pytest.approx(8.89, abs=0.005)  # the Hub's "8.89B params"


def test_deepseek_v3_2_reads_the_sparse_attention_budget(tmp_path):
    m = derived(tmp_path, "DeepSeek-V3.2", DEEPSEEK_V3_2)
    assert (m.sparse_tokens, m.kv_latent_dim, m.experts, m.active_experts) == (2048, 576, 256, 8)
    indexer = 61 * (1536 * 64 * 128 + 7168 * 128 + 2 * 128 + 7168 * 64)
    assert m.params == derived(tmp_path, "DeepSeek-V3", DEEPSEEK_V3).params + indexer


@pytest.mark.parametrize(
    ("config", "shipped"),
    [
        (QWEN3_NEXT_80B_A3B, "Qwen3-Next-80B-A3B"),
        (NEMOTRON_NANO_9B_V2, "Nemotron-Nano-9B-v2"),
        (QWEN3_5_35B_A3B, "Qwen3.5-35B-A3B"),
    ],
)
def test_imported_hybrid_computes_like_the_shipped_row(tmp_path, catalog_dir, catalog, config, shipped):
    path = write_config(tmp_path / "m", config)
    assert run_add(catalog_dir, "--from-config", str(path), "--name", "imported").exit_code == 0
    imported = load_table(MODEL, catalog_dir).find("imported")
    row = load_table(MODEL, CATALOG_DIR).find(shipped)
    for column in ("layers", "linear_layers", "ffn_layers", "state_bytes", "sparse_tokens", "experts"):
        assert imported[column] == row[column], column
    base = dict(context_tokens=32768, gpu_name="H100 SXM 80GB", n_gpus=2, concurrent_users=8)
    mine = compute(base | model_settings(path, None, "imported"), catalog)
    theirs = compute(base | {"model_name": shipped}, catalog)
    for name in ("kv_cache_gb_per_user", "kv_read_gb_per_user", "max_concurrent_users"):
        assert mine[name] == pytest.approx(theirs[name], rel=1e-9), name
    assert mine["decode_tok_s"] == pytest.approx(theirs["decode_tok_s"], rel=1e-3)  # params rounded to 3 decimals


# https://huggingface.co/ai21labs/Jamba-v0.1/blob/main/config.json
JAMBA_V0_1 = {
    "architectures": ["JambaForCausalLM"],
    "attn_layer_offset": 4,
    "attn_layer_period": 8,
    "expert_layer_offset": 1,
    "expert_layer_period": 2,
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "mamba_conv_bias": True,
    "mamba_d_conv": 4,
    "mamba_d_state": 16,
    "mamba_dt_rank": 256,
    "mamba_expand": 2,
    "mamba_proj_bias": False,
    "max_position_embeddings": 262144,
    "num_attention_heads": 32,
    "num_experts": 16,
    "num_experts_per_tok": 2,
    "num_hidden_layers": 32,
    "num_key_value_heads": 8,
    "tie_word_embeddings": False,
    "vocab_size": 65536,
}


def test_jamba_layer_kinds_experts_and_published_counts(tmp_path):
    m = derived(tmp_path, "Jamba-v0.1", JAMBA_V0_1)
    # attention at layers 4, 12, 20, 28 (period 8, offset 4); the other 28 are Mamba
    assert (m.layers - m.linear_layers, m.linear_layers, m.ffn_layers) == (4, 28, 0)
    # Mamba state: d_inner (2 × 4096) × d_state 16, + (d_conv 4 − 1) × d_inner convolution values, bf16
    assert m.state_bytes == (8192 * 16 + 3 * 8192) * 2
    # MoE on every other layer (16 layers), 16 experts, top-2
    assert (m.experts, m.active_experts, m.expert_params) == (16, 2, 16 * 16 * 3 * 4096 * 14336)
    # "52B total / 12B active" (AI21's Jamba model card and paper, arXiv 2403.19887)
    assert m.params / 1e9 == pytest.approx(52, rel=0.01)
    assert m.active_params / 1e9 == pytest.approx(12, rel=0.015)


def test_imported_llama_4_keeps_the_shipped_rows_kv_and_experts(tmp_path, catalog_dir, catalog):
    path = write_config(tmp_path / "m", LLAMA_4_SCOUT)
    assert run_add(catalog_dir, "--from-config", str(path), "--name", "imported").exit_code == 0
    imported = load_table(MODEL, catalog_dir).find("imported")
    row = load_table(MODEL, CATALOG_DIR).find("Llama-4-Scout-17B-16E")
    for column in ("layers", "kv_heads", "head_dim", "sliding_window", "sliding_layers", "experts", "active_experts"):
        assert imported[column] == row[column], column
    assert imported["expert_params_b"] == pytest.approx(row["expert_params_b"], abs=0.005)
    # the KV cache follows the layer kinds alone (the shipped row's 109B total counts the vision encoder too)
    base = dict(context_tokens=32768, gpu_name="H100 SXM 80GB", n_gpus=4, concurrent_users=8)
    mine = compute(base | model_settings(path, None, "imported"), catalog)
    theirs = compute(base | {"model_name": "Llama-4-Scout-17B-16E"}, catalog)
    assert mine["kv_cache_gb_per_user"] == pytest.approx(theirs["kv_cache_gb_per_user"], rel=1e-9)
