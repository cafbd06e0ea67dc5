"""Agentic sessions, tokens per language and images (issue 13): tokens, cost and time per session, per image,
per 1,000 words. Expected values are the book's worked examples or arithmetic written out by hand.

Book: *Kalkulasi Token Generation*; L = line of its text (tests/README.md says where maintainers find it).
"""

from __future__ import annotations

import tomllib

import pytest

from kalkulator.io.paths import TEMPLATES_DIR

# No taxes and a rate of 1: the API's dollars come out as "rupiah", so the book's dollar figures compare directly.
NO_TAX = {"ppn_pct": 0, "pph22_mode": "off", "usd_idr": 1}

# A small agent: 3 steps, 500 tokens of system prompt + tool definitions, 200 new tokens and 100 output per step.
AGENT = {"session_steps": 3, "tool_definition_tokens": 500, "text_prompt_tokens": 200, "output_tokens": 100}


def test_session_tokens_grow_with_the_history(calc):
    out = calc(**AGENT)
    # Step i's prompt = 500 + i × 200 + (i − 1) × 100: step 1 = 700, step 2 = 1,000, step 3 = 1,300.
    assert out["session_input_tokens"] == 700 + 1000 + 1300 == 3000
    assert out["prompt_tokens"] == 3000 / 3  # the mean step, what the fleet serves
    assert out["session_output_tokens"] == 3 * 100
    assert out["context_tokens"] == 1300 + 100  # the last step's prompt + output sits in the KV cache


def test_one_step_without_tools_is_one_request(calc):
    out = calc(workload_name="chat")
    assert out["session_steps"] == 1 and out["tool_definition_tokens"] == 0
    assert (out["session_input_tokens"], out["session_output_tokens"]) == (1000, 500)
    assert out["session_cost_idr"] == pytest.approx(out["cost_idr_per_request"], rel=1e-12)


def test_session_cached_share(calc):
    out = calc(**AGENT, prefix_cache_hit_frac=0.5)
    assert out["session_cached_tokens"] == pytest.approx(3000 * 0.5, rel=1e-12)


def test_session_api_cost_with_cached_price(calc):
    # 3,000 input tokens, half cached: 1,500 × $1.25 + 1,500 × $2.50 + 300 output × $10, per 1M tokens.
    prices = {"api_input_usd_per_1m": 2.5, "api_cached_input_usd_per_1m": 1.25, "api_output_usd_per_1m": 10}
    out = calc(**AGENT, **NO_TAX, **prices, prefix_cache_hit_frac=0.5)
    assert out["session_api_cost_idr"] == pytest.approx((1500 * 1.25 + 1500 * 2.5 + 300 * 10) / 1e6, rel=1e-12)
    # Without a cached price the cached tokens pay the input price: (3,000 × 2.5 + 300 × 10) / 1M.
    out = calc(**AGENT, **NO_TAX, **{**prices, "api_cached_input_usd_per_1m": 0}, prefix_cache_hit_frac=0.5)
    assert out["session_api_cost_idr"] == pytest.approx((3000 * 2.5 + 300 * 10) / 1e6, rel=1e-12)


def test_session_cost_on_premise_and_cloud_on_the_same_tokens(calc):
    out = calc(**AGENT, cost_idr_per_1m_tokens=10_000, cloud_cost_idr_per_1m_tokens=30_000)
    assert out["session_cost_idr"] == pytest.approx(10_000 * (3000 + 300) / 1e6, rel=1e-12)  # Rp 33
    assert out["session_cloud_cost_idr"] == pytest.approx(30_000 * 3300 / 1e6, rel=1e-12)  # Rp 99


def test_session_time_is_steps_times_the_books_e2e(calc):
    # Book L326-334: E2E = TTFT + output × TPOT + overhead = 40 + 500 × 30 + 100 = 15,140 ms per step (an idle
    # replica: no other request's prefill rides in the decode steps).
    out = calc(
        session_steps=4, ttft_s=0.04, tpot_ms=30, output_tokens=500, network_overhead_ms=100, load_requests_per_s=0
    )
    assert out["session_time_s"] == pytest.approx(4 * (40 + 500 * 30 + 100) / 1000, rel=1e-12)  # 60.56 s


