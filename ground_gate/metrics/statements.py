"""Standalone statements of an answer (RAGAS step 1; claims for groundedness unit=claim)."""

from __future__ import annotations

from ground_gate.datasets import Sample
from ground_gate.metrics import prompts
from ground_gate.metrics.base import RowSession
from ground_gate.metrics.declines import INFORMS_AT, information_probability

MAX_STATEMENT_TOKENS = 512


async def extract_statements(sample: Sample, session: RowSession) -> list[str]:
    """Statements the response makes; empty when it holds no information at all (a refusal,
    a greeting, no words at all).

    Small judges turn "I can't find that in the documents" into a statement however the
    extraction prompt is worded; one yes/no token first tells a refusal from an answer. It is
    the question a sentence of groundedness's sentence mode is asked (metrics/declines.py),
    without the question, so that both unit modes and faithfulness agree on a decline, and a
    response about another subject still has its claims judged.
    """
    if await information_probability(sample.response, session) < INFORMS_AT:
        return []
    completion = await session.ask(
        "statements",
        prompts.extract_statements(sample.question, sample.response),
        max_tokens=MAX_STATEMENT_TOKENS,
        json_schema=prompts.STATEMENTS_SCHEMA,
    )
    seen: set[str] = set()
    statements: list[str] = []
    for raw in completion.data["statements"]:
        statement = " ".join(str(raw).split())
        # a question asks, it does not claim: small judges sometimes echo the user's question
        if statement.endswith("?"):
            continue
        if statement and statement.lower() not in seen:
            seen.add(statement.lower())
            statements.append(statement)
    return statements
