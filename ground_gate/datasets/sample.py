"""`Sample`: one dataset row, checked and ready to judge."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class HeldAnswer:
    """Whether a row's source holds its answer, as its baseline judged it: reused when the
    question and the source (and the judge, prompts and settings) are unchanged
    (stages/reuse.py). p: P(answerable) as the baseline reported it; answerable: the side
    the baseline put the row on (decided on the unrounded p); relevance: its
    context_relevance as the baseline reported it (P(answerable), or P(the contexts a target
    retrieved hold it) for a row whose own context decided its side)."""

    p: float
    answerable: bool
    relevance: float

    @property
    def side(self) -> str:
        """The answer score the row gives, by its side: "answered" or "answered_anyway"."""
        return "answered" if self.answerable else "answered_anyway"


@dataclass(frozen=True)
class Sample:
    """One row to judge. `sources` holds the context chunks (one string for a plain document)."""

    id: str
    sources: tuple[str, ...]
    response: str
    question: str | None = None
    # whether the source holds what the question asks, as the dataset states it; None: not
    # stated (the answers metric asks the judge)
    answerable: bool | None = None
    # the dataset's own context, kept when a target's retrieved contexts replaced it as the
    # source: whether the question can be answered is judged against it, not against what
    # the pull request's code retrieved (metrics/answers.py); empty: none was replaced
    reference: tuple[str, ...] = ()
    line: int | None = None  # where the row starts in its file, for messages
    # (field, passage) cut before judging because it speaks to the judge (metrics/addressed.py)
    addressed: tuple[tuple[str, str], ...] = ()
    # (field, kind, passage) taken out before judging because no reader of it sees it
    # (metrics/hidden.py); kind "invisible characters" is a count, not a passage
    hidden: tuple[tuple[str, str, str], ...] = ()
    # the row read with its response's text of uncertain visibility kept (kind "styled text of
    # uncertain visibility", metrics/hidden.py), this row being the reading with it taken out:
    # the runner judges both and keeps, per metric, the worse (metrics/worse_reading.py); None
    # when the response has none
    uncertain_kept: Sample | None = None
    # the baseline's answerable verdict, reused (its question and source unchanged); None:
    # the answers metric asks the judge. Not part of what the row says: not compared
    held: HeldAnswer | None = field(default=None, compare=False)
    # what places the row in a shard: its id when the row has one, else a digest of its
    # content (datasets/identity.py); derived from the other fields, so not compared
    key: str = field(default="", compare=False)
    # a dataset with a target: the row's columns as read, for the target's placeholders
    row: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def source_text(self) -> str:
        return "\n\n".join(self.sources)
