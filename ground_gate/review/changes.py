"""What the pull request broke and fixed, row by row, from a report whose rows were compared
with a baseline (report/baseline_rows.py): the one owner of "new failure", read by the
comment, the page and the terminal alike. Pure.

A row newly fails a score it fails now and did not fail in the baseline; a row the baseline
does not hold newly fails everything it fails. Rows are ranked by how much worse they got:
the largest change, in the bad direction, among the scores they newly fail (a score that
could not be scored now counts as the worst change there is).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ground_gate.config.scores import ANSWERED_SIDES, LOWER_IS_BETTER, SUBSTANCE
from ground_gate.leaves.numbers import figure
from ground_gate.report.types import Report, RowEntry, ThresholdBounds
from ground_gate.review.baseline_rows import failing_before, is_compared, scores_before
from ground_gate.review.figures import bounds_of

Row = RowEntry
WORST = 1.0  # a score that errored: worse than any change of a score in [0, 1]


@dataclass(frozen=True)
class ScoreChange:
    score: str
    before: float | None  # None: not scored in the baseline (or no such row)
    now: float | None  # None: not scored now (its metric errored, or see `instead`)
    # an answers score the row no longer gives because it gives the other side now
    # (answered <-> answered_anyway: its source's answerability changed): (score, value)
    instead: tuple[str, float] | None = None

    @property
    def worse(self) -> float | None:
        """How much worse it got (negative: better); None when it cannot be said."""
        if self.now is None and self.instead is not None:
            return None  # a row on the other side is not the same measure
        if self.now is None:
            return WORST
        if self.before is None:
            return None
        delta = self.now - self.before
        return delta if self.score in LOWER_IS_BETTER else -delta


@dataclass(frozen=True)
class RowChange:
    row: Row
    scores: tuple[ScoreChange, ...]  # the scores that changed verdict, in name order

    @property
    def new_row(self) -> bool:
        return "baseline" not in self.row

    @property
    def worst(self) -> float | None:
        known = [w for w in (s.worse for s in self.scores) if w is not None]
        return max(known) if known else None


def row_scores(row: Row) -> dict[str, float]:
    return {k: v for m in row["metrics"].values() for k, v in m["scores"].items()}


def _change(row: Row, scores: set[str]) -> RowChange:
    before = dict(scores_before(row))  # a copy: the report's own is not touched
    now = row_scores(row)
    if SUBSTANCE in scores:  # derived from the row's metrics (dataset_scores.said_something):
        # the row fails it when it says nothing, and says something when it passes it
        now[SUBSTANCE] = 0.0 if SUBSTANCE in row["failing"] else 1.0
        if "baseline" in row:
            before.setdefault(SUBSTANCE, 0.0 if SUBSTANCE in failing_before(row) else 1.0)
    return RowChange(
        row,
        tuple(ScoreChange(s, before.get(s), now.get(s), _instead(s, now)) for s in sorted(scores)),
    )


def _instead(score: str, now: Mapping[str, float]) -> tuple[str, float] | None:
    """The other answers side the row gives now, when it does not give `score`."""
    if score not in ANSWERED_SIDES or score in now:
        return None
    other = next(s for s in ANSWERED_SIDES if s != score)
    return (other, now[other]) if other in now else None


def newly_failing(row: Row) -> set[str]:
    """The scores the row fails now and did not fail in the baseline."""
    return set(row["failing"]) - set(failing_before(row))


def was_failing(row: Row) -> bool:
    """Whether the row already failed in the baseline (any score)."""
    return bool(failing_before(row))


def _rank(change: RowChange) -> tuple[bool, float]:
    worst = change.worst
    return (worst is None, -(worst or 0.0))


def broke(report: Report) -> list[RowChange]:
    """The rows that newly fail a score, the most worsened first; empty without a baseline."""
    if not is_compared(report):
        return []
    changes = [_change(r, newly_failing(r)) for r in report["rows"] if newly_failing(r)]
    return sorted(changes, key=_rank)


def fixed(report: Report) -> list[RowChange]:
    """The rows that pass a score they failed in the baseline, in report order."""
    if not is_compared(report):
        return []
    out = []
    for row in report["rows"]:
        passing = set(failing_before(row)) - set(row["failing"])
        if passing:
            out.append(_change(row, passing))
    return out


def standing(row: Row, compared: bool) -> str | None:
    """A failing row's place against the baseline: "new" (it newly fails a score),
    "before" (it failed the same scores in the baseline); None when passing or uncompared."""
    if not compared or not row["failing"]:
        return None
    return "new" if newly_failing(row) else "before"


def moved_text(change: ScoreChange, threshold: ThresholdBounds | None) -> str:
    """'0.80 → now answered 0.82 (...)': the score of a row whose source's answerability
    changed between the runs, so that it gives the other answers side now."""
    assert change.instead is not None
    other, value = change.instead
    bounds = [v for k, v in bounds_of(threshold)]
    was = "" if change.before is None else f"{figure(change.before, bounds)} \u2192 "
    return f"{was}now {other} {figure(value, [])} (whether its source holds the answer changed)"
