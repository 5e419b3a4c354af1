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

`add_evidence` is the pass after the gate that quotes evidence for chosen units only (the
ones the report shows); it never changes a score.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from ground_gate.datasets import Sample
from ground_gate.errors import JudgeError, JudgeUnavailableError
from ground_gate.judge.base import Completion, Judge, UnusableReplyError, Usage
from ground_gate.metrics import Metric, RowSession
from ground_gate.results import (
    ADDRESSED_TO_JUDGE,
    MetricCost,
    MetricResult,
    RowResult,
    UnitResult,
)

Progress = Callable[[int, int], None]


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
    sessions = [RowSession(judge, m.name, memo=memo) for m in metrics]
    try:
        results = await _score_metrics(sample, metrics, sessions, tally.errors)
    except JudgeUnavailableError:
        tally.abandoned.extend((session.metric, session.usage) for session in sessions)
        raise
    seconds = round(time.monotonic() - started, 3)
    return RowResult(dataset, sample.id, tuple(results), seconds, sample.addressed)


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


async def run(
    work: Sequence[tuple[str, Sequence[Sample]]],
    metrics: Sequence[Metric],
    judge: Judge,
    *,
    row_concurrency: int,
    result: RunResult | None = None,
    progress: Progress | None = None,
) -> RunResult:
    """Score every (dataset name, samples) pair; fill and return `result`."""
    result = result if result is not None else RunResult()
    pairs = [(name, sample) for name, samples in work for sample in samples]
    result.total = len(pairs)
    started = time.monotonic()
    gate = asyncio.Semaphore(row_concurrency)
    stop = asyncio.Event()
    tally = RowTally(abandoned=result.abandoned_sessions)

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
            if progress is not None:
                progress(len(result.rows), result.total)

    try:
        await asyncio.gather(*(one(name, s) for name, s in pairs))
    finally:
        order = {(name, s.id): i for i, (name, s) in enumerate(pairs)}
        result.rows.sort(key=lambda r: order.get((r.dataset, r.sample_id), len(order)))
        result.seconds = round(time.monotonic() - started, 3)
        if result.incomplete is None and len(result.rows) < result.total:
            result.incomplete = "interrupted"
        if result.incomplete is None:
            result.incomplete = nothing_scored(result.rows, tally.errors)
    return result


class Quoting(Protocol):
    """A metric that can quote the source as evidence for one of its units."""

    @property
    def name(self) -> str: ...

    async def quote(self, sample: Sample, unit: UnitResult, session: RowSession) -> str: ...


@dataclass
class EvidenceResult:
    quoted: int = 0  # units that got a quote in this pass
    missing: int = 0  # units asked for that have none (the judge failed on them)
    problem: str | None = None  # why, when some are missing
    judge_unavailable: bool = False  # then no further call is tried

    def failed(self, exc: JudgeError) -> None:
        self.missing += 1
        if isinstance(exc, JudgeUnavailableError):
            if not self.judge_unavailable:
                self.problem = f"the judge is unavailable: {exc}"
            self.judge_unavailable = True
        elif self.problem is None:
            self.problem = str(exc)


def _with_evidence(
    metric: MetricResult, quotes: Mapping[int, str], session: RowSession
) -> MetricResult:
    units = tuple(
        replace(u, evidence=quotes[i]) if i in quotes else u for i, u in enumerate(metric.units)
    )
    usage, cost = Usage(), Usage()
    usage.add(metric.usage)
    usage.add(session.usage)
    cost.add(metric.cost)
    cost.add(session.cost)
    return replace(metric, units=units, usage=usage, cost=cost)


async def _quote_units(
    sample: Sample,
    found: MetricResult,
    indices: Sequence[int],
    metric: Quoting,
    session: RowSession,
    outcome: EvidenceResult,
) -> dict[int, str]:
    quotes: dict[int, str] = {}
    # a unit cut before judging (it spoke to the judge) was never judged: nothing to quote
    indices = [i for i in indices if not found.units[i].detail.get(ADDRESSED_TO_JUDGE)]

    async def quote(i: int) -> None:
        if outcome.judge_unavailable:
            outcome.missing += 1
            return
        try:
            quotes[i] = await metric.quote(sample, found.units[i], session)
        except JudgeError as exc:
            outcome.failed(exc)

    await asyncio.gather(*(quote(i) for i in indices))
    outcome.quoted += len(quotes)
    return quotes


async def add_evidence(
    result: RunResult,
    samples: Mapping[tuple[str, str], Sample],
    wanted: Mapping[tuple[str, str], Sequence[int]],
    metric: Quoting,
    judge: Judge,
    *,
    row_concurrency: int,
) -> EvidenceResult:
    """Quote evidence for the units `wanted` ((dataset, row id) -> indices into `metric`'s
    units) that have none; the rows in `result` are replaced with the quotes added and the
    calls' usage counted in the metric's usage of that row.

    A judge failure leaves the unit without evidence and is reported, never raised: a
    missing quote is not a missing score. Once the judge is unavailable no call is tried.
    """
    outcome = EvidenceResult()
    started = time.monotonic()
    gate = asyncio.Semaphore(row_concurrency)
    position = {(r.dataset, r.sample_id): i for i, r in enumerate(result.rows)}

    async def one(key: tuple[str, str], indices: Sequence[int]) -> None:
        row = result.rows[position[key]]
        found = [m for m in row.metrics if m.metric == metric.name and m.status == "ok"]
        todo = [i for i in indices if found and found[0].units[i].evidence is None]
        if not todo:
            return
        async with gate:
            row_started = time.monotonic()
            session = RowSession(judge, metric.name, memo={})
            quotes = await _quote_units(samples[key], found[0], todo, metric, session, outcome)
            metrics = tuple(
                _with_evidence(m, quotes, session) if m is found[0] else m for m in row.metrics
            )
            seconds = round(row.seconds + time.monotonic() - row_started, 3)
            result.rows[position[key]] = replace(row, metrics=metrics, seconds=seconds)

    try:
        await asyncio.gather(*(one(key, indices) for key, indices in wanted.items()))
    finally:
        result.seconds = round(result.seconds + time.monotonic() - started, 3)
    return outcome
