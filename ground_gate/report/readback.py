"""A JSON report read back into the record it was written from: the inverse of json_report.

For `ground-gate merge` (each shard's record) and for a baseline (its row scores). Reads a
report that passed the schema check (report_files.read_report), so every field has its type
and range: nothing here checks again.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from ground_gate.config.model import DEFAULT_CONFIDENCE, Threshold
from ground_gate.config.scores import METRIC_OF_SCORE
from ground_gate.leaves.provenance import Source
from ground_gate.leaves.results import MetricResult, RowResult, UnitResult
from ground_gate.leaves.usage import Usage
from ground_gate.report.reuse_entries import reuse_of
from ground_gate.report.types import MetricEntry, Report, RowEntry, UnitEntry, UsageCounts
from ground_gate.verdict.dataset_scores import RowScores, row_scores
from ground_gate.verdict.record import (
    BudgetRecord,
    ConfigIdentity,
    DatasetRecord,
    RowKey,
    RowTexts,
    RunRecord,
    ShardPlace,
)


def _usage(raw: UsageCounts) -> Usage:
    return Usage.from_dict(dict(raw)) or Usage()


def _unit(unit: UnitEntry) -> UnitResult:
    return UnitResult(
        text=unit["text"],
        score=unit["score"],
        verdict=unit["verdict"],
        evidence=unit["evidence"],
        detail=dict(unit["detail"]),
    )


def _metric(name: str, metric: MetricEntry) -> MetricResult:
    return MetricResult(
        metric=name,
        status=metric["status"],
        scores=dict(metric["scores"]),
        units=tuple(_unit(u) for u in metric["units"]),
        error=metric["error"],
        usage=_usage(metric["usage"]),
        uncertain_text=metric.get("uncertain_text"),
    )


def row_result(row: RowEntry) -> RowResult:
    return RowResult(
        dataset=row["dataset"],
        sample_id=row["id"],
        metrics=tuple(_metric(name, m) for name, m in row["metrics"].items()),
        seconds=row["seconds"],
        addressed=tuple((a["field"], a["text"]) for a in row.get("addressed_to_judge", ())),
        hidden=tuple((h["field"], h["kind"], h["text"]) for h in row.get("hidden_text", ())),
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
                allow_empty=bounds.get("allow_empty", False),
            )
    return out


def scores_by_metric(report: Report) -> dict[str, tuple[str, ...]]:
    """metric -> its score names, in the report's order (the order the summaries follow)."""
    out: dict[str, list[str]] = {}
    for entry in report["scores"]:
        if entry["score"] not in METRIC_OF_SCORE:  # substance: derived from the rows again
            continue
        names = out.setdefault(METRIC_OF_SCORE[entry["score"]], [])
        if entry["score"] not in names:
            names.append(entry["score"])
    return {metric: tuple(names) for metric, names in out.items()}


def _costs(report: Report) -> dict[str, float] | None:
    usage = report["usage"]
    entries = {"total": usage["total"], **usage["by_metric"]}
    costs = {name: e["cost_usd"] for name, e in entries.items() if "cost_usd" in e}
    return costs if len(costs) == len(entries) else None


def _shard(report: Report) -> tuple[ShardPlace | None, dict[RowKey, int]]:
    shard = report.get("shard")
    if shard is None:
        return None, {}
    place = ShardPlace(
        index=shard["index"],
        count=shard["count"],
        dataset_rows=dict(shard["dataset_rows"]),
        baseline_digest=shard["baseline_digest"],
    )
    positions = {(r["dataset"], r["id"]): r["position"] for r in report["rows"] if "position" in r}
    return place, positions


def _texts(report: Report) -> dict[RowKey, RowTexts]:
    return {
        (r["dataset"], r["id"]): RowTexts(
            source=r["text"]["source"],
            question=r["text"]["question"],
            response=r["text"]["response"],
            cut=tuple(r["text"]["cut"]),
        )
        for r in report["rows"]
        if "text" in r
    }


def _budget(report: Report) -> BudgetRecord | None:
    budget = report.get("budget")
    if budget is None:
        return None
    limits, spent = budget["limits"], budget["spent"]
    return BudgetRecord(
        max_calls=limits["max_calls"],
        max_tokens=limits["max_tokens"],
        max_usd=limits["max_usd"],
        calls=spent["calls"],
        prompt_tokens=spent["prompt_tokens"],
        completion_tokens=spent["completion_tokens"],
        usd=spent["usd"],
        exceeded=budget["exceeded"],
    )


def _check_scores(report: Report, by_metric: Mapping[str, tuple[str, ...]]) -> None:
    """ValueError naming the field unless every row's `ok` metric holds the scores its metric
    gives in this report, and nothing else: what the schema cannot say."""
    for i, row in enumerate(report["rows"]):
        for name, metric in row["metrics"].items():
            expected = set(by_metric.get(name, ()))
            if metric["status"] == "ok" and set(metric["scores"]) != expected:
                raise ValueError(
                    f"$.rows[{i}].metrics.{name}.scores: expected {sorted(expected)}, "
                    f"found {sorted(metric['scores'])}"
                )


def record_of(report: Report) -> RunRecord:
    """The record a (schema-valid) report was built from; ValueError naming the field when it
    does not hold together. Its verdicts are not read back: `record.verdicts` computes them
    again from the rows, as the run did."""
    by_metric = scores_by_metric(report)
    _check_scores(report, by_metric)
    config = report["config"]
    evidence = report.get("evidence")
    shard, positions = _shard(report)
    return RunRecord(
        config=ConfigIdentity(
            path=config["path"],
            digest=config["digest"],
            resolved=config.get("resolved_digest"),
            scoring=config.get("scoring_digest"),
        ),
        judge=dict(report["judge"]),
        datasets=tuple(
            DatasetRecord(d["name"], d["rows"], d.get("digest")) for d in report["datasets"]
        ),
        rows=tuple(row_result(r) for r in report["rows"]),
        scores_by_metric=by_metric,
        thresholds=thresholds(report),
        on_error=report["on_error"],
        incomplete=report["incomplete"],
        usage={name: _usage(u) for name, u in report["usage"]["by_metric"].items()},
        seconds=report["seconds"],
        evidence_policy=evidence["policy"] if evidence else None,
        evidence_problem=evidence["problem"] if evidence else None,
        costs=_costs(report),
        shard=shard,
        positions=positions,
        not_run=tuple((n["dataset"], n["id"]) for n in report.get("not_run", ())),
        budget=_budget(report),
        texts=_texts(report),
        created_at=datetime.fromisoformat(report["created_at"]),
        targets=tuple(dict(t) for t in report.get("targets", ())),
        source=_source(report),
        reuse=reuse_of(report),
    )


def _source(report: Report) -> Source | None:
    source = report.get("source")
    return None if source is None else Source(source["commit"], source["branch"], source["run_url"])


def baseline_scores(report: Report) -> RowScores:
    """A report's row scores, as the gate compares them (dataset_scores.row_scores of its
    rows read back)."""
    return row_scores([row_result(r) for r in report["rows"]])
