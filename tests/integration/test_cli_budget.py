"""judge.budget through the CLI against the scripted judge server: the server never gets more
requests than max_calls, the rows scored before the budget ran out are kept in a report that
matches the published schema, the rest are marked as not run, the gate does not pass, and the
run exits 2 with one message saying what was spent and what was left."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from ground_gate.cli import cli
from ground_gate.report.schema import schema_problems
from tests.integration.fake_openai import FakeOpenAI, Reply, error
from tests.integration.test_cli_run import ROWS, grade, invoke
from tests.integration.test_cli_run import write_project as write_run_project


def write_project(root: Path, url: str, **settings: Any) -> Path:
    """test_cli_run's project with a timeout no loaded machine reaches: a request that timed
    out would be a row error spending no tokens, and the budget would then be met by chance."""
    return write_run_project(root, url, timeout_s=120, **settings)


# eight rows, each about ten judge calls with the four metrics; each copy's source differs, so
# no request repeats (the run's cache would answer a repeat or not, as timing falls, and the
# tokens spent would depend on the machine's load)
MANY_ROWS = [
    {**row, "id": f"{row['id']}-{n}", "contexts": [*row["contexts"], f"Catalogue page {n}."]}
    for n in range(3)
    for row in ROWS
][:8]


def with_budget(config: Path, budget: str, prices: str = "") -> Path:
    text = config.read_text(encoding="utf-8")
    extra = f"  budget: {budget}\n" + (f"  prices: {prices}\n" if prices else "")
    config.write_text(text.replace("judge:\n", "judge:\n" + extra, 1), encoding="utf-8")
    return config


def realistic_usage(body: Any) -> Reply:
    """grade's answer, reporting the prompt tokens a real tokenizer would count (chars / 4.4)."""
    if not isinstance(body, dict):  # a request cut off when the stopped run closed its client
        return error(400, "the request body is not JSON")
    reply = grade(body)
    data = json.loads(reply.body)
    chars = sum(len(m["content"]) for m in body["messages"])
    data["usage"]["prompt_tokens"] = chars * 10 // 44 + 10
    data["usage"]["total_tokens"] = data["usage"]["prompt_tokens"] + 1
    return Reply(body=json.dumps(data).encode("utf-8"))


def check_stopped(result: Any, report: dict[str, Any], exceeded: str) -> None:
    assert result.exit_code == 2, result.output
    assert report["status"] == "incomplete"
    assert report["passed"] is False
    assert schema_problems(report) == []
    assert report["budget"]["exceeded"] == exceeded
    scored = [r["id"] for r in report["rows"]]
    not_run = [r["id"] for r in report["not_run"]]
    assert scored, "the rows scored before the budget ran out are kept"
    assert not_run, "the rest are marked as not run"
    assert sorted(scored + not_run) == sorted(r["id"] for r in MANY_ROWS)
    dataset = {k: v for k, v in report["datasets"][0].items() if k != "digest"}
    assert dataset == {"name": "support", "rows": 8, "scored": len(scored)}
    assert report["incomplete"].startswith(f"the judge budget is spent ({exceeded}): spent ")
    assert report["incomplete"].endswith(f"; {len(not_run)} of 8 row(s) not run")
    assert result.stderr.count("ground-gate: error: the judge budget is spent") == 1
    assert f"\u26a0\ufe0f {len(not_run)} row(s) not run, so not in the scores: " in result.stdout
    assert "## \u26a0\ufe0f ground-gate: incomplete" in result.stdout


@pytest.mark.parametrize("concurrency", [1, 2])
def test_budget__max_calls_20_stops_at_20_requests_keeps_the_rows_and_exits_2(
    tmp_path: Path, concurrency: int
) -> None:
    with FakeOpenAI(handler=realistic_usage) as server:
        config = write_project(tmp_path, server.url, rows=MANY_ROWS, concurrency=concurrency)
        result, report = invoke(with_budget(config, "{max_calls: 20}"))
        requests = server.request_count
    assert requests <= 20
    check_stopped(result, report, "max_calls 20 reached")
    assert report["budget"]["spent"]["calls"] == requests
    # the dropped rows' requests count in the usage too (one still in flight when the run
    # ended may be missing there; the budget's own count above has every one)
    assert requests - 1 <= report["usage"]["total"]["calls"] <= requests
    assert "left 0 of 20 calls; " in report["incomplete"]
    assert f"spent {requests} judge call(s), " in report["incomplete"]


