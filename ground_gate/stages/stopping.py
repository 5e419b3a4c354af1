"""When a run with a baseline may stop judging: once no row left could change any check's
decision (verdict/settling.py), counting the rows reused from the baseline as judged.

Never with `--judge-all`, without a baseline (a run that makes one judges every row) or in a
shard (a shard cannot see the other shards' rows: the decision is the merged run's)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from ground_gate.config.model import Config
from ground_gate.datasets import HeldAnswer, Sample
from ground_gate.leaves.results import RowResult
from ground_gate.report.readback import baseline_scores
from ground_gate.report.types import Report
from ground_gate.stages.judging_order import Settled
from ground_gate.stages.reuse import ReusePlan, RowKey
from ground_gate.verdict.record import ReuseRecord
from ground_gate.verdict.settling import Rules, open_checks


def settled_when(
    config: Config,
    work: Sequence[tuple[str, Sequence[Sample]]],
    scores_by_metric: Mapping[str, tuple[str, ...]],
    baseline: Report,
    reused: Iterable[RowResult],
    held: Mapping[RowKey, HeldAnswer],
) -> Settled:
    """The runner's test of whether the rows scored (with `reused`) settle every check; a
    row keeping the baseline's answerable verdict (`held`) is on the baseline's side."""
    names = [name for name, _ in work]
    rules = Rules(
        datasets=names,
        scores_by_metric=scores_by_metric,
        thresholds={d.name: config.thresholds_for(d) for d in config.datasets if d.name in names},
        on_error=config.on_error,
        baseline=baseline_scores(baseline),
        sides={key: answer.side for key, answer in held.items()},
    )
    kept = list(reused)

    def settled(rows: Sequence[RowResult], left: Sequence[RowKey]) -> bool:
        return not open_checks(rules, [*kept, *rows], left)

    return settled


def with_reused(
    work: Sequence[tuple[str, Sequence[Sample]]],
    judged: Sequence[RowResult],
    reused: Mapping[RowKey, RowResult],
) -> list[RowResult]:
    """The rows judged and the rows reused, in input order."""
    order = {key: i for i, (key, _) in enumerate(_pairs(work))}
    rows = [*judged, *(row for key, row in reused.items() if key in order)]
    return sorted(rows, key=lambda r: order.get((r.dataset, r.sample_id), len(order)))


def reuse_record(
    plan: ReusePlan,
    work: Sequence[tuple[str, Sequence[Sample]]],
    judged: Sequence[RowResult],
    settled: bool,
) -> ReuseRecord:
    """What the record keeps of the keys, the rows reused and the rows judging stopped
    before (every row neither judged nor reused, when the run stopped settled)."""
    done = {(r.dataset, r.sample_id) for r in judged} | set(plan.reused)
    return ReuseRecord(
        parts=plan.parts.as_dict(),
        keys=plan.keys,
        reused=frozenset(plan.reused),
        asked=plan.reuse is not None,
        none_because=plan.reuse.none_because if plan.reuse is not None else None,
        not_judged=tuple(k for k, _ in _pairs(work) if k not in done) if settled else (),
        judged=len(judged),
        context_keys=plan.context_keys,
    )


def _pairs(work: Sequence[tuple[str, Sequence[Sample]]]) -> list[tuple[RowKey, Sample]]:
    return [((name, s.id), s) for name, samples in work for s in samples]
