"""Datasets x metrics -> row results, concurrently within the judge's bound.

Rows run `row_concurrency` at a time; inside a row every metric first makes its calls that do
not read the document, then all document-first calls follow back to back (prefix reuse).
A metric that fails on a row is kept as an error result for that row, never dropped. When
the judge is unreachable the run stops scheduling rows and says why (`RunResult.incomplete`).
A run in which every metric of every row failed scored nothing, so it is incomplete too, and
says why with the first failure, an unusable reply quoted when there was one: a judge that
answers nothing usable (a wrong chat template, a proxy's canned text) never passes or fails a
gate on scores it did not give.
Results are appended to `RunResult.rows` as rows finish, so an interrupted run keeps them.
A row whose response holds text of uncertain visibility is scored with it kept and with it
taken out, each metric keeping the worse (metrics/worse_reading.py); other rows once.

`score_all` is how a command runs it: a progress display, the judge closed after, and Ctrl-C
keeping the rows already scored. The evidence pass after the gate is evidence.py's.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ground_gate.config.model import JudgeConfig
from ground_gate.config.providers import requests_at_once
from ground_gate.datasets import Sample
from ground_gate.judge.base import Completion, Judge, UnusableReplyError
from ground_gate.leaves.errors import JudgeError, JudgeUnavailableError
from ground_gate.leaves.progress import RowProgress
from ground_gate.leaves.results import MetricCost, MetricResult, RowResult
from ground_gate.leaves.usage import Usage
from ground_gate.metrics import Metric, RowSession
from ground_gate.metrics.worse_reading import (
    each_alone,
    needs_second_look,
    nothing_visible,
    too_many_alone,
    worse,
    worst_of,
)
from ground_gate.stages.judging_order import JudgingOrder, Settled

Progress = Callable[[int, int], None]
T = TypeVar("T")


@dataclass
class RunResult:
    """rows: the rows scored, in input order. abandoned_sessions: (metric, its live usage) of
    the rows dropped when the judge became unavailable; their requests count in the usage too,
    those still in flight when the row was dropped included."""

    rows: list[RowResult] = field(default_factory=list)
    total: int = 0
    incomplete: str | None = None
    seconds: float = 0.0
    abandoned_sessions: list[tuple[str, Usage]] = field(default_factory=list)
    settled: bool = False  # judging stopped before every row: no row left could change a check

    @property
    def abandoned(self) -> dict[str, Usage]:
        """What the dropped rows spent, per metric."""
        spent: dict[str, Usage] = {}
        for name, usage in self.abandoned_sessions:
            spent.setdefault(name, Usage()).add(usage)
        return spent

    def usage_by_metric(self) -> dict[str, Usage]:
        usage: dict[str, Usage] = {}
        for row in self.rows:
            for metric in row.metrics:
                usage.setdefault(metric.metric, Usage()).add(metric.usage)
        for name, spent in self.abandoned.items():
            usage.setdefault(name, Usage()).add(spent)
        return usage

    def cost_by_metric(self) -> dict[str, MetricCost]:
        """What the scores cost when computed, cache hits included (see Completion.cost),
        over the rows whose cost is fully recorded."""
        cost: dict[str, MetricCost] = {}
        for row in self.rows:
            for metric in row.metrics:
                entry = cost.setdefault(metric.metric, MetricCost())
                if metric.cost.unrecorded:
                    entry.unrecorded_rows += 1
                else:
                    entry.total.add(metric.cost)
                    entry.rows += 1
        return cost


@dataclass
class RowTally:
    """What rows leave besides their results: the judge errors their metrics met, and what
    the rows abandoned on JudgeUnavailableError had spent, per metric."""

    errors: list[JudgeError] = field(default_factory=list)
    # (metric, usage) of each dropped row's sessions, live: a request still in flight when the
    # row was dropped adds to it when it ends
    abandoned: list[tuple[str, Usage]] = field(default_factory=list)


async def score_row(
    dataset: str,
    sample: Sample,
    metrics: Sequence[Metric],
    judge: Judge,
    tally: RowTally | None = None,
) -> RowResult:
    """One row scored by every metric; a metric's JudgeError becomes its error result.
    JudgeUnavailableError is raised, the row's spending kept in `tally.abandoned`."""
    tally = tally if tally is not None else RowTally()
    started = time.monotonic()
    memo: dict[tuple[Any, ...], Completion] = {}
    sessions: list[RowSession] = []

    async def reading(row: Sample, chosen: Sequence[Metric]) -> list[MetricResult]:
        opened = [RowSession(judge, m.name, memo=memo) for m in chosen]
        sessions.extend(opened)
        return await _score_metrics(row, chosen, opened, tally.errors)

    try:
        results = await reading(sample, metrics)
        if sample.uncertain_kept is not None:
            results = await _worse_readings(sample, metrics, results, reading)
    except JudgeUnavailableError:
        tally.abandoned.extend((session.metric, session.usage) for session in sessions)
        raise
    seconds = round(time.monotonic() - started, 3)
    addressed = sample.addressed
    if sample.uncertain_kept is not None:  # what either reading cut
        addressed += tuple(c for c in sample.uncertain_kept.addressed if c not in addressed)
    return RowResult(dataset, sample.id, tuple(results), seconds, addressed, sample.hidden)


