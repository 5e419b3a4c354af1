"""Groundedness: each sentence (or claim) of the response judged against the source.

Two methods (config `method`):
- verdict (the default): one call per unit asks whether the source supports the unit (Yes),
  contradicts it (No) or does not say (Unknown), and the first token's probabilities give
  P(supported), P(contradicted), P(absent). Row scores: groundedness = mean P(supported),
  hallucination = mean P(absent), contradiction = mean P(contradicted); with `aggregate: min`
  each is its worst unit's (the lowest P(supported), the highest P(absent) and
  P(contradicted)). One call per unit gives all three, for any kind of row (QA, summary,
  dialogue). With a long source split into chunks, the chunk that supports wins, then one that
  contradicts, then one that does not say.
- rating: TruLens's published method, a 0-10 rating per unit; groundedness = mean rating / 10.
  The rating is the expected value over the judge's digit probabilities, which ranks better
  than the greedy digit.

With unit=claim, claims are extracted first and sentences that make no claim are skipped; a
response with no claim gets status no_claims, not 0. With unit=sentence, a sentence the source
does not hold is asked whether it holds any information at all (metrics/declines.py, one call
without the document or the question): one that only declines, greets or thanks, or holds no
word, is a `declines` unit, in no mean, and a response of nothing else is no_claims too, as
with claims. A passage cut because it spoke to the judge (metrics/addressed.py) or hidden from
its reader is one unit, absent from the source, judged by no call; so is a sentence in none of
the source's words (metrics/off_source.py). Contradiction is the share of the units a judge
compared with the source: those contradict nothing, and counting them would let any appended
sentence dilute it.

Evidence (a quote of the source, one generated answer per unit) is asked while scoring for
`evidence: unsupported` or `all`; for `evidence: shown` (the default) the pipeline asks
`quote` after the gate, only for the units the report shows.
"""

from __future__ import annotations

from collections.abc import Awaitable, Sequence
from dataclasses import dataclass, field, replace

from ground_gate.config.model import GroundednessConfig
from ground_gate.datasets import Sample
from ground_gate.judge.base import Judge
from ground_gate.leaves.results import (
    OFF_SOURCE,
    SWAPPED_FACT,
    MetricResult,
    UnitResult,
    without_judge,
)
from ground_gate.leaves.sentences import split_sentences
from ground_gate.metrics import facts, prompts
from ground_gate.metrics.aggregation import combine
from ground_gate.metrics.base import (
    RowSession,
    addressed_units,
    best_support,
    chunk_document,
    together,
)
from ground_gate.metrics.declines import (
    DECLINES,
    INFORMS_AT,
    information_probability,
    says_nothing,
)
from ground_gate.metrics.logprobs import choice_distribution, expected_rating
from ground_gate.metrics.off_source import REASON, off_source
from ground_gate.metrics.passages import GAP, focus, focus_row
from ground_gate.metrics.quotes import anchor, closest
from ground_gate.metrics.statements import extract_statements

SUPPORTED_AT = 0.5
EVIDENCE_TOKENS = 96
NOTHING_FOUND = "NOTHING FOUND"
VERDICT_ANSWERS = ("yes", "no", "unknown")
# unit verdict words, by the answer that won
VERDICT_WORDS = {"yes": "supported", "no": "contradicted", "unknown": "not in source"}
# the verdicts of a sentence the source does not hold (verdict method; rating method): only
# such a sentence may turn out to state nothing at all
UNHELD = frozenset({"not in source", "unsupported"})