def test_budget__failed_requests_and_retries_count(tmp_path: Path) -> None:
    with FakeOpenAI(handler=realistic_usage) as server:
        server.push(*[error(500, "busy")] * 4)  # four failed requests, each retried
        config = write_project(tmp_path, server.url, rows=MANY_ROWS, concurrency=1, retries=5)
        result, report = invoke(with_budget(config, "{max_calls: 20}"))
        requests = server.request_count
    assert requests <= 20
    check_stopped(result, report, "max_calls 20 reached")
    assert report["usage"]["total"]["retries"] >= 4


def test_budget__max_tokens_is_checked_before_and_counted_after(tmp_path: Path) -> None:
    with FakeOpenAI(handler=realistic_usage) as server:
        config = write_project(tmp_path, server.url, rows=MANY_ROWS, concurrency=2)
        result, report = invoke(with_budget(config, "{max_tokens: 8000}"))
    check_stopped(result, report, "max_tokens 8,000 reached")
    spent = report["budget"]["spent"]
    assert 4000 < spent["prompt_tokens"] + spent["completion_tokens"] <= 8000
    assert 0 < report["usage"]["total"]["prompt_tokens"] <= spent["prompt_tokens"]


def test_budget__max_usd_with_prices(tmp_path: Path) -> None:
    prices = "{prompt_per_1m: 500, completion_per_1m: 1500}"
    with FakeOpenAI(handler=realistic_usage) as server:
        config = write_project(tmp_path, server.url, rows=MANY_ROWS, concurrency=2)
        result, report = invoke(with_budget(config, "{max_usd: 4}", prices))
    check_stopped(result, report, "max_usd 4 reached")
    spent = report["budget"]["spent"]
    assert 2.0 < spent["usd"] <= 4.0
    assert 0 < report["usage"]["total"]["cost_usd"] <= spent["usd"] + 1e-6
    assert ", $" in report["incomplete"] and "left $" in report["incomplete"]


def test_budget__a_run_within_its_budget_passes_and_shows_what_it_spent(tmp_path: Path) -> None:
    prices = "{prompt_per_1m: 0.15, completion_per_1m: 0.6}"
    with FakeOpenAI(handler=realistic_usage) as server:
        config = write_project(tmp_path, server.url)
        result, report = invoke(with_budget(config, "{max_calls: 100}", prices))
        requests = server.request_count
    assert result.exit_code == 0, result.output
    assert "not_run" not in report
    assert schema_problems(report) == []
    assert report["budget"]["exceeded"] is None
    assert report["budget"]["spent"]["calls"] == requests
    total = report["usage"]["total"]
    assert total["cost_usd"] == pytest.approx(
        (total["prompt_tokens"] * 0.15 + total["completion_tokens"] * 0.6) / 1e6, abs=1e-6
    )
    assert f"Budget: {requests} of 100 call(s) spent." in result.stdout


def test_budget__a_re_run_from_the_cache_makes_no_call_and_needs_no_budget(tmp_path: Path) -> None:
    with FakeOpenAI(handler=realistic_usage) as server:
        config = write_project(tmp_path, server.url)
        first, _ = invoke(config)
        with_budget(config, "{max_calls: 1}")
        before = server.request_count
        result, report = invoke(config)
        assert server.request_count == before
    assert (first.exit_code, result.exit_code) == (0, 0), result.output
    assert report["budget"]["spent"]["calls"] == 0


def test_budget__calibrate_stops_at_it_too(tmp_path: Path) -> None:
    labels = tmp_path / "labels.jsonl"
    records = [
        {
            "id": f"r{i}",
            "source": "The X200 weighs 2 kg.",
            "response": f"It weighs {i} kg.",
            "label": i % 2,
        }
        for i in range(6)
    ]
    labels.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    with FakeOpenAI(handler=realistic_usage) as server:
        config = with_budget(write_project(tmp_path, server.url, concurrency=1), "{max_calls: 12}")
        result = CliRunner().invoke(
            cli, ["calibrate", "-c", str(config), "--labels", str(labels)], env={"FAKE_KEY": "k"}
        )
        assert server.request_count <= 12
    assert result.exit_code == 2
    assert "the judge budget is spent: max_calls 12 reached" in result.stderr


