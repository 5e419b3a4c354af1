"""Datasets x metrics -> row results, concurrently within the judge's bound.

Rows run `row_concurrency` at a time; inside a row every metric first makes its calls that do
not read the document, then all document-first calls follow back to back (prefix reuse).
A metric that fails on a row is kept as an error result for that row, never dropped. When
the judge is unreachable the run stops scheduling rows and says why (`RunResult.incomplete`).
Results are appended to `RunResult.rows` as rows finish, so an interrupted run keeps them.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ground_gate.datasets import Sample
from ground_gate.errors import JudgeError, JudgeUnavailableError
from ground_gate.judge.base import Completion, Judge, Usage
from ground_gate.metrics import Metric, RowSession
from ground_gate.results import MetricCost, MetricResult, RowResult

Progress = Callable[[int, int], None]


@dataclass
class RunResult:
    rows: list[RowResult] = field(default_factory=list)
    total: int = 0
    incomplete: str | None = None
    seconds: float = 0.0

    def usage_by_metric(self) -> dict[str, Usage]:
        usage: dict[str, Usage] = {}
        for row in self.rows:
            for metric in row.metrics:
                usage.setdefault(metric.metric, Usage()).add(metric.usage)
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


async def score_row(
    dataset: str, sample: Sample, metrics: Sequence[Metric], judge: Judge
) -> RowResult:
    started = time.monotonic()
    memo: dict[tuple[Any, ...], Completion] = {}
    sessions = [RowSession(judge, m.name, memo=memo) for m in metrics]
    plans: list[Any] = []
    for metric, session in zip(metrics, sessions, strict=True):
        try:
            plans.append(await metric.prepare(sample, session))
        except JudgeUnavailableError:
            raise
        except JudgeError as exc:
            plans.append(exc)
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
    return RowResult(dataset, sample.id, tuple(results), round(time.monotonic() - started, 3))


def _error(metric: Metric, session: RowSession, exc: Exception) -> MetricResult:
    return session.result("error", error=str(exc))


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

    async def one(dataset: str, sample: Sample) -> None:
        async with gate:
            if stop.is_set():
                return
            try:
                row = await score_row(dataset, sample, metrics, judge)
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
    return result
