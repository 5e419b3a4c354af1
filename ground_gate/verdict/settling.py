"""Pure: whether the rows not judged yet could still change any check's decision.

A run with a baseline judges its rows one by one and stops once no value the rest could take
changes any check's decision: whether it fails (commands/run.py, `--judge-all` turns it off).
A check that passes and one shown but not gated (or not shown: `substance` until a row says
nothing) both let the pull request through: a change between them is not a decision. A row
not judged may give each score any value in [0, 1], or none (a row with nothing to judge, an
`answers` row of the other side). A check is settled when its decision (pass, fail, or
none) is the same for every such completion of the rows; the run's gate is then the one
judging every row gives.

Each side of a check has its exact reach:

- the mean against its bounds: the means the rows can reach form one interval, from every
  row not judged giving 0 to every one giving 1 (fewer values only move the mean inside it);
- the drop against `max_drop`: for a given number of rows not judged that pair with the
  baseline, the worst completion (those of them that can drop the most, each at its worst)
  raises the drop and its one-sided bound as far as any can, and the best lowers both as
  far as any can (the bound is a monotone function of the values: leaves/stats.py sorts
  them). If the worst passes, every completion of that size passes; if the best fails, every
  one fails; else both can happen;
- a context regression (`context_relevance`): possible while a row not judged had the answer
  in its source in the baseline.

A row whose question and source are unchanged keeps the baseline's answerable verdict
(`Rules.sides`): judged or not, it gives no value on the other side of `answers`, and it
cannot be a context regression, being on the baseline's side. Its context_relevance is
still taken as any value or none: a stopped run's report gives it none, judging every row
the baseline's, and any value or none covers both (a threshold on context_relevance still
waits for it).

The two sides are taken apart, so a pair of outcomes may be counted that no completion
gives; that only keeps a check open longer, never closes one early. A row not judged cannot
fail to be scored: errors are those of the rows judged.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ground_gate.config.model import Threshold
from ground_gate.config.scores import ANSWERED_SIDES, LOWER_IS_BETTER, SUBSTANCE
from ground_gate.leaves.results import RowResult
from ground_gate.verdict.dataset_scores import (
    RowScores,
    paired_change,
    row_scores,
    said_something,
)
from ground_gate.verdict.gate import OnError, context_regressions, judge_change, worse_by

RowKey = tuple[str, str]  # (dataset, row id)
Outcome = bool | None  # a check's decision: passed, failed, or neither (shown, not gated)
_ABSENT = "absent"  # no baseline: the check has no baseline side


@dataclass(frozen=True)
class Rules:
    """What decides the checks: each dataset's scores, thresholds and the baseline."""

    datasets: Sequence[str]
    scores_by_metric: Mapping[str, tuple[str, ...]]
    thresholds: Mapping[str, Mapping[str, Threshold]]
    on_error: OnError
    baseline: RowScores | None = None
    # the `answers` side ("answered" or "answered_anyway") of each row that keeps the
    # baseline's answerable verdict: its side there
    sides: Mapping[RowKey, str] = field(default_factory=dict)

    def scores(self) -> tuple[str, ...]:
        return (*(s for names in self.scores_by_metric.values() for s in names), SUBSTANCE)


def open_checks(rules: Rules, rows: Sequence[RowResult], pending: Sequence[RowKey]) -> list[RowKey]:
    """(dataset, score) of every check whose decision some value of the `pending` rows (not
    judged yet) could change, given the `rows` judged (and reused); empty: settled."""
    now = row_scores(rows)
    waiting: dict[str, list[str]] = {}
    for dataset, row_id in pending:
        waiting.setdefault(dataset, []).append(row_id)
    regressions = context_regressions(now, rules.baseline) if rules.baseline is not None else {}
    found = []
    for dataset in rules.datasets:
        ids = waiting.get(dataset)
        if not ids:
            continue  # its rows are all judged: its checks are what they are
        judged = [r for r in rows if r.dataset == dataset]
        for score in rules.scores():
            left = [i for i in ids if _may_give(rules.sides.get((dataset, i)), score)]
            if not left and score in ANSWERED_SIDES:
                continue  # every row left is on the other side: the check is what it is
            check = _Check(rules, dataset, score, judged, now, left, dataset in regressions)
            if len({outcome is False for outcome in check.outcomes()}) > 1:
                found.append((dataset, score))
    return found


