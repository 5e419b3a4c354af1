"""Pure: score summaries + thresholds -> verdicts. A missing score never passes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from ground_gate.config.model import METRIC_OF_SCORE, Threshold
from ground_gate.dataset_scores import ScoreSummary
from ground_gate.results import RowResult

OnError = Literal["fail", "skip"]


@dataclass(frozen=True)
class Verdict:
    dataset: str
    score: str
    summary: ScoreSummary
    threshold: Threshold | None
    passed: bool | None  # None: no threshold, shown for information
    reason: str


@dataclass(frozen=True)
class GateResult:
    verdicts: tuple[Verdict, ...]
    passed: bool
    incomplete: str | None  # why the run did not finish, if it did not

    @property
    def failures(self) -> tuple[Verdict, ...]:
        return tuple(v for v in self.verdicts if v.passed is False)


def meets(value: float, threshold: Threshold) -> bool:
    if threshold.min is not None and value < threshold.min:
        return False
    return threshold.max is None or value <= threshold.max


def describe(threshold: Threshold) -> str:
    parts = []
    if threshold.min is not None:
        parts.append(f"\u2265 {threshold.min:g}")
    if threshold.max is not None:
        parts.append(f"\u2264 {threshold.max:g}")
    return " and ".join(parts)


def judge_summary(summary: ScoreSummary, threshold: Threshold | None, on_error: OnError) -> Verdict:
    def verdict(passed: bool | None, reason: str) -> Verdict:
        return Verdict(summary.dataset, summary.score, summary, threshold, passed, reason)

    if summary.n_error and on_error == "fail":  # even without a threshold: errors never pass
        return verdict(False, f"{summary.n_error} row(s) could not be scored")
    if threshold is None:
        return verdict(None, "no threshold")
    if summary.mean is None:
        return verdict(False, "no row produced this score")
    if not meets(summary.mean, threshold):
        return verdict(False, f"{summary.mean:.2f} is not {describe(threshold)}")
    return verdict(True, f"{summary.mean:.2f} is {describe(threshold)}")


def evaluate(
    summaries: Sequence[ScoreSummary],
    thresholds: Mapping[str, Mapping[str, Threshold]],
    on_error: OnError,
    incomplete: str | None = None,
) -> GateResult:
    """thresholds: dataset name -> score name -> threshold (already merged with defaults)."""
    verdicts = tuple(
        judge_summary(s, thresholds.get(s.dataset, {}).get(s.score), on_error) for s in summaries
    )
    passed = incomplete is None and all(v.passed is not False for v in verdicts)
    return GateResult(verdicts, passed, incomplete)


def failing_rows(
    rows: Sequence[RowResult], thresholds: Mapping[str, Mapping[str, Threshold]]
) -> set[tuple[str, str, str]]:
    """(dataset, row id, score) for every row score that misses its threshold or errored."""
    failing = set()
    for row in rows:
        for metric in row.metrics:
            for score, threshold in thresholds.get(row.dataset, {}).items():
                errored = metric.status == "error" and score in _scores_of(metric.metric)
                missed = score in metric.scores and not meets(metric.scores[score], threshold)
                if errored or missed:
                    failing.add((row.dataset, row.sample_id, score))
    return failing


def _scores_of(metric: str) -> tuple[str, ...]:
    return tuple(s for s, m in METRIC_OF_SCORE.items() if m == metric)
