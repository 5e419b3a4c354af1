"""`ground-gate plan` against the scripted judge server: it makes no call, its counts match
what a cold run then makes, and it finds in the cache what a run left there."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from ground_gate.cli import cli
from tests.integration.fake_openai import FakeOpenAI
from tests.integration.test_cli_run import ROWS as RUN_ROWS
from tests.integration.test_cli_run import grade, invoke, write_project

# the scripted judge splits statements at every period: no decimals, so that a statement is a
# sentence as the plan assumes
ROWS = [
    {**row, "contexts": ["The X200 weighs two kilograms."], "answer": "It weighs two kilograms."}
    if row["id"] == "good-1"
    else row
    for row in RUN_ROWS
]

LONG_SOURCE = " ".join(
    f"Fact {i}: the X200 model sold {i * 7} units in region {i} during the spring quarter."
    for i in range(40)
)  # about 3,300 characters: several chunks at context_tokens 900


def fact_checks(report: dict[str, Any]) -> int:
    """The run's groundedness questions whether a sentence not in its source states a fact at
    all, one per such sentence of a row: the plan assumes every verdict Yes, so it counts
    none of them (the scripted judge puts the Mars sentences there). A sentence in none of
    its source's words ("It is free.") is not in it without a verdict call, in the plan too,
    which then asks it the question as the run does."""
    held = ("not in source", "unsupported", "declines")
    return sum(
        1
        for row in report["rows"]
        for unit in row["metrics"].get("groundedness", {}).get("units", [])
        if unit["verdict"] in held and not unit["detail"].get("off_source")
    )


def rating_checks(report: dict[str, Any]) -> int:
    """The same question of the rating, asked of a sentence rated below the middle (3 of 5)."""
    return sum(
        1
        for row in report["rows"]
        for unit in row["metrics"].get("rating", {}).get("units", [])
        if unit["verdict"] == "declines" or unit["detail"].get("rating_1_5", 5) < 3
    )


def plan(config: Path, *args: str) -> dict[str, Any]:
    result = CliRunner().invoke(
        cli, ["plan", "-c", str(config), "--format", "json", *args], env={"FAKE_KEY": "sk-x"}
    )
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def edit(config: Path, old: str, new: str) -> Path:
    text = config.read_text(encoding="utf-8")
    assert old in text
    config.write_text(text.replace(old, new, 1), encoding="utf-8")
    return config


def test_plan__makes_no_judge_call_and_counts_what_a_cold_run_makes(tmp_path: Path) -> None:
    with FakeOpenAI(handler=grade) as server:
        config = write_project(tmp_path, server.url, rows=ROWS)
        edit(config, "groundedness: {}", "groundedness: {evidence: none}")
        planned = plan(config)
        assert server.request_count == 0
        result, report = invoke(config)
    assert result.exit_code == 0, result.output
    assert fact_checks(report) > 0
    # faithfulness asks every sentence whether it states anything, before drawing its
    # statements: the question groundedness asks the sentences the source does not hold, so
    # the row's memo answers those (no call) and the plan counts them once, in faithfulness
    assert planned["judge_calls"] == report["usage"]["total"]["calls"]
    by_metric = report["usage"]["by_metric"]
    pair = ("groundedness", "faithfulness")
    assert sum(planned["metrics"][n]["judge_calls"] for n in pair) == sum(
        by_metric[n]["calls"] for n in pair
    )
    for name in ("rating", "summary_accuracy"):
        assert planned["metrics"][name]["judge_calls"] == by_metric[name]["calls"], name
    assert planned["cached"] == 0
    assert planned["datasets"] == [{"name": "support", "rows": 3}]
    assert planned["cost_usd"] is None  # no prices
    # the rating, sentence verdicts and extraction calls are known; the rest are estimated
    assert planned["metrics"]["rating"]["estimated_calls"] == 0
    assert planned["metrics"]["groundedness"]["estimated_calls"] == 0
    assert planned["metrics"]["faithfulness"]["steps"]["verdict"]["exact_calls"] == 0
    # one extraction a sentence: 1 + 1 + 2 sentences
    assert planned["metrics"]["faithfulness"]["steps"]["statements"]["exact_calls"] == 4


def test_plan__long_sources_are_chunked_as_the_run_chunks_them(tmp_path: Path) -> None:
    rows = [{**row, "contexts": [LONG_SOURCE]} for row in ROWS]
    with FakeOpenAI(handler=grade) as server:
        config = write_project(tmp_path, server.url, rows=rows)
        edit(config, "groundedness: {}", "groundedness: {evidence: none}")
        edit(config, "  max_retries:", "  context_tokens: 900\n  max_retries:")
        planned = plan(config)
        result, report = invoke(config)
    assert result.exit_code in (0, 1), result.output
    # the scripted judge asks every row the same questions: rows judged at once may or may not
    # find each other's document answers in the cache, so summary_accuracy is left out here
    by_metric = report["usage"]["by_metric"]
    assert planned["metrics"]["rating"]["judge_calls"] == by_metric["rating"]["calls"]
    pair = ("groundedness", "faithfulness")  # fact checks asked once, as in the test above
    assert sum(planned["metrics"][n]["judge_calls"] for n in pair) == sum(
        by_metric[n]["calls"] for n in pair
    )
    one_chunk = plan(edit(config, "  context_tokens: 900\n", ""))
    assert planned["judge_calls"] > one_chunk["judge_calls"] + 30  # each unit against each chunk


def test_plan__finds_in_the_cache_what_a_run_left_there(tmp_path: Path) -> None:
    with FakeOpenAI(handler=grade) as server:
        config = write_project(tmp_path, server.url, rows=ROWS)
        first, report = invoke(config, "--limit", "1")
        assert first.exit_code == 0, first.output
        planned = plan(config)
        cold = plan(config, "--no-cache")
    row_calls = report["usage"]["total"]["calls"]
    evidence = planned["metrics"]["groundedness"]["steps"].get("evidence", {}).get("cached", 0)
    assert planned["cached"] - evidence == row_calls  # every call of the first row, exactly
    assert planned["to_call"] == planned["judge_calls"] - planned["cached"]
    assert cold["cached"] == 0
    assert cold["judge_calls"] == planned["judge_calls"]


def test_plan__a_re_run_from_the_cache_has_nothing_to_call(tmp_path: Path) -> None:
    with FakeOpenAI(handler=grade) as server:
        config = write_project(tmp_path, server.url, rows=ROWS)
        edit(config, "groundedness: {}", "groundedness: {evidence: none}")
        invoke(config)
        planned = plan(config)
    assert planned["judge_calls"] > 0
    assert planned["to_call"] == 0
    assert planned["exact_calls"] == planned["judge_calls"]  # every answer came from the cache
    assert planned["prompt_tokens_to_spend"] == 0


def test_plan__cost_at_the_configured_prices(tmp_path: Path) -> None:
    config = write_project(tmp_path, "http://127.0.0.1:9/v1")
    edit(
        config,
        "  max_retries:",
        "  prices: {prompt_per_1m: 2.5, completion_per_1m: 10}\n  max_retries:",
    )
    planned = plan(config)
    assert planned["cost_usd"] == pytest.approx(
        (planned["prompt_tokens"] * 2.5 + planned["completion_tokens"] * 10) / 1e6, abs=1e-6
    )
    assert planned["metrics"]["rating"]["cost_usd"] > 0


def test_plan__text_output_names_what_is_estimated(tmp_path: Path) -> None:
    config = write_project(tmp_path, "http://127.0.0.1:9/v1")
    result = CliRunner().invoke(cli, ["plan", "-c", str(config)], env={"FAKE_KEY": "sk-x"})
    assert result.exit_code == 0, result.output
    assert "no judge call made" in result.stdout
    assert "statements and claims: one per sentence of the response" in result.stdout
    assert "cost: at judge.prices (not set: unknown)" in result.stdout


def test_plan__within_25_percent_of_a_cold_run_with_evidence_shown(tmp_path: Path) -> None:
    rows = [
        {**row, "id": f"{row['id']}-{n}", "answer": f"{row['answer']} Order {n} shipped."}
        for n in range(4)
        for row in ROWS
    ]
    with FakeOpenAI(handler=grade) as server:
        config = write_project(tmp_path, server.url, rows=rows)
        planned = plan(config)
        _, report = invoke(config)
    real = report["usage"]["total"]["calls"]
    assert abs(planned["judge_calls"] - real) <= 0.25 * real
    # one quote for each of the 10 worst rows, their first sentences asked once (3 distinct)
    assert planned["metrics"]["groundedness"]["steps"]["evidence"]["judge_calls"] == 3


def test_plan__repeated_requests_are_planned_once_as_the_cache_answers_them(
    tmp_path: Path,
) -> None:
    rows = [{**row, "id": f"{row['id']}-{n}"} for n in range(2) for row in ROWS]
    with FakeOpenAI(handler=grade) as server:
        config = write_project(tmp_path, server.url, rows=rows, concurrency=1)
        edit(config, "groundedness: {}", "groundedness: {evidence: none}")
        # faithfulness asks groundedness's fact checks first (the test above): left out here
        edit(config, "  faithfulness: {}\n", "")
        planned, uncached = plan(config), plan(config, "--no-cache")
        _, report = invoke(config)
    # exact requests: the second copy is a cache hit; the plan knows no fact check (one a copy)
    checks = {"groundedness": fact_checks(report) // 2, "rating": 0}
    # the rating asks its low sentence the question groundedness asked of it: the row's memo
    # answers it (no call, and no hit of the judge's cache), so the plan counts it nowhere
    assert rating_checks(report) > 0
    for name in ("groundedness", "rating"):
        real = report["usage"]["by_metric"][name]
        assert real["calls"] == real["cache_hits"]
        assert planned["metrics"][name]["judge_calls"] == real["calls"] - checks[name]
        assert uncached["metrics"][name]["judge_calls"] == 2 * (real["calls"] - checks[name])


def test_plan__a_bad_config_is_exit_2_with_one_message(tmp_path: Path) -> None:
    config = edit(
        write_project(tmp_path, "http://127.0.0.1:9/v1"), "max_retries: 2", "max_retries: -1"
    )
    result = CliRunner().invoke(cli, ["plan", "-c", str(config)], env={"FAKE_KEY": "sk-x"})
    assert result.exit_code == 2
    assert "judge.max_retries: expected an integer >= 0, got -1" in result.stderr


def test_plan__says_when_the_budget_would_stop_the_run(tmp_path: Path) -> None:
    config = write_project(tmp_path, "http://127.0.0.1:9/v1")
    edit(config, "  max_retries:", "  budget: {max_calls: 20}\n  max_retries:")
    planned = plan(config)
    assert planned["over_budget"] == [f"max_calls 20 (calls to make: {planned['to_call']})"]
    result = CliRunner().invoke(cli, ["plan", "-c", str(config)], env={"FAKE_KEY": "sk-x"})
    assert (
        "judge.budget: this run would stop early at max_calls 20 (calls to make: " in result.stdout
    )
    assert list(planned["metrics"]) == [
        "groundedness",
        "faithfulness",
        "rating",
        "summary_accuracy",
    ]


def test_plan__a_command_targets_cached_answers_are_cache_hits_as_the_re_run_finds_them(
    tmp_path: Path,
) -> None:
    """A command target with depends_on, answering with the contexts it retrieved: after one
    run, the plan counts what the re-run then does: no row sent to the command, no judge call
    (the judge's requests read the cached contexts as the row's source, as the run's do)."""
    from tests.integration.target_app import model_and_judge
    from tests.integration.test_cli_targets import command_project
    from tests.integration.test_cli_targets import invoke as run_target

    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "model.txt").write_text("v1", encoding="utf-8")
    with FakeOpenAI(handler=model_and_judge) as server:
        config = command_project(tmp_path, server.url, "contexts")
        edit(config, "      timeout_s: 20", "      timeout_s: 20\n      depends_on: [app/*.txt]")
        cold = plan(config)
        first, _ = run_target(config)
        assert first.exit_code == 0, first.output
        planned = plan(config)
        requests = server.request_count
        again, report = run_target(config)
        assert server.request_count == requests  # the re-run asked the judge nothing
    assert again.exit_code == 0, again.output
    ((cold_target,), (target,)) = cold["targets"], planned["targets"]
    assert (cold_target["calls"], cold_target["cached"], cold_target["to_call"]) == (20, 0, 20)
    assert (target["calls"], target["cached"], target["to_call"]) == (20, 20, 0)
    (ran,) = report["targets"]
    assert (ran["usage"]["calls"], ran["usage"]["cache_hits"]) == (0, 20)
    assert planned["to_call"] == report["usage"]["total"]["calls"] == 0
    assert planned["judge_calls"] == planned["cached"] == report["usage"]["total"]["cache_hits"]
