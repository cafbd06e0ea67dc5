"""Vision encoders: tokens per image, 16-bit encoder weights in VRAM, encoding time in the prefill."""

from __future__ import annotations

import pytest

IMAGE = dict(workload_name="image understanding", gpu_name="RTX 4090 24GB", model_name="Llama-3.1-8B")


def test_clip_encoder_adds_its_weights_and_its_time(calc):
    fixed = dict(IMAGE, gpu_fp16_tflops=100, vision_encode_efficiency_frac=0.5)
    none = calc(**fixed)
    clip = calc(**fixed, vision_encoder_name="CLIP ViT-L/14-336")
    # LLaVA-1.5's CLIP ViT-L/14 at 336 px: (336 ÷ 14)² = 576 patches and tokens, 0.304 B parameters at 2 bytes.
    assert clip["image_tokens"] == 576 == none["image_tokens"]  # the preset already counts 576 tokens
    assert clip["vision_encoder_weights_gb"] == pytest.approx(0.608, rel=1e-12)
    assert clip["vram_total_gb"] - none["vram_total_gb"] == pytest.approx(0.608, rel=1e-9)
    assert none["vision_encoder_weights_gb"] == 0 and none["vision_encode_s"] == 0
    # 2 × 0.304e9 × 576 FLOP ÷ (100 TFLOPS × 0.5) = 350.208 GFLOP ÷ 50 TFLOP/s = 7.00416 ms; one image a request.
    assert clip["vision_encode_image_ms"] == pytest.approx(7.00416, rel=1e-12)
    assert clip["prefill_s"] - none["prefill_s"] == pytest.approx(0.00700416, rel=1e-9)
    assert clip["max_concurrent_users"] <= none["max_concurrent_users"]


def test_a_merging_encoder_sets_the_tokens_per_image(calc):
    # Qwen2-VL: 1024 px rounds to 1036 = 37 × 28; 74 × 74 = 5,476 patches of 14 px, merged 2 × 2 into 37 × 37 tokens.
    out = calc(**IMAGE, vision_encoder_name="Qwen2-VL ViT (1036 px)")
    assert out["vision_image_patches"] == 74 * 74
    assert out["image_tokens"] == 37 * 37 == 1369
    assert out["step_input_tokens"] == out["text_prompt_tokens"] + 1369
    # A typed token count still wins over the encoder's.
    assert calc(**IMAGE, vision_encoder_name="Qwen2-VL ViT (1036 px)", image_tokens=1000)["image_tokens"] == 1000


def test_unknown_encoder_is_an_error_with_the_closest_names():
    from click.testing import CliRunner

    from kalkulator.cli import main

    result = CliRunner().invoke(main, ["hitung", "--set", "vision_encoder_name=CLIP ViT-L/14", "--json"])
    assert result.exit_code == 2
    assert "is not in the vision catalog. Closest: CLIP ViT-L/14-336" in result.stderr
