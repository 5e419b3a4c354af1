"""Which baseline a report was compared with, in words: its branch and commit, its CI run,
how much older it is than this run, and whether another judge scored it. Plain text; each
renderer escapes and links it its own way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from ground_gate.report.types import Report
from ground_gate.review.words import age_said

SHORT_SHA = 7
RUN = re.compile(r"(https://[\w.-]+/[\w.-]+/[\w.-]+)/actions/runs/\d+")  # a GitHub run's


@dataclass(frozen=True)
class BaselineName:
    branch: str | None
    commit: str | None  # short
    commit_url: str | None  # the commit on the forge its run names (GitHub: .../commit/<sha>)
    run_url: str | None
    age: str  # "2 days before this run"; "" when the dates cannot be read
    rows: int
    status: str
    other_judge: str | None  # the baseline's model when another judge scored it


def baseline_name(report: Report) -> BaselineName | None:
    """The baseline the report's rows were compared with; None when they were not."""
    ref = report.get("baseline")
    if ref is None:
        return None
    source = ref.get("source")
    judge = ref.get("judge")
    model = str(report["judge"].get("model", ""))
    other = None
    if judge is not None and (judge["model"], judge["provider"]) != (
        model,
        str(report["judge"].get("provider", "")),
    ):
        other = (
            judge["model"] if judge["model"] != model else f"{judge['model']} ({judge['provider']})"
        )
    commit = source["commit"] if source else None
    run_url = source["run_url"] if source else None
    repo = RUN.fullmatch(run_url) if run_url else None
    return BaselineName(
        branch=source["branch"] if source else None,
        commit=commit[:SHORT_SHA] if commit else None,
        commit_url=f"{repo[1]}/commit/{commit}" if repo and commit else None,
        run_url=run_url,
        age=_age(ref["created_at"], report["created_at"]),
        rows=ref["rows"],
        status=ref["status"],
        other_judge=other,
    )


def _age(then: str, now: str) -> str:
    try:
        seconds = (datetime.fromisoformat(now) - datetime.fromisoformat(then)).total_seconds()
    except (ValueError, TypeError):
        return ""
    return age_said(seconds)
