"""Single-prompt groundedness rating 1-5 from question, answer and context; (r - 1) / 4.

With `addressed_check` (metrics.rating), each sentence of the answer is first asked, on its
own and without the document, whether it speaks about the answer itself (its accuracy, its
review, the score it deserves) or to whoever grades it rather than about the subject
(`prompts.speaks_about_answer`). A sentence that does is left out of what is rated and listed
on the unit: the rating is the one prompt that reads the whole answer at once, so a sentence
vouching for the answer the text patterns of metrics/addressed.py did not cut would otherwise
raise it (bench/RESULTS.md, issue 25).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ground_gate.datasets import Sample
from ground_gate.metrics import prompts
from ground_gate.metrics.base import RowSession, addressed_units, best_support
from ground_gate.metrics.logprobs import expected_rating, yes_probability
from ground_gate.results import ADDRESSED_TO_JUDGE, MetricResult, UnitResult
from ground_gate.sentences import split_sentences

# P(yes) from which a sentence is read as speaking about the answer, not the subject.
ADDRESSED_AT = 0.5

LeftOut = tuple[str, ...]  # the plan: sentences left out of what is rated


@dataclass(frozen=True)
class Rating:
    name: str = "rating"
    scores: tuple[str, ...] = ("rating",)
    addressed_check: bool = False

    async def prepare(self, sample: Sample, session: RowSession) -> LeftOut:
        if not self.addressed_check or not sample.response.strip():
            return ()
        left_out = []
        for sentence in split_sentences(sample.response):
            completion = await session.ask(
                "addressed", prompts.speaks_about_answer(sample.question, sentence), logprobs=True
            )
            if yes_probability(completion) >= ADDRESSED_AT:
                left_out.append(sentence)
        return tuple(left_out)

    async def score(self, sample: Sample, plan: LeftOut, session: RowSession) -> MetricResult:
        answer = _without(sample.response, plan)
        if not answer.strip():  # all of it spoke to the judge, or about itself
            cut = [unit.text for unit in addressed_units(sample)]
            unit = UnitResult(
                " ".join([*cut, *plan]),
                0.0,
                "1.0/5",
                detail={"rating_1_5": 1.0, ADDRESSED_TO_JUDGE: True},
            )
            return session.result("ok", {"rating": 0.0}, (unit,))
        unit_chars = len(answer) + len(sample.question or "")

        async def rate(chunk: str) -> float:
            completion = await session.ask(
                "rate", prompts.rate_answer(chunk, sample.question, answer), logprobs=True
            )
            return expected_rating(completion, 1, 5)

        value, chunk_index, _ = await best_support(
            session, sample.source_text, unit_chars, rate, key=lambda v: v
        )
        detail: dict[str, Any] = {"rating_1_5": round(value, 3), "chunk": chunk_index}
        if plan:
            detail["left_out"] = list(plan)
        unit = UnitResult(
            text=answer, score=round((value - 1) / 4, 4), verdict=f"{value:.1f}/5", detail=detail
        )
        return session.result("ok", {"rating": unit.score or 0.0}, (unit,))


def _without(response: str, sentences: LeftOut) -> str:
    """The response with these sentences (split from it) taken out, spacing tidied."""
    for sentence in sentences:
        response = response.replace(sentence, " ", 1)
    return " ".join(response.split()) if sentences else response
