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
from ground_gate.verdict.gate import worse_by

PASS, FAIL, WARN, NOISE = "\u2705", "\u274c", "\u26a0\ufe0f", "\U0001f7e1"
Kind = Literal["pass", "fail", "noise", "empty", "unchecked", "shown"]


@dataclass(frozen=True)
class CheckStatus:
    kind: Kind  # pass; fail; noise: past max_drop, not shown beyond noise, so it passes;
    # empty: a threshold over a score no row gave, which fails; unchecked: a threshold the run
    # could not check (max_drop with no baseline, too few rows in both runs, a score allowed
    # to be empty); shown: no threshold (informative only)
    mark: str  # "" for a score shown only
    word: str  # the status in words: "pass", "fail", "passes: dropped more than allowed, ..."


STATUSES: dict[Kind, CheckStatus] = {
    "pass": CheckStatus("pass", PASS, "pass"),
    "fail": CheckStatus("fail", FAIL, "fail"),
    "noise": CheckStatus(
        "noise", NOISE, "passes: dropped more than allowed, not shown beyond noise"
    ),
    "empty": CheckStatus("empty", FAIL, "not checked: no row to measure, so it fails"),
    "unchecked": CheckStatus("unchecked", WARN, "not checked"),
    "shown": CheckStatus("shown", "", "no threshold: shown only"),
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
    """'3 of 6 checks failed', '1 of 2 checks failed, 1 passed only within noise', '6 of 6
    checks passed, 1 of them only within noise', '2 of 5 checks failed (1 of them with no row
    to measure)': the
    count the verdict rests on, in the words of its outcome; the same in the comment, the
    page and the terminal."""
    checked = [check_status(e) for e in entries if e["passed"] is not None]
    failed = sum(s.kind in ("fail", "empty") for s in checked)
    noise = sum(s.kind == "noise" for s in checked)
    empty = sum(s.kind == "empty" for s in checked)
    if failed:
        said = f"{failed} of {_checks(len(checked))} failed"
        said += f" ({empty} of them with no row to measure)" if empty else ""
        return said + (f", {noise} passed only within noise" if noise else "")
    within = f", {noise} of them only within noise" if noise else ""
    return f"{len(checked)} of {_checks(len(checked))} passed{within}"


def _checks(count: int) -> str:
    return f"{count} check{'' if count == 1 else 's'}"
