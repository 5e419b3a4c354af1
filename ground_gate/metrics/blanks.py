"""Several facts of one sentence asked in one judge call (metrics/facts.py).

The sentence goes to the judge with each fact blanked and numbered in order ("___(1)",
"___(2)"), and the reply must be exactly one line per blank, in order, each its number and the
words that fill it ("1: 60 minutes"). A reply of any other shape (a line missing, one too many,
out of order, unnumbered, or cut at the token limit) is no answer for any blank: every fact is
"absent" and the sentence's own verdict decides, as for a single fill the reader cannot use.
Nothing read from a malformed reply can make a fact "equal" or "different".

Each blank's P(stated) is read, as a single fill's is, from the token its answer starts with:
the reply's tokens are the greedy ones (temperature 0), so their texts joined give the reply
and each answer's first token is found by its offset. When they do not join to the reply (or
the judge gave no log-probabilities) every blank's P(stated) is 1.0, as for a single fill
without log-probabilities.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence

from ground_gate.judge.base import Completion
from ground_gate.metrics import prompts
from ground_gate.metrics.base import RowSession

FILL_TOKENS = 16  # a value, a name or a date: a few words
LINE_TOKENS = 4  # a numbered line's "2: " and its line break
_SILENT = ("not", "no", "none", "n", "unknown", "nothing")
# "1: 60 minutes", "1. 60", "1) 60", "(1) 60", "(1): 60", "___(1): 60"
_LINE = re.compile(r"[ \t]*(?:___)?(?:\((\d+)\)[ \t]*[:.\-]?|(\d+)[ \t]*[:.)\-])[ \t]*(.*?)\s*")


async def fill(
    session: RowSession, document: str, sentence: str, spans: Sequence[tuple[int, int]]
) -> list[tuple[str, float]]:
    """The judge's fill of each span of `sentence` blanked, in one call: each blank's words
    and P(stated), in order; [] when the reply is not read line by line."""
    limit = (FILL_TOKENS + LINE_TOKENS) * len(spans)
    completion = await session.ask(
        "facts", prompts.fill_blanks(document, numbered(sentence, spans), len(spans)),
        max_tokens=limit, logprobs=True,
    )  # fmt: skip
    return answers(completion, len(spans), limit)


def numbered(sentence: str, spans: Sequence[tuple[int, int]]) -> str:
    """`sentence` with each span (start, end), in order and none overlapping another,
    replaced by its numbered blank: "___(1)", "___(2)"..."""
    parts, at = [], 0
    for n, (start, end) in enumerate(spans, 1):
        if start < at or end < start:
            raise ValueError("blanks must be in order and apart")
        parts += [sentence[at:start], f"___({n})"]
        at = end
    return "".join(parts) + sentence[at:]


def answers(completion: Completion, count: int, max_tokens: int) -> list[tuple[str, float]]:
    """Each blank's fill and P(stated), in order; [] when the reply is not exactly `count`
    numbered lines (or was cut at `max_tokens`): no blank answered."""
    made = completion.cost or completion.usage
    if made.completion_tokens >= max_tokens or len(completion.top_logprobs) >= max_tokens:
        return []  # cut: its last line may be part of a value
    read = _lines(completion.text, count)
    if read is None:
        return []
    p = _p_each(completion, [offset for _, offset in read])
    return [(text, p_at) for (text, _), p_at in zip(read, p, strict=True)]


def _lines(text: str, count: int) -> list[tuple[str, int]] | None:
    """Each line's answer and its offset in `text`; None unless there are exactly `count`
    lines (blank ones aside), numbered 1..count in order."""
    read: list[tuple[str, int]] = []
    at = 0
    for line in text.splitlines(keepends=True):
        start, at = at, at + len(line)
        if not line.strip():
            continue
        match = _LINE.fullmatch(line)
        if match is None or int(match.group(1) or match.group(2)) != len(read) + 1:
            return None
        read.append((match.group(3), start + match.start(3)))
    return read if len(read) == count else None


def _p_each(completion: Completion, offsets: Sequence[int]) -> list[float]:
    """P(stated) at each offset's token; 1.0 for all when the tokens do not give the text."""
    tokens = [max(top, key=top.__getitem__) if top else "" for top in completion.top_logprobs]
    if not tokens or "".join(tokens) != completion.text:
        return [1.0] * len(offsets)
    ends = [0]
    for token in tokens:
        ends.append(ends[-1] + len(token))
    found = []
    for offset in offsets:
        index = next((i for i in range(len(tokens)) if ends[i] <= offset < ends[i + 1]), None)
        found.append(1.0 if index is None else p_stated(completion.top_logprobs[index]))
    return found


def p_stated(first: Mapping[str, float]) -> float:
    """P(the answer's first token is not "NOT STATED" or the like): how sure the judge is
    that the passage gives the blank a value. 1.0 without log-probabilities."""
    total = sum(math.exp(lp) for lp in first.values())
    if total <= 0:
        return 1.0
    silent = sum(math.exp(lp) for token, lp in first.items() if token.strip().lower() in _SILENT)
    return max(0.0, min(1.0, 1 - silent / total))