@dataclass(frozen=True)
class _Check:
    rules: Rules
    dataset: str
    score: str
    rows: Sequence[RowResult]  # the dataset's rows judged
    now: RowScores
    pending: Sequence[str]  # the dataset's row ids not judged
    regressed: bool  # a context regression among the rows judged

    @property
    def threshold(self) -> Threshold | None:
        return self.rules.thresholds.get(self.dataset, {}).get(self.score)

    def values(self, scores: RowScores) -> dict[str, float]:
        return {
            i: v[self.score]
            for (d, i), v in scores.items()
            if d == self.dataset and self.score in v
        }

    def outcomes(self) -> set[Outcome]:
        """Every decision the check can end with, over the completions of the pending rows."""
        if self.score == SUBSTANCE and not self._substance_shown():
            absent: set[Outcome] = {None}  # shown only once a row says nothing
            if not self._substance_may_show():
                return absent
        else:
            absent = set()
        bounds = self._bounds()
        base = self._base()
        found = {_combined(b, c, self.threshold) for b in bounds for c in base}
        if self.score == "context_relevance" and self.rules.baseline is not None:
            if self.regressed:
                found = {False}
            elif self._may_regress():
                found.add(False)
        return found | absent

    def _substance_shown(self) -> bool:
        return 0.0 in self.values(self.now).values()

    def _substance_may_show(self) -> bool:
        return bool(self.pending)

    def _errors(self) -> int:
        if self.score == SUBSTANCE:
            return sum(
                1
                for r in self.rows
                if said_something(r) is None and any(m.status == "error" for m in r.metrics)
            )
        metric = next(m for m, names in self.rules.scores_by_metric.items() if self.score in names)
        return sum(
            1 for r in self.rows for m in r.metrics if m.metric == metric and m.status == "error"
        )

    def _bounds(self) -> set[Outcome]:
        """The decisions the mean against its bounds can end with (gate._bounds)."""
        threshold = self.threshold
        if self._errors() and self.rules.on_error == "fail":
            return {False}
        if threshold is None:
            return {None}
        values = list(self.values(self.now).values())
        n, k = len(values), len(self.pending)
        found: set[Outcome] = set()
        if n == 0 and self.score != SUBSTANCE:  # each pending row may give none: nothing measured
            found.add(False if self._in_baseline() or not threshold.allow_empty else None)
        if not threshold.bounded:
            return found | {None}
        total = math.fsum(values)
        low, high = (0.0, 1.0) if n == 0 else (total / (n + k), (total + k) / (n + k))
        low, high = round(low, 4), round(high, 4)
        least = -math.inf if threshold.min is None else threshold.min
        most = math.inf if threshold.max is None else threshold.max
        if high >= least and low <= most:
            found.add(True)
        if low < least or high > most:
            found.add(False)
        return found

    def _in_baseline(self) -> int:
        return len(self.values(self.rules.baseline)) if self.rules.baseline is not None else 0

    def _base(self) -> set[Outcome | str]:
        """The decisions the drop against max_drop can end with (gate.judge_change)."""
        baseline, threshold = self.rules.baseline, self.threshold
        if baseline is None:
            return {_ABSENT}
        if threshold is None or threshold.max_drop is None:
            return {None}
        before = self.values(baseline)
        pairing = [i for i in self.pending if i in before]
        # each pending row's worst value (its largest drop) and best
        worst_value = 1.0 if self.score in LOWER_IS_BETTER else 0.0
        best_value = 1.0 - worst_value

        def drop(row_id: str, value: float) -> float:
            return worse_by(self.score, value - before[row_id])

        by_worst = sorted(pairing, key=lambda i: drop(i, worst_value), reverse=True)
        by_best = sorted(pairing, key=lambda i: drop(i, best_value))
        found: set[Outcome | str] = set()
        for size in range(len(pairing) + 1):
            worst = self._passes({i: worst_value for i in by_worst[:size]}, threshold)
            if worst is None:
                found.add(None)  # too few rows paired for an interval
            elif worst:
                found.add(True)  # the worst completion of this size passes: each does
            elif not self._passes({i: best_value for i in by_best[:size]}, threshold):
                found.add(False)  # the best fails: each does
            else:
                found |= {True, False}
            if len(found) > 1:
                break
        return found

    def _passes(self, added: Mapping[str, float], threshold: Threshold) -> bool | None:
        """judge_change's decision with the `added` pending rows given these values."""
        assert self.rules.baseline is not None
        scores = {
            **{k: v for k, v in self.now.items() if k[0] == self.dataset},
            **{(self.dataset, i): {self.score: v} for i, v in added.items()},
        }
        change = paired_change(
            self.dataset, self.score, scores, self.rules.baseline, threshold.confidence
        )
        return judge_change(self.score, change, threshold).passed

    def _may_regress(self) -> bool:
        """Whether a pending row had the answer in its source in the baseline: judged now, it
        may no longer (gate.context_regressions)."""
        assert self.rules.baseline is not None
        return any(
            "answered" in self.rules.baseline.get((self.dataset, i), {})
            and self.rules.sides.get((self.dataset, i)) != "answered"
            for i in self.pending
        )


def _may_give(side: str | None, score: str) -> bool:
    """Whether a row not judged, on `side` (None: not known), may give `score`: not the
    other side's."""
    return side is None or score not in ANSWERED_SIDES or score == side


def _combined(bounds: Outcome, base: Outcome | str, threshold: Threshold | None) -> Outcome:
    """The check's decision from its two sides, as gate.judge_summary makes it."""
    if base is False:
        return False
    if isinstance(base, str) or threshold is None or bounds is not None:
        return bounds
    return base
