"""The answers metric in words, the same in the comment, the page, the terminal and JUnit: per
dataset, how many questions its sources answer were declined and how many its sources cannot
answer were answered anyway, beside the baseline's count over the same rows. Pure: reads the
JSON report (its rows, and their `baseline` when compared).

A row is counted by its verdict word (metrics/answers.py), so a count in words always agrees
with the rows' verdicts; a baseline row, which keeps its scores only, by its score: 1 or 0
(the default scoring), or P(answered) against 0.5.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ground_gate.config.scores import ANSWERED_SIDES
from ground_gate.metrics.answers import ANSWERED_ANYWAY, NOT_ANSWERED, NOTHING_ASKED
from ground_gate.report.types import MetricEntry, Report, RowEntry
from ground_gate.review.baseline_rows import scores_before
from ground_gate.verdict.dataset_scores import ANSWERED_AT

METRIC = "answers"
BASELINE_LINE = ANSWERED_AT  # a baseline score below it is a decline: 0 of the default scoring


@dataclass(frozen=True)
class Side:
    """The rows of one dataset on one side: how many, how many of them took the side's bad
    turn (declined, or answered anyway), and the baseline's count of that over the same rows
    (None: no baseline that ran the answers metric)."""

    score: str  # the score these rows give (answered or answered_anyway)
    rows: int
    turned: int
    before: int | None = None


@dataclass(frozen=True)
class AnswerCounts:
    """One dataset's answers, counted from its rows."""

    dataset: str
    asked: Side  # questions its sources answer: `turned` = declined (over-refusals)
    unasked: Side  # rows with no question: `turned` = said nothing of substance
    unanswerable: Side  # questions its sources cannot answer: `turned` = answered anyway
    no_words: int  # responses with no letter and no digit at all, each a decline


def answers_of(row: RowEntry) -> MetricEntry | None:
    """The row's answers metric entry when it was scored; None otherwise."""
    entry = row["metrics"].get(METRIC)
    return entry if entry is not None and entry["status"] == "ok" else None


def _side(entry: MetricEntry) -> str:
    """asked, unasked or unanswerable: which side of the dataset the row is on."""
    if "answered_anyway" in entry["scores"]:
        return "unanswerable"
    holds = entry["units"][1]["verdict"] if len(entry["units"]) > 1 else ""
    return "unasked" if holds.startswith(NOTHING_ASKED) else "asked"


def _turned_now(verdict: str, score: str) -> bool:
    """Whether a row took its side's bad turn, by its verdict word: answered anyway where its
    source cannot answer; declined (no words, addressed to the judge) where it can."""
    return verdict == ANSWERED_ANYWAY if score == "answered_anyway" else verdict in NOT_ANSWERED


def _turned(scores: Mapping[str, float], score: str) -> bool:
    """Whether a baseline row took the side's bad turn by its score: declined, or answered
    anyway."""
    declined = scores[score] < BASELINE_LINE
    return declined if score == "answered" else not declined


def _counted(name: str, score: str, scored: list[Any], compared: bool) -> Side:
    mine = [(row, entry) for row, entry in scored if _side(entry) == name]
    before = [scores_before(row) for row, _ in mine]
    return Side(
        score=score,
        rows=len(mine),
        turned=sum(_turned_now(entry["units"][0]["verdict"], score) for _, entry in mine),
        before=sum(_turned(b, score) for b in before if score in b) if compared else None,
    )


def _counts(dataset: str, rows: list[RowEntry], compared: bool) -> AnswerCounts:
    scored = [(r, e) for r in rows if (e := answers_of(r)) is not None]
    before = [scores_before(r) for r, _ in scored]
    # a baseline that never ran the answers metric counted no decline: it says nothing
    compared = compared and any(side in b for b in before for side in ANSWERED_SIDES)
    return AnswerCounts(
        dataset=dataset,
        asked=_counted("asked", "answered", scored, compared),
        unasked=_counted("unasked", "answered", scored, compared),
        unanswerable=_counted("unanswerable", "answered_anyway", scored, compared),
        no_words=sum(1 for _, e in scored if e["units"][0]["detail"].get("no_words")),
    )


def answer_counts(report: Report) -> list[AnswerCounts]:
    """Per dataset with answers scored, its counts, in the report's dataset order."""
    compared = "baseline" in report
    out = []
    for dataset in report["datasets"]:
        rows = [r for r in report["rows"] if r["dataset"] == dataset["name"]]
        if any(answers_of(r) is not None for r in rows):
            out.append(_counts(dataset["name"], rows, compared))
    return out


def stated_nothing(report: Report) -> list[RowEntry]:
    """The rows no metric gave a score for because they state nothing (every metric with
    units found none) and that the answers metric did not count: left out of every mean."""
    out = []
    for row in report["rows"]:
        statuses = [m["status"] for name, m in row["metrics"].items() if name != METRIC]
        if METRIC not in row["metrics"] and statuses and all(s == "no_claims" for s in statuses):
            out.append(row)
    return out
