"""The failure table, row by row: HTTP status or exception -> failure -> policy -> error."""

from __future__ import annotations

import json

import openai
import pytest

from ground_gate.judge.base import UnusableReplyError
from ground_gate.judge.failures import (
    POLICY,
    Failed,
    Failure,
    Policy,
    Then,
    Wait,
    classify_exception,
    classify_status,
    exception_failed,
    give_up_error,
    rejects_json_schema,
    server_message,
    status_failed,
    wait_seconds,
)
from ground_gate.judge.response import MalformedResponse
from ground_gate.judge.transport import SDK_HTTP
from ground_gate.leaves.errors import JudgeError, JudgeUnavailableError

URL = "http://127.0.0.1:9/v1/chat/completions"
KEY = "sk-secret-abcdef0123456789"
REQUEST = SDK_HTTP.Request("POST", URL)

F = Failure
UNAVAILABLE = JudgeUnavailableError

# The policy table as a reader should find it in failures.POLICY.
POLICY_ROWS = [
    (F.JSON_SCHEMA_REJECTED, Then.SWITCH_FORMAT, Wait.NONE, None),
    (F.JSON_SCHEMA_UNSUPPORTED, Then.GIVE_UP, Wait.NONE, JudgeError),
    (F.KEY_REJECTED, Then.GIVE_UP, Wait.NONE, UNAVAILABLE),
    (F.NOT_FOUND, Then.GIVE_UP, Wait.NONE, UNAVAILABLE),
    (F.BUSY, Then.RETRY, Wait.RETRY_AFTER, UNAVAILABLE),
    (F.SERVER_ERROR, Then.RETRY, Wait.RETRY_AFTER, UNAVAILABLE),
    (F.REFUSED, Then.GIVE_UP, Wait.NONE, JudgeError),
    (F.TIMEOUT, Then.RETRY, Wait.BACKOFF, UNAVAILABLE),
    (F.CONNECTION, Then.RETRY, Wait.BACKOFF, UNAVAILABLE),
    (F.MALFORMED, Then.RETRY, Wait.BACKOFF, UnusableReplyError),
]


@pytest.mark.parametrize(("failure", "then", "wait", "error"), POLICY_ROWS, ids=str)
def test_policy__row(
    failure: Failure, then: Then, wait: Wait, error: type[JudgeError] | None
) -> None:
    policy = POLICY[failure]
    assert (policy.then, policy.wait, policy.error) == (then, wait, error)


def test_policy__every_failure_has_exactly_one_row() -> None:
    assert list(POLICY) == list(Failure) == [row[0] for row in POLICY_ROWS]


@pytest.mark.parametrize(
    ("status", "failure"),
    [
        (401, F.KEY_REJECTED),
        (403, F.KEY_REJECTED),
        (404, F.NOT_FOUND),
        (408, F.BUSY),
        (409, F.BUSY),
        (429, F.BUSY),
        (500, F.SERVER_ERROR),
        (502, F.SERVER_ERROR),
        (503, F.SERVER_ERROR),
        (504, F.SERVER_ERROR),
        (599, F.SERVER_ERROR),
        (400, F.REFUSED),
        (402, F.REFUSED),
        (413, F.REFUSED),
        (422, F.REFUSED),
    ],
)
def test_classify_status__row(status: int, failure: Failure) -> None:
    assert classify_status(status, json_schema_rejected=False, may_fall_back=True) is failure


@pytest.mark.parametrize(
    ("may_fall_back", "failure"),
    [(True, F.JSON_SCHEMA_REJECTED), (False, F.JSON_SCHEMA_UNSUPPORTED)],
)
def test_classify_status__a_json_schema_rejection_comes_before_the_status(
    may_fall_back: bool, failure: Failure
) -> None:
    for status in (400, 422, 500):
        got = classify_status(status, json_schema_rejected=True, may_fall_back=may_fall_back)
        assert got is failure


@pytest.mark.parametrize(
    ("status", "asked", "message", "rejected"),
    [
        (500, True, "response_format: json_schema is not supported", True),
        (400, True, "Invalid value for json_schema", True),
        (422, True, "unknown field response_format", True),
        (500, False, "response_format: json_schema is not supported", False),  # not asked
        (503, True, "response_format: json_schema is not supported", False),  # other status
        (500, True, "model crashed", False),  # does not name it
    ],
)
def test_rejects_json_schema__row(status: int, asked: bool, message: str, rejected: bool) -> None:
    assert rejects_json_schema(status, asked, "", message) is rejected


