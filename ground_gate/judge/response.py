"""Reading a chat-completion response: the text, the tokens spent, and the top log-probabilities.

Servers differ in what they fill in (llama.cpp may omit usage details, some omit logprobs), so
every field is read defensively; a response without choices or with non-text content is
malformed, and the judge retries it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ground_gate.judge.base import quote_reply
from ground_gate.usage import Usage

# Alternatives asked for per generated token (the most OpenAI returns).
TOP_LOGPROBS = 20


class MalformedResponse(Exception):
    """The response parsed as JSON but does not hold a usable completion."""


@dataclass(frozen=True)
class Reply:
    text: str
    top_logprobs: tuple[Mapping[str, float], ...]


def read_reply(response: Any, *, logprobs: bool, usage: Usage) -> Reply:
    """The first choice's text (and top log-probabilities when asked); adds the tokens spent to
    `usage` (the call itself is counted by the judge, failed or not)."""
    if isinstance(response, str | bytes):  # the SDK hands over a body that is not JSON as is
        text = response if isinstance(response, str) else response.decode("utf-8", "replace")
        raise MalformedResponse(f"the response is not a chat completion: {quote_reply(text)}")
    choices = getattr(response, "choices", None)
    if not choices:
        raise MalformedResponse("the response has no choices")
    choice = choices[0]
    message = getattr(choice, "message", None)
    content = getattr(message, "content", None)
    if content is not None and not isinstance(content, str):
        raise MalformedResponse("the response's message content is not text")
    reported = getattr(response, "usage", None)
    usage.prompt_tokens += _int(getattr(reported, "prompt_tokens", 0))
    usage.completion_tokens += _int(getattr(reported, "completion_tokens", 0))
    details = getattr(reported, "prompt_tokens_details", None)
    usage.cached_tokens += _int(getattr(details, "cached_tokens", 0))
    top = top_logprobs(choice) if logprobs else ()
    return Reply(text=content or "", top_logprobs=top)


def top_logprobs(choice: Any) -> tuple[Mapping[str, float], ...]:
    """One mapping per generated token: token text -> log-probability, the chosen token included."""
    logprobs = getattr(choice, "logprobs", None)
    content = getattr(logprobs, "content", None)
    if not content:
        return ()
    tokens: list[Mapping[str, float]] = []
    for item in content:
        alternatives: dict[str, float] = {}
        for top in getattr(item, "top_logprobs", None) or ():
            token, logprob = getattr(top, "token", None), getattr(top, "logprob", None)
            if isinstance(token, str) and isinstance(logprob, int | float):
                alternatives.setdefault(token, float(logprob))
        token, logprob = getattr(item, "token", None), getattr(item, "logprob", None)
        if isinstance(token, str) and isinstance(logprob, int | float):
            alternatives.setdefault(token, float(logprob))
        tokens.append(alternatives)
    return tuple(tokens)


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
