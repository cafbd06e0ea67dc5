"""The book's worked examples for the memory and speed chain, recomputed by hand; errata where it is wrong.

Book: *Kalkulasi Token Generation*; L = line of its text (tests/README.md says where maintainers find it).
"""

from __future__ import annotations

import pytest

# A dense 8B model described by the book's own numbers, not by a catalog row.
BOOK_8B = {
    "model_params_b": 8,
    "model_active_params_b": 8,
    "model_layers": 32,
    "model_kv_heads": 8,
    "model_head_dim": 128,
    "model_heads": 32,
}
NO_CONTEXT = {"context_tokens": 0}


def test_ideal_decode_rtx_4090_q4(calc):
    # L913–918: 8B × 0.5 byte = 4 GB read per token; 1,008 GB/s ÷ 4 GB = 252 tok/s.
    out = calc(**BOOK_8B, **NO_CONTEXT, weight_bits_per_param=4, gpu_mem_bandwidth_gbs=1008)
    assert out["weights_gb"] == pytest.approx(8 * 0.5, rel=1e-12)
    assert out["decode_tok_s_ideal"] == pytest.approx(1008 / 4, rel=1e-12)


def test_realistic_decode_at_sixty_percent(calc):
    # L920–922: 252 tok/s × 60 % ≈ 151 tok/s (the book's efficiency, no fixed per-step cost).
    out = calc(
        **BOOK_8B,
        **NO_CONTEXT,
        weight_bits_per_param=4,
        gpu_mem_bandwidth_gbs=1008,
        decode_efficiency_frac=0.6,
        decode_layer_overhead_ms=0,
        decode_attention_ns=0,
    )
    assert out["decode_tok_s"] == pytest.approx(1008 / 4 * 0.6, rel=1e-9)
    assert out["tpot_ms"] == pytest.approx(1000 / (1008 / 4 * 0.6), rel=1e-9)


def test_fp16_8b_on_ddr5_as_the_book_states(calc):
    # L966: 51.2 GB/s ÷ (8B × 2 bytes) = 3.2 tok/s.
    out = calc(**BOOK_8B, **NO_CONTEXT, weight_bits_per_param=16, gpu_mem_bandwidth_gbs=51.2)
    assert out["decode_tok_s_ideal"] == pytest.approx(51.2 / 16, rel=1e-12)


def test_fp16_8b_on_dual_channel_ddr5_6400_erratum(calc):
    # Erratum: dual-channel DDR5-6400 = 2 channels × 8 bytes × 6400 MT/s = 102.4 GB/s → 6.4 tok/s.
    out = calc(**BOOK_8B, **NO_CONTEXT, gpu_name="CPU DDR5-6400 dual-channel", quant_name="F16")
    assert out["gpu_mem_bandwidth_gbs"] == pytest.approx(2 * 8 * 6400 / 1000, rel=1e-12)
    assert out["decode_tok_s_ideal"] == pytest.approx(102.4 / 16, rel=1e-12)


def test_gemma_kv_cache_erratum(calc):
    # L1476: 48 layers, 8 KV heads × 128, 4K context, FP8 KV. K and V once each:
    # 2 × 48 × 8 × 128 × 1 byte × 4096 = 402,653,184 bytes (the book prints 805,306,368: K+V counted twice).
    out = calc(
        model_layers=48,
        model_kv_heads=8,
        model_head_dim=128,
        model_kv_latent_dim=0,
        model_sliding_layers=0,
        context_tokens=4096,
        kv_cache_type="FP8",
    )
    assert out["kv_cache_bytes_per_user"] == 2 * 48 * 8 * 128 * 1 * 4096 == 402_653_184
    assert out["kv_cache_bytes_per_user"] != 805_306_368


def test_llama3_8b_kv_at_4k_and_total_vram_erratum(calc):
    # L1004–1009: Llama 3 8B FP16 at 4K. KV = 2 × 32 layers × 8 KV heads × 128 × 2 bytes × 4096
    # = 536,870,912 bytes (book: 4.3 GB, using 32 heads and an extra ×2); total = 16 + 0.537 + 1 GB overhead.
    out = calc(
        **BOOK_8B,
        weight_bits_per_param=16,
        context_tokens=4096,
        concurrent_users=1,
        kv_cache_type="F16",
        vram_overhead_gb=1,
        model_sliding_layers=0,
        model_kv_latent_dim=0,
    )
    kv = 2 * 32 * 8 * 128 * 2 * 4096
    assert out["kv_cache_bytes_per_user"] == kv
    assert out["vram_total_gb"] == pytest.approx(16 + kv / 1e9 + 1, rel=1e-12)


def test_a100_max_users_erratum(calc):
    # L1058–1070: A100 80 GB, 8B Q4 = 4 GB, overhead 2 GB, 2K context. Correct KV per user =
    # 2 × 32 × 8 × 128 × 2 × 2048 bytes = 0.268 GB → floor(74 / 0.268435456) = 275 users (book: ~34).
    out = calc(
        **BOOK_8B,
        weights_gb=4,
        gpu_vram_gb=80,
        vram_overhead_gb=2,
        context_tokens=2048,
        kv_cache_type="F16",
        model_sliding_layers=0,
        model_kv_latent_dim=0,
    )
    assert out["max_concurrent_users"] == (80 - 4 - 2) // (2 * 32 * 8 * 128 * 2 * 2048 / 1e9) == 275


@pytest.mark.parametrize(("context", "users"), [(2048, 67), (4096, 33), (8192, 16)])
def test_rtx_4090_users_by_context_erratum(calc, context, users):
    # L1084–1086 with the book's own rule (24 GB − 4 GB weights − 2 GB overhead) and the correct KV.
    out = calc(
        **BOOK_8B,
        weights_gb=4,
        gpu_vram_gb=24,
        vram_overhead_gb=2,
        context_tokens=context,
        kv_cache_type="F16",
        model_sliding_layers=0,
        model_kv_latent_dim=0,
    )
    assert out["max_concurrent_users"] == (24 - 4 - 2) // (2 * 32 * 8 * 128 * 2 * context / 1e9) == users


def test_end_to_end_latency(calc):
    # L326–334: TTFT 40 ms + 500 tokens × 30 ms + 100 ms network = 15,140 ms (one request on an idle replica: no
    # other request's prefill rides in its decode steps).
    out = calc(ttft_s=0.040, decode_tok_s=1000 / 30, output_tokens=500, network_overhead_ms=100, load_requests_per_s=0)
    assert out["tpot_ms"] == pytest.approx(30, rel=1e-12)
    assert out["e2e_latency_s"] == pytest.approx((40 + 500 * 30 + 100) / 1000, rel=1e-12)


def test_ridge_batch_rtx_4090_erratum(calc):
    # L977–985: compute-bound once batch × 2 × P / FLOPS > P × bytes / bandwidth, i.e.
    # batch > (82.6e12 / 1008e9) × 0.5 / 2 ≈ 20.5 (book: "~25").
    out = calc(**BOOK_8B, weight_bits_per_param=4, gpu_mem_bandwidth_gbs=1008, gpu_fp16_tflops=82.6)
    assert out["ridge_batch_users"] == pytest.approx(82.6e12 / 1008e9 * 0.5 / 2, rel=1e-12)
    assert round(out["ridge_batch_users"], 1) == 20.5
