"""Demand as people state it (issue 34, part 1): users, the share active at the peak, requests per active user per
hour and active hours, as the book states it ("1000 concurrent user × 500 token/response × 10 response/jam × 13 jam
aktif", L2161); a closed population: N users have at most N requests in flight, one user never queues behind
themselves."""

from __future__ import annotations

import pytest

from kalkulator.scenario import compute

DAYS_PER_MONTH = 365 / 12
CHAT_TOKENS = 1000 + 500  # the chat preset's prompt and output tokens per request


def test_the_readmes_500_users_are_a_human_demand_not_a_load_test():
    # `plan --model Llama-3.3-70B --set peak_concurrent_users=500`, defaults otherwise (the chat preset): 500 users
    # at the peak × 10 requests per active user per hour (the book, L2161) = 5,000 requests in the peak hour; the
    # other 11 of the 12 active hours average half of it (peak ÷ average 2), so 5,000 × 12 ÷ 2 = 30,000 requests a
    # day, × 365 / 12 days × 1,500 tokens = 1.36875 billion tokens a month.
    out = compute({"model_name": "Llama-3.3-70B", "peak_concurrent_users": 500})
    requests_per_day = 500 * 10 * 12 / 2
    assert out["requests_per_day"] == pytest.approx(requests_per_day, rel=1e-12)
    tokens = requests_per_day * DAYS_PER_MONTH * CHAT_TOKENS
    assert out["demand_tokens_per_month"] == pytest.approx(tokens, rel=1e-12)
    assert 0.1e9 < out["demand_tokens_per_month"] < 5e9
    # The think time between an answer and the next question: 3,600 s ÷ 10 − (2 s TTFT + 500 tokens × 0.1 s).
    assert out["think_time_s"] == pytest.approx(3600 / 10 - (2 + 500 * 0.1), rel=1e-12)


def test_employees_times_the_share_active_at_the_peak_are_the_peak_users():
    # 2,000 employees, 25 % of them active in the busiest hour (the chat preset) = 500 users at the peak.
    out = compute({"model_name": "Llama-3.3-70B", "total_users": 2000})
    assert out["peak_concurrent_users"] == pytest.approx(2000 * 0.25, rel=1e-12)
    assert out["requests_per_day"] == pytest.approx(2000 * 0.25 * 10 * 12 / 2, rel=1e-12)
    # The coding preset: 5 of 8 working hours coding (the book, L507) and a suggestion a minute (assumption).
    coding = compute({"model_name": "Llama-3.1-8B", "total_users": 20, "workload_name": "coding assistant"})
    assert coding["peak_concurrent_users"] == pytest.approx(20 * 5 / 8, rel=1e-12)
    assert coding["users_requests_per_s"] == pytest.approx(20 * 5 / 8 * 60 / 3600, rel=1e-12)


def test_the_books_bumn_case_in_its_own_form():
    # L2161: 1000 concurrent users × 500 tokens a response × 10 responses an hour × 13 active hours = 65 million
    # tokens a day. The book counts every active hour as a peak hour (peak ÷ average 1) and output tokens only.
    out = compute(
        {
            "model_name": "Llama-3.3-70B",
            "peak_concurrent_users": 1000,
            "active_hours_per_day": 13,
            "peak_to_average_ratio": 1,
        }
    )
    assert out["output_tokens_per_month"] / DAYS_PER_MONTH == pytest.approx(1000 * 500 * 10 * 13, rel=1e-12)
    assert out["output_tokens_per_month"] / DAYS_PER_MONTH == pytest.approx(65e6, rel=1e-12)


def test_a_batch_worker_has_no_think_time():
    # The batch preset's 0 requests per hour: a worker sends the next document as soon as the answer ends.
    out = compute({"model_name": "Llama-3.1-8B", "workload_name": "batch summarisation", "peak_concurrent_users": 4})
    assert out["think_time_s"] == 0
    # 4 ÷ (60 s TTFT target + 500 tokens × 0.5 s) requests a second.
    assert out["users_requests_per_s"] == pytest.approx(4 / (60 + 500 * 0.5), rel=1e-12)


