"""Multi-GPU prefill in llama.cpp: layer split as a micro-batch pipeline (PR #6017), stages in turn before it, and
row split's per-matrix activation copies. Expected values are arithmetic written out here from the catalogs' inputs
(models.csv shapes, gpus.csv links, engines.csv and speed_params.csv engine figures)."""

from __future__ import annotations

import numpy as np
import pytest

from kalkulator.calibration import engine_rows
from kalkulator.calibration import fit as cal

# Llama-3.3-70B (models.csv): 80 layers, hidden 8192. RTX 4090 (gpus.csv): PCIe 4.0 x16 31.5 GB/s, 5 µs per hop,
# no P2P on GeForce: copies go through host memory at 31.5 ÷ 2 = 15.75 GB/s and 2 × 5 = 10 µs per hop.
# llama.cpp (engines.csv): 200 µs per layer-split boundary, FP32 activations (4 bytes), n_batch 2,048 tokens per
# llama_decode call; speed_params.csv: micro-batches (n_ubatch) of 512 tokens.
LAYER_70B = {
    "model_name": "Llama-3.3-70B",
    "gpu_name": "RTX 4090 24GB",
    "quant_name": "Q4_K_M",
    "engine": "llama.cpp",
    "split_mode": "layer",
    "n_gpus": 4,
    "concurrent_users": 1,
}
# One micro-batch's hand-over at one boundary: 200 µs + 10 µs + 512 tokens × 8192 × 4 B ÷ 15,750 B/µs.
HANDOVER_US = 200 + 10 + 512 * 8192 * 4 / 15.75e3


@pytest.mark.parametrize(
    ("prompt", "ubatches", "calls", "share", "handovers"),
    [
        # 512 tokens: one micro-batch, nothing to overlap: (1 + 1 × 3) ÷ (1 × 4) = 1, and its 3 boundaries.
        (512, 1, 1, 1.0, 3),
        # 4,096 tokens: 2 calls of 2,048 = 4 micro-batches each; per call 4 + 3 stage times of a quarter of a
        # micro-batch: (8 + 2 × 3) ÷ (8 × 4) = 14/32 of the stages in turn; hand-overs 8 + 2 × (4 − 2) = 12.
        (4096, 8, 2, 14 / 32, 12),
    ],
)
def test_layer_split_prefill_pipelines_micro_batches_within_each_call(calc, prompt, ubatches, calls, share, handovers):
    out = calc(prompt_tokens=prompt, **LAYER_70B)
    assert out["prefill_chunks_ratio"] == ubatches
    assert out["prefill_calls_ratio"] == calls
    assert out["prefill_pipeline_ratio"] == pytest.approx(share, rel=1e-12)
    assert out["prefill_handover_steps"] == handovers
    assert out["prefill_handover_us"] == pytest.approx(HANDOVER_US, rel=1e-9)
    assert HANDOVER_US == pytest.approx(1275.22, rel=1e-5)
    exchange_s = handovers * HANDOVER_US / 1e6
    assert out["prefill_exchange_s"] == pytest.approx(exchange_s, rel=1e-9)
    stages_in_turn = max(out["prefill_compute_s"], out["prefill_memory_s"])
    assert out["prefill_tok_s"] == pytest.approx(prompt / (stages_in_turn * share + exchange_s), rel=1e-9)


