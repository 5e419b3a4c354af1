"""Standalone statements of an answer (RAGAS step 1; claims for groundedness unit=claim).

Drawn one sentence at a time (metrics/off_source.py's `part`): a sentence in none of the
source's words is set apart, not broken into statements; each other sentence is asked first
whether it holds any information at all (declines.py: the question groundedness's sentence
mode asks, so the two agree on a decline and share the call), and if it does, for its own
statements, read in the context of the sentences before it. A sentence added to an answer
then adds its own statements and changes none of the others' (drawn from the whole answer, a
note appended to it changed what the judge extracted from the rest: bench/RESULTS.md, issue 32).
"""

from __future__ import annotations

from dataclasses import dataclass

from ground_gate.datasets import Sample
from ground_gate.metrics import prompts
from ground_gate.metrics.base import RowSession, together
from ground_gate.metrics.declines import INFORMS_AT, information_probability
from ground_gate.metrics.off_source import Parted, part, stating

MAX_STATEMENT_TOKENS = 256  # one sentence's statements


@dataclass(frozen=True)
class Extraction:
    """The statements of a response's kept sentences, in order, and the sentences set apart
    (in none of the source's words) with P(it states anything)."""

    statements: tuple[str, ...]
    apart: tuple[tuple[str, float], ...]

    def claims(self) -> list[str]:
        """The statements and the sentences apart that state something, as one list of units
        (groundedness unit=claim judges both: those apart are not in the source)."""
        return [*self.statements, *(text for text, _ in stating(self.apart))]


async def extract_statements(sample: Sample, session: RowSession) -> Extraction:
    """Statements the response makes; none when no sentence holds any information (a
    refusal, a greeting, no words at all)."""
    parted = await part(sample.response, sample.source_text, session)
    drawn = await together(
        *(_of_sentence(sample.question, parted, i, session) for i in range(len(parted.kept)))
    )
    seen: set[str] = set()
    statements: list[str] = []
    for raw in (s for each in drawn for s in each):
        statement = " ".join(str(raw).split())
        # a question asks, it does not claim: small judges sometimes echo the user's question
        if statement and not statement.endswith("?") and statement.lower() not in seen:
            seen.add(statement.lower())
            statements.append(statement)
    return Extraction(tuple(statements), parted.apart)


async def _of_sentence(
    question: str | None, parted: Parted, i: int, session: RowSession
) -> list[str]:
    sentence = parted.kept[i]
    if await information_probability(sentence, session) < INFORMS_AT:
        return []
    completion = await session.ask(
        "statements",
        prompts.extract_statements(question, parted.so_far(i), sentence),
        max_tokens=MAX_STATEMENT_TOKENS,
        json_schema=prompts.STATEMENTS_SCHEMA,
    )
    return [str(raw) for raw in completion.data["statements"]]
