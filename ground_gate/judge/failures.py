"""What a failed judge call means: a pure table from HTTP status or exception to a policy.

A failed attempt is first named, as one `Failure` (`classify_status`, `classify_exception`),
then looked up in `POLICY`: retry it, ask again at once in another format, or give up; how long
to wait before a retry; and which error to raise on giving up, at once or once the retries run
out. Which error says how far the failure reaches:

- JudgeUnavailableError: the endpoint, the key or the model is unusable. The judge refuses
  every later call at once, so queued rows do not rediscover the outage one by one.
- JudgeError: only the request at hand failed; the next call goes out as usual.
  UnusableReplyError, a JudgeError, when what came back was no chat completion (the judge
  raises JudgeUnavailableError instead while the endpoint has never sent one).
- ConfigError never comes from a call: a configuration that cannot work (no Azure endpoint or
  API version) is refused by the client builders in `clients.py` before any request.

Nothing here does I/O, sleeps or keeps state; tests/unit/test_judge_failures.py reads the
tables row by row.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Container, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import openai

from ground_gate.judge.base import JUDGE, Speaker, UnusableReplyError
from ground_gate.judge.response import MalformedResponse
from ground_gate.judge.retry import backoff_delay, retry_after_seconds
from ground_gate.judge.structured import mentions_response_format
from ground_gate.leaves.errors import JudgeError, JudgeUnavailableError
from ground_gate.leaves.inert import inert


class Failure(StrEnum):
    JSON_SCHEMA_REJECTED = "json_schema rejected"  # structured "auto": fall back to json_object
    JSON_SCHEMA_UNSUPPORTED = "json_schema unsupported"  # structured "json_schema": no fallback
    KEY_REJECTED = "key rejected"
    NOT_FOUND = "not found"  # wrong base_url, model or Azure deployment
    BUSY = "busy"  # rate limit, request timeout, lock conflict
    SERVER_ERROR = "server error"
    REFUSED = "refused"  # any other status: this request is wrong, the judge is fine
    TIMEOUT = "timeout"
    CONNECTION = "connection failed"
    MALFORMED = "malformed response"


class Then(StrEnum):
    RETRY = "retry"
    SWITCH_FORMAT = "ask again at once with json_object"  # counts in Usage.retries, not max
    GIVE_UP = "give up"


class Wait(StrEnum):
    NONE = "none"
    BACKOFF = "backoff"  # exponential with full jitter (retry.backoff_delay)
    RETRY_AFTER = "Retry-After, else backoff"  # the server's own wait, when it sent a usable one


@dataclass(frozen=True)
class Policy:
    """What to do about one failure.

    error: raised on giving up, None when the policy never gives up.
    message: the error's text, a str.format template over role, keys, host, model, purpose, status,
        detail (": " and the server's message, or nothing), what (the failure in a few words,
        as logged) and attempts.
    """

    then: Then
    wait: Wait
    error: type[JudgeError] | None
    message: str


_UNAVAILABLE = "the {role} at {host} is unavailable: {what} (after {attempts} attempts)"

POLICY: Mapping[Failure, Policy] = {
    Failure.JSON_SCHEMA_REJECTED: Policy(Then.SWITCH_FORMAT, Wait.NONE, None, ""),
    Failure.JSON_SCHEMA_UNSUPPORTED: Policy(
        Then.GIVE_UP,
        Wait.NONE,
        JudgeError,
        "the {role} at {host} does not accept response_format json_schema (HTTP {status}); "
        "use structured output 'auto' or 'json_object'",
    ),
    Failure.KEY_REJECTED: Policy(
        Then.GIVE_UP,
        Wait.NONE,
        JudgeUnavailableError,
        "the {role} rejected the API key (HTTP {status}) at {host}: check the key and its "
        "access to model {model!r}",
    ),
    Failure.NOT_FOUND: Policy(
        Then.GIVE_UP,
        Wait.NONE,
        JudgeUnavailableError,
        "the {role} at {host} answered HTTP 404 for model {model!r}: check {keys}.base_url and "
        "{keys}.model (for Azure, the deployment name)",
    ),
    Failure.BUSY: Policy(Then.RETRY, Wait.RETRY_AFTER, JudgeUnavailableError, _UNAVAILABLE),
    Failure.SERVER_ERROR: Policy(Then.RETRY, Wait.RETRY_AFTER, JudgeUnavailableError, _UNAVAILABLE),
    Failure.REFUSED: Policy(
        Then.GIVE_UP,
        Wait.NONE,
        JudgeError,
        "the {role} at {host} refused the request for {purpose} (HTTP {status}){detail}",
    ),
    Failure.TIMEOUT: Policy(Then.RETRY, Wait.BACKOFF, JudgeUnavailableError, _UNAVAILABLE),
    Failure.CONNECTION: Policy(Then.RETRY, Wait.BACKOFF, JudgeUnavailableError, _UNAVAILABLE),
    Failure.MALFORMED: Policy(
        Then.RETRY,
        Wait.BACKOFF,
        UnusableReplyError,
        "the {role} at {host} kept sending unusable responses for {purpose}: {what} "
        "(after {attempts} attempts)",
    ),
}

# HTTP statuses, first match wins; a status in none of them is Failure.REFUSED.
STATUSES: tuple[tuple[Container[int], Failure], ...] = (
    (frozenset({401, 403}), Failure.KEY_REJECTED),
    (frozenset({404}), Failure.NOT_FOUND),
    (frozenset({408, 409, 429}), Failure.BUSY),
    (range(500, 1000), Failure.SERVER_ERROR),
)
# A server that does not take response_format json_schema answers one of these, naming it
# (llama-cpp-python's server: 500). Checked before STATUSES.
JSON_SCHEMA_REJECTION_STATUSES = frozenset({400, 422, 500})

# Exceptions from one call, first match wins (an APITimeoutError is an APIConnectionError;
# TimeoutError is the judge's own deadline on the whole call, connect and body).
EXCEPTIONS: tuple[tuple[type[Exception], Failure], ...] = (
    (openai.APITimeoutError, Failure.TIMEOUT),
    (TimeoutError, Failure.TIMEOUT),
    (openai.APIConnectionError, Failure.CONNECTION),
    (json.JSONDecodeError, Failure.MALFORMED),
    (openai.APIResponseValidationError, Failure.MALFORMED),
    (MalformedResponse, Failure.MALFORMED),
)
CALL_EXCEPTIONS: tuple[type[Exception], ...] = tuple(kind for kind, _ in EXCEPTIONS)

_MAX_SERVER_MESSAGE_CHARS = 300


def classify_status(status: int, *, json_schema_rejected: bool, may_fall_back: bool) -> Failure:
    if json_schema_rejected:
        return Failure.JSON_SCHEMA_REJECTED if may_fall_back else Failure.JSON_SCHEMA_UNSUPPORTED
    for statuses, failure in STATUSES:
        if status in statuses:
            return failure
    return Failure.REFUSED


def classify_exception(exc: BaseException) -> Failure | None:
    """The failure an exception from one call stands for; None when it is none of ours."""
    for kind, failure in EXCEPTIONS:
        if isinstance(exc, kind):
            return failure
    return None


def rejects_json_schema(status: int, asked_json_schema: bool, *messages: str) -> bool:
    """Whether an error answer says the server does not take response_format json_schema."""
    return (
        asked_json_schema
        and status in JSON_SCHEMA_REJECTION_STATUSES
        and any(mentions_response_format(message) for message in messages)
    )


@dataclass(frozen=True)
class Failed:
    """One failed attempt, named and described.

    what: the failure in a few words, for the log and the final error ("HTTP 429: ...").
    detail: the server's message, redacted and shortened ("" when it sent none).
    retry_after: seconds the server asked us to wait, when its policy honours that.
    """

    failure: Failure
    what: str
    status: int | None = None
    detail: str = ""
    retry_after: float | None = None

    @property
    def policy(self) -> Policy:
        return POLICY[self.failure]


def status_failed(
    exc: openai.APIStatusError, *, api_key: str | None, asked_json_schema: bool, may_fall_back: bool
) -> Failed:
    status = exc.status_code
    detail = server_message(exc.body, api_key)
    rejected = rejects_json_schema(status, asked_json_schema, detail, str(exc.body))
    failure = classify_status(status, json_schema_rejected=rejected, may_fall_back=may_fall_back)
    retry_after = None
    if POLICY[failure].wait is Wait.RETRY_AFTER and exc.response is not None:
        retry_after = retry_after_seconds(exc.response.headers)
    if failure is Failure.JSON_SCHEMA_REJECTED:
        what = "response_format json_schema rejected"
    else:
        what = f"HTTP {status}" + (f": {detail}" if detail else "")
    return Failed(failure, what, status=status, detail=detail, retry_after=retry_after)


def exception_failed(exc: Exception, *, timeout_s: float) -> Failed:
    """The Failed for one of CALL_EXCEPTIONS."""
    failure = classify_exception(exc)
    if failure is None:
        raise ValueError(f"{type(exc).__name__} is not a failure of a judge call") from exc
    if failure is Failure.TIMEOUT:
        return Failed(failure, f"no answer within {timeout_s:g} s")
    if failure is Failure.CONNECTION:
        cause = exc.__cause__
        reason = type(cause).__name__ if cause is not None else "connection error"
        return Failed(failure, f"connection failed ({reason})")
    if isinstance(exc, MalformedResponse):
        return Failed(failure, str(exc))
    return Failed(failure, f"malformed response body ({type(exc).__name__})")


def wait_seconds(failed: Failed, retry: int, *, rand: Callable[[], float]) -> float:
    """Seconds to wait before retry number `retry` (0 for the first)."""
    wait = failed.policy.wait
    if wait is Wait.NONE:
        return 0.0
    if wait is Wait.RETRY_AFTER and failed.retry_after is not None:
        return failed.retry_after
    return backoff_delay(retry, rand=rand)


def give_up_error(
    failed: Failed, *, host: str, model: str, purpose: str, attempts: int, speaker: Speaker = JUDGE
) -> JudgeError:
    """The error to raise on giving up after `attempts` attempts."""
    policy = failed.policy
    if policy.error is None:
        raise ValueError(f"the policy for {failed.failure} never gives up")
    message = policy.message.format(
        host=host,
        model=model,
        purpose=purpose,
        status=failed.status,
        detail=f": {failed.detail}" if failed.detail else "",
        what=failed.what,
        attempts=attempts,
        role=speaker.name,
        keys=speaker.keys,
    )
    error = policy.error(message)
    # The SDK's exception echoes the server's body (a 401 may quote part of the key).
    error.__suppress_context__ = True
    return error


def server_message(body: object, api_key: str | None) -> str:
    """The message in an error body, on one line, inert (a judge's, a prompt target's model's or
    an app's text reaches the terminal), without the API key, at most 300 chars."""
    message: Any = None
    if isinstance(body, Mapping):
        error = body.get("error")
        if isinstance(error, Mapping):
            message = error.get("message")
        elif isinstance(error, str):
            message = error
        if message is None:
            message = body.get("message") or body.get("detail")
    elif isinstance(body, str):
        message = body
    text = inert(" ".join(str(message).split())) if message else ""
    if isinstance(api_key, str) and len(api_key) >= 8:
        text = text.replace(api_key, "***")
    if len(text) > _MAX_SERVER_MESSAGE_CHARS:
        text = text[: _MAX_SERVER_MESSAGE_CHARS - 3] + "..."
    return text