@dataclass(frozen=True)
class Groundedness:
    config: GroundednessConfig = field(default_factory=GroundednessConfig)
    name: str = "groundedness"

    @property
    def scores(self) -> tuple[str, ...]:
        return self.config.scores

    async def prepare(self, sample: Sample, session: RowSession) -> list[str]:
        if self.config.unit == "claim":
            return (await extract_statements(sample, session)).claims()
        return split_sentences(sample.response)

    async def score(self, sample: Sample, plan: list[str], session: RowSession) -> MetricResult:
        cut = addressed_units(sample)
        if not plan and not cut:
            return session.result("no_claims")
        judge = self._verdict if self.config.method == "verdict" else self._rating
        apart = off_source(plan, sample.source_text)

        def unit(i: int, text: str) -> Awaitable[UnitResult]:
            if says_nothing(text):
                return _silent(text)
            if i in apart:
                return self._off_source(text)
            return judge(sample, text, session)

        judged = await together(*(unit(i, t) for i, t in enumerate(plan)))
        if self.config.unit == "sentence":  # claim extraction already left declines out
            judged = await self._declines(sample, judged, session)
        quoted = (self._with_evidence(sample, u, session) for u in judged)
        units = list(await together(*quoted))
        if self.config.method == "verdict":  # a cut passage is not in the source
            absent = {"p_supported": 0.0, "p_contradicted": 0.0, "p_absent": 1.0}
            cut = tuple(
                replace(u, verdict=VERDICT_WORDS["unknown"], detail={**u.detail, **absent})
                for u in cut
            )
        units += cut
        claims = [u for u in units if u.verdict != DECLINES]
        if not claims:  # every sentence only declines, greets or holds no word
            return session.result("no_claims", units=units)
        score = combine([u.score or 0.0 for u in claims], self.config.aggregate)
        scores = {"groundedness": round(score, 4)}
        if self.config.method == "verdict":
            worst = self.config.aggregate == "min"
            scores["hallucination"] = _share(claims, "p_absent", worst)
            # over the units a judge compared with the source: a passage cut, or one in none
            # of its words, contradicts nothing and would only dilute the others
            compared = [u for u in claims if not without_judge(u.detail)]
            scores["contradiction"] = _share(compared, "p_contradicted", worst)
        return session.result("ok", scores, tuple(units))

    async def _declines(
        self, sample: Sample, units: Sequence[UnitResult], session: RowSession
    ) -> list[UnitResult]:
        """The sentences the source does not hold, asked whether they hold any information at
        all (whatever their subject: an invented fact about something else stays judged): one
        that only declines, greets or thanks is neither supported nor missing from the source,
        so it leaves the means (as claim extraction leaves it out). A supported or
        contradicted sentence states something: it is not asked."""

        async def checked(unit: UnitResult) -> UnitResult:
            if unit.verdict not in UNHELD:
                return unit
            p = await information_probability(unit.text, session)
            return unit if p >= INFORMS_AT else _declining(unit.text, p)

        return list(await together(*(checked(u) for u in units)))

    async def _off_source(self, text: str) -> UnitResult:
        """A sentence in none of the source's words (metrics/off_source.py): not in it, no
        judge call; the declines check may still find it states nothing."""
        detail: dict[str, object] = {OFF_SOURCE: REASON}
        if self.config.method == "verdict":
            detail |= {"p_supported": 0.0, "p_contradicted": 0.0, "p_absent": 1.0}
            return UnitResult(text, 0.0, VERDICT_WORDS["unknown"], detail=detail)
        return UnitResult(text, 0.0, "unsupported", detail=detail)

    async def _verdict(self, sample: Sample, text: str, session: RowSession) -> UnitResult:
        async def ask(chunk: str) -> dict[str, float]:
            completion = await session.ask(
                "verdict", prompts.judge_sentence(chunk, text), logprobs=True
            )
            return choice_distribution(completion, VERDICT_ANSWERS)

        # support beats contradiction, which beats silence
        document = self.document(sample, text, session.judge)
        p, chunk_index, _ = await best_support(
            session, document, len(text), ask, key=lambda d: 2 * d["yes"] + d["no"]
        )
        swapped = None
        # the check only raises P(contradicted): a sentence the verdict already calls
        # contradicted stays so whatever a fact's fill says, so its facts are not asked
        if self.config.check_facts and _winner(p) != "no":
            chunks = chunk_document(document, session.judge.context_tokens, len(text))
            checked = await facts.check(text, chunks[chunk_index], sample.source_text, session)
            swapped = facts.swapped(checked)
        if swapped is not None:  # the passage states another value: at least that sure
            p = _at_least_contradicted(p, swapped.p_stated)
        detail: dict[str, object] = {
            "p_supported": round(p["yes"], 4),
            "p_contradicted": round(p["no"], 4),
            "p_absent": round(p["unknown"], 4),
            "chunk": chunk_index,
        }
        verdict = VERDICT_WORDS[_winner(p)]
        evidence = None
        if swapped is not None and verdict == VERDICT_WORDS["no"]:  # said where it decided
            detail[SWAPPED_FACT] = swapped.said
            evidence = swapped.evidence
        return UnitResult(text, round(p["yes"], 4), verdict, evidence, detail)

    async def _rating(self, sample: Sample, text: str, session: RowSession) -> UnitResult:
        async def rate(chunk: str) -> float:
            completion = await session.ask(
                "rate", prompts.rate_sentence(chunk, text), max_tokens=2, logprobs=True
            )
            return expected_rating(completion, 0, 10) / 10

        value, chunk_index, _ = await best_support(
            session, self.document(sample, text, session.judge), len(text), rate, key=lambda v: v
        )
        return UnitResult(
            text=text,
            score=round(value, 4),
            verdict="supported" if value >= SUPPORTED_AT else "unsupported",
            detail={"rating_0_10": round(value * 10, 2), "chunk": chunk_index},
        )

    def document(self, sample: Sample, unit: str, judge: Judge) -> str:
        """What the judge reads for `unit`: when the config focuses, the passages of a long
        source the unit is about (metrics/passages.py), else the whole source. A judge that
        reuses the prompt prefix of its previous call (the local server) reads the passages
        of all the row's sentences for each unit: one shared prefix per row, read once."""
        source = sample.source_text
        if not self.config.focuses:
            return source
        if judge.reuses_prefix:
            return focus_row(split_sentences(sample.response), source)
        return focus(unit, source)

    async def _with_evidence(
        self, sample: Sample, unit: UnitResult, session: RowSession
    ) -> UnitResult:
        wanted = self.config.evidence
        if unit.verdict == DECLINES or without_judge(unit.detail):  # nothing to quote for it
            return unit
        if unit.evidence is not None:  # a swapped fact's: the sentence stating the other value
            return unit
        if wanted == "all" or (wanted == "unsupported" and unit.verdict != "supported"):
            return replace(unit, evidence=await self.quote(sample, unit, session))
        return unit

    async def quote(self, sample: Sample, unit: UnitResult, session: RowSession) -> str:
        """The passage of the source that supports or contradicts `unit`, quoted by the judge
        from the chunk the unit was judged against and kept only as the source words it;
        when the judge quotes nothing usable, the chunk's sentence closest in wording to the
        unit (metrics/quotes.py); else NOTHING_FOUND.

        Used while scoring (evidence: unsupported / all) and after the gate for the units the
        report shows (evidence: shown); the prompt, hence the cache key, is the same.
        """
        document = self.document(sample, unit.text, session.judge)
        chunks = chunk_document(document, session.judge.context_tokens, len(unit.text))
        chunk = chunks[unit.detail["chunk"]]
        completion = await session.ask(
            "evidence", prompts.quote_evidence(chunk, unit.text), max_tokens=EVIDENCE_TOKENS
        )
        quote = " ".join(prompts.strip_tags(completion.text).split()).strip("\"' ")
        source = sample.source_text  # evidence is verbatim from the source, never the excerpt
        found = None if quote.upper().startswith(NOTHING_FOUND) else anchor(quote, source)
        return found or closest(unit.text, chunk.replace(GAP.strip(), " ")) or NOTHING_FOUND


