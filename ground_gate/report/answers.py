"""The answers metric in words, the same in the comment, the page, the terminal and JUnit: per
dataset, how many questions its sources answer were declined and how many its sources cannot
answer were answered anyway, beside the baseline's count over the same rows. Pure: reads the
JSON report (its rows, and their `baseline` when compared).

A row counts as a decline when its P(answered) is below metrics.answers.ANSWERED_AT, the line
its verdict word is drawn at: a count in words always agrees with the rows' verdicts.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ground_gate.metrics.answers import ANSWERED_AT

ANSWER_SCORES = ("answered", "answered_anyway")
METRIC = "answers"


@dataclass(frozen=True)
class AnswerCounts:
    """One dataset's answers, counted from its rows."""

    dataset: str
    answerable: int  # rows whose source holds the answer
    declined: int  # of them, declined: over-refusals
    unanswerable: int  # rows whose source cannot answer
    answered_anyway: int  # of them, answered all the same
    no_words: int  # responses with no letter and no digit at all, each a decline
    # the baseline's counts over the rows it holds; None: not compared with a baseline
    before_declined: int | None = None
    before_answered_anyway: int | None = None


def answers_of(row: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The row's answers metric entry when it was scored; None otherwise."""
    entry = row["metrics"].get(METRIC)
    return entry if entry is not None and entry["status"] == "ok" else None


def declined(scores: Mapping[str, float], score: str) -> bool | None:
    """Whether the row declined, by its `score` (answered or answered_anyway); None when the
    row has no such score."""
    value = scores.get(score)
    return None if value is None else value < ANSWERED_AT


def _count(values: Iterable[bool | None], want: bool) -> int:
    return sum(1 for v in values if v is want)


def _counts(dataset: str, rows: list[Mapping[str, Any]], compared: bool) -> AnswerCounts:
    scored = [(r, e) for r in rows if (e := answers_of(r)) is not None]
    now = [(declined(e["scores"], "answered"), declined(e["scores"], "answered_anyway"))
           for _, e in scored]  # fmt: skip
    before = [((r.get("baseline") or {}).get("scores") or {}) for r, _ in scored]
    return AnswerCounts(
        dataset=dataset,
        answerable=sum(1 for d, _ in now if d is not None),
        declined=_count((d for d, _ in now), True),
        unanswerable=sum(1 for _, d in now if d is not None),
        answered_anyway=_count((d for _, d in now), False),
        no_words=sum(
            1 for _, e in scored if e["units"] and e["units"][0]["detail"].get("no_words")
        ),
        before_declined=_count((declined(b, "answered") for b in before), True)
        if compared
        else None,
        before_answered_anyway=_count((declined(b, "answered_anyway") for b in before), False)
        if compared
        else None,
    )


def answer_counts(report: Mapping[str, Any]) -> list[AnswerCounts]:
    """Per dataset with answers scored, its counts, in the report's dataset order."""
    compared = "baseline" in report
    out = []
    for dataset in report["datasets"]:
        rows = [r for r in report["rows"] if r["dataset"] == dataset["name"]]
        if any(answers_of(r) is not None for r in rows):
            out.append(_counts(dataset["name"], rows, compared))
    return out


def _questions(n: int) -> str:
    return f"{n} question" + ("" if n == 1 else "s")


def answer_words(counts: AnswerCounts) -> str:
    """The counts in one line of words (`answer_parts` joined)."""
    return "; ".join(answer_parts(counts))


def answer_parts(counts: AnswerCounts) -> list[str]:
    """['declined 7 of 10 questions its sources answer (the baseline declined 1)', 'answered 1
    of 2 questions its sources cannot answer (the baseline answered 0)', '3 answers held no word
    at all'].
    Plain text: each renderer escapes for its own format."""
    parts = []
    if counts.answerable:
        text = f"declined {counts.declined} of {_questions(counts.answerable)} its sources answer"
        if counts.before_declined is not None:
            text += f" (the baseline declined {counts.before_declined})"
        parts.append(text)
    if counts.unanswerable:
        text = (
            f"answered {counts.answered_anyway} of {_questions(counts.unanswerable)} its sources "
            "cannot answer"
        )
        if counts.before_answered_anyway is not None:
            text += f" (the baseline answered {counts.before_answered_anyway})"
        parts.append(text)
    if counts.no_words:
        held = "answer held" if counts.no_words == 1 else "answers held"
        parts.append(f"{counts.no_words} {held} no word at all")
    return parts


def stated_nothing(report: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The rows no metric gave a score for because they state nothing (every metric with
    units found none) and that the answers metric did not count: left out of every mean."""
    out = []
    for row in report["rows"]:
        statuses = [m["status"] for name, m in row["metrics"].items() if name != METRIC]
        if METRIC not in row["metrics"] and statuses and all(s == "no_claims" for s in statuses):
            out.append(row)
    return out
