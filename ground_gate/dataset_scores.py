"""Per (dataset, score) summaries of row results: mean, counts and a bootstrap interval."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ground_gate.results import RowResult
from ground_gate.stats import bootstrap_ci, mean


@dataclass(frozen=True)
class ScoreSummary:
    dataset: str
    score: str
    mean: float | None  # None: no row produced this score
    n: int  # rows that produced the score
    n_error: int  # rows whose metric failed
    n_no_claims: int  # rows with nothing to judge (no claim, no question)
    ci95: tuple[float, float] | None


def summarise(
    rows: Sequence[RowResult], datasets: Sequence[str], scores_by_metric: dict[str, tuple[str, ...]]
) -> list[ScoreSummary]:
    summaries = []
    for dataset in datasets:
        dataset_rows = [r for r in rows if r.dataset == dataset]
        for metric, score_names in scores_by_metric.items():
            results = [m for r in dataset_rows for m in r.metrics if m.metric == metric]
            n_error = sum(1 for m in results if m.status == "error")
            n_no_claims = sum(1 for m in results if m.status == "no_claims")
            for score in score_names:
                values = [m.scores[score] for m in results if m.status == "ok"]
                summaries.append(
                    ScoreSummary(
                        dataset=dataset,
                        score=score,
                        mean=round(mean(values), 4) if values else None,
                        n=len(values),
                        n_error=n_error,
                        n_no_claims=n_no_claims,
                        ci95=_rounded(bootstrap_ci(values)) if values else None,
                    )
                )
    return summaries


def _rounded(interval: tuple[float, float]) -> tuple[float, float]:
    return (round(interval[0], 4), round(interval[1], 4))
