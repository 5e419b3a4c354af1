"""Answers: whether a response answers its question at all, and whether its source could.

Every other metric judges what a response says; this one judges whether it says what was
asked. Two verdicts per row, read from the judge's token probabilities:
- answered: the mean of two views of the response, from question and response alone (no
  document: whether it is true is groundedness's to judge): P(it holds any information at
  all), asked without the question so that a reply that merely fits ("I agree", "Thanks!")
  does not pass for one, and 1 - P(it is a non-answer to the question: a decline, evasion,
  hedge, greeting or change of subject), asked with Yes for the non-answer so that the judge's
  lean to Yes does not tilt both views one way (bench/archive/answer_prompts.py measured the single
  prompts and pairs). A response with no word at all (emoji, punctuation, `[]`) is decided
  with no call. Without a question, the first view alone.
- answerable: P(the source holds what the question asks), one call, document first; a
  dataset's `answerable` column states it instead (no call). A row without a question is
  answerable. A row whose question and source are unchanged since the baseline takes the
  baseline's verdict (`Sample.held`, stages/reuse.py): no call, and its side is the
  baseline's, so a pull request that changed only its answers cannot move it.

Row scores, each on the side the row falls on (P(answerable) >= `answerable_at`, or as
stated), 1 when the row was answered (P(answered) >= `answered_at`) and 0 when not, so that a
dataset's mean is the share of its rows answered, as the comment counts them (`scoring:
probability`: P(answered)):
- answered: of a row whose source holds the answer (a 0: a decline of a question the
  documentation answers, an over-refusal);
- answered_anyway: of a row whose source cannot answer: an answer there says what the source
  does not, which is where hallucination comes from. Declining it is right and counts against
  nothing;
- context_relevance: P(answerable), when judged: whether the contexts a target retrieved (or
  the dataset's) hold the answer.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ground_gate.config.model import AnswersConfig
from ground_gate.config.scores import ANSWER_SCORES
from ground_gate.datasets import HeldAnswer, Sample
from ground_gate.leaves.results import ADDRESSED_TO_JUDGE, HIDDEN_TEXT, MetricResult, UnitResult
from ground_gate.metrics import prompts
from ground_gate.metrics.base import RowSession, addressed_units, best_support
from ground_gate.metrics.declines import information_probability, says_nothing
from ground_gate.metrics.logprobs import yes_probability

RESPONSE_SHOWN = 300  # characters of the response its unit carries
ANSWERS = "answers"  # the metric's name, as reports key its results


@dataclass(frozen=True)
class Answered:
    """The answered verdict of one row: P(answered), the two views it is the mean of, and why
    it was decided with no call (`NO_WORDS`, `ADDRESSED`, `HIDDEN`), if it was."""

    p: float
    informs: float | None = None  # P(it holds any information), asked without the question
    evades: float | None = None  # P(it is a non-answer to the question); None: no question
    why: str | None = None


@dataclass(frozen=True)
class Answerable:
    """Whether the row's source holds the answer: P(answerable), as judged or as stated; and
    P(the contexts a target retrieved hold it), judged apart when the row's own context
    decided its side (None: the side was judged on the retrieved contexts, or not judged);
    a verdict reused from the baseline carries its context_relevance there, and its side."""

    p: float
    stated: bool  # the dataset's answerable column said so: no call was made
    judged: bool  # judged, now or in the baseline (False when stated, or with no question)
    retrieved: float | None = None
    side: bool | None = None  # the baseline's side, reused; None: p against answerable_at


# The verdicts, in words; the report colours and counts by them (report/selection.py,
# report/html_evidence.py).
ANSWERED = "answered"
ANSWERED_ANYWAY = "answered anyway"
DECLINED = "declined"
DECLINED_RIGHTLY = "declined, as it should"
NO_WORDS = "declined: no words"  # a response with no letter and no digit
ADDRESSED = "declined: addressed to the judge"  # all of it spoke to the judge and was cut
HIDDEN = "declined: nothing a reader sees"  # all of it was hidden from its reader, and cut
HOLDS = "source answers it"
LACKS = "source cannot answer it"
NOTHING_ASKED = "nothing asked"
STATED = " (as the dataset states)"
NOT_ANSWERED = frozenset({DECLINED, NO_WORDS, ADDRESSED, HIDDEN})  # a question its source answers
BAD_VERDICTS = frozenset({ANSWERED_ANYWAY, *NOT_ANSWERED})
GOOD_VERDICTS = frozenset({ANSWERED, DECLINED_RIGHTLY, HOLDS, HOLDS + STATED})


def answered_verdict(answered: bool, answerable: bool, why: str | None = None) -> str:
    """The row's verdict in words."""
    if why is not None:
        return why
    if answered:
        return ANSWERED if answerable else ANSWERED_ANYWAY
    return DECLINED if answerable else DECLINED_RIGHTLY


def asked(sample: Sample) -> str | None:
    """The row's question; None when it has none, or none is left after the cut of text
    addressed to the judge."""
    question = (sample.question or "").strip()
    return question or None


