"""Per (dataset, score) summaries of row results: mean, counts and a bootstrap interval; and
the paired change of a score against a baseline's rows."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ground_gate.config.scores import SUBSTANCE
from ground_gate.leaves.results import RowResult
from ground_gate.leaves.stats import bootstrap_bounds, bootstrap_ci, mean

# (dataset, row id) -> score name -> value, for the rows whose metric's status is ok: the
# current run's (row_scores) or a baseline report's (report.baseline.baseline_scores)
RowScores = Mapping[tuple[str, str], Mapping[str, float]]
MIN_PAIRED = 2  # fewer rows in both runs: no interval, so no baseline verdict
# the metrics that draw units from a response, and leave a row that states nothing out of
# their means (status no_claims)
UNIT_METRICS = ("groundedness", "faithfulness", "summary_accuracy")
ANSWERED_AT = 0.5  # answers' `answered` below it: the row did not answer (0 by default)


@dataclass(frozen=True)
class ScoreSummary:
    dataset: str
    score: str
    mean: float | None  # None: no row produced this score
    n: int  # rows that produced the score
    n_error: int  # rows whose metric failed
    n_no_claims: int  # rows with nothing to judge (no claim, no question)
    ci95: tuple[float, float] | None
    # rows the metric scored that give another of its scores instead of this one (the answers
    # metric's answered / answered_anyway, by whether the source holds the answer)
    n_other: int = 0


def said_something(row: RowResult) -> float | None:
    """The row's substance: 1 when its response says something, 0 when it says nothing (a
    decline, an evasion, a greeting, markup with no word); None when it cannot be told (its
    metrics failed) or does not count (the answers metric found its source cannot answer:
    declining is right there). From the metrics' results, with no judge call: the answers
    metric's verdict where it ran, else whether any metric that draws units found one."""
    by_name = {m.metric: m for m in row.metrics}
    answers = by_name.get("answers")
    if answers is not None and answers.status == "ok":
        answered = answers.scores.get("answered")
        return None if answered is None else float(answered >= ANSWERED_AT)
    units = [by_name[name] for name in UNIT_METRICS if name in by_name]
    if any(m.status == "ok" for m in units):
        return 1.0
    if units and all(m.status == "no_claims" for m in units):
        return 0.0
    if not units and any(m.status == "ok" for m in row.metrics):
        return 1.0  # a rating of the whole response: a decline rates low there
    return None


def _substance(dataset: str, rows: Sequence[RowResult]) -> ScoreSummary | None:
    """The dataset's substance, when a row says nothing: shown (and gated against the
    baseline) only where there is something to say."""
    said = [said_something(r) for r in rows]
    values = [v for v in said if v is not None]
    if not values or min(values) == 1.0:
        return None
    errors = sum(1 for r, v in zip(rows, said, strict=True) if v is None and _failed(r))
    return ScoreSummary(
        dataset=dataset,
        score=SUBSTANCE,
        mean=round(mean(values), 4),
        n=len(values),
        n_error=errors,
        n_no_claims=0,
        ci95=_rounded(bootstrap_ci(values)),
        n_other=len(said) - len(values) - errors,
    )


def _failed(row: RowResult) -> bool:
    return any(m.status == "error" for m in row.metrics)


def summarise(
    rows: Sequence[RowResult], datasets: Sequence[str], scores_by_metric: dict[str, tuple[str, ...]]
) -> list[ScoreSummary]:
    """Per dataset, each score's summary in `scores_by_metric`'s order, then its substance
    when a row says nothing."""
    summaries = []
    for dataset in datasets:
        dataset_rows = [r for r in rows if r.dataset == dataset]
        for metric, score_names in scores_by_metric.items():
            results = [m for r in dataset_rows for m in r.metrics if m.metric == metric]
            n_error = sum(1 for m in results if m.status == "error")
            n_no_claims = sum(1 for m in results if m.status == "no_claims")
            ok = [m for m in results if m.status == "ok"]
            for score in score_names:
                values = [m.scores[score] for m in ok if score in m.scores]
                summaries.append(
                    ScoreSummary(
                        dataset=dataset,
                        score=score,
                        mean=round(mean(values), 4) if values else None,
                        n=len(values),
                        n_error=n_error,
                        n_no_claims=n_no_claims,
                        ci95=_rounded(bootstrap_ci(values)) if values else None,
                        n_other=len(ok) - len(values),
                    )
                )
        substance = _substance(dataset, dataset_rows)
        if substance is not None:
            summaries.append(substance)
    return summaries


def _rounded(interval: tuple[float, float]) -> tuple[float, float]:
    return (round(interval[0], 4), round(interval[1], 4))


@dataclass(frozen=True)
class PairedChange:
    """One score of one dataset against a baseline, over the rows scored in both runs.

    delta: mean of (now - before) over the paired rows; None when no row is paired.
    interval: (low, high), the `1 - confidence` and `confidence` percentiles of the paired
        bootstrap of that mean (stats.bootstrap_bounds): each end is a one-sided bound at
        `confidence`; None with fewer than MIN_PAIRED paired rows.
    """

    paired: int  # rows scored (status ok) in both runs
    in_baseline: int  # rows of this dataset with this score in the baseline
    before: float | None  # the baseline's mean over the paired rows
    delta: float | None
    interval: tuple[float, float] | None
    confidence: float


def row_scores(rows: Sequence[RowResult]) -> dict[tuple[str, str], dict[str, float]]:
    """The scores of every row whose metric's status is ok, and its substance, by (dataset,
    row id)."""
    scores: dict[tuple[str, str], dict[str, float]] = {}
    for row in rows:
        for metric in row.metrics:
            if metric.status == "ok":
                scores.setdefault((row.dataset, row.sample_id), {}).update(metric.scores)
        said = said_something(row)
        if said is not None:
            scores.setdefault((row.dataset, row.sample_id), {})[SUBSTANCE] = said
    return scores


def paired_change(
    dataset: str, score: str, now: RowScores, before: RowScores, confidence: float
) -> PairedChange:
    """The change of `score` in `dataset` from `before` to `now`, rows paired by id (sorted, so
    the row order of either file does not move the interval)."""

    def values(scores: RowScores) -> dict[str, float]:
        return {i: v[score] for (d, i), v in scores.items() if d == dataset and score in v}

    current, baseline = values(now), values(before)
    ids = sorted(current.keys() & baseline.keys())
    differences = [current[i] - baseline[i] for i in ids]
    interval = None
    if len(ids) >= MIN_PAIRED:
        interval = _rounded(bootstrap_bounds(differences, tail=1 - confidence))
    return PairedChange(
        paired=len(ids),
        in_baseline=len(baseline),
        before=round(mean([baseline[i] for i in ids]), 4) if ids else None,
        delta=round(mean(differences), 4) if ids else None,
        interval=interval,
        confidence=confidence,
    )
