"""The contract between metrics and judges.

Metrics build a `JudgeRequest` and read a `Completion`; they never see HTTP, retries or
caching. A judge is anything with `model`, `context_tokens` and an async `complete()`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypeVar

from ground_gate.leaves.errors import JudgeError
from ground_gate.leaves.usage import Usage

E = TypeVar("E", bound=JudgeError)
_SPENT = "judge_usage"

Role = Literal["system", "user", "assistant"]


class UnusableReplyError(JudgeError):
    """The judge answered, but the answer is no verdict: no answer token carries the floor of
    probability, the text is not an answer, the JSON is invalid after a repair, or the HTTP
    body is not a chat completion. The message quotes the start of the reply."""


def quote_reply(text: str, limit: int = 60) -> str:
    """The start of a judge's reply for a message: escaped (repr), at most `limit` chars."""
    head = text[:limit]
    return repr(head) + ("..." if len(text) > limit else "")


@dataclass(frozen=True)
class Speaker:
    """Who a model answers as, in messages: the judge, or a prompt target's model (the same
    client, cache and retries serve both). keys: the config block that sets it up."""

    name: str = "judge"
    keys: str = "judge"


JUDGE = Speaker()


@dataclass(frozen=True)
class ChatMessage:
    role: Role
    content: str


@dataclass(frozen=True)
class JudgeRequest:
    """One chat completion, deterministic (temperature comes from the judge's config).

    purpose: the metric (or metric step) the call is for; usage is accounted per purpose.
    json_schema: when set, the judge asks for structured output matching it and returns the
        parsed, schema-valid value in `Completion.data` (or raises JudgeError).
    logprobs: when true, ask for the top log-probabilities of each generated token.
    """

    messages: tuple[ChatMessage, ...]
    purpose: str
    max_tokens: int = 1
    json_schema: Mapping[str, Any] | None = None
    logprobs: bool = False


def with_usage(error: E, usage: Usage) -> E:
    """`error` carrying what the failed call spent (its requests count in the usage too)."""
    setattr(error, _SPENT, usage)
    return error


def usage_of(error: BaseException) -> Usage | None:
    """What the failed call that raised `error` spent; None when no request was made."""
    usage = getattr(error, _SPENT, None)
    return usage if isinstance(usage, Usage) else None


@dataclass(frozen=True)
class Completion:
    """What a judge returns.

    top_logprobs: one mapping per generated token, token text -> natural-log probability,
        empty when the server gave none.
    data: the parsed JSON value when the request had a json_schema.
    usage: what this call spent now (a cache hit spends nothing but counts as a hit).
    cost: what producing the completion spent when it was made, cache hits included, so a
        resumed run still reports the true cost per row; None when a cache entry predates
        cost recording.
    cached: served from the on-disk cache (no call was made).
    """

    text: str
    top_logprobs: tuple[Mapping[str, float], ...] = ()
    data: Any = None
    usage: Usage = field(default_factory=Usage)
    cost: Usage | None = None
    cached: bool = False


class Judge(Protocol):
    @property
    def model(self) -> str: ...

    @property
    def context_tokens(self) -> int | None:
        """Tokens the model can attend to, or None when effectively unlimited for our prompts."""
        ...

    @property
    def reuses_prefix(self) -> bool:
        """True when the server reads only what differs from its previous call's prompt (a
        local llama.cpp server, one call at a time): a row's calls then gain from one shared
        prefix more than from fewer tokens each."""
        ...

    async def complete(self, request: JudgeRequest) -> Completion: ...
