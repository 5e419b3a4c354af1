"""Judge replies that are no verdict: each is a chat-completion body (raw bytes, as a server
could send it) and the words the judge's message must hold. Every case is read by the unit
test of the reply reader (tests/unit/test_judge_response.py) and served by a judge that
always answers it to `ground-gate run` (tests/integration/test_hostile_judge.py): exit 2, the
message, no traceback, no score written as a number.
"""

from __future__ import annotations

import json
from typing import NamedTuple


class Case(NamedTuple):
    name: str
    body: str
    message: str


YES = {"token": "Yes", "logprob": -0.01, "top_logprobs": [{"token": "Yes", "logprob": -0.01}]}
USAGE = '{"prompt_tokens": 12, "completion_tokens": 1, "total_tokens": 13}'


def chat(
    content: str = '"Yes"',
    logprobs: str = json.dumps([YES]),
    usage: str = USAGE,
    choices: str | None = None,
) -> str:
    """A chat completion with these parts spliced in as raw JSON text (NaN, 1e999 and 400-digit
    integers included, which no JSON encoder writes)."""
    if choices is None:
        message = f'{{"role": "assistant", "content": {content}}}'
        choices = (
            f'[{{"index": 0, "message": {message}, "logprobs": {{"content": {logprobs}}}, '
            '"finish_reason": "stop"}]'
        )
    return (
        '{"id": "chatcmpl-hostile", "object": "chat.completion", "created": 1, '
        f'"model": "fake-model", "choices": {choices}, "usage": {usage}}}'
    )


def lp(value: str, other: str = "-4.6") -> str:
    """One generated token "Yes" with log-probability `value`, and "No" at `other`."""
    yes = f'{{"token": "Yes", "logprob": {value}}}'
    no = f'{{"token": "No", "logprob": {other}}}'
    return f'[{{"token": "Yes", "logprob": {value}, "top_logprobs": [{yes}, {no}]}}]'


def usage(prompt: str = "12", completion: str = "1", cached: str | None = None) -> str:
    details = "" if cached is None else f', "prompt_tokens_details": {{"cached_tokens": {cached}}}'
    return f'{{"prompt_tokens": {prompt}, "completion_tokens": {completion}{details}}}'


CASES = [
    Case(
        "logprob-nan",
        chat(logprobs=lp("NaN")),
        "log-probability of token 0: expected a log-probability (a finite number from -1e+06 to 0), got nan",
    ),
    Case("logprob-infinity", chat(logprobs=lp("Infinity")), "got inf"),
    Case("logprob-minus-infinity", chat(logprobs=lp("-Infinity")), "got -inf"),
    Case("logprob-1e999", chat(logprobs=lp("1e999")), "got inf"),
    Case("logprob-1000", chat(logprobs=lp("1000.0")), "got 1000.0"),
    Case("logprob-positive", chat(logprobs=lp("0.5")), "got 0.5"),
    Case("logprob-below-sane", chat(logprobs=lp("-1e300")), "got -1e+300"),
    Case("logprob-a-word", chat(logprobs=lp('"certain"')), "got 'certain'"),
    Case("logprob-true", chat(logprobs=lp("true")), "log-probability of token 0: expected"),
    Case("logprob-400-digits", chat(logprobs=lp("-" + "9" * 400)), "got an integer of 400 digits"),
    Case(
        "alternatives-above-one",
        chat(logprobs=lp("-0.1", "-0.1")),
        "total probability of token 0's alternatives: expected a probability",
    ),
    Case(
        "choices-an-object",
        chat(choices='{"0": {"message": {"content": "Yes"}}}'),
        "the response's choices are not a list",
    ),
    Case("choices-a-string", chat(choices='"Yes"'), "the response's choices are not a list"),
    Case("choices-empty", chat(choices="[]"), "the response has no choices"),
    Case("choice-null", chat(choices="[null]"), "the response's first choice holds no message"),
    Case("choice-a-number", chat(choices="[42]"), "the response's first choice holds no message"),
    Case("content-a-number", chat(content="5"), "the response's message content is not text"),
    Case(
        "content-an-object",
        chat(content='{"text": "Yes"}'),
        "the response's message content is not text",
    ),
    Case(
        "logprobs-content-an-object",
        chat(logprobs='{"0": {"token": "Yes", "logprob": -0.01}}'),
        "logprobs.content is not a list",
    ),
    Case(
        "top-logprobs-an-object",
        chat(logprobs='[{"token": "Yes", "logprob": -0.01, "top_logprobs": {"Yes": -0.01}}]'),
        "logprobs of token 0 are not a list",
    ),
    Case(
        "usage-negative",
        chat(usage=usage(prompt="-5000")),
        "usage.prompt_tokens: expected a count (an integer from 0 to 1e+15), got -5000",
    ),
    Case(
        "usage-fraction",
        chat(usage=usage(completion="1.5")),
        "usage.completion_tokens: expected a count",
    ),
    Case("usage-a-string", chat(usage=usage(prompt='"12"')), "got '12'"),
    Case("usage-infinity", chat(usage=usage(completion="1e999")), "got inf"),
    Case("usage-400-digits", chat(usage=usage(prompt="9" * 400)), "got an integer of 400 digits"),
    Case(
        "usage-cached-negative",
        chat(usage=usage(cached="-1")),
        "usage.cached_tokens: expected a count",
    ),
    Case("usage-true", chat(usage=usage(prompt="true")), "got true"),
    Case("body-a-list", "[1, 2, 3]", "no choices"),
    Case("body-null", "null", "no choices"),
    Case("body-a-number", "42", "no choices"),
    Case("usage-5000-digits", chat(usage=usage(prompt="9" * 5000)), "the body cannot be read"),
    Case("body-nested-100000-deep", "[" * 100000 + "]" * 100000, "the body cannot be read"),
]
