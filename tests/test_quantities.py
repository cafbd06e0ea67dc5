"""Quantity definitions: the names contract, units, and the memory/speed chain on real architectures."""

from __future__ import annotations

import re

import pytest

from kalkulator.quantities import QUANTITIES, UNITS, unit_key

CONTRACT_INPUTS = [
    "gpu_name",
    "model_name",
    "quant_name",
    "engine",
    "n_gpus",
    "gpu_mem_bandwidth_gbs",
    "gpu_vram_gb",
    "gpu_fp16_tflops",
    "gpu_tdp_w",
    "model_params_b",
    "model_active_params_b",
    "model_layers",
    "model_hidden",
    "model_heads",
    "model_kv_heads",
    "model_head_dim",
    "model_vocab",
    "weight_bits_per_param",
    "kv_cache_bits",
    "context_tokens",
    "prompt_tokens",
    "output_tokens",
    "concurrent_users",
    "gpu_backend",
]
CONTRACT_OUTPUTS = [
    "weights_gb",
    "kv_cache_gb_per_user",
    "vram_total_gb",
    "fits_in_vram",
    "max_concurrent_users",
    "decode_tok_s",
    "decode_tok_s_ideal",
    "tpot_ms",
    "prefill_tok_s",
    "ttft_s",
    "e2e_latency_s",
    "throughput_tok_s",
]
CELL_REF = re.compile(r"^([A-Za-z]{1,3}[0-9]+|[Rr][0-9]*[Cc][0-9]*)$")


def test_contract_names_exist(graph):
    missing = [n for n in CONTRACT_INPUTS + CONTRACT_OUTPUTS if n not in graph]
    assert missing == []


@pytest.mark.parametrize("q", QUANTITIES, ids=lambda q: q.name)
def test_name_is_snake_case_with_unit_suffix(q):
    assert re.fullmatch(r"[a-z][a-z0-9_]*[a-z]", q.name), "snake_case, never ending in a digit"
    assert not CELL_REF.match(q.name)
    assert q.unit is UNITS[unit_key(q.name)]
    assert q.doc and q.source and q.label_id and q.label_en


def test_units_follow_the_design_suffixes():
    assert UNITS["_gb"].label == "GB" and UNITS["_gib"].label == "GiB" and UNITS["_gbs"].label == "GB/s"
    assert unit_key("kv_cache_gb_per_user") == "_gb_per_user"
    assert unit_key("decode_tok_s") == "_tok_s"
    assert unit_key("gpu_mem_bandwidth_gbs") == "_gbs"


def test_catalog_memory_is_gib(calc):
    # A vendor's "24 GB" of GDDR is 24 GiB: 24 × 2^30 / 10^9 GB.
    out = calc(gpu_name="RTX 4090 24GB")
    assert out["gpu_vram_gb"] == pytest.approx(24 * 2**30 / 1e9, rel=1e-12)


def test_q4_k_m_weights_use_effective_bits(calc):
    # llama.cpp tools/quantize/README.md: Q4_K_M = 4.8944 bpw on Llama-3.1-8B (8.03 B params), not 4 or 4.5.
    out = calc(model_name="Llama-3.1-8B", quant_name="Q4_K_M")
    assert out["weight_bits_per_param"] == pytest.approx(4.89, abs=0.005)
    assert out["weights_gb"] == pytest.approx(8.03 * out["weight_bits_per_param"] / 8, rel=1e-12)


def test_kv_bytes_per_token_matches_h200_allocation(calc):
    # Measured on an H200 (the calibration H200 decode benchmark, models.llama3-8b.decode[0].kv_cache; tests/README.md):
    # Llama-3-8B bf16 at context 512, batch 1 allocated 67,108,864 bytes = 131,072 bytes per token.
    out = calc(model_name="Llama-3-8B", kv_cache_type="BF16", context_tokens=512)
    assert out["kv_cache_bytes_per_token"] == 2 * 32 * 8 * 128 * 2 == 131_072
    assert out["kv_cache_bytes_per_user"] == 67_108_864


def test_moe_holds_all_experts_but_reads_active(calc):
    # Mixtral-8x7B: 46.7 B held, 12.9 B active per token (Mistral AI model card).
    out = calc(model_name="Mixtral-8x7B", quant_name="F16", context_tokens=0)
    assert out["weights_gb"] == pytest.approx(46.7 * 2, rel=1e-12)
    assert out["weights_read_gb_per_token"] == pytest.approx(12.9 * 2, rel=1e-12)


