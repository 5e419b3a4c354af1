"""The four evaluators and the answers metric, one module each; `build_metrics` turns the
config into instances."""

from __future__ import annotations

from ground_gate.config.model import MetricsConfig
from ground_gate.metrics.answers import Answers
from ground_gate.metrics.base import Metric, RowSession
from ground_gate.metrics.faithfulness import Faithfulness
from ground_gate.metrics.groundedness import Groundedness
from ground_gate.metrics.rating import Rating
from ground_gate.metrics.summary_accuracy import SummaryAccuracy

__all__ = ["Metric", "RowSession", "build_metrics"]


def build_metrics(config: MetricsConfig) -> list[Metric]:
    """Enabled metrics in the order that keeps a row's document-first calls together."""
    metrics: list[Metric] = []
    if config.groundedness is not None:
        metrics.append(Groundedness(config.groundedness))
    if config.faithfulness is not None:
        metrics.append(Faithfulness(config.faithfulness))
    if config.answers is not None:
        metrics.append(Answers(config.answers))
    if config.rating is not None:
        metrics.append(Rating(config.rating))
    if config.summary_accuracy is not None:
        metrics.append(SummaryAccuracy(config.summary_accuracy))
    return metrics
