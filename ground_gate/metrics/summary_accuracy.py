"""Athina summary accuracy: yes/no questions from the summary, answered from each text.

Questions are generated fresh for every row from that row's summary. Each is answered
Yes/No/Unknown from the summary alone and from the document alone. Over the questions
actually generated (not the configured n): agreement = same answer; summary_hallucination =
the summary answers definitely, the document says Unknown; summary_contradiction = both
definite and different (named so beside groundedness's per-sentence hallucination and
contradiction). Variant (see aggregation.py): scoring "probability" averages each question's
probability of agreeing, hallucinating and contradicting instead of counting verdicts.

A sentence of the summary in none of the document's words (metrics/off_source.py) is left out
of what the questions are drawn from, so a sentence appended to a summary cannot change the
questions its other sentences are asked; if it states anything (declines.py's check), it
counts as one hallucinated unit, as a question the document could not answer would.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from ground_gate.config.model import SummaryAccuracyConfig
from ground_gate.datasets import Sample
from ground_gate.metrics import prompts
from ground_gate.metrics.aggregation import ANSWERS, answer_pair_probabilities, combine
from ground_gate.metrics.base import RowSession, best_support
from ground_gate.metrics.declines import INFORMS_AT, information_probability
from ground_gate.metrics.logprobs import choice_distribution
from ground_gate.metrics.off_source import REASON, off_source, without
from ground_gate.results import OFF_SOURCE, MetricResult, UnitResult
from ground_gate.sentences import split_sentences

VERDICTS = ("agree", "hallucinated", "contradicted")  # in the order of `scores`
QUESTION_TOKENS_EACH = 40
OPEN_QUESTION_WORDS = frozenset(
    {"what", "where", "when", "who", "whom", "whose", "why", "how", "which"}
)


@dataclass(frozen=True)
class Plan:
    """The questions drawn from the summary, and its sentences in none of the document's
    words (metrics/off_source.py) with P(the sentence holds any information): those were left
    out of what the questions are drawn from."""

    questions: tuple[str, ...]
    apart: tuple[tuple[str, float], ...]


def _apart(text: str, p_informs: float) -> UnitResult:
    """A sentence of the summary in none of the document's words that states something: the
    document cannot answer for it, so it counts as a hallucinated question, asked of no one."""
    detail = {OFF_SOURCE: REASON, "p_informs": round(p_informs, 4)}
    return UnitResult(text, 0.0, "hallucinated", detail=detail)


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

    async def prepare(self, sample: Sample, session: RowSession) -> Plan:
        if not sample.response.strip():  # all of it was cut (addressed to the judge, or hidden)
            return Plan((), ())
        sentences = split_sentences(sample.response)
        apart = [sentences[i] for i in sorted(off_source(sentences, sample.source_text))]
        n = self.config.n_questions
        completion = await session.ask(
            "questions",
            prompts.generate_questions(without(sample.response, apart), n),
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
        informs = await asyncio.gather(*(information_probability(t, session) for t in apart))
        return Plan(tuple(questions[:n]), tuple(zip(apart, informs, strict=True)))

    async def score(self, sample: Sample, plan: Plan, session: RowSession) -> MetricResult:
        apart = tuple(_apart(text, p) for text, p in plan.apart if p >= INFORMS_AT)
        questions = list(plan.questions)
        if not questions and not apart:
            return session.result("no_claims")
        # Document answers first: they share the document prefix with the other metrics.
        from_document = await asyncio.gather(
            *(self._from_document(sample, q, session) for q in questions)
        )
        from_summary = await asyncio.gather(
            *(self._from_summary(sample, q, session) for q in questions)
        )
        units = []
        shares: dict[str, list[float]] = {v: [] for v in VERDICTS}
        for question, s_dist, (d_dist, chunk) in zip(
            questions, from_summary, from_document, strict=True
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
        for unit in apart:
            units.append(unit)
            for v in VERDICTS:
                shares[v].append(float(v == unit.verdict))
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
