"""The evidence pass: after the gate, quote the source for chosen units only (the ones the
report shows, with `evidence: shown`); it never changes a score.

A judge failure leaves the unit without evidence and is reported, never raised: a missing
quote is not a missing score. Once the judge is unavailable no call is tried.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from ground_gate.datasets import Sample
from ground_gate.judge.base import Judge
from ground_gate.leaves.errors import JudgeError, JudgeUnavailableError
from ground_gate.leaves.results import MetricResult, UnitResult, without_judge
from ground_gate.leaves.usage import Usage
from ground_gate.metrics import RowSession
from ground_gate.metrics.worse_reading import judged_on
from ground_gate.stages.runner import RunResult


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
    # a unit decided without the judge (cut, hidden, in none of the source's words): no chunk
    # was read for it, nothing to quote
    indices = [i for i in indices if not without_judge(found.units[i].detail)]

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
            sample = judged_on(samples[key], found[0])
            quotes = await _quote_units(sample, found[0], todo, metric, session, outcome)
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
