"""Evidence that is really in the source: a judge's quote anchored to the source's own words.

A small judge paraphrases, merges two sentences, or invents a passage that sounds right. A
reviewer must be able to find the evidence in the document, so the quote is kept only as the
source says it: the exact passage when the quote is in the source (whitespace and case aside),
else the source sentence sharing the most words with it when it shares at least half of the
quote's words, else nothing.
"""

from __future__ import annotations

import re

from ground_gate.text import split_sentences

MIN_WORD_OVERLAP = 0.5
_WORD = re.compile(r"\w+")


def anchor(quote: str, source: str) -> str | None:
    """The passage of `source` that `quote` stands for, verbatim from `source`; or None."""
    words = _WORD.findall(quote.lower())
    if not words:
        return None
    found = _exact(words, source)
    if found is not None:
        return found
    wanted = set(words)
    best, best_share = None, 0.0
    for sentence in split_sentences(source):
        share = len(wanted & set(_WORD.findall(sentence.lower()))) / len(wanted)
        if share > best_share:
            best, best_share = sentence, share
    return best if best_share >= MIN_WORD_OVERLAP else None


def _exact(words: list[str], source: str) -> str | None:
    """The span of `source` holding `words` in order, separated only by non-word characters."""
    pattern = r"\W+".join(re.escape(w) for w in words)
    match = re.search(rf"\b{pattern}\b[.!?]?", source, re.IGNORECASE)
    return " ".join(match.group(0).split()) if match else None
