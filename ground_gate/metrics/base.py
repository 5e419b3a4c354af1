"""What every metric shares: the two-phase protocol, the per-row judge session, chunking.

A metric works in two phases so the runner can order a row's calls for prefix reuse:
`prepare` makes the calls that do not read the document (statement extraction, question
generation), then `score` makes the document-first verdict calls. All of one row's
document-first calls then run back to back and the server evaluates the document once.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from ground_gate.datasets import Sample
from ground_gate.judge.base import ChatMessage, Completion, Judge, JudgeRequest, usage_of
from ground_gate.leaves.errors import JudgeError
from ground_gate.leaves.results import (
    ADDRESSED_TO_JUDGE,
    HIDDEN_TEXT,
    MetricResult,
    Status,
    UnitResult,
)
from ground_gate.leaves.sentences import split_sentences
from ground_gate.leaves.usage import Usage
from ground_gate.metrics.invisible import INVISIBLE, has_words
from ground_gate.metrics.styles import UNCERTAIN

T = TypeVar("T")

# Characters per token, conservative for English BPE vocabularies (real: about 4).
CHARS_PER_TOKEN = 3.0
# Tokens a prompt needs besides the document: system prompt, instructions, unit, answer.
PROMPT_OVERHEAD_TOKENS = 600


@dataclass
class RowSession:
    """A judge bound to one (row, metric): accounts the metric's usage and cost.

    `usage` is what this run spent; `cost` is what the completions cost when they were made,
    cache hits included (see `Completion.cost`).

    `memo` is shared by all metrics of one row, so a request two metrics make alike (the
    statement extraction of faithfulness and of groundedness by claim) is made once.
    """

    judge: Judge
    metric: str
    usage: Usage = field(default_factory=Usage)
    cost: Usage = field(default_factory=Usage)
    memo: dict[tuple[Any, ...], Completion] = field(default_factory=dict)

    async def ask(
        self,
        step: str,
        messages: tuple[ChatMessage, ...],
        *,
        max_tokens: int = 1,
        logprobs: bool = False,
        json_schema: dict[str, Any] | None = None,
    ) -> Completion:
        request = JudgeRequest(
            messages=messages,
            purpose=f"{self.metric}.{step}",
            max_tokens=max_tokens,
            json_schema=json_schema,
            logprobs=logprobs,
        )
        key = (messages, max_tokens, logprobs, json.dumps(json_schema, sort_keys=True))
        if key in self.memo:  # asked already for this row: no call, and not the judge's cache
            # (a reader of "cache hits" under --no-cache would read it as the cache's)
            return self.memo[key]
        try:
            completion = await self.judge.complete(request)
        except JudgeError as exc:
            spent = usage_of(exc)  # a failed call's requests count too
            if spent is not None:
                self.usage.add(spent)
                self.cost.add(spent)
            raise
        self.usage.add(completion.usage)
        if completion.cost is not None:
            self.cost.add(completion.cost)
        elif completion.cached:
            self.cost.unrecorded += 1
        else:
            self.cost.add(completion.usage)
        self.memo[key] = completion
        return completion

    def result(
        self,
        status: Status,
        scores: Mapping[str, float] | None = None,
        units: Sequence[UnitResult] = (),
        error: str | None = None,
    ) -> MetricResult:
        """The metric's result for this row, carrying the session's usage and cost."""
        return MetricResult(
            self.metric,
            status,
            dict(scores or {}),
            tuple(units),
            error=error,
            usage=self.usage,
            cost=self.cost,
        )


async def together(*calls: Awaitable[T]) -> list[T]:
    """`asyncio.gather` that lets every call finish before the first failure is raised: a
    metric's calls run side by side, and one that fails must not leave the others asking
    the judge after the row's result (and its usage) was written, uncounted."""
    done = await asyncio.gather(*calls, return_exceptions=True)
    for outcome in done:
        if isinstance(outcome, BaseException):
            raise outcome
    return done  # type: ignore[return-value]  # no exception among them: each is a T


def chunk_document(text: str, context_tokens: int | None, unit_chars: int = 0) -> list[str]:
    """Split a document that would not fit the judge's context into sentence-aligned chunks.

    Each chunk keeps within the token budget left after the prompt's own needs; a unit is
    then judged against every chunk and takes its best support (see best_over_chunks).
    """
    if context_tokens is None:
        return [text]
    budget_chars = int((context_tokens - PROMPT_OVERHEAD_TOKENS) * CHARS_PER_TOKEN) - unit_chars
    budget_chars = max(budget_chars, 400)
    if len(text) <= budget_chars:
        return [text]
    chunks: list[str] = []
    current = ""
    for sentence in split_sentences(text):
        while len(sentence) > budget_chars:  # a single huge "sentence": cut it hard
            if current:
                chunks.append(current)
                current = ""
            chunks.append(sentence[:budget_chars])
            sentence = sentence[budget_chars:]
        if current and len(current) + 1 + len(sentence) > budget_chars:
            chunks.append(current)
            current = sentence
        else:
            current = f"{current} {sentence}" if current else sentence
    if current:
        chunks.append(current)
    return chunks


async def best_over_chunks(
    chunks: Sequence[str],
    judge_one: Callable[[str], Awaitable[T]],
    key: Callable[[T], float],
) -> tuple[T, int]:
    """Judge against each chunk in order; return the best result and its chunk index."""
    best: tuple[T, int] | None = None
    for index, chunk in enumerate(chunks):
        result = await judge_one(chunk)
        if best is None or key(result) > key(best[0]):
            best = (result, index)
    assert best is not None, "chunk_document never returns an empty list"
    return best


async def best_support(
    session: RowSession,
    document: str,
    unit_chars: int,
    judge_one: Callable[[str], Awaitable[T]],
    key: Callable[[T], float],
) -> tuple[T, int, str]:
    """Judge one unit against `document` (the row's source, or the passages of it the unit
    is about), chunked to the judge's context when it is too long; the best result, its
    chunk's index and the chunk."""
    chunks = chunk_document(document, session.judge.context_tokens, unit_chars)
    result, index = await best_over_chunks(chunks, judge_one, key)
    return result, index, chunks[index]


def addressed_units(sample: Sample) -> tuple[UnitResult, ...]:
    """The response's passages cut before judging: those that speak to the judge
    (metrics/addressed.py) and those no reader sees (metrics/hidden.py).

    Such a passage states nothing its reader is told about the subject, so it counts as one
    unsupported unit, scored without a judge call. Invisible characters are counted on the
    row, not as a unit: the text they broke up is judged as it shows. Text of uncertain
    visibility is no unit (the row is judged with it kept and with it taken out), unless
    nothing else of the response is surely visible: then, taken out, it counts as hidden text.
    """
    alone = not has_words(sample.response)
    hidden = tuple(
        UnitResult(text, 0.0, "unsupported", detail={HIDDEN_TEXT: kind})
        for where, kind, text in sample.hidden
        if where == "response" and kind != INVISIBLE and (kind != UNCERTAIN or alone)
    )
    return hidden + tuple(
        UnitResult(text, 0.0, "unsupported", detail={ADDRESSED_TO_JUDGE: True})
        for where, text in sample.addressed
        if where == "response"
    )


class Metric(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def scores(self) -> tuple[str, ...]:
        """The score names this metric produces (see config.SCORE_NAMES)."""
        ...

    async def prepare(self, sample: Sample, session: RowSession) -> Any:
        """Calls that do not read the document. Returns the plan passed to `score`."""
        ...

    async def score(self, sample: Sample, plan: Any, session: RowSession) -> MetricResult:
        """Document-first verdict calls and the pure score."""
        ...
