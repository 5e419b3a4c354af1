import asyncio

import pytest

from ground_gate.config.model import GroundednessConfig
from ground_gate.datasets import Sample
from ground_gate.errors import JudgeError, JudgeUnavailableError
from ground_gate.judge.base import Completion, JudgeRequest, Usage
from ground_gate.metrics.groundedness import Groundedness
from ground_gate.metrics.rating import Rating
from ground_gate.results import MetricResult, RowResult
from ground_gate.runner import RunResult, run
from tests.fakes import FakeJudge, said, unit_of

METRICS = [Groundedness(GroundednessConfig(evidence="none")), Rating()]


def rows(n: int, prefix: str = "r") -> list[Sample]:
    return [
        Sample(id=f"{prefix}{i}", sources=(f"Doc {i}.",), response=f"Answer {i}.") for i in range(n)
    ]


def good(request: JudgeRequest) -> Completion:
    return said("5", **{"5": 1.0}) if request.purpose == "rating.rate" else said("9", **{"9": 1.0})


async def test_run__every_row_scored_in_input_order_with_progress():
    seen = []
    result = await run(
        [("a", rows(3)), ("b", rows(2, "s"))],
        METRICS,
        FakeJudge(good),
        row_concurrency=4,
        progress=lambda done, total: seen.append((done, total)),
    )
    assert [(r.dataset, r.sample_id) for r in result.rows] == [
        ("a", "r0"),
        ("a", "r1"),
        ("a", "r2"),
        ("b", "s0"),
        ("b", "s1"),
    ]
    assert result.incomplete is None
    assert seen[-1] == (5, 5)
    assert all(m.status == "ok" for r in result.rows for m in r.metrics)


async def test_run__a_judge_error_is_kept_as_that_rows_error_not_dropped():
    def script(request: JudgeRequest) -> Completion:
        if request.purpose == "rating.rate" and "Answer 1." in unit_of(request, "answer"):
            raise JudgeError("rating.rate: the judge kept answering invalid JSON")
        return good(request)

    result = await run([("a", rows(3))], METRICS, FakeJudge(script), row_concurrency=1)
    assert len(result.rows) == 3
    broken = result.rows[1].metrics
    assert [(m.metric, m.status) for m in broken] == [("groundedness", "ok"), ("rating", "error")]
    assert broken[1].error == "rating.rate: the judge kept answering invalid JSON"


async def test_run__unavailable_judge_stops_the_run_and_says_why():
    calls = []

    def script(request: JudgeRequest) -> Completion:
        calls.append(request)
        raise JudgeUnavailableError("cannot connect to 127.0.0.1:9")

    result = await run([("a", rows(5))], METRICS, FakeJudge(script), row_concurrency=1)
    assert result.rows == []
    assert result.incomplete == "the judge is unavailable: cannot connect to 127.0.0.1:9"
    assert len(calls) == 1


async def test_run__rows_are_kept_when_cancelled():
    """Ctrl-C under asyncio.run cancels the main task; finished rows must survive."""
    result = RunResult()
    task = None

    def progress(done: int, total: int) -> None:
        if done == 2:
            task.cancel()

    task = asyncio.ensure_future(
        run(
            [("a", rows(4))],
            METRICS,
            FakeJudge(good),
            row_concurrency=1,
            result=result,
            progress=progress,
        )
    )
    with pytest.raises(asyncio.CancelledError):
        await task
    assert [r.sample_id for r in result.rows] == ["r0", "r1"]
    assert result.incomplete == "interrupted"


def test_run_result__cost_per_row_leaves_out_rows_whose_cost_was_not_recorded():
    def row(sample_id: str, cost: Usage) -> RowResult:
        return RowResult(
            "d", sample_id, (MetricResult("rating", "ok", {"rating": 1.0}, cost=cost),)
        )

    result = RunResult(
        rows=[
            row("a", Usage(calls=2, seconds=4.0)),
            row("b", Usage(calls=4, seconds=2.0)),
            row("c", Usage(cache_hits=1, unrecorded=1)),
        ]
    )
    cost = result.cost_by_metric()["rating"]
    assert (cost.rows, cost.unrecorded_rows) == (2, 1)
    assert (cost.per_row("calls"), cost.per_row("seconds")) == (3.0, 3.0)