def validation_error() -> openai.APIResponseValidationError:
    return openai.APIResponseValidationError(SDK_HTTP.Response(200, request=REQUEST), None)


@pytest.mark.parametrize(
    ("exc", "failure"),
    [
        (openai.APITimeoutError(request=REQUEST), F.TIMEOUT),
        (openai.APIConnectionError(request=REQUEST), F.CONNECTION),
        (json.JSONDecodeError("Expecting value", "{", 1), F.MALFORMED),
        (validation_error(), F.MALFORMED),
        (MalformedResponse("the response has no choices"), F.MALFORMED),
        (TimeoutError(), F.TIMEOUT),
        (ValueError("ours"), None),
    ],
    ids=lambda value: type(value).__name__ if isinstance(value, Exception) else str(value),
)
def test_classify_exception__row(exc: Exception, failure: Failure | None) -> None:
    assert classify_exception(exc) is failure


def connection_error_from(cause: Exception) -> openai.APIConnectionError:
    error = openai.APIConnectionError(request=REQUEST)
    error.__cause__ = cause
    return error


@pytest.mark.parametrize(
    ("exc", "what"),
    [
        (openai.APITimeoutError(request=REQUEST), "no answer within 2.5 s"),
        (TimeoutError(), "no answer within 2.5 s"),  # the deadline on the whole call
        (
            connection_error_from(ConnectionRefusedError()),
            "connection failed (ConnectionRefusedError)",
        ),
        (openai.APIConnectionError(request=REQUEST), "connection failed (connection error)"),
        (json.JSONDecodeError("x", "{", 1), "malformed response body (JSONDecodeError)"),
        (validation_error(), "malformed response body (APIResponseValidationError)"),
        (MalformedResponse("the response has no choices"), "the response has no choices"),
    ],
    ids=lambda value: type(value).__name__ if isinstance(value, Exception) else "",
)
def test_exception_failed__says_what_happened(exc: Exception, what: str) -> None:
    assert exception_failed(exc, timeout_s=2.5).what == what


def test_exception_failed__refuses_exceptions_that_are_not_call_failures() -> None:
    with pytest.raises(ValueError, match="KeyError is not a failure of a judge call"):
        exception_failed(KeyError("x"), timeout_s=1)


def status_error(
    status: int, message: str, headers: dict[str, str] | None = None
) -> openai.APIStatusError:
    body = {"error": {"message": message}}
    response = SDK_HTTP.Response(status, headers=headers or {}, json=body, request=REQUEST)
    return openai.APIStatusError(message, response=response, body=body)


def test_status_failed__a_busy_server_carries_its_retry_after_and_a_redacted_message() -> None:
    exc = status_error(429, f"Rate limit reached for {KEY}", {"Retry-After": "3"})
    failed = status_failed(exc, api_key=KEY, asked_json_schema=False, may_fall_back=True)
    assert failed == Failed(
        F.BUSY,
        "HTTP 429: Rate limit reached for ***",
        status=429,
        detail="Rate limit reached for ***",
        retry_after=3.0,
    )


def test_status_failed__a_refusal_ignores_retry_after() -> None:
    exc = status_error(400, "too long", {"Retry-After": "3"})
    failed = status_failed(exc, api_key=KEY, asked_json_schema=False, may_fall_back=True)
    assert (failed.failure, failed.retry_after) == (F.REFUSED, None)


def test_status_failed__a_json_schema_rejection_is_named_as_such() -> None:
    exc = status_error(500, "response_format type json_schema is not supported")
    failed = status_failed(exc, api_key=KEY, asked_json_schema=True, may_fall_back=True)
    assert (failed.failure, failed.what) == (
        F.JSON_SCHEMA_REJECTED,
        "response_format json_schema rejected",
    )


