"""TruLens groundedness: each sentence (or claim) rated 0-10 against the source, with evidence.

score = mean rating / 10 (aggregate "min": the weakest unit's, see aggregation.py). The
rating is the expected value over the judge's digit probabilities, which ranks better than
the greedy digit. With unit=claim (the improvement the method's critique asks for), claims
are extracted first and sentences that make no claim are skipped; a response with no claim
gets status no_claims, not 0.

Evidence (a quote of the source, one generated answer per unit) is asked while scoring for
`evidence: unsupported` or `all`; for `evidence: shown` (the default) the pipeline asks
`quote` after the gate, only for the units the report shows.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field, replace

from ground_gate.config.model import GroundednessConfig
from ground_gate.datasets import Sample
from ground_gate.metrics import prompts
from ground_gate.metrics.aggregation import combine
from ground_gate.metrics.base import RowSession, addressed_units, best_support, chunk_document
from ground_gate.metrics.logprobs import expected_rating
from ground_gate.metrics.statements import extract_statements
from ground_gate.results import MetricResult, UnitResult
from ground_gate.text import split_sentences

SUPPORTED_AT = 0.5
EVIDENCE_TOKENS = 96
NOTHING_FOUND = "NOTHING FOUND"


@dataclass(frozen=True)
class Groundedness:
    config: GroundednessConfig = field(default_factory=GroundednessConfig)
    name: str = "groundedness"
    scores: tuple[str, ...] = ("groundedness",)

    async def prepare(self, sample: Sample, session: RowSession) -> list[str]:
        if self.config.unit == "claim":
            return await extract_statements(sample, session)
        return split_sentences(sample.response)

    async def score(self, sample: Sample, plan: list[str], session: RowSession) -> MetricResult:
        cut = addressed_units(sample)
        if not plan and not cut:
            return session.result("no_claims")
        judged = await asyncio.gather(*(self._unit(sample, t, session) for t in plan))
        units = (*judged, *cut)
        score = combine([u.score or 0.0 for u in units], self.config.aggregate)
        return session.result("ok", {"groundedness": round(score, 4)}, tuple(units))

    async def _unit(self, sample: Sample, text: str, session: RowSession) -> UnitResult:
        async def rate(chunk: str) -> float:
            completion = await session.ask(
                "rate", prompts.rate_sentence(chunk, text), max_tokens=2, logprobs=True
            )
            return expected_rating(completion, 0, 10) / 10

        value, chunk_index, _ = await best_support(
            session, sample, len(text), rate, key=lambda v: v
        )
        unit = UnitResult(
            text=text,
            score=round(value, 4),
            verdict="supported" if value >= SUPPORTED_AT else "unsupported",
            detail={"rating_0_10": round(value * 10, 2), "chunk": chunk_index},
        )
        wanted = self.config.evidence
        if wanted == "all" or (wanted == "unsupported" and unit.verdict == "unsupported"):
            unit = replace(unit, evidence=await self.quote(sample, unit, session))
        return unit

    async def quote(self, sample: Sample, unit: UnitResult, session: RowSession) -> str:
        """The passage of the source that supports or contradicts `unit`, quoted by the judge
        from the chunk the unit was rated against (or NOTHING_FOUND).

        Used while scoring (evidence: unsupported / all) and after the gate for the units the
        report shows (evidence: shown); the prompt, hence the cache key, is the same.
        """
        chunks = chunk_document(sample.source_text, session.judge.context_tokens, len(unit.text))
        chunk = chunks[unit.detail["chunk"]]
        completion = await session.ask(
            "evidence", prompts.quote_evidence(chunk, unit.text), max_tokens=EVIDENCE_TOKENS
        )
        quote = " ".join(prompts.strip_tags(completion.text).split()).strip("\"' ")
        return quote or NOTHING_FOUND
