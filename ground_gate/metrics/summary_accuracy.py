"""Athina summary accuracy: yes/no questions from the summary, answered from each text.

Questions are generated fresh for every row from that row's summary. Each is answered
Yes/No/Unknown from the summary alone and from the document alone. Over the questions
actually generated (not the configured n): agreement = same answer; summary_hallucination =
the summary answers definitely, the document says Unknown; summary_contradiction = both
definite and different (named so beside groundedness's per-sentence hallucination and
contradiction). Variant (see aggregation.py): scoring "probability" averages each question's
probability of agreeing, hallucinating and contradicting instead of counting verdicts.

Questions are drawn one sentence at a time (`questions_per_sentence` each, by default half of
`n_questions`; the summary up to that sentence as its context), and each is answered from the
summary up to the sentence it was drawn from; `n_questions` caps a row's questions, taken in
turns across the sentences (the first of each, then the second...). So a sentence added to a
summary adds its own questions and changes neither the others' questions nor their answers,
while the row stays under the cap (drawn from the whole summary, a note appended to it changed
every question: bench/RESULTS.md, issue 32). A sentence in none of the document's words
(metrics/off_source.py) is not asked about; if it states anything (declines.py's check), it
counts as one hallucinated unit, as a question the document could not answer would.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from ground_gate.config.model import SummaryAccuracyConfig
from ground_gate.datasets import Sample
from ground_gate.leaves.results import HIDDEN_TEXT, MetricResult, UnitResult
from ground_gate.metrics import prompts
from ground_gate.metrics.aggregation import ANSWERS, answer_pair_probabilities, combine
from ground_gate.metrics.base import RowSession, addressed_units, best_support, together
from ground_gate.metrics.logprobs import choice_distribution
from ground_gate.metrics.off_source import Parted, apart_units, part
from ground_gate.metrics.styles import UNCERTAIN

VERDICTS = ("agree", "hallucinated", "contradicted")  # in the order of `scores`
QUESTION_TOKENS_EACH = 40
OPEN_QUESTION_WORDS = frozenset(
    {"what", "where", "when", "who", "whom", "whose", "why", "how", "which"}
)


@dataclass(frozen=True)
class Question:
    """One question, and the summary it is answered from: up to the sentence it was drawn
    from."""

    text: str
    summary: str


@dataclass(frozen=True)
class Plan:
    """The questions drawn from the summary, and its sentences in none of the document's
    words (metrics/off_source.py) with P(the sentence holds any information): no question is
    drawn from those."""

    questions: tuple[Question, ...]
    apart: tuple[tuple[str, float], ...]


def in_turns(drawn: Sequence[Sequence[Question]], cap: int) -> list[Question]:
    """At most `cap` questions, taken in turns across the sentences (the first of each, then
    the second of each...), each question once."""
    chosen: list[Question] = []
    seen: set[str] = set()
    for turn in range(max((len(d) for d in drawn), default=0)):
        for questions in drawn:
            if turn < len(questions) and questions[turn].text not in seen:
                seen.add(questions[turn].text)
                chosen.append(questions[turn])
    return chosen[:cap]


def usable(raw: object) -> str | None:
    """A generated question, whitespace closed up; None for what Yes/No/Unknown cannot answer:
    a small judge sometimes lists answers ("No"), fragments, or open questions ("What is ...?")."""
    question = " ".join(str(raw).split())
    words = question.split()
    if len(words) < 3 or words[0].lower() in OPEN_QUESTION_WORDS:
        return None
    return question


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
        parted = await part(sample.response, sample.source_text, session)
        drawn = await together(
            *(self._questions(parted, i, session) for i in range(len(parted.kept)))
        )
        return Plan(tuple(in_turns(drawn, self.config.n_questions)), parted.apart)

    async def _questions(self, parted: Parted, i: int, session: RowSession) -> list[Question]:
        n, so_far = self.config.per_sentence, parted.so_far(i)
        completion = await session.ask(
            "questions",
            prompts.generate_questions(so_far, parted.kept[i], n),
            max_tokens=QUESTION_TOKENS_EACH * n + 20,
            json_schema=prompts.QUESTIONS_SCHEMA,
        )
        texts = (usable(raw) for raw in completion.data["questions"])
        return [Question(t, so_far) for t in dict.fromkeys(t for t in texts if t)][:n]

    async def score(self, sample: Sample, plan: Plan, session: RowSession) -> MetricResult:
        apart = apart_units(plan.apart, "hallucinated") + _uncertain_apart(sample)
        questions = list(plan.questions)
        if not questions and not apart:
            return session.result("no_claims")
        # Document answers first: they share the document prefix with the other metrics.
        from_document = await together(
            *(self._from_document(sample, q.text, session) for q in questions)
        )
        from_summary = await together(*(self._from_summary(q, session) for q in questions))
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
                    text=question.text,
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

    async def _from_summary(self, question: Question, session: RowSession) -> dict[str, float]:
        completion = await session.ask(
            "answer_summary",
            prompts.answer_from("summary", question.summary, question.text),
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


def _uncertain_apart(sample: Sample) -> list[UnitResult]:
    """Where styled text of uncertain visibility was all of the response: read without it,
    each passage is hallucinated, as the other methods count it unsupported
    (metrics/worse_reading.py), so that it cannot escape into no claims."""
    if sample.response.strip():
        return []
    return [
        replace(u, verdict="hallucinated")
        for u in addressed_units(sample)
        if u.detail.get(HIDDEN_TEXT) == UNCERTAIN
    ]