async def _silent(text: str) -> UnitResult:
    """A unit with no letter and no digit (emoji, punctuation): it states nothing, judged by
    no call."""
    return _declining(text, 0.0)


def _declining(text: str, p_informs: float) -> UnitResult:
    return UnitResult(text, None, DECLINES, detail={"p_informs": round(p_informs, 4)})


def _winner(p: dict[str, float]) -> str:
    """The verdict's answer: the likeliest, the first of VERDICT_ANSWERS on a tie."""
    return max(VERDICT_ANSWERS, key=lambda a: p[a])


def _at_least_contradicted(p: dict[str, float], floor: float) -> dict[str, float]:
    """The verdict's distribution with P(contradicted) raised to `floor`, the other two
    scaled down to keep their ratio."""
    if p["no"] >= floor:
        return p
    rest = 1 - p["no"]
    scale = (1 - floor) / rest if rest > 0 else 0.0
    return {"yes": p["yes"] * scale, "no": floor, "unknown": p["unknown"] * scale}


def _share(units: list[UnitResult], key: str, worst: bool) -> float:
    """One verdict probability over the units: their mean, or (worst) their highest; 0 over
    none."""
    values = [float(u.detail[key]) for u in units]
    if not values:
        return 0.0
    return round(max(values) if worst else sum(values) / len(values), 4)
