"""Pure: score summaries + thresholds (+ a baseline's row scores) -> verdicts.

A missing score never passes: a threshold over a score no row gave is "not checked" and fails
(unless the threshold allows it to be empty). Against a baseline, a score with `max_drop`
fails when it got worse by more than max_drop AND the bound of the paired bootstrap,
one-sided at `confidence`, is still a drop of more than max_drop (see `judge_change`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from ground_gate.config.model import DEFAULT_CONFIDENCE, Threshold
from ground_gate.config.scores import LOWER_IS_BETTER, METRIC_OF_SCORE, SUBSTANCE
from ground_gate.leaves.numbers import bound, figure, holds, relation
from ground_gate.leaves.results import RowResult
from ground_gate.verdict.dataset_scores import (
    MIN_PAIRED,
    PairedChange,
    RowScores,
    ScoreSummary,
    paired_change,
    row_scores,
    said_something,
)

OnError = Literal["fail", "skip"]
# Why a dataset has no row of an answers score although the metric scored its rows
NO_ROW_OF_THE_KIND: Mapping[str, str] = {
    "answered": "no row's source holds what the row asks",
    "answered_anyway": "no row's source lacks what the row asks",
    "context_relevance": "no row's answerability was judged (each states it, or asks nothing)",
}
# a change against the baseline: significantly worse or better at the confidence, or neither
Direction = Literal["worse", "better", "noise"]


@dataclass(frozen=True)
class BaselineVerdict:
    """A score's change against the baseline, and what the gate made of it."""

    change: PairedChange
    max_drop: float | None  # None: shown, never gated
    direction: Direction | None  # None: too few paired rows for an interval
    passed: bool | None  # None: not gated (no max_drop) or not checked (too few paired rows)
    reason: str


@dataclass(frozen=True)
class Verdict:
    dataset: str
    score: str
    summary: ScoreSummary
    threshold: Threshold | None
    passed: bool | None  # None: no threshold, shown for information
    reason: str
    baseline: BaselineVerdict | None = None  # None: no baseline was given


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


def describe(value: float, threshold: Threshold, least: int = 2) -> str:
    """The mean against its bounds, with the decimals that make it read true (`least` at
    least: a renderer's spelling of the same mean); only the bound it misses when it misses
    one: "0.101 > max 0.10", "0.91 \u2265 min 0.80"."""
    bounds = [(k, b) for k, b in (("min", threshold.min), ("max", threshold.max)) if b is not None]
    missed = [(k, b) for k, b in bounds if not holds(value, k, b)]
    shown = figure(value, [b for _, b in bounds], least)
    return " and ".join(
        f"{shown} {relation(value, k, b)} {k} {bound(b)}" for k, b in (missed or bounds)
    )


def percent(confidence: float) -> str:
    """0.95 -> '95%', 0.975 -> '97.5%'."""
    return f"{confidence * 100:g}%"


def worse_by(score: str, delta: float) -> float:
    """How much worse a change of `delta` (now - before) is; negative when it is better."""
    return delta if score in LOWER_IS_BETTER else -delta


