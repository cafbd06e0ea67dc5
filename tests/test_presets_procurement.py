"""Workload presets (issue 13, item 1): the catalog row sets the workload inputs, a typed value replaces them.

The book's figures behind the presets are written out by hand as arithmetic.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from kalkulator.cli import main

# Catalog column → the quantity it sets (issue 13: the text, images, steps and tools build prompt_tokens).
PRESET_COLUMNS = {
    "text_prompt_tokens": "text_prompt_tokens",
    "output_tokens": "output_tokens",
    "prefix_cache_hit_frac": "prefix_cache_hit_frac",
    "sla_ttft_s": "sla_ttft_s",
    "sla_tpot_ms": "sla_tpot_ms",
    "active_hours_per_day": "active_hours_per_day",
    "session_steps": "session_steps",
    "tool_definition_tokens": "tool_definition_tokens",
    "images_per_request": "request_images",
    "image_tokens": "image_tokens",
}


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def test_default_preset_reproduces_the_former_defaults(calc):
    out = calc()
    assert out["workload_name"] == "chat"
    assert (out["prompt_tokens"], out["output_tokens"]) == (1000, 500)
    assert (out["sla_ttft_s"], out["sla_tpot_ms"]) == (2, 100)
    assert (out["active_hours_per_day"], out["prefix_cache_hit_frac"]) == (12, 0)
    assert calc(workload_name="chat") == out


def test_every_preset_sets_its_row(calc, catalog):
    table = catalog["workload"]
    assert {"chat", "RAG", "agent", "coding assistant", "batch summarisation", "image understanding"} <= set(
        table.names
    )
    for row in table.rows:
        out = calc(workload_name=row["name"])
        for column, name in PRESET_COLUMNS.items():
            assert out[name] == pytest.approx(row[column], rel=1e-12), (row["name"], column)
        assert row["source"] and row["as_of"]


def test_a_typed_value_replaces_the_preset_and_the_rest_stays(calc):
    out = calc(workload_name="agent", prompt_tokens=2000, sla_tpot_ms=50)
    assert out["prompt_tokens"] == 2000
    assert out["sla_tpot_ms"] == 50
    assert out["output_tokens"] == 250  # still the agent row
    assert out["sla_ttft_s"] == 5


def test_agent_preset_is_the_books_agentic_context(calc, catalog):
    # Book L1736-1739 (10 tools, 8K context per session): system + tool definitions ~3,000 tokens,
    # tool calls + results ~5,000 tokens: 3,000 + 5,000 = 8,000 tokens of context at the end of the session.
    # L1763 (~3 tool calls per session): 4 steps = 3 tool calls + the answer, each adding 1,000 tokens of new input
    # and 250 of output: 4 × (1,000 + 250) = 5,000.
    row = catalog["workload"].find("agent")
    assert (row["session_steps"], row["tool_definition_tokens"]) == (4, 3000)
    assert (row["text_prompt_tokens"], row["output_tokens"]) == (1000, 250)
    assert 3000 + 4 * (1000 + 250) == 8000
    out = calc(workload_name="agent")
    # Step i's prompt = 3,000 + i × 1,000 + (i − 1) × 250: 4,000, 5,250, 6,500, 7,750 → mean 23,500 / 4 = 5,875.
    assert out["prompt_tokens"] == (4000 + 5250 + 6500 + 7750) / 4 == 5875
    assert out["context_tokens"] == 7750 + 250 == 8000  # the last step's, the book's 8K context
    # Cached with prefix caching: the tool definitions and every earlier step, 3,000 + (i − 1) × 1,250:
    # 3,000 + 4,250 + 5,500 + 6,750 = 19,500 of 23,500 ≈ 0.83 (the preset's share).
    assert row["prefix_cache_hit_frac"] == pytest.approx(19500 / 23500, abs=5e-3)
    # Book L1745-1747: 19 chat users → 10 agentic users is a drop of (19 − 10) / 19 = 47.4 % ("~47 %": right).
    assert (19 - 10) / 19 == pytest.approx(0.474, abs=5e-4)


def test_image_preset_is_visual_tokens_plus_text(calc, catalog):
    # Book L1678 (ViT patch 14, 336 px) and CLIP ViT-L/14-336 of LLaVA-1.5: (336 / 14)² = 24² = 576 visual tokens
    # per image; with ~200 tokens of question text the prompt is 576 + 200 = 776 tokens.
    assert (336 // 14) ** 2 == 576
    row = catalog["workload"].find("image understanding")
    assert (row["images_per_request"], row["image_tokens"], row["text_prompt_tokens"]) == (1, 576, 200)
    assert calc(workload_name="image understanding")["prompt_tokens"] == 576 + 200


def test_chat_preset_matches_the_books_500_token_reply(calc):
    # Book L326-334: E2E = TTFT + output tokens × TPOT + overhead = 40 + 500 × 30 + 100 = 15,140 ms.
    assert 40 + 500 * 30 + 100 == 15_140
    out = calc(workload_name="chat")
    assert out["output_tokens"] == 500
    # TPOT target 100 ms = 1 ÷ 0.1 s = 10 tok/s per user (book L366-370: tok/s = 1 ÷ TPOT).
    assert 1 / (out["sla_tpot_ms"] / 1000) == pytest.approx(10)


def test_requests_follow_the_preset_tokens(calc):
    # 100 M tokens/month ÷ 30.4375 days ÷ (5,875 + 250) tokens per request (agent preset: the mean step).
    out = calc(workload_name="agent")
    assert out["requests_per_day"] == pytest.approx(100e6 / out["month_days"] / (5875 + 250), rel=1e-12)


def test_cli_workload_for_every_preset(catalog):
    for row in catalog["workload"].rows:
        result = run("hitung", "--workload", row["name"], "--json")
        assert result.exit_code == 0, (row["name"], result.output)
        out = json.loads(result.stdout)
        assert out["workload_name"] == row["name"]
        for column, name in PRESET_COLUMNS.items():
            assert out[name] == pytest.approx(row[column], rel=1e-12)


def test_cli_workload_case_insensitive_and_set_wins():
    result = run("hitung", "--workload", "rag", "--json", "--set", "output_tokens=123")
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["workload_name"] == "RAG"
    assert out["output_tokens"] == 123
    assert out["prompt_tokens"] == 4000


def test_cli_unknown_workload_names_the_closest():
    result = run("hitung", "--workload", "agnt")
    assert result.exit_code != 0
    assert "not in the workload catalog" in result.output
    assert "Closest: agent" in result.output


def test_list_shows_the_new_names():
    names = run("list", "names").stdout
    assert "workload_name" in names
    assert "workload_row" in names
    workloads = [line.split("  ")[0] for line in run("list", "workloads").stdout.splitlines()]
    assert "batch summarisation" in workloads
    assert "image understanding" in workloads


def test_cli_still_checks_a_typed_preset_value():
    # A preset value replaced by --set is checked where it is typed (its domain), as before.
    result = run("hitung", "--set", "prefix_cache_hit_frac=-0.1")
    assert result.exit_code != 0
    assert "prefix_cache_hit_frac" in result.output


# ---- procurement: the landed GPU price and N+1 spare replicas ---------------------------------------------------


def test_landed_gpu_price_follows_the_books_import_example(calc):
    # Book (harga GPU di Indonesia): RTX 4090 at $1,600 × Rp 16,200 = Rp 25,920,000; PPN 11 % = Rp 2,851,200;
    # so Rp 28,771,200 before duty and the distributor's margin (the book's Rp 45–55 juta adds items it does not list).
    base = {"gpu_name": "RTX 4090 24GB", "gpu_price_usd": 1600, "usd_idr": 16200, "ppn_mode": "on", "ppn_pct": 11}
    assert calc(**base)["gpu_unit_idr"] == pytest.approx(25_920_000 + 2_851_200, rel=1e-12)
    # 10 % duty on the dollar price and a 40 % distributor margin, PPN on the sale: 1,600 × 16,200 × 1.1 × 1.4 × 1.11.
    out = calc(**base, import_duty_pct=10, distributor_margin_pct=40)
    assert out["gpu_unit_idr"] == pytest.approx(1600 * 16200 * 1.1 * 1.4 * 1.11, rel=1e-12)
    assert out["gpu_capex_idr"] == pytest.approx(out["gpu_unit_idr"] * out["gpus_needed"], rel=1e-12)


def test_a_spare_replica_is_bought_but_not_counted_as_capacity(calc):
    scenario = {
        "gpu_name": "H100 SXM 80GB",
        "model_name": "Llama-3.1-70B",
        "quant_name": "FP8",
        "n_gpus": 2,
        "engine": "vllm",
        "tokens_per_month": 2e10,
        "deployment_name": "server rak",  # GPUs bought one by one (HGX would round both fleets to whole boards)
    }
    plain = calc(**scenario)
    spare = calc(**scenario, spare_replicas=1)
    k = plain["replicas_needed"]
    assert k >= 2
    assert spare["gpus_needed"] == (k + 1) * 2 and plain["gpus_needed"] == k * 2
    assert spare["fleet_replicas"] == plain["fleet_replicas"] == k  # the spare stands by
    assert spare["capacity_requests_per_day"] == pytest.approx(plain["capacity_requests_per_day"], rel=1e-12)
    assert spare["gpu_capex_idr"] == pytest.approx(plain["gpu_capex_idr"] * (k + 1) / k, rel=1e-12)