def test_mla_caches_one_latent_per_layer(calc):
    # DeepSeek-V3: 61 layers, kv_lora_rank 512 + qk_rope_head_dim 64 = 576 values per layer and token.
    out = calc(model_name="DeepSeek-V3", kv_cache_type="BF16", context_tokens=1000)
    assert out["kv_cache_bytes_per_token"] == 61 * 576 * 2
    assert out["kv_cache_bytes_per_user"] == 61 * 576 * 2 * 1000


def test_sliding_window_layers_cap_their_tokens(calc):
    # Gemma-2-9B: 42 layers alternating local (window 4096) and global; 8 KV heads × 256.
    out = calc(model_name="Gemma-2-9B", kv_cache_type="F16", context_tokens=8192)
    per_layer_token = 2 * 8 * 256 * 2
    assert out["kv_cache_bytes_per_user"] == per_layer_token * (21 * 8192 + 21 * 4096)


def test_tensor_parallel_adds_bandwidth_layer_split_does_not(calc):
    base = {"gpu_name": "A100 SXM 80GB", "model_name": "Llama-3.1-70B", "quant_name": "F16", "n_gpus": 2}
    layer = calc(**base, split_mode="layer", concurrent_users=1)
    tensor = calc(**base, split_mode="tensor", concurrent_users=1)
    assert tensor["decode_tok_s_ideal"] == pytest.approx(2 * layer["decode_tok_s_ideal"], rel=1e-12)
    assert layer["vram_available_gb"] == pytest.approx(2 * 80 * 2**30 / 1e9, rel=1e-12)


def test_fit_and_gpus_needed(calc):
    # Llama-3.1-70B in F16 = 70.55 B × 2 bytes = 141.1 GB: more than one 80 GiB A100 holds.
    out = calc(gpu_name="A100 SXM 80GB", model_name="Llama-3.1-70B", quant_name="F16", context_tokens=4096)
    assert out["fits_in_vram"] is False
    per_gpu = 80 * 2**30 / 1e9 - 1  # minus 1 GB runtime overhead on each GPU
    assert out["required_gpus"] == -(-(out["weights_gb"] + out["kv_cache_gb"]) // per_gpu) == 2


def test_measured_speed_flows_to_latency(calc):
    out = calc(decode_tok_s=151, output_tokens=100, prompt_tokens=0, network_overhead_ms=0, concurrent_users=1)
    assert out["tpot_ms"] == pytest.approx(1000 / 151, rel=1e-12)
    assert out["e2e_latency_s"] == pytest.approx(100 / 151, rel=1e-12)
    # Throughput is the fixed-concurrency chain's, scaled by typed ÷ engine speed: at one user with no prompt that is
    # the typed speed, up to the 50-token mean KV cache read at the attention kernels' efficiency (well below 1 %).
    assert out["throughput_tok_s"] == pytest.approx(151, rel=0.005)


def test_prefill_from_flops(calc):
    # Prefill FLOPs = 2 × P × prompt + 2 × layers × prompt² × heads × head_dim (causal attention).
    out = calc(
        model_name="Llama-3-8B",
        prompt_tokens=2000,
        gpu_fp16_tflops=100,
        prefill_efficiency_frac=0.5,
        prefill_attention_efficiency_frac=0.5,  # attention at the same share as the weight multiplies
        prefill_layer_overhead_us=0,
        prefill_alu_work_ratio=0,  # no shader-ALU term (tests/test_speed_2025.py has it)
        gpu_mem_bandwidth_gbs=1000,
    )
    flops = 2 * 8.03e9 * 2000 + 2 * 32 * 2000**2 * 32 * 128
    assert out["prefill_tflop"] == pytest.approx(flops / 1e12, rel=1e-12)
    seconds = flops / (100e12 * 0.5)
    assert out["prefill_tok_s"] == pytest.approx(2000 / seconds, rel=1e-12)
    assert out["prefill_s"] == pytest.approx(seconds, rel=1e-12)  # an idle GPU; ttft_s adds the queue


def test_prefill_layer_cost_and_quantized_efficiency(calc):
    # Per-layer cost per prompt token adds prompt × layers × µs; quantized weights use their own efficiency.
    base = {"model_name": "Llama-3-8B", "prompt_tokens": 1000, "gpu_fp16_tflops": 100, "gpu_mem_bandwidth_gbs": 1000}
    with_cost = calc(**base, prefill_efficiency_frac=0.5, prefill_layer_overhead_us=3)
    without = calc(**base, prefill_efficiency_frac=0.5, prefill_layer_overhead_us=0)
    assert with_cost["prefill_compute_s"] - without["prefill_compute_s"] == pytest.approx(1000 * 32 * 3e-6, rel=1e-9)
    assert calc(quant_name="F16")["quant_kind_type"] == "float"
    assert calc(quant_name="Q4_K_M")["quant_kind_type"] == "gguf"