@pytest.mark.parametrize(
    ("failed", "retry", "seconds"),
    [
        (Failed(F.BUSY, "HTTP 429", status=429, retry_after=7.0), 3, 7.0),  # the server's wait
        (Failed(F.BUSY, "HTTP 429", status=429), 2, 1.0),  # none sent: backoff (2 * 0.5)
        (Failed(F.SERVER_ERROR, "HTTP 503", status=503, retry_after=1.5), 0, 1.5),
        (Failed(F.TIMEOUT, "no answer", retry_after=9.0), 0, 0.25),  # backoff only
        (Failed(F.MALFORMED, "malformed"), 1, 0.5),
        (Failed(F.JSON_SCHEMA_REJECTED, "rejected", status=500), 4, 0.0),
    ],
)
def test_wait_seconds__row(failed: Failed, retry: int, seconds: float) -> None:
    assert wait_seconds(failed, retry, rand=lambda: 0.5) == seconds


@pytest.mark.parametrize(
    ("failed", "error", "message"),
    [
        (
            Failed(F.JSON_SCHEMA_UNSUPPORTED, "x", status=500),
            JudgeError,
            "the judge at h does not accept response_format json_schema (HTTP 500); use "
            "structured output 'auto' or 'json_object'",
        ),
        (
            Failed(F.KEY_REJECTED, "x", status=401, detail=f"bad key {KEY}"),
            JudgeUnavailableError,
            "the judge rejected the API key (HTTP 401) at h: check the key and its access to "
            "model 'm'",
        ),
        (
            Failed(F.NOT_FOUND, "x", status=404),
            JudgeUnavailableError,
            "the judge at h answered HTTP 404 for model 'm': check judge.base_url and "
            "judge.model (for Azure, the deployment name)",
        ),
        (
            Failed(F.BUSY, "HTTP 429: slow down", status=429),
            JudgeUnavailableError,
            "the judge at h is unavailable: HTTP 429: slow down (after 4 attempts)",
        ),
        (
            Failed(F.REFUSED, "x", status=400, detail="context too long"),
            JudgeError,
            "the judge at h refused the request for faithfulness (HTTP 400): context too long",
        ),
        (
            Failed(F.REFUSED, "x", status=413),
            JudgeError,
            "the judge at h refused the request for faithfulness (HTTP 413)",
        ),
        (
            Failed(F.CONNECTION, "connection failed (ConnectError)"),
            JudgeUnavailableError,
            "the judge at h is unavailable: connection failed (ConnectError) (after 4 attempts)",
        ),
        (
            Failed(F.MALFORMED, "the response has no choices"),
            UnusableReplyError,
            "the judge at h kept sending unusable responses for faithfulness: the response has "
            "no choices (after 4 attempts)",
        ),
    ],
    ids=lambda value: str(value.failure) if isinstance(value, Failed) else "",
)
def test_give_up_error__row(failed: Failed, error: type[JudgeError], message: str) -> None:
    raised = give_up_error(failed, host="h", model="m", purpose="faithfulness", attempts=4)
    assert type(raised) is error
    assert str(raised) == message
    assert raised.__suppress_context__ is True


def test_give_up_error__a_policy_that_never_gives_up_has_no_error() -> None:
    with pytest.raises(ValueError, match="never gives up"):
        give_up_error(
            Failed(F.JSON_SCHEMA_REJECTED, "x"), host="h", model="m", purpose="p", attempts=1
        )


def test_policy__every_message_formats_with_the_documented_fields() -> None:
    fields = {"host": "h", "model": "m", "purpose": "p", "status": 1, "detail": "", "what": "w"}
    fields |= {"role": "judge", "keys": "judge"}
    for failure, policy in POLICY.items():
        assert isinstance(policy, Policy)
        policy.message.format(attempts=2, **fields)  # no KeyError
        assert (policy.error is None) == (policy.message == ""), failure


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"error": {"message": "  too\nlong  "}}, "too long"),
        ({"error": "plain error"}, "plain error"),
        ({"message": "top-level message"}, "top-level message"),
        ({"detail": "FastAPI detail"}, "FastAPI detail"),
        ("a text body", "a text body"),
        (None, ""),
        ({"error": {"code": 1}}, ""),
        ({"error": {"message": f"key {KEY} rejected"}}, "key *** rejected"),
        ("x" * 400, "x" * 297 + "..."),
    ],
)
def test_server_message__row(body: object, message: str) -> None:
    assert server_message(body, KEY) == message


def test_server_message__a_short_key_is_not_redacted_everywhere() -> None:
    # a placeholder such as "k" would blank out every k in the message
    assert server_message("key k is bad", "k") == "key k is bad"
