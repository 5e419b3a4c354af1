"""Reading a chat completion: every number checked where it enters, bad shapes refused, text
made writable. The hostile replies of tests/hostile/judge_replies.py, read one by one."""

from __future__ import annotations

import json
import math

import pytest

from ground_gate.judge.base import Usage
from ground_gate.judge.response import MalformedResponse, read_reply
from tests.hostile.judge_replies import CASES, YES, Case, chat, lp, usage


def parsed(body: str) -> object:
    return json.loads(body)  # as the SDK's reader does: NaN, Infinity and 1e999 get through


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_read_reply__a_hostile_reply_is_malformed_with_its_reason(case: Case) -> None:
    try:
        response = parsed(case.body)
    except (ValueError, RecursionError):  # the judge refuses these before reading (its test)
        assert case.message == "the body cannot be read"
        return
    usage = Usage()
    with pytest.raises(MalformedResponse) as caught:
        read_reply(response, logprobs=True, usage=usage)
    assert case.message in str(caught.value)
    assert (usage.prompt_tokens, usage.completion_tokens, usage.cached_tokens) == (0, 0, 0)


def test_read_reply__a_sound_reply_is_read_with_its_usage() -> None:
    usage = Usage()
    reply = read_reply(parsed(chat(usage=usage_text(12, 1, 4))), logprobs=True, usage=usage)
    assert (reply.text, reply.top_logprobs, reply.replaced) == ("Yes", ({"Yes": -0.01},), 0)
    assert (usage.prompt_tokens, usage.completion_tokens, usage.cached_tokens) == (12, 1, 4)


def usage_text(prompt: int, completion: int, cached: int) -> str:
    return usage(str(prompt), str(completion), str(cached))


@pytest.mark.parametrize(
    ("logprob", "read"),
    [
        ("0.0", 0.0),
        ("0.0005", 0.0),  # float rounding past 0: a certain token
        ("-9999.0", -9999.0),  # what OpenAI writes for an alternative of no probability
        ("-1000000", -1e6),
    ],
)
def test_read_reply__log_probabilities_at_the_edges_are_read(logprob: str, read: float) -> None:
    reply = read_reply(parsed(chat(logprobs=lp(logprob, "-30"))), logprobs=True, usage=Usage())
    assert reply.top_logprobs[0]["Yes"] == read


def test_read_reply__alternatives_may_add_up_to_one_within_rounding() -> None:
    half = str(math.log(0.5025))
    reply = read_reply(parsed(chat(logprobs=lp(half, half))), logprobs=True, usage=Usage())
    assert set(reply.top_logprobs[0]) == {"Yes", "No"}


def test_read_reply__missing_usage_and_logprobs_are_absent_not_errors() -> None:
    body = json.loads(chat(logprobs="null"))
    del body["usage"]
    usage = Usage()
    reply = read_reply(body, logprobs=True, usage=usage)
    assert (reply.text, reply.top_logprobs, usage.prompt_tokens) == ("Yes", (), 0)


def test_read_reply__lone_surrogates_become_replacement_characters_and_are_counted() -> None:
    tokens = json.dumps([{**YES, "token": "Y\ud800", "logprob": -5.0}])
    body = parsed(chat(content='"It is \\ud800 and \\udfff."', logprobs=tokens))
    reply = read_reply(body, logprobs=True, usage=Usage())
    assert reply.text == "It is \ufffd and \ufffd."
    assert reply.replaced == 2
    assert reply.top_logprobs[0] == {"Yes": -0.01, "Y\ufffd": -5.0}
    reply.text.encode("utf-8")  # writable
