"""Rows that newly fail alike, said once: the same sentences now said (their numbers aside)
with the same verdicts, failing the same scores. "20 rows newly fail, all adding 'It attracts
famous celebrities every winter.'" reads in one line what twenty lines repeat. Rows that
newly fail an answers score or their substance (a decline, an answer its source cannot give, a
response that says nothing) group by their whole answer now (numbers aside) and what they
fail: "240 rows now decline: 'The documentation does not say.'", with the first row's answer,
old and new, the thing a reviewer reads. The comment, the page and the terminal show the same
CAUSES_SHOWN causes first. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ground_gate.config.scores import ANSWERED_SIDES, SUBSTANCE
from ground_gate.review.baseline_rows import changes_of, response_before
from ground_gate.review.changes import RowChange

NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
SUPPORTED = "supported"
CAUSES_SHOWN = 6  # causes the comment and the page show before counting (or folding) the rest
WHOLE_ANSWER = (*ANSWERED_SIDES, SUBSTANCE)  # a row failing one: its whole answer is read


@dataclass(frozen=True)
class Cause:
    said: tuple[tuple[str, str], ...]  # (sentence, verdict) the first row now says, not
    # supported (else all its changed sentences); empty: its sentences did not change
    was: tuple[str, ...]  # the first row's sentences they replaced
    scores: tuple[str, ...]  # the scores these rows newly fail, in name order
    rows: tuple[RowChange, ...]  # worst first
    numbers_vary: bool  # the rows say the sentences with other numbers
    was_varies: bool  # the rows replaced different sentences (not only other numbers)
    # rows that newly fail an answers score or their substance: the first row's whole answer
    # now, and the baseline's (None: the same, or no baseline row); else both None
    answer: str | None = None
    answer_before: str | None = None

    @property
    def answers(self) -> bool:
        """Rows grouped by their whole answer (a decline and the like)."""
        return self.answer is not None


def _said(change: RowChange) -> tuple[tuple[str, str], ...]:
    after = [(u["text"], u["verdict"]) for c in changes_of(change.row) for u in c["after"]]
    bad = [pair for pair in after if pair[1] != SUPPORTED]
    return tuple(bad or after)


def _was(change: RowChange) -> tuple[str, ...]:
    return tuple(u["text"] for c in changes_of(change.row) for u in c["before"])


def _masked(text: str) -> str:
    return NUMBER.sub("#", " ".join(text.split()).casefold())


def _is_answer(change: RowChange) -> bool:
    return any(s.score in WHOLE_ANSWER for s in change.scores)


def _answer(change: RowChange) -> str:
    """The row's whole answer now: its response, else the answers metric's text of it."""
    text = change.row.get("text")
    if text:
        return text["response"]
    answers = change.row["metrics"].get("answers")
    units = answers["units"] if answers else []
    return units[0]["text"] if units else ""


def _key(change: RowChange) -> tuple[object, ...]:
    scores = tuple(s.score for s in change.scores)
    if _is_answer(change):
        # a row that now declines (or answers what its source cannot, or says nothing): its
        # answer is what a reviewer reads, so the rows answering alike are one cause
        return ("answer", _masked(_answer(change)), scores)
    said = tuple((_masked(t), v) for t, v in _said(change))
    return ("said", said, scores)


def causes(changes: Sequence[RowChange]) -> list[Cause]:
    """The rows that newly fail (changes.broke, worst first), grouped by what they now say
    and what they fail; the largest group first (of two alike, the one with the worst row)."""
    groups: dict[tuple[object, ...], list[RowChange]] = {}
    for change in changes:
        groups.setdefault(_key(change), []).append(change)
    out = []
    for rows in groups.values():
        first = rows[0]
        answers = _is_answer(first)
        texts: set[object] = (
            {_answer(r) for r in rows} if answers else {tuple(t for t, _ in _said(r)) for r in rows}
        )
        replaced = {tuple(_masked(t) for t in _was(r)) for r in rows}
        out.append(
            Cause(
                said=_said(first),
                was=_was(first),
                scores=tuple(s.score for s in first.scores),
                rows=tuple(rows),
                numbers_vary=len(texts) > 1,
                was_varies=len(replaced) > 1,
                answer=_answer(first) if answers else None,
                answer_before=response_before(first.row) if answers else None,
            )
        )
    return sorted(out, key=lambda cause: -len(cause.rows))  # stable: worst first among ties
