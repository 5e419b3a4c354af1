"""The JSON report: everything a run knows, versioned so that baselines stay readable.

Its shape is `report.types.Report`, published as `report.schema.json`. Fields are only ever
added within a schema version (`evidence` came later in version 1), so readers of a baseline
must not require them.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from importlib import resources
from typing import Any

import jsonschema

from ground_gate import __version__
from ground_gate.config.model import Prices, Threshold
from ground_gate.gate import BaselineVerdict, GateResult, Verdict, failing_rows
from ground_gate.judge.base import Usage
from ground_gate.judge.budget import SpendingLimit
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
    ThresholdBounds,
    UnitEntry,
    UsageCounts,
    UsageSummary,
)
from ground_gate.results import MetricResult, RowResult, UnitResult

SCHEMA_VERSION = 1
# Characters of each field a row's `text` keeps: enough for the page to show a document and
# its highlighted evidence, bounded so that 1,000 rows of long documents stay a few MB.
TEXT_LIMITS = {"source": 20_000, "question": 2_000, "response": 8_000}
# UTF-8 bytes of row texts one report carries in all (24 MiB). The fork-safe comment job
# refuses a report over 64 MiB (github/artifact.py), and a few thousand long-document rows
# would pass that by their texts alone: past this budget, rows are written without their
# texts, failing rows kept first. The units and usage still grow with the rows.
TEXT_BUDGET_BYTES = 24 * 1024 * 1024
SCHEMA_FILE = "report.schema.json"  # beside this module, shipped in the package


def loads_strict(text: str) -> Any:
    """json.loads refusing NaN and Infinity (ValueError), which no report holds and which
    would reach a comment as "nan"."""
    return json.loads(text, parse_constant=_no_constant)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def schema() -> dict[str, Any]:
    """The report's published JSON Schema (draft 2020-12): the contract other tools read."""
    text = resources.files("ground_gate.report").joinpath(SCHEMA_FILE).read_text("utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


@functools.cache
def _validator() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(schema())  # no format checker


def schema_problems(report: Mapping[str, Any], message_chars: int | None = None) -> list[str]:
    """One line per way `report` breaks the published schema, each naming the field's path
    (`$.rows[1].status: ...`), in path order; empty for a valid report."""
    errors = sorted(_validator().iter_errors(report), key=lambda e: e.json_path)
    return [f"{e.json_path}: {e.message[:message_chars]}" for e in errors]


def schema_mismatch(report: Any) -> str | None:
    """Why `report` is not a valid report of this schema version, in one line; or None."""
    if not isinstance(report, dict) or report.get("schema_version") != SCHEMA_VERSION:
        return (
            "not a ground-gate JSON report (expected an object with schema_version "
            f"{SCHEMA_VERSION})"
        )
    problems = schema_problems(report, message_chars=160)
    if not problems:
        return None
    more = f" and {len(problems) - 1} more" if len(problems) > 1 else ""
    return f"does not match the published report schema ({problems[0]}{more})"


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


def baseline_scores(report: Mapping[str, Any]) -> dict[tuple[str, str], dict[str, float]]:
    """A report's row scores, as the gate compares them (`dataset_scores.RowScores`): every
    row's scores of the metrics whose status is ok, by (dataset, row id)."""
    scores: dict[tuple[str, str], dict[str, float]] = {}
    for row in report["rows"]:
        for metric in row["metrics"].values():
            if metric["status"] == "ok":
                scores.setdefault((row["dataset"], row["id"]), {}).update(metric["scores"])
    return scores


def _usage(usage: Usage, prices: Prices | None = None) -> UsageCounts:
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
    if prices is not None:
        counts["cost_usd"] = round(prices.cost(usage.prompt_tokens, usage.completion_tokens), 6)
    return counts


def row_text(source: str, question: str | None, response: str) -> RowText:
    """A row's texts as the report keeps them: each field cut at its TEXT_LIMITS, and named
    in `cut` when it was."""
    fields = {"source": source, "question": question, "response": response}
    cut = [k for k, v in fields.items() if v is not None and len(v) > TEXT_LIMITS[k]]
    kept = {k: v if v is None else v[: TEXT_LIMITS[k]] for k, v in fields.items()}
    return {
        "source": kept["source"] or "",
        "question": kept["question"],
        "response": kept["response"] or "",
        "cut": cut,
    }


def _unit(unit: UnitResult) -> UnitEntry:
    return {
        "text": unit.text,
        "score": unit.score,
        "verdict": unit.verdict,
        "evidence": unit.evidence,
        "detail": dict(unit.detail),
    }


def _metric(result: MetricResult) -> MetricEntry:
    return {
        "status": result.status,
        "scores": dict(result.scores),
        "error": result.error,
        "units": [_unit(u) for u in result.units],
        "usage": _usage(result.usage),
    }


def _rows(
    rows: Sequence[RowResult],
    thresholds: Mapping[str, Mapping[str, Threshold]],
    positions: Mapping[tuple[str, str], int] | None,
    texts: Mapping[tuple[str, str], RowText],
) -> list[RowEntry]:
    failing: dict[tuple[str, str], list[str]] = {}
    for dataset, sample_id, score in failing_rows(rows, thresholds):
        failing.setdefault((dataset, sample_id), []).append(score)
    kept = _within_budget(rows, failing, texts)
    entries: list[RowEntry] = []
    for row in rows:
        key = (row.dataset, row.sample_id)
        entry: RowEntry = {
            "dataset": row.dataset,
            "id": row.sample_id,
            "seconds": row.seconds,
            "failing": sorted(failing.get(key, ())),
            "metrics": {m.metric: _metric(m) for m in row.metrics},
            "addressed_to_judge": [{"field": f, "text": t} for f, t in row.addressed],
        }
        if positions is not None:
            entry["position"] = positions[key]
        if key in kept:
            entry["text"] = texts[key]
        entries.append(entry)
    return entries


def _within_budget(
    rows: Sequence[RowResult],
    failing: Mapping[tuple[str, str], list[str]],
    texts: Mapping[tuple[str, str], RowText],
) -> set[tuple[str, str]]:
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
        fields = (text["source"], text["question"] or "", text["response"])
        size = sum(len(v.encode("utf-8")) for v in fields)
        if spent + size > TEXT_BUDGET_BYTES:
            break
        spent += size
        kept.add(key)
    return kept


def _datasets(
    datasets: Sequence[tuple[str, int]],
    rows: Sequence[RowResult],
    digests: Mapping[str, str],
) -> list[DatasetEntry]:
    entries: list[DatasetEntry] = []
    for name, count in datasets:
        entry: DatasetEntry = {
            "name": name,
            "rows": count,
            "scored": sum(1 for r in rows if r.dataset == name),
        }
        if name in digests:
            entry["digest"] = digests[name]
        entries.append(entry)
    return entries


def _evidence(
    rows: Iterable[RowResult], policy: str | None, problem: str | None
) -> EvidenceSummary:
    quoted = sum(1 for r in rows for m in r.metrics for u in m.units if u.evidence is not None)
    return {"policy": policy, "units": quoted, "problem": problem}


def _usage_summary(usage_by_metric: Mapping[str, Usage], prices: Prices | None) -> UsageSummary:
    total = Usage()
    for usage in usage_by_metric.values():
        total.add(usage)
    return {
        "by_metric": {name: _usage(u, prices) for name, u in sorted(usage_by_metric.items())},
        "total": _usage(total, prices),
    }


def _budget(limit: SpendingLimit) -> BudgetEntry:
    budget, spent = limit.budget, limit.spent
    return {
        "limits": {
            "max_calls": budget.max_calls,
            "max_tokens": budget.max_tokens,
            "max_usd": budget.max_usd,
        },
        "spent": {
            "calls": spent.calls,
            "prompt_tokens": spent.prompt_tokens,
            "completion_tokens": spent.completion_tokens,
            "usd": None if spent.usd is None else round(spent.usd, 6),
        },
        "exceeded": limit.exceeded,
    }


def build_report(
    *,
    config_path: str,
    config_digest: str,
    judge: Mapping[str, Any],
    datasets: Sequence[tuple[str, int]],
    rows: Sequence[RowResult],
    gate: GateResult,
    thresholds: Mapping[str, Mapping[str, Threshold]],
    usage_by_metric: Mapping[str, Usage],
    seconds: float,
    on_error: str,
    evidence_policy: str | None = None,
    evidence_problem: str | None = None,
    created_at: datetime | None = None,
    resolved_digest: str | None = None,
    dataset_digests: Mapping[str, str] | None = None,
    shard: ShardEntry | None = None,
    positions: Mapping[tuple[str, str], int] | None = None,
    not_run: Sequence[tuple[str, str]] = (),
    prices: Prices | None = None,
    limit: SpendingLimit | None = None,
    texts: Mapping[tuple[str, str], RowText] | None = None,
) -> Report:
    """The report: a plain dict (json.dumps writes it as it is), typed by `report.types`.

    datasets: (name, rows selected) pairs in config order; dataset_digests: name -> the
    "sha256:<hex>" of its file (datasets.identity.file_digest).
    evidence_policy: groundedness's `evidence` setting (None: groundedness is off);
    evidence_problem: why some units the policy asked evidence for have none, if any.
    shard, positions: for `run --shard K/N`, the shard and each row's place among its
    dataset's rows ((dataset, row id) -> 0-based), so that a merge restores the order.
    not_run: (dataset, row id) of the rows selected but not scored (written when any).
    prices: the judge's prices, for the cost in the usage (None: unknown, not written).
    limit: judge.budget and what the run spent of it (None: no budget, not written).
    texts: (dataset, row id) -> the row's texts (`row_text`), for the HTML page; rows
    without one are written without.
    """
    config: ConfigRef = {"path": config_path, "digest": f"sha256:{config_digest}"}
    if resolved_digest:
        config["resolved_digest"] = f"sha256:{resolved_digest}"
    report: Report = {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "ground-gate", "version": __version__},
        "created_at": (created_at or datetime.now(UTC)).isoformat(timespec="seconds"),
        "config": config,
        "judge": dict(judge),
        "status": _status(gate),
        "passed": gate.passed,
        "incomplete": gate.incomplete,
        "on_error": on_error,
        "datasets": _datasets(datasets, rows, dataset_digests or {}),
        "scores": [_score(v) for v in gate.verdicts],
        "rows": _rows(rows, thresholds, positions if shard is not None else None, texts or {}),
        "evidence": _evidence(rows, evidence_policy, evidence_problem),
        "usage": _usage_summary(usage_by_metric, prices),
        "seconds": round(seconds, 3),
    }
    if shard is not None:
        report["shard"] = shard
    if not_run:
        report["not_run"] = [{"dataset": dataset, "id": row_id} for dataset, row_id in not_run]
    if limit is not None:
        report["budget"] = _budget(limit)
    return report