async def _worse_readings(
    removed: Sample,
    metrics: Sequence[Metric],
    results: list[MetricResult],
    reading: Callable[[Sample, Sequence[Metric]], Awaitable[list[MetricResult]]],
) -> list[MetricResult]:
    """A row with text of uncertain visibility, `results` its reading with that text taken
    out: judged again with it kept, and per metric the worse of the two kept
    (metrics/worse_reading.py); a metric the reading taken out left with nothing to judge
    reads it once more with that text counted as hidden."""
    assert removed.uncertain_kept is not None
    kept = await reading(removed.uncertain_kept, metrics)
    pairs = list(zip(kept, results, strict=True))
    again = [i for i, (k, r) in enumerate(pairs) if needs_second_look(k, r)]
    second = await reading(nothing_visible(removed), [metrics[i] for i in again]) if again else []
    looked = dict(zip(again, second, strict=True))
    results = [
        worse(k, looked[i], r) if i in looked else worse(k, r) for i, (k, r) in enumerate(pairs)
    ]
    # nothing surely visible: each styled passage may show or not on its own
    alone = each_alone(removed)
    if alone is None:
        return [too_many_alone(r, removed) for r in results]
    readings = [await reading(row, metrics) for row in alone]
    return [worst_of(r, [each[i] for each in readings]) for i, r in enumerate(results)]


async def _score_metrics(
    sample: Sample,
    metrics: Sequence[Metric],
    sessions: Sequence[RowSession],
    errors: list[JudgeError],
) -> list[MetricResult]:
    plans: list[Any] = []
    for metric, session in zip(metrics, sessions, strict=True):
        try:
            plans.append(await metric.prepare(sample, session))
        except JudgeUnavailableError:
            raise
        except JudgeError as exc:
            plans.append(exc)
            errors.append(exc)
    results: list[MetricResult] = []
    for metric, session, plan in zip(metrics, sessions, plans, strict=True):
        if isinstance(plan, JudgeError):
            results.append(_error(metric, session, plan))
            continue
        try:
            results.append(await metric.score(sample, plan, session))
        except JudgeUnavailableError:
            raise
        except JudgeError as exc:
            results.append(_error(metric, session, exc))
            errors.append(exc)
    return results


def _error(metric: Metric, session: RowSession, exc: Exception) -> MetricResult:
    return session.result("error", error=str(exc))


def nothing_scored(rows: Sequence[RowResult], errors: Sequence[JudgeError]) -> str | None:
    """Why a run whose every metric on every row is an error scored nothing; None otherwise."""
    if not rows or not errors or any(m.status != "error" for r in rows for m in r.metrics):
        return None
    unusable = [e for e in errors if isinstance(e, UnusableReplyError)]
    if unusable:
        return f"no judge reply was usable, nothing could be scored: {unusable[0]}"
    return f"every row failed, nothing could be scored: {errors[0]}"


