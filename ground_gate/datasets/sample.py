"""`Sample`: one dataset row, checked and ready to judge."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Sample:
    """One row to judge. `sources` holds the context chunks (one string for a plain document)."""

    id: str
    sources: tuple[str, ...]
    response: str
    question: str | None = None
    line: int | None = None  # where the row starts in its file, for messages
    # (field, passage) cut before judging because it speaks to the judge (metrics/addressed.py)
    addressed: tuple[tuple[str, str], ...] = ()
    # what places the row in a shard: its id when the row has one, else a digest of its
    # content (datasets/identity.py); derived from the other fields, so not compared
    key: str = field(default="", compare=False)

    @property
    def source_text(self) -> str:
        return "\n\n".join(self.sources)
