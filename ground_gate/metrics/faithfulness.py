"""RAGAS faithfulness: standalone statements, a 0/1 verdict each, score = supported / total.

The verdict is P(yes) >= 0.5 read from the judge's first-token probabilities; the
probability is kept in each statement's detail. Variants (see aggregation.py): scoring
"probability" counts each statement with P(yes); aggregate "min" scores the weakest one.

Statements are drawn one sentence at a time (metrics/statements.py); a sentence in none of the
source's words that states something is one unsupported unit with no judge call
(metrics/off_source.py), as groundedness counts it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ground_gate.config.model import FaithfulnessConfig
from ground_gate.datasets import Sample
from ground_gate.leaves.results import MetricResult, UnitResult
from ground_gate.metrics import prompts
from ground_gate.metrics.aggregation import combine
from ground_gate.metrics.base import RowSession, addressed_units, best_support, together
from ground_gate.metrics.logprobs import yes_probability
from ground_gate.metrics.off_source import apart_units
from ground_gate.metrics.statements import Extraction, extract_statements


@dataclass(frozen=True)
class Faithfulness:
    config: FaithfulnessConfig = field(default_factory=FaithfulnessConfig)
    name: str = "faithfulness"
    scores: tuple[str, ...] = ("faithfulness",)

    async def prepare(self, sample: Sample, session: RowSession) -> Extraction:
        return await extract_statements(sample, session)

    async def score(self, sample: Sample, plan: Extraction, session: RowSession) -> MetricResult:
        cut = addressed_units(sample)
        apart = apart_units(plan.apart, "unsupported")
        if not plan.statements and not cut and not apart:
            return session.result("no_claims")
        judged = await together(*(self._unit(sample, st, session) for st in plan.statements))
        units = (*judged, *apart, *cut)
        score = combine([u.score or 0.0 for u in units], self.config.aggregate)
        return session.result("ok", {"faithfulness": round(score, 4)}, tuple(units))

    async def _unit(self, sample: Sample, statement: str, session: RowSession) -> UnitResult:
        async def verdict(chunk: str) -> float:
            completion = await session.ask(
                "verdict", prompts.statement_supported(chunk, statement), logprobs=True
            )
            return yes_probability(completion)

        p_yes, chunk_index, _ = await best_support(
            session, sample.source_text, len(statement), verdict, key=lambda p: p
        )
        supported = p_yes >= 0.5
        return UnitResult(
            text=statement,
            score=round(p_yes, 4)
            if self.config.scoring == "probability"
            else (1.0 if supported else 0.0),
            verdict="supported" if supported else "unsupported",
            detail={"p_supported": round(p_yes, 4), "chunk": chunk_index},
        )
