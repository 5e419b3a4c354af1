"""Reading a judge's answer as probabilities, only from evidence of a verdict.

A one-token answer's top log-probabilities give a calibrated verdict: P(yes) for a yes/no
question, a distribution over Yes/No/Unknown, or an expected value over a rating scale
(G-Eval style). A verdict is read only when the judge actually gave one:

- With log-probabilities, the valid answer tokens of the first generated token (the choices,
  their word prefixes such as "Un", or the scale's digits) must carry together at least
  MIN_ANSWER_MASS (0.5) of the probability before it is renormalised over them. Below that,
  the judge was mostly saying something else ("The answer is...", a chat template's preamble,
  a proxy's canned text), and spreading the small remainder over the answers would invent a
  confident verdict from noise. The floor is half: the answer must be more likely than
  everything else the model could have said. Measured with the local 1.5B judge on the e2e
  rows, all 43 verdicts (yes/no, Yes/No/Unknown, 0-10, 1-5) carried 0.995 or more.
  When log-probabilities are present they decide; the text is not read instead.
- Without log-probabilities, the text is read only when the whole reply IS an answer: "Yes",
  "no.", "Unknown", "9", "10" (case, surrounding whitespace, quotes, markdown emphasis and a
  trailing period tolerated; a word prefix a one-token limit cut, "Un", counts for its word).
  "The answer is maybe 9 of 10." is no verdict.

Anything else raises UnusableReplyError quoting the start of the reply; the unit, hence the
row's metric, is then an error (it never passes), and a run in which nothing could be scored
ends incomplete (runner.py).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence

from ground_gate.judge.base import Completion, UnusableReplyError, quote_reply

# The least total probability the valid answer tokens must carry for a verdict to be read.
MIN_ANSWER_MASS = 0.5

_INTEGER = re.compile(r"\d+")


def _normalise(token: str) -> str:
    return token.strip().strip("\"'*`.:,!<>()[]").lower()


def _match(token: str, choices: Sequence[str]) -> str | None:
    """The choice this token starts, if exactly one (tokens can be word prefixes: 'Un')."""
    norm = _normalise(token)
    if not norm:
        return None
    hits = [c for c in choices if c == norm or (c.startswith(norm) and len(norm) < len(c))]
    exact = [c for c in hits if c == norm]
    if exact:
        return exact[0]
    return hits[0] if len(hits) == 1 else None


def _whole_answer(text: str) -> str:
    """The whole reply as one answer word: trimmed of whitespace, quotes, emphasis and end
    punctuation, lower case ("" when nothing is left)."""
    return _normalise(text)


def _unusable(completion: Completion, expected: str, mass: float | None) -> UnusableReplyError:
    if mass is not None:
        why = f"its answer tokens carry probability {mass:.2f} < {MIN_ANSWER_MASS}"
    else:
        why = "that is not an answer and there are no log-probabilities"
    return UnusableReplyError(
        f"the judge's reply {quote_reply(completion.text)} is not {expected}: {why}"
    )


def choice_distribution(completion: Completion, choices: Sequence[str]) -> dict[str, float]:
    """Probability of each choice (lower-case words) for the answer's first token.

    Raises UnusableReplyError when the reply carries no verdict (see the module docstring).
    """
    expected = "one of " + "/".join(choices)
    if completion.top_logprobs:
        mass = dict.fromkeys(choices, 0.0)
        for token, logprob in completion.top_logprobs[0].items():
            choice = _match(token, choices)
            if choice is not None:
                mass[choice] += math.exp(logprob)
        total = sum(mass.values())
        if total < MIN_ANSWER_MASS:
            raise _unusable(completion, expected, total)
        return {c: m / total for c, m in mass.items()}
    answer = _whole_answer(completion.text)
    said = _match(answer, choices) if answer else None
    if said is None:
        raise _unusable(completion, expected, None)
    return {c: (1.0 if c == said else 0.0) for c in choices}


def yes_probability(completion: Completion) -> float:
    return choice_distribution(completion, ("yes", "no"))["yes"]


def _digit_mass(logprobs: Mapping[str, float], values: range) -> dict[int, float]:
    mass: dict[int, float] = {}
    for token, logprob in logprobs.items():
        norm = _normalise(token)
        if norm.isdigit() and int(norm) in values:
            mass[int(norm)] = mass.get(int(norm), 0.0) + math.exp(logprob)
    return mass


def _share_of_ten(completion: Completion) -> float:
    """Of the mass on a first token '1', the share that goes on to '10': the second token's
    P('0') when the answer began with '1', else even (the second token is then unknown)."""
    if _normalise(completion.text[:1]) != "1" or len(completion.top_logprobs) < 2:
        return 0.5
    second = completion.top_logprobs[1]
    zero = sum(math.exp(lp) for t, lp in second.items() if _normalise(t) == "0")
    total = sum(math.exp(lp) for lp in second.values())
    return zero / total if total > 0 else 0.5


def expected_rating(completion: Completion, low: int, high: int) -> float:
    """Expected value of an integer rating in [low, high] from the first answer token(s).

    Tokenizers split '10' into '1' + '0': when the scale reaches 10, the mass on '1' is
    divided between 1 and 10 by `_share_of_ten`. The floor applies to the first token's
    mass on the scale's digits. Raises UnusableReplyError when the reply carries no rating.
    """
    values = range(low, high + 1)
    expected = f"a rating {low}-{high}"
    if completion.top_logprobs:
        mass = _digit_mass(completion.top_logprobs[0], values)
        if high >= 10 and 1 in mass:
            p_one = mass.pop(1)
            p_ten = _share_of_ten(completion)
            mass[10] = mass.get(10, 0.0) + p_one * p_ten
            if 1 in values:
                mass[1] = p_one * (1 - p_ten)
        total = sum(mass.values())
        if total < MIN_ANSWER_MASS:
            raise _unusable(completion, expected, total)
        return sum(v * m for v, m in mass.items()) / total
    answer = _whole_answer(completion.text)
    if not _INTEGER.fullmatch(answer) or int(answer) not in values:
        raise _unusable(completion, expected, None)
    return float(answer)
