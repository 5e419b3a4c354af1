"""What a unit's quote from the source is, in words every renderer shares: the judge's
evidence only for a sentence it called supported or contradicted; for any other (not in
source, unsupported) the quote is the closest source sentence, and it supports nothing.
"""

from __future__ import annotations

from ground_gate.metrics import answers
from ground_gate.report.types import UnitEntry
from ground_gate.review.selection import BAD_VERDICTS
from ground_gate.review.words import CLOSEST, EVIDENCE, NOTHING_SAID, is_nothing_found

GOOD_VERDICTS = frozenset({"supported", "agree"} | answers.GOOD_VERDICTS)


def verdict_class(verdict: str) -> str:
    """contra, bad, good or other: how a verdict reads (and is styled)."""
    if verdict == "contradicted":
        return "contra"
    if verdict in BAD_VERDICTS:
        return "bad"
    return "good" if verdict in GOOD_VERDICTS else "other"


def has_evidence(unit: UnitEntry) -> bool:
    """Whether a quote the judge gave for the unit is evidence: for a supported or a
    contradicted unit. For any other (not in source, unsupported) it supports nothing."""
    return verdict_class(unit["verdict"]) in ("good", "contra")


def evidence_said(unit: UnitEntry) -> tuple[str, str] | None:
    """(what the quote is, the quote) for a unit's quote; (NOTHING_SAID, "") when the judge
    found no passage; None without a quote."""
    quote = unit.get("evidence")
    if not quote:
        return None
    if is_nothing_found(quote):
        return NOTHING_SAID, ""
    return (EVIDENCE if has_evidence(unit) else CLOSEST), quote
