"""Single-prompt groundedness rating 1-5 from question, answer and context; (r - 1) / 4."""

from __future__ import annotations

from dataclasses import dataclass

from ground_gate.datasets import Sample
from ground_gate.metrics import prompts
from ground_gate.metrics.base import RowSession, addressed_units, best_support
from ground_gate.metrics.logprobs import expected_rating
from ground_gate.results import ADDRESSED_TO_JUDGE, MetricResult, UnitResult


@dataclass(frozen=True)
class Rating:
    name: str = "rating"
    scores: tuple[str, ...] = ("rating",)

    async def prepare(self, sample: Sample, session: RowSession) -> None:
        return None

    async def score(self, sample: Sample, plan: None, session: RowSession) -> MetricResult:
        if not sample.response.strip():  # all of it spoke to the judge and was cut
            text = " ".join(unit.text for unit in addressed_units(sample))
            detail = {"rating_1_5": 1.0, ADDRESSED_TO_JUDGE: True}
            unit = UnitResult(text, 0.0, "1.0/5", detail=detail)
            return session.result("ok", {"rating": 0.0}, (unit,))
        unit_chars = len(sample.response) + len(sample.question or "")

        async def rate(chunk: str) -> float:
            completion = await session.ask(
                "rate",
                prompts.rate_answer(chunk, sample.question, sample.response),
                logprobs=True,
            )
            return expected_rating(completion, 1, 5)

        value, chunk_index, _ = await best_support(
            session, sample.source_text, unit_chars, rate, key=lambda v: v
        )
        unit = UnitResult(
            text=sample.response,
            score=round((value - 1) / 4, 4),
            verdict=f"{value:.1f}/5",
            detail={"rating_1_5": round(value, 3), "chunk": chunk_index},
        )
        return session.result("ok", {"rating": unit.score or 0.0}, (unit,))
