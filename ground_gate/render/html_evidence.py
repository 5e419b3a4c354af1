"""A row's units marked in its response, and source passages highlighted in its source, each
highlight tied to the unit it explains and labelled for what it is.

Each unit has a tag (G2: groundedness's second unit). In the response, a unit's sentence is
marked with its verdict's colour and its tag. In the source, a passage is highlighted for a
unit only. The judge's quote for a supported unit (green) or a contradicted one (yellow) is
the judge's evidence. A unit judged not in the source (or unsupported) has no evidence: the
passage the judge quoted for it, or else its closest source sentence by word overlap, is
highlighted apart as the closest source sentence, which supports nothing; so is the closest
sentence of a contradicted unit the judge quoted nothing for. A judge that answered NOTHING
FOUND said the source holds nothing about the unit: that is what the page says, with no
quote. No judge call is made.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from ground_gate.metrics.quotes import anchor, closest, locate
from ground_gate.render.html_page import esc
from ground_gate.report.types import RowEntry, UnitEntry
from ground_gate.review import words
from ground_gate.review.evidence_words import has_evidence, verdict_class
from ground_gate.review.words import (
    CLOSEST,
    EVIDENCE,
    NOT_QUOTED,
    OVERLAP_CLOSEST,
    QUOTED_CLOSEST,
    is_nothing_found,
)
from ground_gate.review.words import NO_PASSAGE as NOTHING_SAID

# The metrics whose units are sentences or claims of the response: those are marked in it,
# and matched to the closest source passage when the row has no judge evidence. (Summary
# accuracy's units are questions; rating's is the whole response.)
CLAIM_METRICS = ("groundedness", "faithfulness")
# a highlight's kind, the stronger first where passages overlap
KINDS = ("ev", "near", "ev-good")


@dataclass(frozen=True)
class Span:
    start: int
    end: int
    kind: str  # response: "u-<verdict class>"; source: one of KINDS
    tag: str  # the unit's label, e.g. "G2"
    title: str


def tag(metric: str, index: int) -> str:
    return f"{metric[:1].upper()}{index + 1}"


def _strongest(covering: Sequence[Span]) -> str:
    kinds = [s.kind for s in covering]
    return next((k for k in KINDS if k in kinds), kinds[0])


def marked(text: str, spans: Sequence[Span]) -> str:
    """`text` escaped, each span in a <mark> (overlapping spans share a segment, a failing
    unit's highlight over a supported one's), each span's tag after its end."""
    points = sorted({0, len(text), *(s.start for s in spans), *(s.end for s in spans)})
    out = []
    for a, b in itertools.pairwise(points):
        covering = [s for s in spans if s.start <= a and s.end >= b]
        piece = esc(text[a:b], keep_lines=True)
        if covering:
            title = "; ".join(dict.fromkeys(s.title for s in covering))
            piece = f'<mark class="{_strongest(covering)}" title="{esc(title)}">{piece}</mark>'
        out.append(piece)
        out += [f'<sup class="tag">{esc(s.tag)}</sup>' for s in spans if s.end == b and s.end > a]
    return "".join(out)


def _find(unit_text: str, text: str, taken: Sequence[Span]) -> tuple[int, int] | None:
    """Where a unit is in the response: verbatim, else its words (a claim extracted from
    a clause ends with a full stop the response does not have there)."""
    start = text.find(unit_text) if unit_text else -1
    found = (start, start + len(unit_text)) if start >= 0 else None
    found = found or locate(unit_text, text) or locate(unit_text.rstrip(" .!?"), text)
    if found is None or any(found[0] < s.end and s.start < found[1] for s in taken):
        return None
    return found


def response_spans(row: RowEntry, response: str) -> list[Span]:
    spans: list[Span] = []
    for name, metric in row["metrics"].items():
        if metric["status"] == "error" or name not in CLAIM_METRICS:
            continue
        for i, unit in enumerate(metric["units"]):
            found = _find(unit["text"], response, spans)
            if found is None:
                continue
            score = "" if unit["score"] is None else f" {unit['score']:.2f}"
            kind = "u-" + verdict_class(unit["verdict"])
            title = f"{tag(name, i)} {name}: {unit['verdict']}{score}"
            spans.append(Span(*found, kind, tag(name, i), title))
    return sorted(spans, key=lambda s: s.start)


@dataclass(frozen=True)
class SourceMarks:
    spans: list[Span]
    notes: dict[tuple[str, int], str]  # (metric, unit index) -> where its evidence is

    def label(self) -> str:
        kinds = {s.kind for s in self.spans}
        return words.highlighted("ev" in kinds, "ev-good" in kinds, "near" in kinds)


def _quoted(unit: UnitEntry, source: str, label: str) -> Span | None:
    quote = unit.get("evidence")
    passage = anchor(quote, source) if quote and not is_nothing_found(quote) else None
    found = locate(passage, source) if passage else None
    if found is None:
        return None
    if not has_evidence(unit):
        return Span(*found, "near", label, f"{label}: {CLOSEST}, {QUOTED_CLOSEST}")
    good = verdict_class(unit["verdict"]) == "good"
    return Span(*found, "ev-good" if good else "ev", label, f"{label}: {EVIDENCE}")


def _closest(unit: UnitEntry, source: str, label: str) -> Span | None:
    passage = closest(unit["text"], source)
    found = locate(passage, source) if passage else None
    if found is None:
        return None
    return Span(*found, "near", label, f"{label}: {CLOSEST}, {OVERLAP_CLOSEST}")


def _unit_marks(name: str, unit: UnitEntry, source: str, label: str) -> tuple[list[Span], str]:
    """The unit's own highlights and the note that says what they are and where."""
    quote = unit.get("evidence")
    quoted = _quoted(unit, source, label)
    if quoted is not None:
        said = EVIDENCE if quoted.kind != "near" else f"{CLOSEST}, {QUOTED_CLOSEST}"
        return [quoted], words.HIGHLIGHTED_AT.format(said=said, tag=label)
    notes = []
    if is_nothing_found(quote):
        notes.append(NOTHING_SAID)
    elif quote:
        notes.append(NOT_QUOTED)
    failing = verdict_class(unit["verdict"]) in ("bad", "contra")
    near = _closest(unit, source, label) if failing and name in CLAIM_METRICS else None
    if near is not None:
        notes.append(f"{CLOSEST}, {OVERLAP_CLOSEST} ({label})")
    elif failing and not quote and name in CLAIM_METRICS:  # the others quote no evidence
        notes.append(words.NO_EVIDENCE_NEAR)
    return ([near] if near else []), "; ".join(notes)


def source_marks(row: RowEntry, source: str) -> SourceMarks:
    """Each unit's judge quote located in the source (evidence only for a supported or a
    contradicted unit); for a failing claim without one (a small judge often quotes nothing
    usable), its closest source sentence by word overlap, labelled as such. Every highlight
    carries its unit's tag."""
    spans: list[Span] = []
    notes: dict[tuple[str, int], str] = {}
    for name, metric in row["metrics"].items():
        if metric["status"] == "error":
            continue
        for i, unit in enumerate(metric["units"]):
            found, note = _unit_marks(name, unit, source, tag(name, i))
            spans += found
            if note:
                notes[(name, i)] = note
    return SourceMarks(sorted(spans, key=lambda s: s.start), notes)
