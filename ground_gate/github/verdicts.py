"""The JSON report's verdicts in the words of the annotations, the `scores` step output and the
one-line summary.

The report is one the run just built or one the strict report reader checked against the
published schema (report_files.read_report): its fields are there, with their types.
"""

from __future__ import annotations

from dataclasses import dataclass

from ground_gate.report.types import Report
from ground_gate.review import words
from ground_gate.review.check_status import checks_said


@dataclass(frozen=True)
class Check:
    dataset: str
    score: str
    mean: float | None
    passed: bool | None  # None: no threshold, informative only
    reason: str


def checks(report: Report) -> list[Check]:
    return [
        Check(
            dataset=entry["dataset"],
            score=entry["score"],
            mean=entry["mean"],
            passed=entry["passed"],
            reason=entry["reason"],
        )
        for entry in report["scores"]
    ]


def failures(report: Report) -> list[Check]:
    return [c for c in checks(report) if c.passed is False]


def incomplete_reason(report: Report) -> str | None:
    return report["incomplete"] or None


def scores_by_dataset(report: Report) -> dict[str, dict[str, float | None]]:
    """{dataset: {score: mean}} in report order, for the `scores` output."""
    table: dict[str, dict[str, float | None]] = {}
    for check in checks(report):
        table.setdefault(check.dataset, {})[check.score] = check.mean
    return table


def summary_line(report: Report, passed: bool) -> str:
    """One line for the `summary` output and the log, e.g. for a commit status description."""
    return f"ground-gate: {_whose(report)}{_verdict(report, passed)}"


def _whose(report: Report) -> str:
    """A shard's verdict covers its rows only: say so before anyone reads it as the gate's."""
    shard = report.get("shard")
    if shard is None:
        return ""
    return words.SHARD_ONLY.format(index=shard["index"], count=shard["count"])


def _verdict(report: Report, passed: bool) -> str:
    """'passed: 2 of 2 checks passed', 'failed: 1 of 3 checks failed (d0 groundedness: ...)':
    the count the comment says, in the words of the rule that decided each check."""
    incomplete = incomplete_reason(report)
    if incomplete:
        return f"incomplete run ({incomplete})"
    said = checks_said(report["scores"])
    if passed:
        return f"passed: {said}"
    failed = [c for c in checks(report) if c.passed is False]
    shown = "; ".join(f"{c.dataset} {c.score}: {c.reason}" for c in failed[:3])
    more = f"; and {len(failed) - 3} more" if len(failed) > 3 else ""
    return f"failed: {said}" + (f" ({shown}{more})" if shown else "")
