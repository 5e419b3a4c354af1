"""The JSON report: everything a run knows, versioned so that baselines stay readable.

Fields are only ever added within a schema version (`evidence` came later in version 1), so
readers of a baseline must not require them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict
from datetime import UTC, datetime
from typing import Any

from ground_gate import __version__
from ground_gate.config.model import Threshold
from ground_gate.gate import GateResult, failing_rows
from ground_gate.judge.base import Usage
from ground_gate.results import MetricResult, RowResult

SCHEMA_VERSION = 1


def _threshold(threshold: Threshold | None) -> dict[str, float] | None:
    if threshold is None:
        return None
    return {k: v for k, v in (("min", threshold.min), ("max", threshold.max)) if v is not None}


def _metric(result: MetricResult) -> dict[str, Any]:
    return {
        "status": result.status,
        "scores": dict(result.scores),
        "error": result.error,
        "units": [
            {
                "text": u.text,
                "score": u.score,
                "verdict": u.verdict,
                "evidence": u.evidence,
                "detail": dict(u.detail),
            }
            for u in result.units
        ],
        "usage": result.usage.as_dict(),
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
) -> dict[str, Any]:
    """datasets: (name, rows selected) pairs in config order.

    evidence_policy: groundedness's `evidence` setting (None: groundedness is off);
    evidence_problem: why some units the policy asked evidence for have none, if any.
    """
    failing = failing_rows(rows, thresholds)
    total = Usage()
    for usage in usage_by_metric.values():
        total.add(usage)
    scored = {name: sum(1 for r in rows if r.dataset == name) for name, _ in datasets}
    status = "incomplete" if gate.incomplete else ("passed" if gate.passed else "failed")
    return {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "ground-gate", "version": __version__},
        "created_at": (created_at or datetime.now(UTC)).isoformat(timespec="seconds"),
        "config": {"path": config_path, "digest": f"sha256:{config_digest}"},
        "judge": dict(judge),
        "status": status,
        "passed": gate.passed,
        "incomplete": gate.incomplete,
        "on_error": on_error,
        "datasets": [
            {"name": name, "rows": count, "scored": scored[name]} for name, count in datasets
        ],
        "scores": [
            {
                **{k: v for k, v in asdict(v.summary).items() if k != "ci95"},
                "ci95": list(v.summary.ci95) if v.summary.ci95 else None,
                "threshold": _threshold(v.threshold),
                "passed": v.passed,
                "reason": v.reason,
            }
            for v in gate.verdicts
        ],
        "rows": [
            {
                "dataset": row.dataset,
                "id": row.sample_id,
                "seconds": row.seconds,
                "failing": sorted(
                    s for d, i, s in failing if d == row.dataset and i == row.sample_id
                ),
                "metrics": {m.metric: _metric(m) for m in row.metrics},
            }
            for row in rows
        ],
        "evidence": {
            "policy": evidence_policy,
            "units": sum(
                1 for r in rows for m in r.metrics for u in m.units if u.evidence is not None
            ),
            "problem": evidence_problem,
        },
        "usage": {
            "by_metric": {name: u.as_dict() for name, u in sorted(usage_by_metric.items())},
            "total": total.as_dict(),
        },
        "seconds": round(seconds, 3),
    }