def _closed(
    result: RunResult, pairs: list[tuple[str, Sample]], started: float, errors: Sequence[JudgeError]
) -> None:
    """`result` in input order, timed, and why it is incomplete, if it is."""
    order = {(name, s.id): i for i, (name, s) in enumerate(pairs)}
    result.rows.sort(key=lambda r: order.get((r.dataset, r.sample_id), len(order)))
    result.seconds = round(time.monotonic() - started, 3)
    if result.incomplete is None and not result.settled and len(result.rows) < result.total:
        result.incomplete = "interrupted"
    if result.incomplete is None:
        result.incomplete = nothing_scored(result.rows, errors)


async def run(
    work: Sequence[tuple[str, Sequence[Sample]]],
    metrics: Sequence[Metric],
    judge: Judge,
    *,
    row_concurrency: int,
    result: RunResult | None = None,
    progress: Progress | None = None,
    settled: Settled | None = None,
) -> RunResult:
    """Score every (dataset name, samples) pair; fill and return `result`. With `settled`,
    rows go in a seeded order and none starts once the rows scored settle the run
    (`result.settled`; stages/judging_order.py); without it, in order."""
    result = result if result is not None else RunResult()
    pairs = [(name, sample) for name, samples in work for sample in samples]
    result.total = len(pairs)
    started = time.monotonic()
    gate = asyncio.Semaphore(row_concurrency)
    stop = asyncio.Event()
    tally = RowTally(abandoned=result.abandoned_sessions)
    order = JudgingOrder.of(pairs, settled)

    def check_settled() -> None:
        if not stop.is_set() and order.settles(result.rows):
            result.settled = True
            stop.set()

    async def one(dataset: str, sample: Sample) -> None:
        async with gate:
            if stop.is_set():
                return
            try:
                row = await score_row(dataset, sample, metrics, judge, tally)
            except JudgeUnavailableError as exc:
                if not stop.is_set():
                    result.incomplete = f"the judge is unavailable: {exc}"
                    stop.set()
                return
            result.rows.append(row)
            order.finished.add((dataset, sample.id))
            if progress is not None:
                progress(len(result.rows), result.total)
            check_settled()

    try:
        check_settled()  # the rows reused may settle it before any is judged
        await asyncio.gather(*(one(name, s) for name, s in order.schedule))
    finally:
        _closed(result, pairs, started, tally.errors)
    return result


def rows_at_once(config: JudgeConfig) -> int:
    """Rows scored at once: llama.cpp answers one request at a time, so one row at a time
    keeps its prefix cache warm; a remote judge takes the config's max_concurrency."""
    return requests_at_once(config)


def score_all(
    config: JudgeConfig,
    work: Sequence[tuple[str, Sequence[Sample]]],
    metrics: Sequence[Metric],
    judge: Judge,
    then: Callable[[RunResult], Awaitable[T]] | None = None,
    settled: Settled | None = None,
) -> tuple[RunResult, T | None]:
    """Run every row with a progress display; Ctrl-C keeps the rows already scored.

    then: a step run once every row was scored, with the same judge before it is closed (the
    evidence for the rows the report shows); its result is returned beside the run's. It is
    skipped (None) when the run is incomplete.
    settled: stop judging once it says the decision is settled (see `run`).
    """
    result = RunResult()
    reporter = RowProgress(label="judging rows")
    after: list[T] = []

    async def scored() -> None:
        try:
            await run(
                work,
                metrics,
                judge,
                row_concurrency=rows_at_once(config),
                result=result,
                progress=reporter,
                settled=settled,
            )
            reporter.close()
            if then is not None and result.incomplete is None:
                after.append(await then(result))
        finally:
            close = getattr(judge, "aclose", None)
            if close is not None:
                await close()

    try:
        asyncio.run(scored())
    except KeyboardInterrupt:
        result.incomplete = (
            "interrupted (Ctrl-C or SIGTERM); the rows scored before are kept and a re-run resumes "
            "from the judge cache"
        )
    finally:
        reporter.close()
    return result, (after[0] if after else None)
