"""Quality beside speed and money: each weight format's published loss against 16-bit weights (quants.csv), shown by
`hitung`, `plan` and the workbook, and the floor a workload preset (or `plan --max-quality-loss`) sets."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from kalkulator.catalog import load_catalog
from kalkulator.cli import main
from kalkulator.io.paths import CATALOG_DIR
from kalkulator.scenario import compute

# llama.cpp tools/perplexity/README.md, "LLaMA 3 8b Scoreboard" (revision f364eb6f, Wikitext-2, no imatrix rows):
# (PPL of the quantized model, ΔPPL against FP16). The loss is ΔPPL / (PPL − ΔPPL), the PPL ratio − 1.
LLAMA3_8B = {"Q2_K": (9.751568, 3.519934), "Q4_K_M": (6.407115, 0.175482), "Q8_0": (6.234284, 0.002650)}
# The same README's "LLaMA 2 vs. LLaMA 3" table: Mean PPL ratio of L3 8b, an independent check of the arithmetic.
LLAMA3_8B_PPL_RATIO = {"Q2_K": 1.564849, "Q4_K_M": 1.028160, "Q8_0": 1.000425}


@pytest.fixture(scope="module")
def quants() -> dict[str, dict]:
    return {r["name"]: r for r in load_catalog(CATALOG_DIR)["quant"].rows}


def plan_json(*args: str) -> dict:
    result = CliRunner().invoke(main, ["plan", *args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_every_format_has_a_quality_row_with_a_source_or_says_none_is_published(quants):
    for name, r in quants.items():
        assert r["quality_source"], name
        assert r["quality_as_of"], name
        if r["quality_metric"] == "none":
            assert r["quality_loss_pct"] in (None, ""), name
            assert "tidak ada pengukuran publik" in r["quality_source"], name  # "no public measurement"
        else:
            assert isinstance(r["quality_loss_pct"], int | float), name
        if r["quality_metric"] in ("ppl", "accuracy"):
            assert "http" in r["quality_source"] and r["quality_model"] and r["quality_raw"], name
    assert quants["F16"]["quality_metric"] == "reference" and quants["F16"]["quality_loss_pct"] == 0


def test_gguf_losses_are_the_cited_tables_ppl_ratio(quants):
    for name, (ppl, delta) in LLAMA3_8B.items():
        expected = delta / (ppl - delta) * 100
        assert quants[name]["quality_metric"] == "ppl"
        assert quants[name]["quality_loss_pct"] == pytest.approx(expected, abs=5e-5)
        assert quants[name]["quality_loss_pct"] == pytest.approx((LLAMA3_8B_PPL_RATIO[name] - 1) * 100, abs=2e-4)
    assert (
        quants["Q2_K"]["quality_loss_pct"] > quants["Q4_K_M"]["quality_loss_pct"] > quants["Q8_0"]["quality_loss_pct"]
    )


def test_accuracy_losses_are_100_minus_the_cards_recovery(quants):
    # neuralmagic/Meta-Llama-3-8B-Instruct-FP8: Open LLM v1 average 68.22 vs 68.71 (the card: recovery 99.28%)
    assert quants["FP8"]["quality_loss_pct"] == pytest.approx((1 - 68.22 / 68.71) * 100, abs=5e-5)
    assert 100 - quants["FP8"]["quality_loss_pct"] == pytest.approx(99.28, abs=0.01)
    # neuralmagic/Meta-Llama-3.1-8B-Instruct-quantized.w4a16: 67.57 vs 69.32
    assert quants["GPTQ-4bit"]["quality_loss_pct"] == pytest.approx((1 - 67.57 / 69.32) * 100, abs=5e-5)
    # intel/auto-round docs/auto_scheme_acc.md Table 1, Llama3.1-8B-I pure MXFP4: 0.6626 vs 0.7076 (93.6%)
    assert 100 - quants["MXFP4"]["quality_loss_pct"] == pytest.approx(93.6, abs=0.05)


def test_hitung_shows_the_chosen_formats_loss_and_says_when_none_is_published():
    q2 = compute({"quant_name": "Q2_K"})
    assert q2["answer_quality_loss_frac"] == pytest.approx(3.519934 / (9.751568 - 3.519934), abs=5e-7)
    assert q2["quality_floor_flag"] is False  # the chat preset's floor is 8 %
    assert q2["max_quality_loss_frac"] == 0.08
    assert "quality below the floor" in q2["caveats_text"]
    q4 = compute({"quant_name": "Q4_K_M"})
    assert q4["quality_floor_flag"] is True and "quality" not in q4["caveats_text"]
    awq = compute({"quant_name": "AWQ-4bit", "engine": "vllm"})
    assert awq["answer_quality_loss_frac"] == "no public measurement"
    assert awq["quality_floor_flag"] is True  # kept, with a caveat
    assert "quality not measured" in awq["caveats_text"]


def test_hitung_json_carries_the_loss():
    result = CliRunner().invoke(main, ["hitung", "--set", "quant_name=Q8_0", "--json"])
    assert result.exit_code == 0, result.output
    values = json.loads(result.stdout)
    assert values["answer_quality_loss_frac"] == pytest.approx(0.002650 / (6.234284 - 0.002650), abs=5e-7)


@pytest.mark.parametrize("workload", ["chat", "RAG"])
def test_the_chat_and_rag_floors_leave_out_2_and_3_bit_weights(workload):
    out = plan_json(
        "--workload",
        workload,
        "--gpus",
        "RTX 4090",
        "--formats",
        "Q2_K,Q3_K_M,Q4_K_M",
        "--engines",
        "llama.cpp",
        "--sizes",
        "1",
    )
    formats = {o["quant_name"] for o in out["options"] if o["mode"] != "api"}
    assert formats == {"Q4_K_M"}
    # "RTX 4090" names the 4090 and the 4090 D: per GPU, Q2_K and Q3_K_M are two of its three configurations
    assert out["excluded_configurations"]["below the quality floor"] == out["configurations"] * 2 // 3
    assert out["configurations"] == out["serving"] + sum(out["excluded_configurations"].values())


def test_max_quality_loss_sets_the_floor_and_the_column_shows_the_loss():
    args = ("--gpus", "RTX 4090", "--formats", "Q2_K,Q4_K_M,Q8_0", "--engines", "llama.cpp", "--sizes", "1")
    loose = plan_json(*args, "--max-quality-loss", "100")
    assert {o["quant_name"] for o in loose["options"] if o["mode"] != "api"} == {"Q2_K", "Q4_K_M", "Q8_0"}
    assert "below the quality floor" not in loose["excluded_configurations"]
    losses = {o["quant_name"]: o["quality_loss_pct"] for o in loose["options"] if o["mode"] != "api"}
    assert losses["Q2_K"] > losses["Q4_K_M"] > losses["Q8_0"]
    strict = plan_json(*args, "--max-quality-loss", "1")  # only Q8_0 (0.04 %) is within 1 %
    assert {o["quant_name"] for o in strict["options"] if o["mode"] != "api"} == {"Q8_0"}
    assert strict["excluded_configurations"]["below the quality floor"] == strict["configurations"] * 2 // 3
    # the floor travels with the option, so hitung reproduces it
    q8 = next(o for o in strict["options"] if o["mode"] != "api")
    assert q8["hitung_settings"]["max_quality_loss_frac"] == 0.01
    table = CliRunner().invoke(main, ["plan", *args, "--max-quality-loss", "100"])
    assert table.exit_code == 0, table.output
    assert "loss %" in table.output and "56.5" in table.output


def test_a_format_with_no_public_measurement_is_kept_with_a_caveat():
    out = plan_json("--gpus", "RTX 4090", "--formats", "AWQ-4bit", "--engines", "vllm", "--sizes", "1")
    served = [o for o in out["options"] if o["mode"] != "api"]
    assert served and all(o["quality_loss_pct"] is None and o["quality_metric"] == "none" for o in served)
    assert all("quality not measured" in o["caveats"] for o in served)