def test_one_user_on_one_box_is_one_replica():
    # One user with a request always in flight (think time 0), Llama 3.1 8B on one RTX 4090, and a TTFT target only
    # 2 % above one prompt's prefill at the slow end: the open M/D/1 queue, which assumes endless users, leaves a
    # replica 2 % busy and asks for a second replica; one user has at most one request in flight, so the last (and
    # only) prompt waits for 1 prefill: ⌊target ÷ prefill⌋ = ⌊1.02⌋ = 1 user per replica, ⌈1 ÷ 1⌉ = 1 replica.
    base = {"model_name": "Llama-3.1-8B", "gpu_name": "RTX 4090 24GB", "peak_concurrent_users": 1, "think_time_s": 0}
    prefill_s = compute(base)["sla_prefill_s"]
    tight = base | {"sla_ttft_s": 1.02 * prefill_s}
    one = compute(tight)
    assert one["closed_replica_users"] == 1
    assert one["replicas_needed"] == 1
    assert one["gpus_needed"] == 1
    assert one["run_check_text"] == "OK"
    # The same request rate typed as requests per day (no population known): the open queue's answer stands.
    open_queue = compute(tight | {"peak_concurrent_users": 0, "requests_per_day": one["requests_per_day"]})
    assert open_queue["peak_requests_per_s"] == pytest.approx(one["peak_requests_per_s"], rel=1e-12)
    assert open_queue["replicas_needed"] >= 2
    # The default workload (a request every 6 minutes) on the default target: one replica too.
    assert (
        compute({"model_name": "Llama-3.1-8B", "gpu_name": "RTX 4090 24GB", "total_users": 1})["replicas_needed"] == 1
    )


def test_users_sharing_a_replica_that_holds_them_all_at_once_need_no_second_one():
    # k users per replica when all of them send together: k × prefill ≤ TTFT target and k ≤ the batch within the TPOT
    # target. With exactly that many users, one replica, whatever the open queue says.
    base = {"model_name": "Llama-3.1-8B", "gpu_name": "RTX 4090 24GB", "think_time_s": 0, "peak_concurrent_users": 1}
    first = compute(base)
    k = min(int(first["sla_tpot_batch_users"] + 1e-9), int(first["sla_ttft_s"] / first["sla_prefill_s"] + 1e-9))
    assert first["closed_replica_users"] == k
    out = compute(base | {"peak_concurrent_users": k})
    assert out["replicas_needed"] == 1
    twice = compute(base | {"peak_concurrent_users": 2 * k})
    assert twice["replicas_needed"] <= 2


@pytest.mark.parametrize("lang", ["en", "id"])
def test_a_typed_monthly_demand_that_other_inputs_override_says_so(catalog, graph, lang):
    from kalkulator.scenario import resolve

    def status(**settings) -> dict:  # an A100 PCIe: no GeForce licence caveat, a current price, a measured speed
        settings = {"gpu_name": "A100 PCIe 80GB", **settings}
        return graph.evaluate(resolve(graph, catalog, settings), catalog.columns(), lang)

    # Requests per day typed beside tokens per month: 10,000 requests × 365 / 12 days × 1,500 tokens ≈ 456 million.
    typed = status(tokens_per_month=2e9, requests_per_day=10_000)
    assert typed["demand_tokens_per_month"] == pytest.approx(10_000 * DAYS_PER_MONTH * CHAT_TOKENS, rel=1e-12)
    assert " 456 " in typed["status_text"]
    assert ("tokens_per_month" in typed["status_text"]) and typed["run_check_text"] == "OK"
    # The monthly tokens alone are the demand: nothing to say.
    assert status(tokens_per_month=2e9)["status_text"] == "OK"


def test_hitung_prints_the_demand_the_sizing_used():
    from click.testing import CliRunner

    from kalkulator.cli import main

    # 500 users × 10 requests an hour × 12 h ÷ 2 = 30,000 requests a day; × 365 / 12 days × 1,500 tokens =
    # 1,368,750,000 tokens a month, printed in the answer block beside the (ignored) default tokens per month.
    out = CliRunner().invoke(main, ["hitung", "--lang", "en", "--set", "peak_concurrent_users=500"]).stdout
    answers = out[out.index("SUMMARY: answers") :]
    assert f"{round(30_000 * 365 / 12 * 1500):,}" == "1,368,750,000"
    assert "1,368,750,000" in answers and "30,000" in answers
