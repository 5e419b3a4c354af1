"""Each check's status in the words of the rule that decided it, and its mark: the same in
the comment, the page, the terminal and JUnit.

A score with `max_drop` that got worse by more than max_drop still passes when the paired
interval cannot show the drop is beyond the margin (gate.py): that is neither a plain pass
nor a failure, and it reads as what it is, with its own mark, never a check mark. A check
that measured nothing (no row gave its score) reads "not checked" whether it fails (the
default) or was allowed to be empty: never as passed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from ground_gate.report.types import ScoreEntry
from ground_gate.review.figures import FAIL, NOISE, PASS, WARN
from ground_gate.review.words import STATUS_WORDS, checks_counted
from ground_gate.verdict.gate import worse_by

Kind = Literal["pass", "fail", "noise", "empty", "unchecked", "shown"]


@dataclass(frozen=True)
class CheckStatus:
    kind: Kind  # pass; fail; noise: past max_drop, not surely (the interval), so it passes;
    # empty: a threshold over a score no row gave, which fails; unchecked: a threshold the run
    # could not check (max_drop with no baseline, too few rows in both runs, a score allowed
    # to be empty); shown: no threshold (informative only)
    mark: str  # "" for a score shown only
    word: str  # the status in words: "pass", "fail", "passes: dropped more than allowed, ..."


MARKS: dict[Kind, str] = {
    "pass": PASS,
    "fail": FAIL,
    "noise": NOISE,
    "empty": FAIL,
    "unchecked": WARN,
    "shown": "",
}
# the order a reader meets checks in: what failed first, then what passed only narrowly, what
# could not be checked, what passed, what is only shown
ORDER: dict[Kind, int] = {"fail": 0, "empty": 0, "noise": 1, "unchecked": 2, "pass": 3, "shown": 4}
STATUSES: dict[Kind, CheckStatus] = {
    kind: CheckStatus(kind, MARKS[kind], STATUS_WORDS[kind]) for kind in MARKS
}


def past_max_drop(entry: ScoreEntry) -> bool:
    """Whether the score got worse than the baseline by more than its max_drop (over the
    paired rows), whatever the interval says."""
    change = entry.get("baseline")
    if change is None or change["max_drop"] is None or change["delta"] is None:
        return False
    if change["direction"] is None:  # too few paired rows: not compared
        return False
    return worse_by(entry["score"], change["delta"]) > change["max_drop"]


def check_status(entry: ScoreEntry) -> CheckStatus:
    """The check's status: fail, pass, the pass of a drop past max_drop within noise, a
    threshold the run could not check, or a score shown with no threshold."""
    if entry["passed"] is False:
        empty = entry["threshold"] and entry["mean"] is None and not entry["n_error"]
        return STATUSES["empty" if empty else "fail"]
    if entry["passed"] is None:
        return STATUSES["unchecked" if entry["threshold"] else "shown"]
    return STATUSES["noise" if past_max_drop(entry) else "pass"]


def checks_said(entries: Sequence[ScoreEntry]) -> str:
    """The count the verdict rests on, in the words of its outcome (words.checks_counted):
    the same in the comment, the page and the terminal."""
    checked = [check_status(e) for e in entries if e["passed"] is not None]
    return checks_counted(
        len(checked),
        failed=sum(s.kind in ("fail", "empty") for s in checked),
        empty=sum(s.kind == "empty" for s in checked),
        unsure=sum(s.kind == "noise" for s in checked),
    )
