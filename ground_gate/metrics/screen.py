"""A row as the judge reads it: what no reader of the answer sees taken out (metrics/hidden.py),
then what speaks to the judge cut (metrics/addressed.py), each recorded on the row; a response
with text of uncertain visibility read twice, with it taken out and with it kept.

The hidden text goes first, so that the cut reads words as they show: an instruction broken up
by zero-width characters is cut like the same instruction typed plainly.
"""

from __future__ import annotations

from dataclasses import replace

from ground_gate.datasets import Sample
from ground_gate.metrics.addressed import screen
from ground_gate.metrics.hidden import reveal
from ground_gate.metrics.invisible import reveal_characters


def screen_sample(sample: Sample, *, hidden: bool = True, addressed: bool = True) -> Sample:
    """The row as the judge will see it: with `hidden`, the response as its reader surely sees
    it rendered and the question and sources (and reference) without invisible characters,
    every hidden passage recorded in `sample.hidden`; with `addressed`, passages addressed to
    the judge cut from the response, the question, the sources and the reference, each
    recorded in `sample.addressed`.

    A response with text of uncertain visibility is read both ways: this row takes it out,
    `uncertain_kept` is the row with it kept (each reading cut for the judge on its own)."""
    found: list[tuple[str, str, str]] = []
    cuts: list[tuple[str, str]] = []
    uncertain: list[str] = []  # the response with its text of uncertain visibility kept

    def cut(name: str, text: str, into: list[tuple[str, str]]) -> str:
        if not addressed:
            return text
        screened = screen(text)
        into.extend((name, passage) for passage in screened.removed)
        return screened.text

    def read(name: str, text: str) -> str:
        if hidden:
            revealed = reveal(text) if name == "response" else None
            if revealed is None:
                text, passages = reveal_characters(text)
            else:
                text, passages = revealed.text, revealed.hidden
                uncertain.extend([revealed.kept] if revealed.kept is not None else [])
            found.extend((name, kind, passage) for kind, passage in passages)
        return cut(name, text, cuts)

    response = read("response", sample.response)
    question = None if sample.question is None else read("question", sample.question)
    sources = tuple(read("context", source) for source in sample.sources)
    # the dataset's own context, where a target's retrieved contexts replaced it: the
    # answerable verdict reads it (metrics/answers.py)
    reference = tuple(read("context", source) for source in sample.reference)
    if not found and not cuts:
        return sample
    screened = replace(
        sample,
        response=response,
        question=question,
        sources=sources,
        reference=reference,
        addressed=tuple(cuts),
        hidden=tuple(found),
    )
    if not uncertain:
        return screened
    kept_cuts: list[tuple[str, str]] = []
    kept = cut("response", uncertain[0], kept_cuts)
    return _with_kept(screened, kept, kept_cuts)


def _with_kept(screened: Sample, kept: str, kept_cuts: list[tuple[str, str]]) -> Sample:
    """`screened` with its other reading: the response with its uncertain text `kept` (cut
    for the judge on its own, `kept_cuts`), every other field's cuts as they were."""
    others = tuple(c for c in screened.addressed if c[0] != "response")
    both = replace(screened, response=kept, addressed=(*kept_cuts, *others))
    return replace(screened, uncertain_kept=both)
