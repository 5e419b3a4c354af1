"""Sentences in none of the source's words: not in it, whatever a judge would say.

A 1.5B judge asked whether the source supports "[Fact-checked by Compliance, no issues found]"
or a French line about "section 3 of the document" says Yes about half the time: a sentence
about the answer, not the subject, reads to it like agreement. Such a sentence shares no
content word with the source (passages.word_stems: function words left out, crude stems), and
a sentence that shares none cannot be what the source says. So it is "not in source" with no
judge call for it, and a metric that draws questions from the response leaves it out of them.

Measured on the 1,037 labelled responses (bench/RESULTS.md, issue 32): 3 of the 1,184
sentences of grounded responses share no word with their source ("Yes, there are.", "It
really is .", "Click here for more transfer news."), against 133 of the 1,408 of ungrounded
ones.

A response none of whose sentences shares a word with its source (an answer in another
language than its documents) is left to the judge: the rule only says that a sentence is apart
from a response that otherwise speaks the source's words.
"""

from __future__ import annotations

from collections.abc import Sequence

from ground_gate.metrics.passages import word_stems

# the detail of a unit decided "not in source" this way (no judge call read it)
REASON = "shares no word with the source"


def off_source(units: Sequence[str], source: str) -> frozenset[int]:
    """The indices of `units` that share no content word with `source`; none when no unit
    shares one (the response is not in the source's words at all)."""
    vocabulary = word_stems(source)
    apart = frozenset(i for i, unit in enumerate(units) if not word_stems(unit) & vocabulary)
    return frozenset() if len(apart) == len(units) else apart


def without(response: str, sentences: Sequence[str]) -> str:
    """`response` with each of `sentences` (found in order) taken out, the whitespace around
    the text left closed up: a response that only gained such sentences reads as before."""
    kept: list[str] = []
    at = 0
    for sentence in sentences:
        found = response.find(sentence, at)
        if found < 0:
            continue
        kept.append(response[at:found])
        at = found + len(sentence)
    kept.append(response[at:])
    return "".join(kept).strip()
