"""What a target produces: one `Answer` per row asked, what the asking spent (a `Usage`),
and one dataset's whole outcome (`Answered`). Plain data, no I/O."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from ground_gate.datasets import Sample
from ground_gate.leaves.usage import Usage

# A row's failure message names the target; the runner's error rows say "target:" first so a
# reader tells them from the judge's errors.
TARGET_ERROR_PREFIX = "target: "


@dataclass(frozen=True)
class Answer:
    """One row's answer, or why it has none.

    contexts: what the target says it used (a RAG app's retrieved passages), which then is
    the row's source; None: the dataset's context is the source.
    """

    id: str
    response: str | None
    contexts: tuple[str, ...] | None = None
    seconds: float = 0.0
    error: str | None = None
    cached: bool = False

    @property
    def ok(self) -> bool:
        return self.error is None


# What the report keeps of a target's usage (usage.Usage's counts that apply to one).
USAGE_FIELDS = ("calls", "prompt_tokens", "completion_tokens", "cache_hits", "retries", "seconds")


def usage_entry(usage: Usage) -> dict[str, Any]:
    """A target's usage as the report records it. calls: requests made (retries and failed
    ones included) or rows sent to a command; tokens: a prompt target's, as its model
    reported them."""
    entry: dict[str, Any] = {name: getattr(usage, name) for name in USAGE_FIELDS}
    entry["seconds"] = round(usage.seconds, 3)
    return entry


@dataclass
class Answered:
    """One dataset's rows as the target answered them.

    answers: by row id, for the rows asked (a row not asked because the target stopped has
    none). stopped: why the target could not answer the rest (the run is then incomplete).
    definition: what defines the target, for the report (kind, file digest, model, URL...).
    """

    dataset: str
    definition: dict[str, Any]
    order: list[str] = field(default_factory=list)  # the row ids to answer, in row order
    answers: dict[str, Answer] = field(default_factory=dict)
    usage: Usage = field(default_factory=Usage)
    stopped: str | None = None
    seconds: float = 0.0
    interrupted: bool = False  # Ctrl-C or SIGTERM: the run stops here, nothing is scored
    notice: str | None = None  # what the target did that stops nothing (a command lingering)

    @property
    def failed(self) -> list[Answer]:
        return [a for a in self.answers.values() if not a.ok]


def answered_sample(sample: Sample, answer: Answer) -> Sample:
    """The row with the target's response, and its contexts as the source when it gave some
    (the row's own context, if it had one, kept as its reference)."""
    if not answer.contexts:
        return replace(sample, response=answer.response or "")
    return replace(
        sample,
        response=answer.response or "",
        sources=tuple(answer.contexts),
        reference=sample.sources,
    )
