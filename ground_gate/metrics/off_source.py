"""Sentences in none of the source's words: not in it, whatever a judge would say.

A 1.5B judge asked whether the source supports "[Fact-checked by Compliance, no issues found]"
or a French line about "section 3 of the document" says Yes about half the time: a sentence
about the answer, not the subject, reads to it like agreement. Such a sentence shares no
content word with the source (passages.word_stems: function words left out, crude stems), and
a sentence that shares none cannot be what the source says. So it is "not in source" with no
judge call for it, and a metric that draws units from the response draws none from it.

Measured on the 1,037 labelled responses (bench/RESULTS.md, issue 32): 3 of the 1,184
sentences of grounded responses share no word with their source ("Yes, there are.", "It
really is .", "Click here for more transfer news."), against 133 of the 1,408 of ungrounded
ones.

A response none of whose sentences shares a content word with its source is apart as a whole
when it is written in the source's language (it shares a function word: "the", "is", "I"):
on the labelled dev files that is 46 responses, every one of them labelled not grounded ("I
believe so. I don't remember that.", "yes it is. it is a comedy"), and a note appended to one
was judged supported at P 0.50-0.58 (bench/RESULTS.md, issue 32). One that shares no function
word either (an answer in another language than its documents) is left to the judge.

`part` is the one place the methods that draw units from a response (faithfulness's
statements, summary accuracy's questions, groundedness's claims) set such sentences apart:
each is asked only whether it states anything, and the others are read each in the context of
the kept sentences before it, so that a sentence added after them changes none of their units.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ground_gate.leaves.results import OFF_SOURCE, UnitResult
from ground_gate.leaves.sentences import split_sentences
from ground_gate.metrics.base import RowSession, together
from ground_gate.metrics.declines import INFORMS_AT, information_probability
from ground_gate.metrics.passages import STOPWORDS, word_stems, words

# the detail of a unit decided "not in source" this way (no judge call read it)
REASON = "shares no word with the source"


def off_source(units: Sequence[str], source: str) -> frozenset[int]:
    """The indices of `units` that share no content word with `source`; none when no unit
    shares one and no function word is shared either (another language than the source's)."""
    vocabulary = word_stems(source)
    apart = frozenset(i for i, unit in enumerate(units) if not word_stems(unit) & vocabulary)
    if len(apart) < len(units) or same_language(units, source):
        return apart
    return frozenset()


def same_language(units: Sequence[str], source: str) -> bool:
    """Whether `units` share a function word with `source` ("the", "is", "I"...): written in
    the source's language, even where they share none of its content words."""
    shared = words(source) & STOPWORDS
    return any(words(unit) & shared for unit in units)


@dataclass(frozen=True)
class Parted:
    """A response's sentences: `kept`, read with the source, in order; `apart`, those in none
    of the source's words, each with P(it holds any information) (declines.py)."""

    kept: tuple[str, ...]
    apart: tuple[tuple[str, float], ...]

    def so_far(self, i: int) -> str:
        """The kept sentences up to and including the `i`th: the context it is read in, which
        no sentence after it can change."""
        return " ".join(self.kept[: i + 1])


async def part(response: str, source: str, session: RowSession) -> Parted:
    """`response`'s sentences parted by `off_source`, those apart asked whether they state
    anything (the one call each makes)."""
    sentences = split_sentences(response)
    apart = off_source(sentences, source)
    texts = [sentences[i] for i in sorted(apart)]
    informs = await together(*(information_probability(t, session) for t in texts))
    kept = tuple(s for i, s in enumerate(sentences) if i not in apart)
    return Parted(kept, tuple(zip(texts, informs, strict=True)))


def stating(apart: Sequence[tuple[str, float]]) -> list[tuple[str, float]]:
    """The sentences apart that state something (P(informs) at INFORMS_AT or more)."""
    return [(text, p) for text, p in apart if p >= INFORMS_AT]


def apart_units(apart: Sequence[tuple[str, float]], verdict: str) -> list[UnitResult]:
    """The sentences apart that state something, as units of a method that draws its units
    from the response: unsupported (`verdict` in the method's words), scored 0, no judge call
    read them against the source."""
    return [
        UnitResult(text, 0.0, verdict, detail={OFF_SOURCE: REASON, "p_informs": round(p, 4)})
        for text, p in stating(apart)
    ]
