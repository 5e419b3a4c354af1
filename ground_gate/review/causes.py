"""Rows that newly fail alike, said once: the same sentences now said (their numbers aside)
with the same verdicts, failing the same scores. "20 rows newly fail, all adding 'It attracts
famous celebrities every winter.'" reads in one line what twenty lines repeat. A row that
newly fails an answers score (a decline) stands alone: its whole answer, old and new, is what
to read. Read by the comment and the page alike. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ground_gate.config.scores import ANSWERED_SIDES
from ground_gate.review.baseline_rows import changes_of
from ground_gate.review.changes import RowChange

NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
SUPPORTED = "supported"


@dataclass(frozen=True)
class Cause:
    said: tuple[tuple[str, str], ...]  # (sentence, verdict) the first row now says, not
    # supported (else all its changed sentences); empty: its sentences did not change
    was: tuple[str, ...]  # the first row's sentences they replaced
    scores: tuple[str, ...]  # the scores these rows newly fail, in name order
    rows: tuple[RowChange, ...]  # worst first
    numbers_vary: bool  # the rows say the sentences with other numbers
    was_varies: bool  # the rows replaced different sentences (not only other numbers)


def _said(change: RowChange) -> tuple[tuple[str, str], ...]:
    after = [(u["text"], u["verdict"]) for c in changes_of(change.row) for u in c["after"]]
    bad = [pair for pair in after if pair[1] != SUPPORTED]
    return tuple(bad or after)


def _was(change: RowChange) -> tuple[str, ...]:
    return tuple(u["text"] for c in changes_of(change.row) for u in c["before"])


def _masked(text: str) -> str:
    return NUMBER.sub("#", " ".join(text.split()).casefold())


def _key(change: RowChange) -> tuple[object, ...]:
    if any(s.score in ANSWERED_SIDES for s in change.scores):
        # a row that now declines (or answers what its source cannot): its whole answer, old
        # and new, is what a reviewer reads, so it stands alone
        return ("row", change.row["dataset"], change.row["id"])
    said = tuple((_masked(t), v) for t, v in _said(change))
    return (said, tuple(s.score for s in change.scores))


def causes(changes: Sequence[RowChange]) -> list[Cause]:
    """The rows that newly fail (changes.broke, worst first), grouped by what they now say
    and what they fail; the largest group first (of two alike, the one with the worst row)."""
    groups: dict[tuple[object, ...], list[RowChange]] = {}
    for change in changes:
        groups.setdefault(_key(change), []).append(change)
    out = []
    for rows in groups.values():
        first = rows[0]
        texts = {tuple(t for t, _ in _said(r)) for r in rows}
        replaced = {tuple(_masked(t) for t in _was(r)) for r in rows}
        out.append(
            Cause(
                said=_said(first),
                was=_was(first),
                scores=tuple(s.score for s in first.scores),
                rows=tuple(rows),
                numbers_vary=len(texts) > 1,
                was_varies=len(replaced) > 1,
            )
        )
    return sorted(out, key=lambda cause: -len(cause.rows))  # stable: worst first among ties