def test_books_agent_session_cost_per_session_erratum():
    # Book L1763-1766: a ~10-minute session on an RTX 4090 at Rp 2,700/hour: 2,700 / 6 = Rp 450, shared by 33
    # concurrent users: 450 / 33 = Rp 13.6 ≈ Rp 14 (arithmetic right); vs GPT-4 Rp 200-500: 14-35× cheaper.
    assert 2700 / 6 == 450
    assert round(450 / 33) == 14
    # With the correct KV cache (guide erratum 'Agentic — concurrent users'): 61 users, 450 / 61 = Rp 7.4 per session,
    # so 200 / 7.4 = 27× to 500 / 7.4 = 68× cheaper.
    assert round(450 / 61, 1) == 7.4
    assert (round(200 / (450 / 61)), round(500 / (450 / 61))) == (27, 68)
    guide = tomllib.loads((TEMPLATES_DIR / "guide.toml").read_text(encoding="utf-8"))
    text = " ".join(i["text_id"] for s in guide["section"] for i in s["items"])
    assert "Rp 7,4 per sesi" in text


def test_books_words_to_tokens_and_cost_per_conversation(calc):
    # Book L214: 500 Indonesian words × 1.5 = 750 tokens; 800 output tokens at $15 / $60 per 1M:
    # 750 / 1M × 15 + 800 / 1M × 60 = 0.01125 + 0.048 = $0.05925 ≈ $0.06 per conversation.
    prices = {"api_input_usd_per_1m": 15, "api_output_usd_per_1m": 60, "api_cached_input_usd_per_1m": 0}
    out = calc(**NO_TAX, **prices, prompt_tokens=500 * 1.5, output_tokens=800)
    assert out["tokens_per_word_ratio"] == 1.5
    assert out["session_api_cost_idr"] == pytest.approx(0.01125 + 0.048, rel=1e-12)
    # 1,000 words = 1,500 tokens in the same mix: $0.05925 per 1,550 tokens × 1,500.
    assert out["api_cost_idr_per_1000_words"] == pytest.approx(0.05925 / 1550 * 1500, rel=1e-12)


def test_english_tokens_per_word(calc):
    # OpenAI's rule of thumb: 100 tokens ≈ 75 words, 1.33 tokens per word, taken as 1.3.
    out = calc(language_name="English", cost_idr_per_1m_tokens=10_000)
    assert out["tokens_per_word_ratio"] == 1.3
    assert out["cost_idr_per_1000_words"] == pytest.approx(10_000 * 1300 / 1e6, rel=1e-12)  # Rp 13
    assert calc(language_name="English", tokens_per_word_ratio=1.6)["tokens_per_word_ratio"] == 1.6


def test_image_tokens_join_the_prompt_and_cost(calc):
    # CLIP ViT-L/14 at 336 px (LLaVA-1.5; book L1676-1678): (336 / 14)² = 24 × 24 = 576 tokens per image.
    images = {"request_images": 2, "image_tokens": (336 // 14) ** 2, "text_prompt_tokens": 100}
    out = calc(**images, **NO_TAX, api_input_usd_per_1m=2.5, cost_idr_per_1m_input_tokens=5_000)
    assert out["prompt_tokens"] == 100 + 2 * 576 == 1252
    assert out["image_cost_idr"] == pytest.approx(576 * 5_000 / 1e6, rel=1e-12)  # Rp 2.88
    assert out["image_api_cost_idr"] == pytest.approx(576 * 2.5 / 1e6, rel=1e-12)


def test_agent_preset_session(calc):
    # The agent preset (4 steps, 3,000 tool tokens, 1,000 new and 250 output tokens per step):
    # 4,000 + 5,250 + 6,500 + 7,750 = 23,500 input tokens and 4 × 250 = 1,000 output tokens per session.
    out = calc(workload_name="agent")
    assert (out["session_input_tokens"], out["session_output_tokens"]) == (23_500, 1000)
    assert out["session_cached_tokens"] == pytest.approx(23_500 * 0.83, rel=1e-12)