def test_budget__a_judge_that_reports_no_usage_is_counted_at_the_estimate(tmp_path: Path) -> None:
    def no_usage(body):
        reply = grade(body)
        data = json.loads(reply.body)
        data.pop("usage", None)
        return Reply(body=json.dumps(data).encode())

    with FakeOpenAI(handler=no_usage) as server:
        config = with_budget(
            write_project(tmp_path, server.url, rows=MANY_ROWS), "{max_tokens: 6000}"
        )
        result, report = invoke(config)
        sent = len(server.requests)
    assert result.exit_code == 2
    assert report["budget"]["exceeded"] == "max_tokens 6,000 reached"
    assert (
        0
        < report["budget"]["spent"]["prompt_tokens"]
        + report["budget"]["spent"]["completion_tokens"]
        <= 6000
    )
    assert report["budget"]["spent"]["calls"] == sent


def test_budget__reached_while_quoting_evidence_keeps_the_verdict(tmp_path: Path) -> None:
    # one request at a time: the same judge calls in every run (concurrent metrics of a row
    # may both ask a request the other is already asking)
    with FakeOpenAI(handler=grade) as server:
        (tmp_path / "free").mkdir()
        free = write_project(tmp_path / "free", server.url, rows=MANY_ROWS, concurrency=1)
        _, unbudgeted = invoke(free)
        calls = unbudgeted["usage"]["total"]["calls"]
        assert unbudgeted["evidence"]["units"] > 0  # quotes are asked after the rows are scored
        (tmp_path / "tight").mkdir()
        config = write_project(tmp_path / "tight", server.url, rows=MANY_ROWS, concurrency=1)
        result, report = invoke(with_budget(config, f"{{max_calls: {calls - 1}}}"))
    assert report["incomplete"] is None
    assert "not_run" not in report
    assert len(report["rows"]) == len(MANY_ROWS)
    assert report["status"] == unbudgeted["status"]
    assert result.exit_code == (0 if unbudgeted["passed"] else 1)
    assert "budget" in (report["evidence"]["problem"] or "")


def lying_usage(tokens: int) -> Any:
    """realistic_usage's answer, except that it reports `tokens` prompt tokens (negative,
    fractional, absurd) on every second request."""
    calls = {"n": 0}

    def handler(body: Any) -> Reply:
        calls["n"] += 1
        reply = realistic_usage(body)
        if calls["n"] % 2:
            return reply
        data = json.loads(reply.body)
        data["usage"]["prompt_tokens"] = tokens
        return Reply(body=json.dumps(data).encode("utf-8"))

    return handler


def spend_3000_tokens(root: Path, handler: Any) -> tuple[Any, dict[str, Any], int]:
    root.mkdir()
    with FakeOpenAI(handler=handler) as server:
        config = write_project(root, server.url, rows=MANY_ROWS, concurrency=1, retries=1)
        result, report = invoke(with_budget(config, "{max_tokens: 3000}"))
        return result, report, server.request_count


@pytest.mark.parametrize("tokens", [-5000, -1, 10**20], ids=["-5000", "-1", "1e20"])
def test_budget__a_judge_reporting_bad_usage_cannot_spend_past_3000_tokens(
    tmp_path: Path, tokens: int
) -> None:
    """A negative count would lower what was spent and let the run go on (370 calls where an
    honest judge stops at about 108): a reply whose usage is not a count is no verdict, it is
    retried, and what it cost is counted at the estimate, so the 3,000 tokens hold."""
    _, _, honest = spend_3000_tokens(tmp_path / "honest", realistic_usage)
    result, report, requests = spend_3000_tokens(tmp_path / "lying", lying_usage(tokens))
    assert result.exit_code == 2, result.output
    assert report["status"] == "incomplete" and report["passed"] is False
    assert report["budget"]["exceeded"] == "max_tokens 3,000 reached"
    assert report["incomplete"].startswith("the judge budget is spent (max_tokens 3,000 reached)")
    spent = report["budget"]["spent"]
    assert 0 < spent["prompt_tokens"] + spent["completion_tokens"] <= 3000
    assert spent["calls"] == requests <= honest + 1
    usage = report["usage"]["total"]
    assert 0 <= usage["prompt_tokens"] <= spent["prompt_tokens"]
    assert usage["retries"] >= 1