def judge_change(score: str, change: PairedChange, threshold: Threshold | None) -> BaselineVerdict:
    """The baseline gate. The interval's ends are one-sided bounds at `confidence`; the one on
    the better side is the least the score may have got worse (`least`). It fails when

        worse_by(delta) > max_drop  and  least > max_drop

    i.e. the drop is larger than the margin and significantly so; a drop within the margin,
    or one that the interval does not separate from the margin, passes. With fewer than
    MIN_PAIRED paired rows nothing is checked (passed None) and the reason says so."""
    max_drop = threshold.max_drop if threshold else None
    interval, delta = change.interval, change.delta
    if interval is None or delta is None:  # fewer than MIN_PAIRED paired rows
        reason = _too_few(change)
        if max_drop is not None:
            reason += f": max_drop {bound(max_drop)} is not checked"
        return BaselineVerdict(change, max_drop, None, None, reason)
    drop = worse_by(score, delta)
    least, most = sorted((worse_by(score, interval[0]), worse_by(score, interval[1])))
    direction: Direction = "worse" if least > 0 else "better" if most < 0 else "noise"
    margin = () if max_drop is None else (max_drop,)
    said = f"{figure(abs(drop), margin, 3)} {'worse' if drop > 0 else 'better'} than the baseline"
    said = (
        said if drop else "unchanged from the baseline"
    ) + f" over the {change.paired} rows in both runs"
    level = percent(change.confidence)
    passed: bool | None = None
    if max_drop is None:
        reason = said
    elif drop <= max_drop:
        passed, reason = True, f"{said}: within max_drop {bound(max_drop)}"
    elif least > max_drop:
        passed = False
        reason = (
            f"{said}: more than max_drop {bound(max_drop)}, and at least "
            f"{figure(least, margin, 3)} worse at {level} confidence"
        )
    else:
        passed = True
        # the interval's better end is within max_drop: past it, but not surely; and only
        # when that end reaches 0 is the drop itself not shown beyond noise
        if least > 0:
            unsure = f"not surely: at {level} confidence it may be only"
            unsure += f" {figure(least, margin, 3)} worse, within it"
        else:
            unsure = f"not shown beyond noise: at {level} confidence it may be no worse at all"
        reason = f"{said}: more than max_drop {bound(max_drop)}, but {unsure}, so it passes"
    return BaselineVerdict(change, max_drop, direction, passed, reason)


def _too_few(change: PairedChange) -> str:
    if change.in_baseline == 0:
        return "the baseline has no scored row of this score"
    if change.paired == 0:
        return f"no row id in common with the baseline's {change.in_baseline} scored row(s)"
    rows = f"{change.paired} row{'' if change.paired == 1 else 's'}"
    return f"only {rows} in both runs, fewer than the {MIN_PAIRED} a comparison needs"


def _bounds(
    summary: ScoreSummary, threshold: Threshold | None, on_error: OnError
) -> tuple[bool | None, str]:
    """The verdict on the mean itself: its bounds, errors and a missing score."""
    if summary.n_error and on_error == "fail":  # even without a threshold: errors never pass
        return False, f"{summary.n_error} row(s) could not be scored"
    if threshold is None:
        return None, "no threshold"
    if summary.mean is None:
        return _measured_nothing(summary, threshold)
    if not threshold.bounded:
        return None, "no baseline given: max_drop is not checked"
    return meets(summary.mean, threshold), describe(summary.mean, threshold)


def nothing_measured(summary: ScoreSummary) -> str:
    """Why no row gave the score, in words."""
    if summary.n_other and summary.score in NO_ROW_OF_THE_KIND:
        return NO_ROW_OF_THE_KIND[summary.score]
    if summary.n_no_claims and not summary.n_error:
        return f"{_each(summary.n_no_claims)} had nothing to judge"
    if summary.n_error:
        return f"{_each(summary.n_error)} could not be scored"
    return "no row gave this score"


def _each(count: int) -> str:
    return "its one row" if count == 1 else f"each of its {count} rows"


def _measured_nothing(summary: ScoreSummary, threshold: Threshold) -> tuple[bool | None, str]:
    """A check with no row to measure is not checked, and fails closed: a pull request must
    not pass a check by leaving it nothing to measure. `allow_empty` says it may be empty."""
    why = nothing_measured(summary)
    if threshold.allow_empty:
        return None, f"not checked: {why} (allow_empty)"
    return False, f"not checked: {why}; a check that measured nothing fails"


def _rows(count: int) -> str:
    return f"{count} row{'' if count == 1 else 's'}"


def judge_summary(
    summary: ScoreSummary,
    threshold: Threshold | None,
    on_error: OnError,
    change: PairedChange | None = None,
) -> Verdict:
    """The verdict on one score of one dataset; `change`: against the baseline, if one was
    given. A baseline failure fails the score whatever its bounds say."""
    passed, reason = _bounds(summary, threshold, on_error)
    if threshold is not None and summary.mean is None and change and change.in_baseline:
        # no row of the kind now, where the baseline had some: the rows moved, not vanished
        passed = False
        reason += f", where the baseline had {_rows(change.in_baseline)} of it"
    base = None if change is None else judge_change(summary.score, change, threshold)
    if base is not None and base.passed is False:
        reason = base.reason if passed is not False else f"{reason}; {base.reason}"
        passed = False
    elif base is not None and threshold is not None and passed is None:
        passed, reason = base.passed, base.reason  # only max_drop: the baseline decides
    return Verdict(summary.dataset, summary.score, summary, threshold, passed, reason, base)


