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

import re
from collections.abc import Callable

from ground_gate.text import split_sentences

MIN_WORD_OVERLAP = 0.5
_WORD = re.compile(r"\w+")
# function words: they say nothing about what a sentence is about
_FUNCTION_WORDS = (
    "a an the and or but if of to in on at by for with from as into about over after before "
    "is are was were be been being has have had do does did it its it's this that these "
    "those there their they them he she his her we our you your i me my not no so than then "
    "also which who whom what when where while up out very can could will would may might"
)
_STOPWORDS = frozenset(_FUNCTION_WORDS.split())


def anchor(quote: str, source: str) -> str | None:
    """The passage of `source` that `quote` stands for, verbatim from `source`; or None."""
    words = _WORD.findall(quote.lower())
    if not words:
        return None
    return _exact(words, source) or _best_sentence(set(words), source, _words)


def _exact(words: list[str], source: str) -> str | None:
    """The span of `source` holding `words` in order, separated only by non-word characters."""
    pattern = r"\W+".join(re.escape(w) for w in words)
    match = re.search(rf"\b{pattern}\b[.!?]?", source, re.IGNORECASE)
    return " ".join(match.group(0).split()) if match else None


def closest(sentence: str, source: str) -> str | None:
    """The source sentence sharing the most content words with `sentence` (at least half of
    them), verbatim from the source; or None."""
    wanted = _content(sentence)
    return _best_sentence(wanted, source, _content) if wanted else None


def _best_sentence(wanted: set[str], source: str, words: Callable[[str], set[str]]) -> str | None:
    """The source sentence whose `words` hold the largest share of `wanted`, if at least
    MIN_WORD_OVERLAP of it."""
    best, best_share = None, 0.0
    for candidate in split_sentences(source):
        share = len(wanted & words(candidate)) / len(wanted)
        if share > best_share:
            best, best_share = candidate, share
    return " ".join(best.split()) if best is not None and best_share >= MIN_WORD_OVERLAP else None


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def _content(text: str) -> set[str]:
    return _words(text) - _STOPWORDS
