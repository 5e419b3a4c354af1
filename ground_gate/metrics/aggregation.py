"""How unit results become a row score: each method's own way, and the measured variants.

The published methods count hard verdicts and average them ("verdict", "mean"). Two
variants use what the judge already returned, with no extra call:
- scoring "probability": a unit counts with the judge's probability (of support, or of each
  answer pair) instead of 0/1, so rows that the method ties are ranked apart;
- aggregate "min": the row scores its weakest unit, matching labels that call a response
  grounded only when every part of it is supported.
bench/RESULTS.md has the before/after figures on human-labelled rows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ground_gate.config.model import Aggregate

ANSWERS = ("yes", "no", "unknown")


def combine(values: Sequence[float], how: Aggregate) -> float:
    """The row score from its units' scores (at least one)."""
    if not values:
        raise ValueError("combine() needs at least one unit score")
    if how == "min":
        return min(values)
    return sum(values) / len(values)


def answer_pair_probabilities(
    from_summary: Mapping[str, float], from_document: Mapping[str, float]
) -> dict[str, float]:
    """P(agree), P(hallucinated), P(contradicted) for one question, answers independent.

    Mirrors `summary_accuracy.classify` over the two Yes/No/Unknown distributions.
    """
    s = {a: float(from_summary.get(a, 0.0)) for a in ANSWERS}
    d = {a: float(from_document.get(a, 0.0)) for a in ANSWERS}
    return {
        "agree": sum(s[a] * d[a] for a in ANSWERS),
        "hallucinated": (s["yes"] + s["no"]) * d["unknown"],
        "contradicted": s["yes"] * d["no"] + s["no"] * d["yes"],
    }
