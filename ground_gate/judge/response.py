"""Reading a chat-completion response: the text, the tokens spent, and the top log-probabilities.

Servers differ in what they fill in (llama.cpp may omit usage details, some omit logprobs), so
a missing field is read as absent. A field that is there is checked where it enters
(ground_gate/leaves/ranges.py): a body without a list of choices, non-text content, a
log-probability that is not one (NaN, Infinity, 1000.0), alternatives whose probabilities add
up to more than 1, or a token count that is not a count (negative, fractional, absurdly large)
make the response malformed, and the judge retries it as the failure table says; it is never
read as a verdict. Text that UTF-8 cannot hold (lone surrogates) is made writable here.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ground_gate.judge.base import quote_reply
from ground_gate.leaves.ranges import (
    NumberError,
    check_count,
    check_log_probability,
    check_probability,
)
from ground_gate.leaves.usage import Usage
from ground_gate.leaves.writable import writable

# Alternatives asked for per generated token (the most OpenAI returns).
TOP_LOGPROBS = 20


class MalformedResponse(Exception):
    """The response parsed as JSON but does not hold a usable completion."""


@dataclass(frozen=True)
class Reply:
    text: str
    top_logprobs: tuple[Mapping[str, float], ...]
    replaced: int = 0  # code points of the reply UTF-8 cannot hold, now U+FFFD


def field(value: Any, name: str) -> Any:
    """`value.name` of an SDK object, or `value[name]` of a plain mapping (the SDK keeps a part
    of the body that does not fit its types as it came); None when absent."""
    if isinstance(value, Mapping):
        return value.get(name)
    return getattr(value, name, None)


def read_reply(response: Any, *, logprobs: bool, usage: Usage) -> Reply:
    """The first choice's text (and top log-probabilities when asked); adds the tokens spent to
    `usage` (the call itself is counted by the judge, failed or not)."""
    if isinstance(response, str | bytes):  # the SDK hands over a body that is not JSON as is
        text = response if isinstance(response, str) else response.decode("utf-8", "replace")
        raise MalformedResponse(f"the response is not a chat completion: {quote_reply(text)}")
    choices = field(response, "choices")
    if not choices:
        raise MalformedResponse("the response has no choices")
    if not isinstance(choices, list):
        raise MalformedResponse("the response's choices are not a list")
    choice = choices[0]
    message = field(choice, "message")
    if message is None:
        raise MalformedResponse("the response's first choice holds no message")
    content = field(message, "content")
    if content is not None and not isinstance(content, str):
        raise MalformedResponse("the response's message content is not text")
    spent = _spent(field(response, "usage"))
    top = top_logprobs(choice) if logprobs else ()
    text, replaced = writable(content or "")
    usage.prompt_tokens += spent[0]
    usage.completion_tokens += spent[1]
    usage.cached_tokens += spent[2]
    return Reply(text=text, top_logprobs=top, replaced=replaced)


def _spent(reported: Any) -> tuple[int, int, int]:
    """(prompt, completion, cached) tokens the server reported; 0 for what it left out."""
    details = field(reported, "prompt_tokens_details")
    names = (
        (reported, "prompt_tokens"),
        (reported, "completion_tokens"),
        (details, "cached_tokens"),
    )
    counts = []
    for part, name in names:
        value = field(part, name)
        try:
            counts.append(0 if value is None else check_count(value, f"usage.{name}"))
        except NumberError as exc:
            raise MalformedResponse(f"the response's {exc}") from None
    return counts[0], counts[1], counts[2]


def top_logprobs(choice: Any) -> tuple[Mapping[str, float], ...]:
    """One mapping per generated token: token text -> log-probability, the chosen token included.

    Raises MalformedResponse for a log-probability that is not one, or alternatives whose
    probabilities add up to more than 1."""
    content = field(field(choice, "logprobs"), "content")
    if not content:
        return ()
    if not isinstance(content, list):
        raise MalformedResponse("the response's logprobs.content is not a list")
    tokens: list[Mapping[str, float]] = []
    for index, item in enumerate(content):
        alternatives: dict[str, float] = {}
        tops = field(item, "top_logprobs") or ()
        if not isinstance(tops, list | tuple):
            raise MalformedResponse(f"the response's logprobs of token {index} are not a list")
        for top in (*tops, item):
            token, logprob = field(top, "token"), field(top, "logprob")
            if isinstance(token, str) and logprob is not None:
                value = _logprob(logprob, index)
                alternatives.setdefault(writable(token)[0], value)
        _total(alternatives, index)
        tokens.append(alternatives)
    return tuple(tokens)


def _logprob(value: Any, index: int) -> float:
    try:
        return check_log_probability(value, f"log-probability of token {index}")
    except NumberError as exc:
        raise MalformedResponse(f"the response's {exc}") from None


def _total(alternatives: Mapping[str, float], index: int) -> None:
    total = math.fsum(math.exp(logprob) for logprob in alternatives.values())
    try:
        check_probability(total, f"total probability of token {index}'s alternatives")
    except NumberError as exc:
        raise MalformedResponse(f"the response's {exc}") from None
