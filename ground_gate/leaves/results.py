"""What metrics produce per row, and what the runner collects. Plain data, no I/O."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ground_gate.leaves.usage import Usage

Status = Literal["ok", "no_claims", "error"]
Reading = Literal["kept", "removed"]
# detail key of a unit cut before judging because it spoke to the judge (metrics/addressed.py)
ADDRESSED_TO_JUDGE = "addressed_to_judge"
# detail key of a unit taken out before judging because no reader sees it (metrics/hidden.py):
# its kind ("comment", "hidden element", ...)
HIDDEN_TEXT = "hidden_text"
# detail key of a unit decided "not in source" because it shares no word with the source
# (metrics/off_source.py): why, in words
OFF_SOURCE = "off_source"
# a unit's detail key: the fact the source states otherwise, in words ("says 20 minutes; the
# source says 60 minutes"), for a unit contradicted by it (metrics/facts.py)
SWAPPED_FACT = "swapped_fact"


def without_judge(detail: Mapping[str, Any]) -> bool:
    """Whether a unit was decided with no judge reading it against the source: cut (it spoke
    to the judge), taken out (no reader sees it) or in none of the source's words. Such a unit
    has no evidence to quote and no judge's figures to show."""
    return bool(detail.get(ADDRESSED_TO_JUDGE) or detail.get(HIDDEN_TEXT) or detail.get(OFF_SOURCE))


@dataclass(frozen=True)
class UnitResult:
    """One judged unit: a sentence, claim, statement or question.

    score: the unit's own score in [0, 1] (1 = supported / agreeing).
    verdict: a short word for people: supported, unsupported, skipped, agree, hallucinated,
        contradicted...
    detail: method-specific extras (probabilities, answers, the chunk that supported it).
    """

    text: str
    score: float | None
    verdict: str
    evidence: str | None = None
    detail: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class MetricResult:
    """One metric on one row. `scores` maps score names (see config.SCORE_NAMES) to values."""

    metric: str
    status: Status
    scores: Mapping[str, float] = field(default_factory=dict)
    units: tuple[UnitResult, ...] = ()
    error: str | None = None
    usage: Usage = field(default_factory=Usage)
    cost: Usage = field(default_factory=Usage)
    # a row with text of uncertain visibility is judged with it "kept" and with it "removed"
    # (metrics/worse_reading.py): which reading this result is, the worse; None: no such text
    uncertain_text: Reading | None = None


@dataclass(frozen=True)
class RowResult:
    dataset: str
    sample_id: str
    metrics: tuple[MetricResult, ...]
    seconds: float = 0.0
    # (field, passage) cut before judging because it spoke to the judge (metrics/addressed.py)
    addressed: tuple[tuple[str, str], ...] = ()
    # (field, kind, passage) taken out before judging because no reader sees it
    hidden: tuple[tuple[str, str, str], ...] = ()


@dataclass
class MetricCost:
    """One metric's cost over a run's rows, as recorded when each completion was made."""

    total: Usage = field(default_factory=Usage)  # over `rows`
    rows: int = 0  # rows whose cost is fully recorded
    unrecorded_rows: int = 0  # rows served from cache entries that predate cost recording

    def per_row(self, name: str) -> float:
        return float(getattr(self.total, name)) / self.rows if self.rows else 0.0
