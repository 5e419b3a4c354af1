"""What says nothing: a response, or one sentence of it, that declines, greets, hedges or holds
no words at all. Such text is neither supported by the source nor missing from it, so the
per-unit methods leave it out of their means and the answers metric counts it as a decline.

Two tests, the cheap one first:
- `says_nothing`: no letter and no digit at all (`🎉🎉🎉`, `[]`, `{}`, `...`, `—`): decided
  without a judge call, in every unit mode alike;
- `information_probability`: the judge's P(Yes) that the text holds any information at all (a
  fact, figure, name, event...), asked without the question (prompts.informs), so that a
  sentence about another subject, or a hedged one, still holds information and stays judged:
  only a decline, a greeting, thanks or a question back leaves the means. The same question
  is claim extraction's first (metrics/statements.py) and the answers metric's first view, so
  a one-sentence response is asked it once for all, and the unit modes agree on it.
"""

from __future__ import annotations

from ground_gate.metrics import prompts
from ground_gate.metrics.base import RowSession
from ground_gate.metrics.invisible import has_words
from ground_gate.metrics.logprobs import yes_probability

INFORMS_AT = 0.5  # P(holds any information) below this: the sentence states nothing
DECLINES = "declines"  # the verdict of a unit that states nothing


def says_nothing(text: str) -> bool:
    """Whether `text` holds no letter and no digit (emoji, punctuation, brackets, dashes)."""
    return not has_words(text)


async def information_probability(text: str, session: RowSession) -> float:
    """P(`text` holds any information at all), whatever its subject; 0 without a call when it
    holds no word."""
    if says_nothing(text):
        return 0.0
    check = await session.ask("informs", prompts.informs(text), logprobs=True)
    return yes_probability(check)
