"""What says nothing: a response, or one sentence of it, that declines, greets, hedges or holds
no words at all. Such text is neither supported by the source nor missing from it, so the
per-unit methods leave it out of their means and the answers metric counts it as a decline.

Two tests, the cheap one first:
- `says_nothing`: no letter and no digit at all (`🎉🎉🎉`, `[]`, `{}`, `...`, `—`): decided
  without a judge call, in every unit mode alike;
- `states_fact`: the judge's P(Yes) that the text states at least one fact about the subject
  (prompts.states_facts), the same question claim extraction asks of a whole response first,
  so a one-sentence decline gets the same verdict (the same call) in both unit modes.
"""

from __future__ import annotations

from ground_gate.metrics import prompts
from ground_gate.metrics.base import RowSession
from ground_gate.metrics.logprobs import yes_probability

STATES_FACT_AT = 0.5  # P(states a fact) below this: the text only declines, greets or hedges
DECLINES = "declines"  # the verdict of a unit that states nothing


def says_nothing(text: str) -> bool:
    """Whether `text` holds no letter and no digit (emoji, punctuation, brackets, dashes)."""
    return not any(char.isalnum() for char in text)


async def fact_probability(question: str | None, text: str, session: RowSession) -> float:
    """P(`text` states at least one fact about the subject of `question`); 0 without a call
    when it holds no word at all."""
    if says_nothing(text):
        return 0.0
    check = await session.ask("states_facts", prompts.states_facts(question, text), logprobs=True)
    return yes_probability(check)
