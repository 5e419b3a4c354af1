"""Reading a judge's answer as probabilities instead of parsed words.

A one-token answer's top log-probabilities give a calibrated verdict: P(yes) for a yes/no
question, a distribution over Yes/No/Unknown, or an expected value over a rating scale
(G-Eval style). When the server returns no log-probabilities, the generated text is parsed
and the verdict is certain (probability 1 on what was said).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence

from ground_gate.errors import JudgeError
from ground_gate.judge.base import Completion

_WORD = re.compile(r"[a-z]+|\d+")


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


def _from_text(text: str, choices: Sequence[str]) -> dict[str, float] | None:
    for word in _WORD.findall(text.lower()):
        if word in choices:
            return {c: (1.0 if c == word else 0.0) for c in choices}
    return None


def choice_distribution(completion: Completion, choices: Sequence[str]) -> dict[str, float]:
    """Probability of each choice (lower-case words) for the answer's first token.

    Raises JudgeError when neither the log-probabilities nor the text name any choice.
    """
    if completion.top_logprobs:
        mass = dict.fromkeys(choices, 0.0)
        for token, logprob in completion.top_logprobs[0].items():
            choice = _match(token, choices)
            if choice is not None:
                mass[choice] += math.exp(logprob)
        total = sum(mass.values())
        if total > 0:
            return {c: m / total for c, m in mass.items()}
    parsed = _from_text(completion.text, choices)
    if parsed is None:
        raise JudgeError(f"the judge answered {completion.text[:40]!r}, not one of {choices}")
    return parsed


def yes_probability(completion: Completion) -> float:
    return choice_distribution(completion, ("yes", "no"))["yes"]


def _digit_mass(logprobs: Mapping[str, float], values: range) -> dict[int, float]:
    mass: dict[int, float] = {}
    for token, logprob in logprobs.items():
        norm = _normalise(token)
        if norm.isdigit() and int(norm) in values:
            mass[int(norm)] = mass.get(int(norm), 0.0) + math.exp(logprob)
    return mass


def expected_rating(completion: Completion, low: int, high: int) -> float:
    """Expected value of an integer rating in [low, high] from the first answer token(s).

    Tokenizers split '10' into '1' + '0': when the scale reaches 10, the mass on '1' is
    divided between 1 and 10 by the second token's distribution when the answer began with
    '1', and evenly otherwise (the second token is then unknown).
    """
    values = range(low, high + 1)
    if completion.top_logprobs:
        mass = _digit_mass(completion.top_logprobs[0], values)
        if high >= 10 and 1 in mass:
            p_one = mass.pop(1)
            p_ten = 0.5
            first = _normalise(completion.text[:1])
            if first == "1" and len(completion.top_logprobs) > 1:
                second = completion.top_logprobs[1]
                zero = sum(math.exp(lp) for t, lp in second.items() if _normalise(t) == "0")
                total = sum(math.exp(lp) for lp in second.values())
                p_ten = zero / total if total > 0 else 0.5
            mass[10] = mass.get(10, 0.0) + p_one * p_ten
            if 1 in values:
                mass[1] = p_one * (1 - p_ten)
        total = sum(mass.values())
        if total > 0:
            return sum(v * m for v, m in mass.items()) / total
    for word in re.findall(r"\d+", completion.text):
        if int(word) in values:
            return float(word)
    raise JudgeError(f"the judge answered {completion.text[:40]!r}, not a rating {low}-{high}")
