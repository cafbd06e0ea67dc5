"""One rule set for every entry path: the catalog's cross-field architecture rules hold for --set, scenario CSVs,
config.json and GGUF imports alike (the DSL's checks); implausible numbers and physical absurdities are a status,
never a silent number."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from kalkulator.cli import main
from kalkulator.scenario import compute, resolve


def run(*args: str):
    return CliRunner().invoke(main, list(args))


@pytest.mark.parametrize(
    ("item", "words"),
    [
        # Llama-3.1-8B: 32 layers, 32 heads, 8 KV heads, 8.03B parameters.
        (
            "model_sliding_layers=64",
            "More sliding-window, linear/SSM and MLP-only layers (model_sliding_layers + model_linear_layers + "
            "model_ffn_layers) than the model has layers",
        ),
        ("model_params_b=1", "Active parameters (model_active_params_b) exceed the total parameters"),
        ("model_kv_heads=7", "The KV heads (model_kv_heads) must divide the attention heads"),  # 32 ÷ 7 is not whole
    ],
)
def test_cross_field_rules_stop_set_and_csv(item, words, tmp_path):
    result = run("hitung", "--set", item)
    assert result.exit_code == 2 and words in result.stderr
    name, value = item.split("=")
    path = tmp_path / "in.csv"
    path.write_text(f"{name}\n{value}\n", encoding="utf-8")
    batch = run("hitung", "--scenarios", str(path), "--json")
    # the same rule on a scenario row (issue 37): refused with file:line, nothing written
    assert batch.exit_code == 2 and f"{path}:2: {words}" in batch.stderr and batch.stdout == ""


def test_an_imported_shape_with_zeros_is_refused():
    # What a GGUF with embedding_length=0 or context_length=0 gives the engine (the typed domains refuse 0 already).
    for name in ("model_hidden", "model_max_context_tokens"):
        values = compute({name: 0.0})
        assert values["input_check_text"].startswith("The model has no layers, width (hidden), heads or maximum")


def test_a_negative_kv_cache_cannot_be_reached():
    values = compute({"model_sliding_layers": 64.0})
    assert values["run_check_text"] != "OK" and values["answer_tco_idr"] != values["tco_idr"]


def test_implausible_values_are_named_with_their_range():
    values = compute({"usd_idr": 16.5})  # 16.500 typed the English way: 16.5 rupiah per dollar
    assert values["status_text"].startswith("Check values outside their plausible range: usd_idr (5,000–50,000")
    assert values["run_check_text"] == "OK"  # allowed as a what-if: the numbers stand, the status says so


def test_tiny_active_hours_do_not_give_a_fleet_of_1e300_gpus():
    values = compute({"active_hours_per_day": 1e-300})
    assert values["status_text"].startswith("More than a million GPUs needed")
    assert isinstance(values["answer_tco_idr"], str)  # the answer block shows the reason, not 1.6e300 GPUs' cost


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("en", "so the typed tokens per month (tokens_per_month) are ignored"),
        ("id", "jadi token per bulan yang diisi (tokens_per_month) diabaikan"),
    ],
)
def test_typed_tokens_per_month_beside_peak_users_is_said_to_be_ignored(catalog, graph, lang, words):
    # An A100 PCIe (a current price, a measured speed): a fleet of GeForce cards in a server room would carry the
    # licence caveat, an old price its own.
    def status(**settings) -> dict:
        settings = {"gpu_name": "A100 PCIe 80GB", **settings}
        return graph.evaluate(resolve(graph, catalog, settings), catalog.columns(), lang)

    # 50 users at the peak with no think time (typed: a load test's concurrency) under the chat workload's 2 s TTFT
    # and 100 ms TPOT targets for 500 output tokens send 50 ÷ (2 + 500 × 0.1) requests/s at the peak: over 12 active
    # hours at a peak ÷ average ratio of 2 that is 50 / 52 × 12 × 3,600 / 2 requests a day, whatever tokens per month
    # is typed.
    peak = status(peak_concurrent_users=50, think_time_s=0, tokens_per_month=2e9)
    assert peak["requests_per_day"] == pytest.approx(50 / 52 * 12 * 3600 / 2, rel=1e-12)
    assert words in peak["status_text"]
    # The chat preset's own pace, 10 requests per active user per hour (the book, L2161): 50 × 10 an hour at the
    # peak, × 12 active hours ÷ the peak ÷ average ratio of 2 = 3,000 requests a day; the warning gives the tokens a
    # month the sizing uses: 3,000 × 365 / 12 days × (1,000 + 500) tokens ≈ 137 million.
    paced = status(peak_concurrent_users=50, tokens_per_month=2e9)
    assert paced["requests_per_day"] == pytest.approx(50 * 10 * 12 / 2, rel=1e-12)
    assert " 137 " in paced["status_text"]
    assert peak["run_check_text"] == "OK"  # a warning: the numbers stand
    assert status(peak_concurrent_users=50)["status_text"] == "OK"  # the default monthly tokens: nothing typed
    # Without peak users the typed monthly tokens are the demand: 2e9 ÷ (365 / 12 days) ÷ (1,000 + 500) tokens a
    # request, and nothing is said.
    alone = status(tokens_per_month=2e9)
    assert alone["requests_per_day"] == pytest.approx(2e9 / (365 / 12) / 1500, rel=1e-12)
    assert alone["status_text"] == "OK"