def test_the_pipeline_makes_a_long_prompt_faster_and_leaves_one_micro_batch_alone(calc):
    # Same setup with the stages in turn (builds before b2413): 512 tokens take the same time, 4,096 tokens
    # 8 × 3 = 24 hand-overs and all of the stages' time.
    for prompt in (512, 4096):
        piped = calc(prompt_tokens=prompt, **LAYER_70B)
        in_turn = calc(prompt_tokens=prompt, engine_pipeline_mode="none", **LAYER_70B)
        assert in_turn["prefill_pipeline_ratio"] == 1
        assert in_turn["prefill_handover_steps"] == (prompt // 512) * 3
        if prompt == 512:
            assert piped["prefill_tok_s"] == pytest.approx(in_turn["prefill_tok_s"], rel=1e-12)
        else:
            assert piped["prefill_tok_s"] > 2 * in_turn["prefill_tok_s"]


def test_a_pre_pipeline_build_keeps_its_stages_in_turn(catalog):
    # llama.cpp builds before b2413 (PR #6017, 2024-03-13) ran layer-split stages one after another: the
    # calibration rows say their build in the notes ("builds ~1619-1691", Dec 2023; "build 4426e298 (2824)",
    # May 2024), and each row's scenario takes the pipeline mode of its build.
    multi = cal.load_shipped(catalog, multi_gpu=True)
    settings = engine_rows.settings_of(multi, cal.CHUNK)
    mode = np.broadcast_to(np.asarray(settings["engine_pipeline_mode"], dtype=object), (len(multi),))
    dec_2023 = (multi["build"] < 2413).to_numpy()
    assert dec_2023.sum() == 208 and set(multi[dec_2023]["split"]) == {"row"}
    assert set(mode[dec_2023]) == {"none"}
    may_2024 = (multi["build"] >= 2824).to_numpy()
    assert set(mode[may_2024]) == {"ubatch"}
    # a 2-GPU layer-split prompt of 1,024 tokens (2 micro-batches) as a Dec-2023 build would run it
    row = multi[may_2024 & (multi["metric"] == "pp") & (multi["prompt_tokens"] == 1024)].iloc[[0]].copy()
    row["build"] = 1650.0
    one = engine_rows.settings_of(row, cal.CHUNK)
    assert one["engine_pipeline_mode"] == "none"  # a uniform setting is one scalar


# LLaMA-7B (models.csv): 6.74B parameters, 32 layers, hidden 4096, 32 heads and 32 KV heads of 128, vocab 32,000;
# FFN width from the parameter count: ((6.74e9 − 2 × 32,000 × 4096) ÷ 32 − 2 × 4096 × 64 × 128) ÷ (3 × 4096).
FFN_7B = ((6.74e9 - 2 * 32000 * 4096) / 32 - 2 * 4096 * 64 * 128) / (3 * 4096)
ROW_7B = {
    "model_name": "LLaMA-7B",
    "gpu_name": "RTX 4090 24GB",
    "quant_name": "Q4_0",
    "engine": "llama.cpp",
    "split_mode": "tensor",
    "n_gpus": 2,
    "prompt_tokens": 494,
    "concurrent_users": 1,
}


def test_the_ffn_width_follows_from_the_parameter_count(calc):
    out = calc(**ROW_7B)
    assert out["model_ffn_hidden"] == pytest.approx(FFN_7B, rel=1e-9)
    assert FFN_7B == pytest.approx(11008, rel=1e-3)  # LLaMA-7B's published intermediate size


def test_row_split_prefill_copies_every_matrix_input_and_output_slice(calc, catalog):
    # 2 GPUs: each of the 7 split matrices sends its whole FP32 input to the other GPU (Q, K, V, gate, up: hidden;
    # O: heads × head_dim; down: FFN width) and gets half of each FP32 output back (Q, O, down: 4096; K, V:
    # 32 × 128; gate, up: FFN width).
    per_token_layer = (5 * 4096 + 32 * 128 + FFN_7B) * 4 + (2 * 4096 + 96 * 128 + 2 * FFN_7B) / 2 * 4
    assert per_token_layer == pytest.approx(227_366, rel=1e-5)  # ≈ 227 kB per token and layer
    engine = catalog["engine"].find("llama.cpp")
    share, exchange_us = engine["exchange_bandwidth_frac"], engine["exchange_us"]
    out = calc(**ROW_7B)
    assert out["prefill_tensor_layer_bytes_per_token"] == pytest.approx(per_token_layer, rel=1e-9)
    assert out["tensor_copy_bandwidth_gbs"] == pytest.approx(15.75 * share, rel=1e-12)
    # 494 tokens in one 512-token chunk: 32 layers × (7 exchanges × (2 host-staged hops × 10 µs + the engine's
    # cost per exchange) + 494 tokens × the bytes ÷ the copies' bandwidth).
    expected = 32 * (7 * (2 * 10 + exchange_us) / 1e6 + 494 * per_token_layer / (15.75e9 * share))
    assert out["prefill_exchange_s"] == pytest.approx(expected, rel=1e-9)
    # the bytes dominate: 2 × RTX 4090 at 30 % of 15.75 GB/s spend about 0.79 s on copies for the prompt
    assert 494 * 32 * per_token_layer / (15.75e9 * share) > 10 * 32 * 7 * (20 + exchange_us) / 1e6


def test_vllm_tensor_parallel_prefill_keeps_two_allreduces_of_fp16_activations(calc):
    # vLLM (engines.csv): 2 all-reduces per layer of hidden × 2 bytes (BF16), the link's full rate.
    # 2× RTX 4090, Llama-3.3-70B, 2,048 tokens in one 8,192-token chunk: 80 × 2 × (20 µs + 2,048 × 2 × ½ × 8192 ×
    # 2 B ÷ 15,750 B/µs).
    out = calc(
        gpu_name="RTX 4090 24GB",
        n_gpus=2,
        prompt_tokens=2048,
        model_name="Llama-3.3-70B",
        quant_name="BF16",
        engine="vllm",
        split_mode="tensor",
    )
    assert out["prefill_tensor_layer_bytes_per_token"] == pytest.approx(2 * 8192 * 2, rel=1e-12)
    assert out["prefill_exchange_s"] == pytest.approx(80 * 2 * (20 + 2048 * 8192 * 2 / 15.75e3) / 1e6, rel=1e-9)
    assert out["prefill_pipeline_ratio"] == 1


def test_a_prompt_taken_whole_has_nothing_to_pipeline(calc):
    # prefill_chunk_tokens = 0: the whole 4,096-token prompt is one micro-batch, so one call and no overlap
    # (a call holds at least one micro-batch), and the 3 boundaries once.
    out = calc(prompt_tokens=4096, prefill_chunk_tokens=0, **LAYER_70B)
    assert (out["prefill_chunks_ratio"], out["prefill_calls_ratio"]) == (1, 1)
    assert out["prefill_pipeline_ratio"] == 1
    assert out["prefill_handover_steps"] == 3
