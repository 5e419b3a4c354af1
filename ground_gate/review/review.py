"""The pull request's review: one frozen value computed once from a finished report (its rows
already beside the baseline's, `report_files.judged`), read by every renderer and by the
evidence step, so the comment, the page, the terminal, JUnit and the quotes cannot disagree.

It holds what the pull request broke (row by row, and grouped by cause, declines included),
what it fixed, the worst rows the report details, each check's status in the words of the rule
that decided it, the checks counted as the verdict counts them, each dataset's answers counted
beside the baseline's, and the baseline's identity. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ground_gate.report.types import Report, ScoreEntry
from ground_gate.review.answers import AnswerCounts, answer_counts
from ground_gate.review.baseline_name import BaselineName, baseline_name
from ground_gate.review.baseline_rows import is_compared
from ground_gate.review.causes import Cause, causes
from ground_gate.review.changes import RowChange, broke, fixed
from ground_gate.review.check_status import CheckStatus, check_status, checks_said
from ground_gate.review.judging import Judging, judging_of
from ground_gate.review.selection import DEFAULT_WORST_ROWS, ShownRow, shown_rows

CheckKey = tuple[str, str]  # (dataset, score)


@dataclass(frozen=True)
class Review:
    """What a reviewer reads, decided once."""

    compared: bool  # the rows were compared with a baseline's
    baseline: BaselineName | None  # which baseline; None when not compared
    broke: tuple[RowChange, ...]  # rows that newly fail a score, the most worsened first
    causes: tuple[Cause, ...]  # the same rows grouped by what they now say, largest first
    fixed: tuple[RowChange, ...]  # rows that pass a score they failed in the baseline
    worst: tuple[ShownRow, ...]  # the rows the report details, worst first
    others: tuple[ShownRow, ...]  # the worst rows the pull request did not break
    statuses: Mapping[CheckKey, CheckStatus]  # each check's status, by the rule that decided it
    checks: str  # "2 of 6 checks failed (...)": the count the verdict rests on
    checks_of: Mapping[str, str]  # the same, each dataset's (its datasets' names)
    answers: tuple[AnswerCounts, ...]  # each dataset's declines, beside the baseline's
    judging: Judging | None = None  # rows reused from the baseline, rows not judged

    def status(self, entry: ScoreEntry) -> CheckStatus:
        return self.statuses[(entry["dataset"], entry["score"])]

    @property
    def shown(self) -> tuple[ShownRow, ...]:
        """Every row whose units some renderer shows: the worst rows, and against a baseline
        the worst of the others (the rows the evidence step quotes, `evidence: shown`)."""
        keys = {s.key for s in self.worst}
        return self.worst + tuple(s for s in self.others if s.key not in keys)

    def newly_failing(self) -> frozenset[tuple[str, str]]:
        """(dataset, row id) of the rows the pull request broke."""
        return frozenset((c.row["dataset"], c.row["id"]) for c in self.broke)


def review_of(report: Report, limit: int = DEFAULT_WORST_ROWS) -> Review:
    """The review of a finished report: `limit` worst rows at most in each list of rows."""
    changes = broke(report)
    broken = {(c.row["dataset"], c.row["id"]) for c in changes}
    ranked = shown_rows(report, limit + len(broken))
    return Review(
        compared=is_compared(report),
        baseline=baseline_name(report),
        broke=tuple(changes),
        causes=tuple(causes(changes)),
        fixed=tuple(fixed(report)),
        worst=tuple(ranked[:limit]),
        others=tuple([s for s in ranked if s.key not in broken][:limit]),
        statuses={(e["dataset"], e["score"]): check_status(e) for e in report["scores"]},
        checks=checks_said(report["scores"]),
        checks_of={
            d["name"]: checks_said([e for e in report["scores"] if e["dataset"] == d["name"]])
            for d in report["datasets"]
        },
        answers=tuple(answer_counts(report)),
        judging=judging_of(report),
    )
