"""Evidence that is really in the source: a judge's quote anchored to the source's own words.

A small judge paraphrases, merges two sentences, or invents a passage that sounds right. A
reviewer must be able to find the evidence in the document, so the quote is kept only as the
source says it (`anchor`): the exact passage when the quote is in the source (whitespace and
case aside), else the source sentence sharing the most words with it when it shares at least
half of the quote's words, else nothing.

When the judge quotes nothing usable (the local 1.5B judge answers NOTHING FOUND for most
contradicted sentences), `closest` gives the source sentence that shares the most content
words with the judged sentence, if it shares at least half of them: for "It cost 59 million
euros." that is "The bridge cost 95 million euros, ...", the passage a reviewer needs to see
the conflict. An invented sentence shares little with any source sentence and gets nothing.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from ground_gate.leaves.sentences import split_sentences
from ground_gate.metrics.passages import content_words, words

MIN_WORD_OVERLAP = 0.5
_WORD = re.compile(r"\w+")


def anchor(quote: str, source: str) -> str | None:
    """The passage of `source` that `quote` stands for, verbatim from `source`; or None."""
    tokens = _WORD.findall(quote.lower())
    if not tokens:
        return None
    return _exact(tokens, source) or _best_sentence(set(tokens), source, words)


def _exact(tokens: list[str], source: str) -> str | None:
    """The span of `source` holding `tokens` in order, separated only by non-word characters."""
    pattern = r"\W+".join(re.escape(w) for w in tokens)
    match = re.search(rf"\b{pattern}\b[.!?]?", source, re.IGNORECASE)
    return " ".join(match.group(0).split()) if match else None


def closest(sentence: str, source: str) -> str | None:
    """The source sentence sharing the most content words with `sentence` (at least half of
    them), verbatim from the source; or None."""
    wanted = content_words(sentence)
    return _best_sentence(wanted, source, content_words) if wanted else None


def _best_sentence(
    wanted: set[str], source: str, words_of: Callable[[str], set[str]]
) -> str | None:
    """The source sentence whose `words_of` hold the largest share of `wanted`, if at least
    MIN_WORD_OVERLAP of it."""
    best, best_share = None, 0.0
    for candidate in _sentences(source):
        share = len(wanted & words_of(candidate)) / len(wanted)
        if share > best_share:
            best, best_share = candidate, share
    return " ".join(best.split()) if best is not None and best_share >= MIN_WORD_OVERLAP else None


@functools.lru_cache(maxsize=32)
def _sentences(source: str) -> tuple[str, ...]:
    """A source's sentences, kept for the next unit of the same row (a page asks per unit)."""
    return tuple(split_sentences(source))


def locate(passage: str, source: str) -> tuple[int, int] | None:
    """Where `passage` (as `anchor` and `closest` give it: the source's own words, whitespace
    collapsed) is in `source`, as (start, end) offsets; None when it is not there."""
    tokens = passage.split()
    if not tokens:
        return None
    match = re.search(r"\s+".join(re.escape(t) for t in tokens), source, re.IGNORECASE)
    return match.span() if match else None
