"""`Sample`: one dataset row, checked and ready to judge."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Sample:
    """One row to judge. `sources` holds the context chunks (one string for a plain document)."""

    id: str
    sources: tuple[str, ...]
    response: str
    question: str | None = None
    line: int | None = None  # where the row starts in its file, for messages
    # (field, passage) cut before judging because it speaks to the judge (metrics/steering.py)
    addressed: tuple[tuple[str, str], ...] = ()

    @property
    def source_text(self) -> str:
        return "\n\n".join(self.sources)