@dataclass(frozen=True)
class Answers:
    config: AnswersConfig = field(default_factory=AnswersConfig)
    name: str = ANSWERS
    scores: tuple[str, ...] = ANSWER_SCORES

    async def prepare(self, sample: Sample, session: RowSession) -> Answered:
        """The answered verdict: no document, so it runs with the other metrics' calls that
        do not read one, keeping the document-first calls together."""
        if not sample.response.strip() and (cut := addressed_units(sample)):
            spoke = any(u.detail.get(ADDRESSED_TO_JUDGE) for u in cut)
            return Answered(0.0, why=ADDRESSED if spoke else HIDDEN)
        if says_nothing(sample.response):
            return Answered(0.0, why=NO_WORDS)
        informs = await information_probability(sample.response, session)
        question = asked(sample)
        if question is None:
            return Answered(informs, informs=informs)
        evades = yes_probability(
            await session.ask("evades", prompts.evades(sample.response, question), logprobs=True)
        )
        return Answered((informs + 1 - evades) / 2, informs=informs, evades=evades)

    async def score(self, sample: Sample, plan: Answered, session: RowSession) -> MetricResult:
        holds = await self._answerable(sample, session)
        answerable = holds.p >= self.config.answerable_at if holds.side is None else holds.side
        answered = plan.why is None and plan.p >= self.config.answered_at
        count = 1.0 if answered else 0.0
        said = round(plan.p, 4) if self.config.scoring == "probability" else count
        scores = {("answered" if answerable else "answered_anyway"): said}
        if holds.retrieved is not None:
            scores["context_relevance"] = round(holds.retrieved, 4)
        elif holds.judged:
            scores["context_relevance"] = round(holds.p, 4)
        verdict = answered_verdict(answered, answerable, plan.why)
        units = (_answered_unit(sample, plan, verdict), _answerable_unit(sample, holds, answerable))
        return session.result("ok", scores, units)

    async def _answerable(self, sample: Sample, session: RowSession) -> Answerable:
        """The row's side: as its dataset states it, else judged against its own context
        when it has one (what the target retrieved cannot move a row off the side it is
        measured on: the denominator is not the pull request's to choose), else against the
        contexts it was given."""
        if sample.answerable is not None:
            return Answerable(1.0 if sample.answerable else 0.0, stated=True, judged=False)
        question = asked(sample)
        if question is None:  # nothing asked: the source is all there is to say
            return Answerable(1.0, stated=False, judged=False)
        if (held := sample.held) is not None:  # unchanged since the baseline: its verdict
            return Answerable(held.p, False, True, held.relevance, side=held.answerable)
        if sample.reference:
            own = await _holds(session, "\n\n".join(sample.reference), question)
            retrieved = await _holds(session, sample.source_text, question)
            return Answerable(own, stated=False, judged=True, retrieved=retrieved)
        return Answerable(await _holds(session, sample.source_text, question), False, True)


async def _holds(session: RowSession, source: str, question: str) -> float:
    """P(`source` holds what `question` asks): the best of its chunks."""

    async def ask(chunk: str) -> float:
        completion = await session.ask(
            "answerable", prompts.holds_answer(chunk, question), logprobs=True
        )
        return yes_probability(completion)

    p, _, _ = await best_support(session, source, len(question), ask, key=float)
    return p


def _answered_unit(sample: Sample, plan: Answered, verdict: str) -> UnitResult:
    text = sample.response.strip()
    if plan.why in (ADDRESSED, HIDDEN):  # what was cut: shown as it was
        text = " ".join(unit.text for unit in addressed_units(sample))
    shown = text if len(text) <= RESPONSE_SHOWN else text[: RESPONSE_SHOWN - 1] + "\u2026"
    detail: dict[str, object] = {"p_answered": round(plan.p, 4)}
    if plan.informs is not None:
        detail["p_informs"] = round(plan.informs, 4)
    if plan.evades is not None:
        detail["p_evades"] = round(plan.evades, 4)
    if plan.why == NO_WORDS:
        detail["no_words"] = True
    if plan.why == ADDRESSED:
        detail[ADDRESSED_TO_JUDGE] = True
    if plan.why == HIDDEN:
        detail[HIDDEN_TEXT] = True
    return UnitResult(shown, round(plan.p, 4), verdict, detail=detail)


def _answerable_unit(sample: Sample, holds: Answerable, answerable: bool) -> UnitResult:
    question = asked(sample)
    verdict = NOTHING_ASKED if question is None else HOLDS if answerable else LACKS
    if holds.stated:
        verdict += STATED
    detail: dict[str, object] = {"p_answerable": round(holds.p, 4), "stated": holds.stated}
    if holds.side is not None:
        detail["reused"] = True
    return UnitResult(question or "", round(holds.p, 4), verdict, detail=detail)


def held_answer(result: MetricResult) -> HeldAnswer | None:
    """The answerable verdict a row's `answers` result holds, to reuse while its question and
    source are unchanged; None when it holds none that was judged (stated by the dataset,
    nothing asked, or the metric failed)."""
    if result.status != "ok" or "context_relevance" not in result.scores or len(result.units) < 2:
        return None
    unit = result.units[1]
    p = unit.detail.get("p_answerable")
    if unit.detail.get("stated") or not isinstance(p, (int, float)):
        return None
    answerable = unit.verdict == HOLDS
    if not answerable and unit.verdict != LACKS:
        return None
    held = HeldAnswer(float(p), answerable, result.scores["context_relevance"])
    return held if held.side in result.scores else None  # its score on the side it names
