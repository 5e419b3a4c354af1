"""Athina summary accuracy: yes/no questions from the summary, answered from each text.

Questions are generated fresh for every row from that row's summary. Each is answered
Yes/No/Unknown from the summary alone and from the document alone. Over the questions
actually generated (not the configured n): agreement = same answer; summary_hallucination =
the summary answers definitely, the document says Unknown; summary_contradiction = both
definite and different (named so beside groundedness's per-sentence hallucination and
contradiction). Variant (see aggregation.py): scoring "probability" averages each question's
probability of agreeing, hallucinating and contradicting instead of counting verdicts.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from ground_gate.config.model import SummaryAccuracyConfig
from ground_gate.datasets import Sample
from ground_gate.metrics import prompts
from ground_gate.metrics.aggregation import ANSWERS, answer_pair_probabilities, combine
from ground_gate.metrics.base import RowSession, best_support
from ground_gate.metrics.logprobs import choice_distribution
from ground_gate.results import MetricResult, UnitResult

VERDICTS = ("agree", "hallucinated", "contradicted")  # in the order of `scores`
QUESTION_TOKENS_EACH = 40
OPEN_QUESTION_WORDS = frozenset(
    {"what", "where", "when", "who", "whom", "whose", "why", "how", "which"}
)


def _answer(distribution: dict[str, float]) -> str:
    return max(ANSWERS, key=lambda a: distribution[a])


def classify(from_summary: str, from_document: str) -> str:
    """The unit verdict for one question's pair of answers."""
    if from_summary == from_document:
        return "agree"
    if from_summary != "unknown" and from_document == "unknown":
        return "hallucinated"
    if from_summary != "unknown":
        return "contradicted"
    return "not in summary"


@dataclass(frozen=True)
class SummaryAccuracy:
    config: SummaryAccuracyConfig = field(default_factory=SummaryAccuracyConfig)
    name: str = "summary_accuracy"
    scores: tuple[str, ...] = ("agreement", "summary_hallucination", "summary_contradiction")

    async def prepare(self, sample: Sample, session: RowSession) -> list[str]:
        if not sample.response.strip():  # all of it was cut (addressed to the judge, or hidden)
            return []
        n = self.config.n_questions
        completion = await session.ask(
            "questions",
            prompts.generate_questions(sample.response, n),
            max_tokens=QUESTION_TOKENS_EACH * n + 20,
            json_schema=prompts.QUESTIONS_SCHEMA,
        )
        questions: list[str] = []
        for raw in completion.data["questions"]:
            question = " ".join(str(raw).split())
            # a small judge sometimes lists answers ("No"), fragments, or open questions that
            # Yes/No/Unknown cannot answer ("What is ...?")
            words = question.split()
            if len(words) < 3 or words[0].lower() in OPEN_QUESTION_WORDS:
                continue
            if question not in questions:
                questions.append(question)
        return questions[:n]

    async def score(self, sample: Sample, plan: list[str], session: RowSession) -> MetricResult:
        if not plan:
            return session.result("no_claims")
        # Document answers first: they share the document prefix with the other metrics.
        from_document = await asyncio.gather(
            *(self._from_document(sample, q, session) for q in plan)
        )
        from_summary = await asyncio.gather(*(self._from_summary(sample, q, session) for q in plan))
        units = []
        shares: dict[str, list[float]] = {v: [] for v in VERDICTS}
        for question, s_dist, (d_dist, chunk) in zip(
            plan, from_summary, from_document, strict=True
        ):
            s, d = _answer(s_dist), _answer(d_dist)
            verdict = classify(s, d)
            if self.config.scoring == "probability":
                share = answer_pair_probabilities(s_dist, d_dist)
            else:
                share = {v: float(v == verdict) for v in VERDICTS}
            for v in VERDICTS:
                shares[v].append(share[v])
            units.append(
                UnitResult(
                    text=question,
                    score=round(share["agree"], 4),
                    verdict=verdict,
                    detail={
                        "summary": s,
                        "document": d,
                        "p_summary": {k: round(v, 4) for k, v in s_dist.items()},
                        "p_document": {k: round(v, 4) for k, v in d_dist.items()},
                        "chunk": chunk,
                    },
                )
            )
        scores = {
            score: round(combine(shares[verdict], "mean"), 4)
            for score, verdict in zip(self.scores, VERDICTS, strict=True)
        }
        return session.result("ok", scores, tuple(units))

    async def _from_summary(
        self, sample: Sample, question: str, session: RowSession
    ) -> dict[str, float]:
        completion = await session.ask(
            "answer_summary",
            prompts.answer_from("summary", sample.response, question),
            logprobs=True,
        )
        return choice_distribution(completion, ANSWERS)

    async def _from_document(
        self, sample: Sample, question: str, session: RowSession
    ) -> tuple[dict[str, float], int]:
        async def answer(chunk: str) -> dict[str, float]:
            completion = await session.ask(
                "answer_document", prompts.answer_from("document", chunk, question), logprobs=True
            )
            return choice_distribution(completion, ANSWERS)

        # The most definite chunk wins: a chunk that answers beats chunks that don't know.
        distribution, index, _ = await best_support(
            session, sample.source_text, len(question), answer, key=lambda d: 1 - d["unknown"]
        )
        return distribution, index
