"""The other side of the comparison: the same model on an API wherever one serves it, else a labelled nearest
model; batch prices for work that can wait; spot cloud prices."""

from __future__ import annotations

import csv
import json

import pytest
from click.testing import CliRunner

from kalkulator.cli import main
from kalkulator.io.paths import CATALOG_DIR
from kalkulator.quantities.api import NEAREST_BY_CLASS

USD_IDR, VAT = 16_500, 1.11  # the catalog's default rate; API and cloud prices carry PPN 11 %


def _csv(name: str) -> list[dict[str, str]]:
    with open(CATALOG_DIR / name, encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


# Catalog models no public API in the catalog serves: Llama 2 and LLaMA-1 are retired from serverless APIs, and no
# stored price list has a serverless Qwen2.5-3B, Gemma-2-2B/27B, Gemma-3-1B or Mistral-7B-v0.1 (docs/catalogs.md);
# nor the Indonesian/SEA models below.
WITHOUT_SAME_MODEL_API = [
    "Llama-2-7B",
    "Llama-2-13B",
    "Llama-2-70B",
    "Qwen2.5-3B",
    "Gemma-2-2B",
    "Gemma-2-27B",
    "Gemma-3-1B",
    "Mistral-7B-v0.1",
    "LLaMA-7B",
    "LLaMA-13B",
    "LLaMA-30B",
    "LLaMA-65B",
    # Sahabat-AI and SEA-LION v3 are downloads, not serverless APIs: the genai-prices data (0.2.3, 2026-11) lists
    # SEA-LION v4 27B (PublicAI, Cloudflare) but neither Sahabat-AI model nor SEA-LION v3 (docs/catalogs.md).
    "Sahabat-AI-Gemma2-9B",
    "Sahabat-AI-Llama3-8B",
    "SEA-LION-v3-Gemma2-9B",
    "SEA-LION-v3-Llama3.1-70B",
]


def test_the_models_without_a_same_model_api_are_these():
    served = {r["model"] for r in _csv("api_prices.csv")}
    assert [r["name"] for r in _csv("models.csv") if r["name"] not in served] == WITHOUT_SAME_MODEL_API


@pytest.mark.parametrize("model", [r["name"] for r in _csv("models.csv")])
def test_every_model_is_compared_with_itself_or_a_labelled_nearest_model(calc, model):
    out = calc(model_name=model)
    if model in WITHOUT_SAME_MODEL_API:
        assert out["api_same_model_flag"] is False
        nearest = out["api_model_name"]
        assert nearest != model
        assert out["api_comparator_text"] == f"nearest: {nearest} (a different model, not {model})"
        assert "API compared: another model" in out["caveats_text"]
    else:
        assert out["api_same_model_flag"] is True and out["api_model_name"] == model
        assert out["api_comparator_text"] == f"same model: {model}"
        assert "API compared: another model" not in out["caveats_text"]


def test_the_nearest_models_by_class_are_catalog_apis():
    names = {r["name"] for r in _csv("api_prices.csv")}
    assert set(NEAREST_BY_CLASS.values()) <= names


def test_qwen25_72b_is_compared_with_a_qwen25_72b_api(calc):
    out = calc(model_name="Qwen2.5-72B")
    # DeepInfra Qwen/Qwen2.5-72B-Instruct at $0.12 in, $0.39 out (LiteLLM price list); the chat preset's 1,000
    # prompt and 500 output tokens: 2/3 × 0.12 + 1/3 × 0.39 = $0.21 per 1M tokens.
    assert out["api_name"] == "DeepInfra Qwen2.5-72B" and out["api_same_model_flag"] is True
    assert out["api_cost_idr_per_1m_tokens"] == pytest.approx(0.21 * USD_IDR * VAT, rel=1e-12)  # Rp 3,846.15
    assert out["premium_api_label_text"] == "premium (closed model, class large): OpenAI GPT-4o"


def test_plan_for_qwen25_72b_shows_the_same_model_api_and_labels_the_premium_one():
    result = CliRunner().invoke(main, ["plan", "--model", "Qwen2.5-72B", "--json"])
    assert result.exit_code == 0, result.output
    apis = {o["offer"]: o for o in json.loads(result.stdout)["options"] if o["mode"] == "api"}
    assert {"DeepInfra Qwen2.5-72B", "Novita Qwen2.5-72B", "Fireworks Qwen2.5-72B"} <= set(apis)
    assert all(apis[n]["api_same_model"] is True for n in apis if "Qwen2.5-72B" in n)
    premium = apis["OpenAI GPT-4o"]
    assert premium["api_same_model"] is False
    assert premium["api_comparator"] == "premium (closed model, class large): OpenAI GPT-4o"


def test_a_nearest_model_is_labelled_in_the_plan():
    result = CliRunner().invoke(main, ["plan", "--model", "Llama-2-70B", "--json", "--top", "3"])
    assert result.exit_code == 0, result.output
    apis = {o["offer"]: o for o in json.loads(result.stdout)["options"] if o["mode"] == "api"}
    nearest = apis["DeepInfra Llama-3.3-70B"]
    assert nearest["api_same_model"] is False
    assert nearest["api_comparator"] == "nearest: Llama-3.3-70B (a different model, not Llama-2-70B)"


def test_the_batch_preset_prices_every_api_with_its_batch_discount(calc):
    # Together's Batch API: 50 % off serverless; Llama-3.3-70B Turbo at $0.88 in and out.
    chat = calc(model_name="Llama-3.3-70B", api_name="Together Llama-3.3-70B Turbo")
    batch = calc(
        model_name="Llama-3.3-70B", api_name="Together Llama-3.3-70B Turbo", workload_name="batch summarisation"
    )
    assert chat["api_batch_mode"] == "off" and batch["api_batch_mode"] == "on"
    assert chat["api_blended_usd_per_1m"] == pytest.approx(0.88, rel=1e-12)
    assert batch["api_blended_usd_per_1m"] == pytest.approx(0.88 * 0.5, rel=1e-12)
    # An API without a batch tier keeps its price: DeepInfra's Turbo at 6,000 prompt + 500 output tokens.
    deepinfra = calc(model_name="Llama-3.3-70B", workload_name="batch summarisation")
    assert deepinfra["api_name"] == "DeepInfra Llama-3.3-70B Turbo"
    assert deepinfra["api_blended_usd_per_1m"] == pytest.approx(6000 / 6500 * 0.13 + 500 / 6500 * 0.39, rel=1e-12)


def test_a_one_month_batch_job_ranks_the_batch_api_above_buying():
    # One month (0.0833 years) of batch summarisation, 1M tokens, on Mixtral-8x22B. Fireworks serves it at $1.20 in
    # and out, half price in batch: 1 × $0.60 × Rp 16,500 × 1.11 = Rp 10,989 a month, Rp 10,985 over 0.9996 months.
    months = 0.0833 * 12
    api = 1 * 1.2 * 0.5 * USD_IDR * VAT * months
    assert round(api) == 10_985
    args = ["plan", "--model", "Mixtral-8x22B", "--workload", "batch summarisation", "--json", "--top", "10000"]
    args += ["--set", "horizon_years=0.0833", "--set", "tokens_per_month=1e6"]
    args += ["--set", "lifetime_years=5", "--set", "residual_pct=0"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    options = json.loads(result.stdout)["options"]
    batch_api = next(o for o in options if o["offer"] == "Fireworks Mixtral-8x22B")
    assert batch_api["tco_idr"] == pytest.approx(api, rel=1e-9)
    # Buying costs at least the GPUs' straight-line depreciation over the month (5 years, no residual value):
    # catalog price × GPUs per replica × rate × PPN × 0.0833 / 5 — above the API for any GPU over $15.
    price = {r["name"]: float(r["price_usd"] or 0) for r in _csv("gpus.csv")}
    bought = [o for o in options if o["mode"] == "buy"]
    assert bought
    rank = {id(o): i for i, o in enumerate(options)}
    for o in bought:
        floor = price[o["gpu_name"]] * o["n_gpus"] * USD_IDR * VAT * 0.0833 / 5
        assert o["tco_idr"] >= floor > api, o["hitung"]
        assert rank[id(batch_api)] < rank[id(o)]


def test_spot_cloud_prices_the_offers_spot_column(calc):
    # RunPod A100 PCIe 80GB: $1.19 an hour on Community Cloud (the catalog's spot column), for one GPU all month.
    out = calc(
        model_name="Llama-3.1-8B",
        gpu_name="A100 PCIe 80GB",
        gpus_needed=1,
        staff_idr_per_month=0,
        horizon_years=1,
        year_days=365,
    )
    assert out["cloud_offer_name"] == "RunPod A100 PCIe 80GB" and out["cloud_spot_usd_per_hour"] == 1.19
    month = 1.19 * USD_IDR * VAT * 24 * 365 / 12  # Rp 15,910,240.50 a month
    assert out["cloud_spot_idr_per_month"] == pytest.approx(month, rel=1e-12)
    assert out["tco_cloud_spot_idr"] == pytest.approx(month * 12, rel=1e-12)
    assert out["answer_tco_cloud_spot_idr"] == out["tco_cloud_spot_idr"]
    # An offer with no spot price says so instead of a zero.
    none = calc(model_name="Llama-3.1-8B", gpu_name="A100 PCIe 80GB", cloud_offer_name="Azure NC24ads A100 v4")
    assert none["answer_tco_cloud_spot_idr"] == "no spot price for this offer"
