"""What the judge reads for one unit of a long source: the passages the unit is about.

A small judge reading a 2,500-character news article for one summary sentence misses the one
passage that conflicts with it. For a source longer than FOCUS_FROM_CHARS, each unit is
judged against an excerpt instead: the TOP_SENTENCES source sentences that share the most
content words with the unit (rarer words weigh more), each with its neighbours, in source
order, gaps marked. A unit alone that shares no word with the source is judged against the
whole source, so nothing that might support it is hidden (beside other units, it is decided
without the judge: metrics/off_source.py).

The excerpt is a pure function of (unit, source): the evidence quote, asked later, reads the
same excerpt and the judge cache stays valid between runs.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

from ground_gate.leaves.sentences import split_sentences

FOCUS_FROM_CHARS = 1500
TOP_SENTENCES = 3
NEIGHBOURS = 1  # sentences kept on each side of a chosen one
GAP = " [...] "
_WORD = re.compile(r"\w+")
# function words: they say nothing about what a sentence is about
_FUNCTION_WORDS = (
    "a an the and or but if of to in on at by for with from as into about over after before "
    "is are was were be been being has have had do does did it its it's this that these "
    "those there their they them he she his her we our you your i me my not no so than then "
    "also which who whom what when where while up out very can could will would may might"
)
STOPWORDS = frozenset(_FUNCTION_WORDS.split())
_STEM_CHARS = 6  # "charging", "charged" and "charges" share "chargi"/"charge"; crude, cheap


def words(text: str) -> set[str]:
    """The lower-cased words of `text`."""
    return set(_WORD.findall(text.lower()))


def content_words(text: str) -> set[str]:
    """The words of `text` that say what it is about (function words left out)."""
    return words(text) - STOPWORDS


def focus(unit: str, source: str) -> str:
    """The excerpt of `source` that `unit` is judged against (the whole source when short)."""
    return focus_row((unit,), source)


def focus_row(units: Sequence[str], source: str) -> str:
    """One excerpt for all of `units` (a row's sentences): the passages each is about, in
    source order, gaps marked. Every unit of a row is then judged against the same text, so
    the row's calls share one prompt prefix, the one a local server keeps in its cache.

    A unit that shares no word with the source adds nothing: it is decided without a judge
    call (metrics/off_source.py), and a sentence appended to a response must not change what
    its other sentences are judged against. When no unit shares a word, the whole source."""
    if len(source) < FOCUS_FROM_CHARS:
        return source
    sentences = split_sentences(source)
    stems = [word_stems(s) for s in sentences]
    frequency = Counter(w for s in stems for w in s)
    kept: set[int] = set()
    for unit in units:
        kept |= _passages(word_stems(unit), stems, frequency)
    if not kept or len(kept) == len(sentences):
        return source
    return _excerpt(sentences, sorted(kept))


def _passages(wanted: set[str], stems: list[set[str]], frequency: Counter[str]) -> set[int]:
    """The indices of the TOP_SENTENCES sentences sharing the most (rarer words weigh more)
    with `wanted`, each with its neighbours; empty when no sentence shares a word."""
    total = len(stems)
    weights = [sum(math.log(1 + total / frequency[w]) for w in wanted & s) for s in stems]
    ranked = sorted((i for i, w in enumerate(weights) if w > 0), key=lambda i: (-weights[i], i))
    return {
        j
        for i in ranked[:TOP_SENTENCES]
        for j in range(max(0, i - NEIGHBOURS), min(total, i + NEIGHBOURS + 1))
    }


def _excerpt(sentences: list[str], kept: list[int]) -> str:
    parts: list[str] = []
    for position, index in enumerate(kept):
        if position and index != kept[position - 1] + 1:
            parts.append(GAP.strip())
        parts.append(sentences[index])
    lead = "" if kept[0] == 0 else GAP.strip() + " "
    tail = "" if kept[-1] == len(sentences) - 1 else " " + GAP.strip()
    return lead + " ".join(parts) + tail


def word_stems(text: str) -> set[str]:
    """The crude stems of `text`'s content words: what two texts must share to be about the
    same thing."""
    return {w[:_STEM_CHARS] for w in content_words(text)}
