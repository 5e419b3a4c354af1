"""The JSON report: a run's record and its verdicts written as the published shape.

Its shape is `report.types.Report`, published as `report.schema.json` (report/schema.py).
Fields are only ever added within a schema version (`evidence` came later in version 1), so
readers of a baseline must not require them. `build_report` is the one function from a run's
record to the report, for a run and a merge alike; report/readback.py is its inverse.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import cast

from ground_gate import __version__
from ground_gate.config.model import Threshold
from ground_gate.leaves.results import MetricResult, RowResult, UnitResult
from ground_gate.leaves.usage import Usage
from ground_gate.report.reuse_entries import add_reuse
from ground_gate.report.schema import SCHEMA_VERSION
from ground_gate.report.types import (
    BaselineEntry,
    BudgetEntry,
    ConfigRef,
    DatasetEntry,
    EvidenceSummary,
    MetricEntry,
    Report,
    RowEntry,
    RowText,
    RunStatus,
    ScoreEntry,
    ShardEntry,
    TargetEntry,
    ThresholdBounds,
    UnitEntry,
    UsageCounts,
    UsageSummary,
)
from ground_gate.verdict.gate import BaselineVerdict, GateResult, Verdict, failing_rows
from ground_gate.verdict.record import BudgetRecord, DatasetRecord, RowKey, RowTexts, RunRecord

# Characters of each field a row's `text` keeps: enough for the page to show a document and
# its highlighted evidence, bounded so that 1,000 rows of long documents stay a few MB.
TEXT_LIMITS = {"source": 20_000, "question": 2_000, "response": 8_000}
# UTF-8 bytes of row texts one report carries in all (24 MiB). The fork-safe comment job
# refuses a report over 64 MiB (report_files.ARTIFACT_MAX_BYTES), and a few thousand
# long-document rows would pass that by their texts alone: past this budget, rows are written
# without their texts, failing rows kept first. The units and usage still grow with the rows.
TEXT_BUDGET_BYTES = 24 * 1024 * 1024


def _status(gate: GateResult) -> RunStatus:
    if gate.incomplete:
        return "incomplete"
    return "passed" if gate.passed else "failed"


def _threshold(threshold: Threshold | None) -> ThresholdBounds | None:
    if threshold is None:
        return None
    bounds: ThresholdBounds = {}
    if threshold.min is not None:
        bounds["min"] = threshold.min
    if threshold.max is not None:
        bounds["max"] = threshold.max
    if threshold.max_drop is not None:
        bounds["max_drop"] = threshold.max_drop
        bounds["confidence"] = threshold.confidence
    if threshold.allow_empty:
        bounds["allow_empty"] = True
    return bounds


def _baseline(verdict: BaselineVerdict) -> BaselineEntry:
    change = verdict.change
    return {
        "paired": change.paired,
        "in_baseline": change.in_baseline,
        "before": change.before,
        "delta": change.delta,
        "interval": list(change.interval) if change.interval else None,
        "confidence": change.confidence,
        "max_drop": verdict.max_drop,
        "direction": verdict.direction,
        "passed": verdict.passed,
        "reason": verdict.reason,
    }


def _score(verdict: Verdict) -> ScoreEntry:
    summary = verdict.summary
    entry: ScoreEntry = {
        "dataset": summary.dataset,
        "score": summary.score,
        "mean": summary.mean,
        "n": summary.n,
        "n_error": summary.n_error,
        "n_no_claims": summary.n_no_claims,
        "ci95": list(summary.ci95) if summary.ci95 else None,
        "threshold": _threshold(verdict.threshold),
        "passed": verdict.passed,
        "reason": verdict.reason,
    }
    if verdict.baseline is not None:
        entry["baseline"] = _baseline(verdict.baseline)
    return entry


def usage_counts(usage: Usage, cost: float | None = None) -> UsageCounts:
    """What `usage` spent, as the reports write it; `cost`: its dollars, when known."""
    counts: UsageCounts = {
        "calls": usage.calls,
        "prompt_tokens": usage.prompt_tokens,
        "completion_tokens": usage.completion_tokens,
        "cached_tokens": usage.cached_tokens,
        "cache_hits": usage.cache_hits,
        "retries": usage.retries,
        "parse_failures": usage.parse_failures,
        "seconds": usage.seconds,
        "unrecorded": usage.unrecorded,
    }
    if cost is not None:
        counts["cost_usd"] = round(cost, 6)
    return counts


def row_text(source: str, question: str | None, response: str) -> RowTexts:
    """A row's texts as the report keeps them: each field cut at its TEXT_LIMITS, and named
    in `cut` when it was."""
    fields = {"source": source, "question": question, "response": response}
    cut = tuple(k for k, v in fields.items() if v is not None and len(v) > TEXT_LIMITS[k])
    return RowTexts(
        source=source[: TEXT_LIMITS["source"]],
        question=None if question is None else question[: TEXT_LIMITS["question"]],
        response=response[: TEXT_LIMITS["response"]],
        cut=cut,
    )


def _text(texts: RowTexts) -> RowText:
    return {
        "source": texts.source,
        "question": texts.question,
        "response": texts.response,
        "cut": list(texts.cut),
    }


def _unit(unit: UnitResult) -> UnitEntry:
    return {
        "text": unit.text,
        "score": unit.score,
        "verdict": unit.verdict,
        "evidence": unit.evidence,
        "detail": dict(unit.detail),
    }


def metric_entry(result: MetricResult) -> MetricEntry:
    entry: MetricEntry = {
        "status": result.status,
        "scores": dict(result.scores),
        "error": result.error,
        "units": [_unit(u) for u in result.units],
        "usage": usage_counts(result.usage),
    }
    if result.uncertain_text is not None:
        entry["uncertain_text"] = result.uncertain_text
    return entry


def row_entry(row: RowResult, failing: Sequence[str] = ()) -> RowEntry:
    """A row as the report writes it, without its place or texts (row_result reads it back)."""
    return {
        "dataset": row.dataset,
        "id": row.sample_id,
        "seconds": row.seconds,
        "failing": sorted(failing),
        "metrics": {m.metric: metric_entry(m) for m in row.metrics},
        "addressed_to_judge": [{"field": f, "text": t} for f, t in row.addressed],
        "hidden_text": [{"field": f, "kind": k, "text": t} for f, k, t in row.hidden],
    }


def _rows(
    rows: Sequence[RowResult],
    thresholds: Mapping[str, Mapping[str, Threshold]],
    positions: Mapping[RowKey, int] | None,
    texts: Mapping[RowKey, RowTexts],
) -> list[RowEntry]:
    failing: dict[tuple[str, str], list[str]] = {}
    for dataset, sample_id, score in failing_rows(rows, thresholds):
        failing.setdefault((dataset, sample_id), []).append(score)
    kept = _within_budget(rows, failing, texts)
    entries: list[RowEntry] = []
    for row in rows:
        key = (row.dataset, row.sample_id)
        entry = row_entry(row, failing.get(key, ()))
        if positions is not None:
            entry["position"] = positions[key]
        if key in kept:
            entry["text"] = _text(texts[key])
        entries.append(entry)
    return entries


def _within_budget(
    rows: Sequence[RowResult],
    failing: Mapping[RowKey, list[str]],
    texts: Mapping[RowKey, RowTexts],
) -> set[RowKey]:
    """The rows whose texts fit TEXT_BUDGET_BYTES: failing rows first, each in row order; the
    first that does not fit ends it, so no passing row has texts that a failing row lacks."""
    keys = [(r.dataset, r.sample_id) for r in rows]
    ordered = [k for k in keys if k in failing] + [k for k in keys if k not in failing]
    kept: set[tuple[str, str]] = set()
    spent = 0
    for key in ordered:
        if key not in texts:
            continue
        text = texts[key]
        fields = (text.source, text.question or "", text.response)
        size = sum(len(v.encode("utf-8")) for v in fields)
        if spent + size > TEXT_BUDGET_BYTES:
            break
        spent += size
        kept.add(key)
    return kept


def _datasets(datasets: Sequence[DatasetRecord], rows: Sequence[RowResult]) -> list[DatasetEntry]:
    entries: list[DatasetEntry] = []
    for dataset in datasets:
        entry: DatasetEntry = {
            "name": dataset.name,
            "rows": dataset.rows,
            "scored": sum(1 for r in rows if r.dataset == dataset.name),
        }
        if dataset.digest is not None:
            entry["digest"] = dataset.digest
        entries.append(entry)
    return entries


def evidence_summary(
    rows: Iterable[RowResult], policy: str | None, problem: str | None
) -> EvidenceSummary:
    quoted = sum(1 for r in rows for m in r.metrics for u in m.units if u.evidence is not None)
    return {"policy": policy, "units": quoted, "problem": problem}


def usage_summary(
    usage_by_metric: Mapping[str, Usage], costs: Mapping[str, float] | None
) -> UsageSummary:
    total = Usage()
    for usage in usage_by_metric.values():
        total.add(usage)
    costs = costs or {}
    return {
        "by_metric": {
            name: usage_counts(u, costs.get(name)) for name, u in sorted(usage_by_metric.items())
        },
        "total": usage_counts(total, costs.get("total")),
    }


def budget_entry(budget: BudgetRecord) -> BudgetEntry:
    return {
        "limits": {
            "max_calls": budget.max_calls,
            "max_tokens": budget.max_tokens,
            "max_usd": budget.max_usd,
        },
        "spent": {
            "calls": budget.calls,
            "prompt_tokens": budget.prompt_tokens,
            "completion_tokens": budget.completion_tokens,
            "usd": None if budget.usd is None else round(budget.usd, 6),
        },
        "exceeded": budget.exceeded,
    }


def _config(record: RunRecord) -> ConfigRef:
    identity = record.config
    config: ConfigRef = {"path": identity.path, "digest": identity.digest}
    if identity.resolved:
        config["resolved_digest"] = identity.resolved
    if identity.scoring:
        config["scoring_digest"] = identity.scoring
    return config


def _shard(record: RunRecord) -> ShardEntry | None:
    if record.shard is None:
        return None
    return {
        "index": record.shard.index,
        "count": record.shard.count,
        "dataset_rows": dict(record.shard.dataset_rows),
        "baseline_digest": record.shard.baseline_digest,
    }


def build_report(record: RunRecord, gate: GateResult) -> Report:
    """The report of `record` with its verdicts (record.verdicts): a plain dict that
    json.dumps writes as it is, typed by `report.types`."""
    shard = _shard(record)
    report: Report = {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "ground-gate", "version": __version__},
        "created_at": (record.created_at or datetime.now(UTC)).isoformat(timespec="seconds"),
        "config": _config(record),
        "judge": dict(record.judge),
        "status": _status(gate),
        "passed": gate.passed,
        "incomplete": gate.incomplete,
        "on_error": record.on_error,
        "datasets": _datasets(record.datasets, record.rows),
        "scores": [_score(v) for v in gate.verdicts],
        "rows": _rows(
            record.rows,
            record.thresholds,
            record.positions if shard is not None else None,
            record.texts,
        ),
        "evidence": evidence_summary(record.rows, record.evidence_policy, record.evidence_problem),
        "usage": usage_summary(record.usage, record.costs),
        "seconds": round(record.seconds, 3),
    }
    if shard is not None:
        report["shard"] = shard
    if record.not_run:
        report["not_run"] = [
            {"dataset": dataset, "id": row_id} for dataset, row_id in record.not_run
        ]
    add_reuse(report, record.reuse)
    if record.budget is not None:
        report["budget"] = budget_entry(record.budget)
    if record.targets:
        report["targets"] = cast(list[TargetEntry], [dict(t) for t in record.targets])
    if record.source is not None and record.source.is_known():
        source = record.source
        report["source"] = {
            "commit": source.commit,
            "branch": source.branch,
            "run_url": source.run_url,
        }
    return report
