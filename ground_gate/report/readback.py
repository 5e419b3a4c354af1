"""A JSON report read back into what it was built from: rows, thresholds, usage.

The inverse of `json_report`, for `ground-gate merge`: the shards' rows go through the same
summaries, gate and report builder as a run's, so a merged report is computed, never
stitched. Reads a report that matches the published schema (check it first).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ground_gate.config.model import DEFAULT_CONFIDENCE, METRIC_OF_SCORE, Threshold
from ground_gate.judge.base import Usage
from ground_gate.results import MetricResult, RowResult, UnitResult

Report = Mapping[str, Any]


def _usage(raw: Mapping[str, Any]) -> Usage:
    return Usage.from_dict(dict(raw)) or Usage()


def _unit(unit: Mapping[str, Any]) -> UnitResult:
    return UnitResult(
        text=unit["text"],
        score=unit["score"],
        verdict=unit["verdict"],
        evidence=unit["evidence"],
        detail=dict(unit["detail"]),
    )


def _metric(name: str, metric: Mapping[str, Any]) -> MetricResult:
    return MetricResult(
        metric=name,
        status=metric["status"],
        scores=dict(metric["scores"]),
        units=tuple(_unit(u) for u in metric["units"]),
        error=metric["error"],
        usage=_usage(metric["usage"]),
    )


def row_result(row: Mapping[str, Any]) -> RowResult:
    return RowResult(
        dataset=row["dataset"],
        sample_id=row["id"],
        metrics=tuple(_metric(name, m) for name, m in row["metrics"].items()),
        seconds=row["seconds"],
        addressed=tuple((a["field"], a["text"]) for a in row.get("addressed_to_judge", ())),
    )


def thresholds(report: Report) -> dict[str, dict[str, Threshold]]:
    """dataset -> score -> the threshold the gate applied, for every score that had one."""
    out: dict[str, dict[str, Threshold]] = {}
    for entry in report["scores"]:
        bounds = entry["threshold"]
        out.setdefault(entry["dataset"], {})
        if bounds is not None:
            out[entry["dataset"]][entry["score"]] = Threshold(
                min=bounds.get("min"),
                max=bounds.get("max"),
                max_drop=bounds.get("max_drop"),
                confidence=bounds.get("confidence", DEFAULT_CONFIDENCE),
            )
    return out


def scores_by_metric(report: Report) -> dict[str, tuple[str, ...]]:
    """metric -> its score names, in the report's order (the order the summaries follow)."""
    out: dict[str, list[str]] = {}
    for entry in report["scores"]:
        names = out.setdefault(METRIC_OF_SCORE[entry["score"]], [])
        if entry["score"] not in names:
            names.append(entry["score"])
    return {metric: tuple(names) for metric, names in out.items()}


def usage_by_metric(report: Report) -> dict[str, Usage]:
    return {name: _usage(u) for name, u in report["usage"]["by_metric"].items()}