def evaluate(
    summaries: Sequence[ScoreSummary],
    thresholds: Mapping[str, Mapping[str, Threshold]],
    on_error: OnError,
    incomplete: str | None = None,
    *,
    rows: Sequence[RowResult] = (),
    baseline: RowScores | None = None,
) -> GateResult:
    """thresholds: dataset name -> score name -> threshold (already merged with defaults).
    baseline: a baseline report's row scores; every score is then compared with it over the
    `rows` paired by id, and the ones with max_drop are gated on it."""
    now = row_scores(rows) if baseline is not None else {}
    verdicts = []
    for s in summaries:
        threshold = thresholds.get(s.dataset, {}).get(s.score)
        change = None
        if baseline is not None:
            confidence = threshold.confidence if threshold else DEFAULT_CONFIDENCE
            change = paired_change(s.dataset, s.score, now, baseline, confidence)
        verdicts.append(judge_summary(s, threshold, on_error, change))
    if baseline is not None:
        regressions = context_regressions(now, baseline)
        verdicts = [_with_regressions(v, regressions) for v in verdicts]
    passed = incomplete is None and all(v.passed is not False for v in verdicts)
    return GateResult(tuple(verdicts), passed, incomplete)


def context_regressions(now: RowScores, baseline: RowScores) -> dict[str, list[str]]:
    """dataset -> the ids of its rows whose source held the answer in the baseline and, as
    judged now, does not: the contexts the pull request's code retrieved lost it. Such a row
    leaves the `answered` side, where a decline would count against it: the pull request
    would choose the denominator. Rows whose side the dataset states are not judged."""
    out: dict[str, list[str]] = {}
    for (dataset, row_id), scores in sorted(now.items()):
        if lost_the_answer(scores, baseline.get((dataset, row_id), {})):
            out.setdefault(dataset, []).append(row_id)
    return out


def lost_the_answer(now: Mapping[str, float], before: Mapping[str, float]) -> bool:
    """Whether a row's scores say its source held the answer in the baseline (`answered`
    there) and, as judged now (context_relevance given), no longer does."""
    return "context_relevance" in now and "answered_anyway" in now and "answered" in before


def _with_regressions(verdict: Verdict, regressions: Mapping[str, list[str]]) -> Verdict:
    """context_relevance failed by its dataset's context regressions, threshold or not."""
    ids = regressions.get(verdict.dataset)
    if verdict.score != "context_relevance" or not ids:
        return verdict
    shown = ", ".join(ids[:5]) + (f" and {len(ids) - 5} more" if len(ids) > 5 else "")
    said = (
        f"context regression: {_rows(len(ids))} whose source held the answer in the baseline "
        f"no longer hold{'s' if len(ids) == 1 else ''} it ({shown})"
    )
    reason = said if verdict.passed is not False else f"{verdict.reason}; {said}"
    return replace(verdict, passed=False, reason=reason)


def failing_rows(
    rows: Sequence[RowResult], thresholds: Mapping[str, Mapping[str, Threshold]]
) -> set[tuple[str, str, str]]:
    """(dataset, row id, score) for every row score that misses its threshold or errored; and
    substance for a row that says nothing, where substance has a threshold."""
    failing = set()
    for row in rows:
        if SUBSTANCE in thresholds.get(row.dataset, {}) and said_something(row) == 0.0:
            failing.add((row.dataset, row.sample_id, SUBSTANCE))
        for metric in row.metrics:
            for score, threshold in thresholds.get(row.dataset, {}).items():
                errored = metric.status == "error" and score in _scores_of(metric.metric)
                missed = score in metric.scores and not meets(metric.scores[score], threshold)
                if errored or missed:
                    failing.add((row.dataset, row.sample_id, score))
    return failing


def _scores_of(metric: str) -> tuple[str, ...]:
    return tuple(s for s, m in METRIC_OF_SCORE.items() if m == metric)
