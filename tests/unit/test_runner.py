import asyncio

import pytest

from ground_gate.config.model import GroundednessConfig
from ground_gate.datasets import Sample
from ground_gate.judge.base import Completion, JudgeRequest, UnusableReplyError, with_usage
from ground_gate.leaves.errors import JudgeError, JudgeUnavailableError
from ground_gate.leaves.results import MetricResult, RowResult
from ground_gate.leaves.usage import Usage
from ground_gate.metrics.groundedness import Groundedness
from ground_gate.metrics.rating import Rating
from ground_gate.stages.evidence import add_evidence
from ground_gate.stages.runner import RunResult, run
from tests.fakes import FakeJudge, said, unit_of

METRICS = [Groundedness(GroundednessConfig(method="rating", evidence="none")), Rating()]


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


def unsupported(request: JudgeRequest) -> Completion:
    """Every sentence rated 0, and holds information; an evidence request quotes the whole
    document it was given."""
    if request.purpose == "groundedness.evidence":
        quote = unit_of(request, "document")
        return Completion(text=quote, usage=Usage(calls=1, completion_tokens=4))
    if request.purpose == "groundedness.informs":
        return said("Yes", Yes=1.0)
    return said("0", **{"0": 1.0})


def two_sentences(n: int) -> list[Sample]:
    return [
        Sample(id=f"r{i}", sources=(f"Doc {i}.",), response=f"First {i}. Second {i}.")
        for i in range(n)
    ]


async def test_add_evidence__quotes_only_the_wanted_units_and_counts_their_calls_in_the_row():
    samples = two_sentences(3)
    judge = FakeJudge(unsupported)
    metric = Groundedness(
        GroundednessConfig(method="rating")
    )  # evidence: shown, none asked while scoring
    result = await run([("a", samples)], [metric], judge, row_concurrency=2)
    assert judge.purposes().count("groundedness.evidence") == 0
    before = [r.metrics[0] for r in result.rows]

    outcome = await add_evidence(
        result,
        {("a", s.id): s for s in samples},
        {("a", "r0"): (1,), ("a", "r2"): (0, 1)},
        metric,
        judge,
        row_concurrency=2,
    )
    assert (outcome.quoted, outcome.missing, outcome.problem) == (3, 0, None)
    evidence = [[u.evidence for u in r.metrics[0].units] for r in result.rows]
    assert evidence == [
        [None, "Doc 0."],
        [None, None],
        ["Doc 2.", "Doc 2."],
    ]
    after = [r.metrics[0] for r in result.rows]
    assert [m.scores for m in after] == [m.scores for m in before]
    assert [a.usage.calls - b.usage.calls for a, b in zip(after, before, strict=True)] == [1, 0, 2]
    # six ratings, six "does it hold any information" (each sentence is rated 0), three quotes
    assert result.usage_by_metric()["groundedness"].calls == 6 + 6 + 3
    asked = [unit_of(r, "sentence") for r in judge.requests if r.purpose.endswith("evidence")]
    assert sorted(asked) == ["First 2.", "Second 0.", "Second 2."]

    # a unit that already has evidence is not asked again
    by_key = {("a", s.id): s for s in samples}
    again = await add_evidence(
        result, by_key, {("a", "r0"): (1,)}, metric, judge, row_concurrency=1
    )
    assert again.quoted == 0 and judge.purposes().count("groundedness.evidence") == 3


async def test_add_evidence__an_unavailable_judge_keeps_every_score_and_says_why():
    samples = two_sentences(2)
    metric = Groundedness(GroundednessConfig(method="rating"))
    result = await run([("a", samples)], [metric], FakeJudge(unsupported), row_concurrency=1)
    before = list(result.rows)

    def down(request: JudgeRequest) -> Completion:
        raise JudgeUnavailableError("cannot connect to 127.0.0.1:9")

    judge = FakeJudge(down)
    outcome = await add_evidence(
        result,
        {("a", s.id): s for s in samples},
        {("a", "r0"): (0, 1), ("a", "r1"): (0, 1)},
        metric,
        judge,
        row_concurrency=1,
    )
    assert outcome.problem == "the judge is unavailable: cannot connect to 127.0.0.1:9"
    assert (outcome.quoted, outcome.missing) == (0, 4)
    assert len(judge.requests) == 1  # no call is tried once the judge is known to be down
    assert [r.metrics[0].scores for r in result.rows] == [r.metrics[0].scores for r in before]
    assert all(u.evidence is None for r in result.rows for u in r.metrics[0].units)
    assert result.incomplete is None


def reply(text: str) -> Completion:
    return Completion(text=text, usage=Usage(calls=1))


async def test_run__no_usable_reply_at_all_is_incomplete_and_quotes_one():
    judge = FakeJudge(lambda r: reply("The answer is maybe 9 of 10."))
    result = await run([("a", rows(3))], METRICS, judge, row_concurrency=2)
    assert len(result.rows) == 3
    assert all(m.status == "error" for r in result.rows for m in r.metrics)
    assert result.incomplete is not None
    assert result.incomplete.startswith("no judge reply was usable, nothing could be scored: ")
    assert "'The answer is maybe 9 of 10.'" in result.incomplete


async def test_run__every_row_failing_for_another_reason_is_incomplete_too():
    def script(request: JudgeRequest) -> Completion:
        raise JudgeError("the judge at h refused the request (HTTP 400): no logprobs here")

    result = await run([("a", rows(2))], METRICS, FakeJudge(script), row_concurrency=1)
    assert result.incomplete == (
        "every row failed, nothing could be scored: the judge at h refused the request "
        "(HTTP 400): no logprobs here"
    )


async def test_run__one_usable_verdict_keeps_the_run_complete():
    def script(request: JudgeRequest) -> Completion:
        if request.purpose == "rating.rate" and "Answer 1." in unit_of(request, "answer"):
            return said("5", **{"5": 1.0})
        return reply("The answer is maybe 9 of 10.")

    result = await run([("a", rows(3))], METRICS, FakeJudge(script), row_concurrency=1)
    assert result.incomplete is None
    statuses = [m.status for r in result.rows for m in r.metrics]
    assert statuses.count("ok") == 1 and statuses.count("error") == 5
    assert "'The answer is maybe 9 of 10.'" in (result.rows[0].metrics[0].error or "")


async def test_run__requests_of_rows_abandoned_on_an_unavailable_judge_count_in_usage():
    def script(request: JudgeRequest) -> Completion:
        if "Answer 1." in request.messages[-1].content:
            failed = JudgeUnavailableError("the judge at h is unavailable: HTTP 503 (3 attempts)")
            raise with_usage(failed, Usage(calls=3, retries=2))
        return good(request)

    result = await run([("a", rows(3))], METRICS, FakeJudge(script), row_concurrency=1)
    assert result.incomplete is not None and [r.sample_id for r in result.rows] == ["r0"]
    assert result.abandoned["groundedness"].calls == 3
    assert result.usage_by_metric()["groundedness"].calls == 1 + 3


async def test_run__requests_of_a_failed_call_count_in_the_rows_metric_usage():
    def script(request: JudgeRequest) -> Completion:
        if request.purpose == "rating.rate":
            raise with_usage(UnusableReplyError("not JSON"), Usage(calls=2, retries=1))
        return good(request)

    result = await run([("a", rows(2))], METRICS, FakeJudge(script), row_concurrency=1)
    assert result.incomplete is None
    rating = result.rows[0].metrics[1]
    assert (rating.status, rating.usage.calls, rating.usage.retries) == ("error", 2, 1)
    assert result.usage_by_metric()["rating"].calls == 4
