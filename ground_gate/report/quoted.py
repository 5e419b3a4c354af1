"""The evidence quoted after a report was built (stages/evidence.py, `evidence: shown`),
written into it: the quoted rows' metric entries and times, the evidence summary, what the run
spent and its budget. Nothing a verdict rests on changes (the evidence pass never scores), so
the review made of the report before the quotes stays true of it: a run builds its report
once.
"""

from __future__ import annotations

from ground_gate.report.json_report import (
    budget_entry,
    evidence_summary,
    metric_entry,
    usage_summary,
)
from ground_gate.report.types import Report
from ground_gate.verdict.record import RunRecord


def with_quotes(report: Report, record: RunRecord) -> Report:
    """`report`, changed in place and returned, to hold what `record` (the same run's record
    with its evidence quoted) adds: each row's metrics and seconds, the evidence, the usage,
    the time and the budget's spending."""
    rows = {(r.dataset, r.sample_id): r for r in record.rows}
    for entry in report["rows"]:
        row = rows.get((entry["dataset"], entry["id"]))
        if row is not None:
            entry["metrics"] = {m.metric: metric_entry(m) for m in row.metrics}
            entry["seconds"] = row.seconds
    report["evidence"] = evidence_summary(
        record.rows, record.evidence_policy, record.evidence_problem
    )
    report["usage"] = usage_summary(record.usage, record.costs)
    report["seconds"] = round(record.seconds, 3)
    if record.budget is not None:
        report["budget"] = budget_entry(record.budget)
    return report
