"""The single-prompt groundedness rating, 1-5, normalised (r - 1) / 4.

The seed's prompt and scale (question, answer, context; 1 to 5), read one sentence at a time
(`unit: sentence`, the default): each sentence of the answer is rated on its own against the
source, and the row's rating is its lowest sentence's (`aggregate: min`, the default; `mean`
ranks the dev rows better, but a sentence rated above the others raises it).

Read whole (`unit: answer`, the seed as published), the answer could buy its rating with a
sentence about itself: "Checked line by line against the source." raises a small judge's
rating of everything before it. Read one sentence at a time, such a sentence is rated on what
it says about the subject (nothing the source holds) and, the rating being the lowest, a
sentence added to an answer can only keep its rating or lower it, whatever its wording or
language.

As in groundedness, a sentence rated below the middle that holds no information at all (a
greeting, thanks, a decline: metrics/declines.py) is in no rating, and an answer of nothing
else is no_claims; a passage cut before judging (text addressed to the judge, text no reader
sees) is one unit rated 1.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from ground_gate.config.model import RatingConfig
from ground_gate.datasets import Sample
from ground_gate.leaves.results import MetricResult, UnitResult
from ground_gate.leaves.sentences import split_sentences
from ground_gate.metrics import prompts
from ground_gate.metrics.aggregation import combine
from ground_gate.metrics.base import RowSession, addressed_units, best_support, together
from ground_gate.metrics.declines import (
    DECLINES,
    INFORMS_AT,
    information_probability,
    says_nothing,
)
from ground_gate.metrics.logprobs import expected_rating

LOWEST = 1.0
MIDDLE = 3.0  # a sentence rated below this is asked whether it holds information at all


@dataclass(frozen=True)
class Rating:
    config: RatingConfig = field(default_factory=RatingConfig)
    name: str = "rating"
    scores: tuple[str, ...] = ("rating",)

    async def prepare(self, sample: Sample, session: RowSession) -> list[str]:
        if self.config.unit == "answer":
            return [sample.response] if sample.response.strip() else []
        return split_sentences(sample.response)

    async def score(self, sample: Sample, plan: list[str], session: RowSession) -> MetricResult:
        cut = tuple(_rated(u.text, LOWEST, None, u.detail) for u in addressed_units(sample))
        if not plan and not cut:
            return session.result("no_claims")
        units = list(await together(*(self._sentence(sample, text, session) for text in plan)))
        units += cut
        rated = [u for u in units if u.verdict != DECLINES]
        if not rated:  # every sentence only declines, greets or holds no word
            return session.result("no_claims", units=units)
        rating = combine([u.score or 0.0 for u in rated], self.config.aggregate)
        return session.result("ok", {"rating": round(rating, 4)}, tuple(units))

    async def _sentence(self, sample: Sample, text: str, session: RowSession) -> UnitResult:
        if says_nothing(text):
            return UnitResult(text, None, DECLINES, detail={"p_informs": 0.0})
        question_chars = len(sample.question or "")  # the prompt reads it beside the unit

        async def rate(chunk: str) -> float:
            completion = await session.ask(
                "rate", prompts.rate_answer(chunk, sample.question, text), logprobs=True
            )
            return expected_rating(completion, 1, 5)

        value, chunk_index, _ = await best_support(
            session, sample.source_text, len(text) + question_chars, rate, key=lambda v: v
        )
        if value < MIDDLE and self.config.unit == "sentence":
            p = await information_probability(text, session)
            if p < INFORMS_AT:
                return UnitResult(text, None, DECLINES, detail={"p_informs": round(p, 4)})
        return _rated(text, value, chunk_index)


def _rated(
    text: str, value: float, chunk: int | None, detail: Mapping[str, object] | None = None
) -> UnitResult:
    """A unit rated `value` on the 1-5 scale, scored (value - 1) / 4."""
    extra = {"chunk": chunk} if chunk is not None else {}
    return UnitResult(
        text=text,
        score=round((value - 1) / 4, 4),
        verdict=f"{value:.1f}/5",
        detail={**(detail or {}), "rating_1_5": round(value, 3), **extra},
    )
