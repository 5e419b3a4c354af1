"""OpenAIJudge through the real openai SDK and real HTTP against the scripted fake server."""

from __future__ import annotations

import asyncio
import json
import logging
import random
import socket
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from openai.types.chat import ChatCompletion

from ground_gate.config.model import Budget
from ground_gate.judge.base import ChatMessage, JudgeRequest, UnusableReplyError
from ground_gate.judge.budget import BudgetExceededError, SpendingLimit
from ground_gate.judge.cache import JudgeCache
from ground_gate.judge.clients import build_openai_client
from ground_gate.judge.openai_judge import OpenAIJudge
from ground_gate.leaves.errors import JudgeError, JudgeUnavailableError, ModelError
from ground_gate.leaves.usage import Usage
from tests.integration.fake_openai import (
    FakeOpenAI,
    Reply,
    completion,
    error,
    malformed_json,
    rate_limited,
    rejects_json_schema,
    slow,
    trickling,
    truncated,
)

API_KEY = "sk-test-0123456789abcdef"
PROMPT_VERSION = "test-1"
VERDICT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"verdict": {"type": "integer", "enum": [0, 1]}, "evidence": {"type": "string"}},
    "required": ["verdict"],
}


def ask(text: str = "Is the sky blue?", **kwargs: Any) -> JudgeRequest:
    messages = (ChatMessage("system", "Source: the sky is blue."), ChatMessage("user", text))
    return JudgeRequest(messages=messages, purpose=kwargs.pop("purpose", "test"), **kwargs)


class RecordedSleep:
    """Stands in for asyncio.sleep: remembers each wait, waits for nothing."""

    def __init__(self) -> None:
        self.calls: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.calls.append(seconds)
        await asyncio.sleep(0)


JudgeFactory = Callable[..., OpenAIJudge]


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


@pytest.fixture
def sleep() -> RecordedSleep:
    return RecordedSleep()


@pytest.fixture
async def make_judge(sleep: RecordedSleep) -> AsyncIterator[JudgeFactory]:
    judges: list[OpenAIJudge] = []

    def make(url: str, **overrides: Any) -> OpenAIJudge:
        timeout_s = overrides.pop("timeout_s", 5.0)
        options: dict[str, Any] = {
            "model": "fake-model",
            "prompt_version": PROMPT_VERSION,
            "max_concurrency": 4,
            "max_retries": 3,
            "timeout_s": timeout_s,
            "cache": None,
            "sleep": sleep,
            "rand": lambda: 0.5,
        }
        options.update(overrides)
        judge = OpenAIJudge(build_openai_client(API_KEY, url, timeout_s), **options)
        judges.append(judge)
        return judge

    yield make
    for judge in judges:
        await judge.aclose()


def test_fake_openai__completions_match_the_sdks_strict_types() -> None:
    reply = completion("Yes", logprobs=[{"Yes": -0.1, "No": -2.3}], cached_tokens=4)
    parsed = ChatCompletion.model_validate_json(reply.body, strict=True)
    assert parsed.choices[0].message.content == "Yes"
    assert parsed.choices[0].logprobs is not None
    content = parsed.choices[0].logprobs.content
    assert content is not None
    assert [t.token for t in content[0].top_logprobs] == ["Yes", "No"]
    assert parsed.usage is not None
    assert parsed.usage.prompt_tokens_details is not None
    assert parsed.usage.prompt_tokens_details.cached_tokens == 4


async def test_openai_judge__sends_an_openai_shaped_request(
    server: FakeOpenAI, make_judge: JudgeFactory
) -> None:
    server.push(completion("Yes", prompt_tokens=30, completion_tokens=1, cached_tokens=16))
    judge = make_judge(server.url, temperature=0.0)
    result = await judge.complete(ask(max_tokens=1))
    assert result.text == "Yes"
    assert result.top_logprobs == ()
    assert result.data is None
    assert result.cached is False
    assert result.usage.calls == 1
    assert (result.usage.prompt_tokens, result.usage.completion_tokens) == (30, 1)
    assert result.usage.cached_tokens == 16
    assert result.usage.seconds > 0
    [request] = server.requests
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {API_KEY}"
    assert request.body == {
        "model": "fake-model",
        "messages": [
            {"role": "system", "content": "Source: the sky is blue."},
            {"role": "user", "content": "Is the sky blue?"},
        ],
        "temperature": 0.0,
        "max_tokens": 1,
    }


async def test_openai_judge__reads_top_logprobs_per_token(
    server: FakeOpenAI, make_judge: JudgeFactory
) -> None:
    server.push(
        completion("Yes.", logprobs=[{"Yes": -0.05, "No": -3.2, "yes": -5.0}, {".": -0.01}])
    )
    judge = make_judge(server.url)
    result = await judge.complete(ask(max_tokens=2, logprobs=True))
    assert result.top_logprobs == ({"Yes": -0.05, "No": -3.2, "yes": -5.0}, {".": -0.01})
    assert server.requests[0].body["logprobs"] is True
    assert server.requests[0].body["top_logprobs"] == 20


async def test_openai_judge__no_logprobs_from_the_server_gives_an_empty_tuple(
    server: FakeOpenAI, make_judge: JudgeFactory
) -> None:
    server.push(completion("Yes", cached_tokens=None))
    judge = make_judge(server.url)
    result = await judge.complete(ask(logprobs=True))
    assert result.top_logprobs == ()
    assert result.usage.cached_tokens == 0


async def test_openai_judge__honours_retry_after_on_429(
    server: FakeOpenAI, make_judge: JudgeFactory, sleep: RecordedSleep
) -> None:
    server.push(rate_limited("2"), rate_limited(retry_after_ms="1500"), completion("Yes"))
    judge = make_judge(server.url)
    result = await judge.complete(ask())
    assert result.text == "Yes"
    assert sleep.calls == [2.0, 1.5]
    # every request counts as a call, the failed ones included
    assert (result.usage.calls, result.usage.retries) == (3, 2)
    assert server.request_count == 3


async def test_openai_judge__logs_a_retried_429_with_status_attempt_and_wait_but_not_the_key(
    server: FakeOpenAI, make_judge: JudgeFactory, caplog: pytest.LogCaptureFixture
) -> None:
    server.push(
        error(429, f"Rate limit reached for key {API_KEY}", headers={"Retry-After": "2"}),
        completion("Yes"),
    )
    judge = make_judge(server.url, max_retries=3)
    with caplog.at_level(logging.INFO, logger="ground_gate"):
        await judge.complete(ask(purpose="groundedness"))
    [record] = [r for r in caplog.records if r.name.startswith("ground_gate.judge")]
    assert record.levelno == logging.INFO
    assert record.getMessage() == (
        "judge call for groundedness failed (HTTP 429: Rate limit reached for key ***); "
        "retry 1 of 3 in 2.00 s (the server's Retry-After)"
    )
    assert API_KEY not in caplog.text


async def test_openai_judge__logs_each_backoff_after_a_server_error(
    server: FakeOpenAI, make_judge: JudgeFactory, caplog: pytest.LogCaptureFixture
) -> None:
    server.push(error(503, "busy"), error(500, "boom"), completion("Yes"))
    judge = make_judge(server.url, max_retries=2)
    with caplog.at_level(logging.INFO, logger="ground_gate"):
        await judge.complete(ask())
    assert [r.getMessage() for r in caplog.records] == [
        "judge call for test failed (HTTP 503: busy); retry 1 of 2 in 0.25 s",
        "judge call for test failed (HTTP 500: boom); retry 2 of 2 in 0.50 s",
    ]


async def test_openai_judge__retries_server_errors_with_jittered_backoff(
    server: FakeOpenAI, make_judge: JudgeFactory, sleep: RecordedSleep
) -> None:
    server.push(error(500, "boom"), error(502, "bad gateway"), error(503, "busy"), completion("No"))
    judge = make_judge(server.url, max_retries=3)
    result = await judge.complete(ask())
    assert result.text == "No"
    assert sleep.calls == [0.25, 0.5, 1.0]  # rand 0.5 times 0.5, 1, 2
    assert result.usage.retries == 3


async def test_openai_judge__retries_after_a_timeout(
    server: FakeOpenAI, make_judge: JudgeFactory, sleep: RecordedSleep
) -> None:
    server.push(slow(completion("late"), 3.0), completion("Yes"))
    judge = make_judge(server.url, timeout_s=0.3)
    started = time.monotonic()
    result = await judge.complete(ask())
    assert result.text == "Yes"
    assert time.monotonic() - started < 2.5
    assert len(sleep.calls) == 1
    assert result.usage.retries == 1


async def test_openai_judge__exhausted_retries_make_the_judge_unavailable(
    server: FakeOpenAI, make_judge: JudgeFactory, sleep: RecordedSleep
) -> None:
    server.set_handler(lambda body: error(500, "model crashed"))
    judge = make_judge(server.url, max_retries=2)
    with pytest.raises(JudgeUnavailableError) as caught:
        await judge.complete(ask(purpose="groundedness"))
    assert str(caught.value) == (
        "the judge at 127.0.0.1 is unavailable: HTTP 500: model crashed (after 3 attempts)"
    )
    assert server.request_count == 3
    assert judge.usage_by_purpose()["groundedness"].retries == 2
    # Every later call fails at once, without asking the server again.
    with pytest.raises(JudgeUnavailableError):
        await judge.complete(ask("another"))
    assert server.request_count == 3
    assert len(sleep.calls) == 2


async def test_openai_judge__exhausted_rate_limit_names_the_status(
    server: FakeOpenAI, make_judge: JudgeFactory, sleep: RecordedSleep
) -> None:
    server.set_handler(lambda body: rate_limited("1"))
    judge = make_judge(server.url, max_retries=1)
    with pytest.raises(JudgeUnavailableError) as caught:
        await judge.complete(ask())
    assert str(caught.value) == (
        "the judge at 127.0.0.1 is unavailable: HTTP 429: Rate limit reached (after 2 attempts)"
    )
    assert sleep.calls == [1.0]


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


async def test_openai_judge__an_endpoint_that_is_down_fails_quickly(
    make_judge: JudgeFactory,
) -> None:
    # Real waits: 20 queued rows against a closed port must not take 20 rows' worth of backoff.
    judge = make_judge(
        f"http://127.0.0.1:{closed_port()}/v1",
        max_retries=2,
        max_concurrency=2,
        sleep=asyncio.sleep,
        rand=random.random,
    )
    started = time.monotonic()
    results = await asyncio.gather(
        *(judge.complete(ask(f"question {i}")) for i in range(20)), return_exceptions=True
    )
    assert time.monotonic() - started < 3.0
    assert [type(r) for r in results] == [JudgeUnavailableError] * 20
    assert {str(r) for r in results} == {
        "the judge at 127.0.0.1 is unavailable: connection failed (ConnectError) (after 3 attempts)"
    }
    started = time.monotonic()
    with pytest.raises(JudgeUnavailableError):
        await judge.complete(ask("later"))
    assert time.monotonic() - started < 0.05


async def test_openai_judge__rejected_key_is_not_retried_and_not_shown(
    server: FakeOpenAI, make_judge: JudgeFactory
) -> None:
    server.push(
        error(401, f"Incorrect API key provided: {API_KEY}.", error_type="invalid_request_error")
    )
    judge = make_judge(server.url)
    with pytest.raises(JudgeUnavailableError) as caught:
        await judge.complete(ask())
    assert str(caught.value) == (
        "the judge rejected the API key (HTTP 401) at 127.0.0.1: check the key and its "
        "access to model 'fake-model'"
    )
    assert server.request_count == 1
    assert API_KEY not in repr(judge)


async def test_openai_judge__a_bad_request_is_a_judge_error_without_retry(
    server: FakeOpenAI, make_judge: JudgeFactory, sleep: RecordedSleep
) -> None:
    server.push(
        error(
            400,
            f"This model's maximum context length is 8192 tokens (key {API_KEY})",
            error_type="invalid_request_error",
        )
    )
    judge = make_judge(server.url)
    with pytest.raises(JudgeError) as caught:
        await judge.complete(ask(purpose="faithfulness"))
    assert not isinstance(caught.value, JudgeUnavailableError)
    assert str(caught.value) == (
        "the judge at 127.0.0.1 refused the request for faithfulness (HTTP 400): This "
        "model's maximum context length is 8192 tokens (key ***)"
    )
    assert sleep.calls == []
    # A bad request does not stop the judge: the next call goes out.
    server.push(completion("Yes"))
    assert (await judge.complete(ask("short"))).text == "Yes"


async def test_openai_judge__unknown_model_makes_the_judge_unavailable(
    server: FakeOpenAI, make_judge: JudgeFactory
) -> None:
    server.push(error(404, "The model `fake-model` does not exist", error_type="not_found"))
    judge = make_judge(server.url)
    with pytest.raises(JudgeUnavailableError) as caught:
        await judge.complete(ask())
    assert str(caught.value) == (
        "the judge at 127.0.0.1 answered HTTP 404 for model 'fake-model': check "
        "judge.base_url and judge.model (for Azure, the deployment name)"
    )


@pytest.mark.parametrize(
    "broken",
    [malformed_json(), truncated(completion("Yes"))],
    ids=["malformed", "truncated"],
)
async def test_openai_judge__a_broken_body_is_retried(
    server: FakeOpenAI, make_judge: JudgeFactory, sleep: RecordedSleep, broken: Reply
) -> None:
    server.push(broken, completion("Yes"))
    judge = make_judge(server.url)
    result = await judge.complete(ask())
    assert result.text == "Yes"
    assert result.usage.retries == 1
    assert server.request_count == 2


async def test_openai_judge__bodies_that_stay_malformed_are_a_judge_error(
    server: FakeOpenAI, make_judge: JudgeFactory
) -> None:
    judge = make_judge(server.url, max_retries=1)
    server.push(completion("Yes"))
    await judge.complete(ask(purpose="first"))  # the endpoint does answer chat completions
    server.set_handler(lambda body: malformed_json())
    with pytest.raises(UnusableReplyError) as caught:
        await judge.complete(ask(purpose="rating"))
    assert not isinstance(caught.value, JudgeUnavailableError)
    assert str(caught.value) == (
        "the judge at 127.0.0.1 kept sending unusable responses for rating: malformed "
        "response body (JSONDecodeError) (after 2 attempts)"
    )


async def test_openai_judge__a_body_without_choices_is_retried(
    server: FakeOpenAI, make_judge: JudgeFactory
) -> None:
    server.push(Reply(body=b'{"id": "x", "object": "chat.completion", "choices": []}'))
    server.push(completion("Yes"))
    judge = make_judge(server.url)
    assert (await judge.complete(ask())).text == "Yes"


async def test_openai_judge__structured_output_uses_json_schema(
    server: FakeOpenAI, make_judge: JudgeFactory
) -> None:
    server.push(completion('{"verdict": 1, "evidence": "the sky is blue"}'))
    judge = make_judge(server.url)
    result = await judge.complete(
        ask(json_schema=VERDICT_SCHEMA, max_tokens=64, purpose="faithfulness")
    )
    assert result.data == {"verdict": 1, "evidence": "the sky is blue"}
    assert server.requests[0].body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "faithfulness", "schema": VERDICT_SCHEMA, "strict": False},
    }
    assert judge.structured_format == "json_schema"


@pytest.mark.parametrize("status", [500, 400, 422])
async def test_openai_judge__falls_back_to_json_object_when_json_schema_is_rejected(
    server: FakeOpenAI, make_judge: JudgeFactory, sleep: RecordedSleep, status: int
) -> None:
    server.set_handler(
        rejects_json_schema(lambda body: completion('{"verdict": 0}'), status=status)
    )
    judge = make_judge(server.url)
    first = await judge.complete(ask("one", json_schema=VERDICT_SCHEMA, max_tokens=32))
    second = await judge.complete(ask("two", json_schema=VERDICT_SCHEMA, max_tokens=32))
    assert (first.data, second.data) == ({"verdict": 0}, {"verdict": 0})
    formats = [r.body["response_format"]["type"] for r in server.requests]
    assert formats == ["json_schema", "json_object", "json_object"]
    assert server.requests[1].body["response_format"] == {
        "type": "json_object",
        "schema": VERDICT_SCHEMA,
    }
    assert judge.structured_format == "json_object"
    assert sleep.calls == []


async def test_openai_judge__strict_json_schema_mode_reports_the_rejection(
    server: FakeOpenAI, make_judge: JudgeFactory
) -> None:
    server.set_handler(rejects_json_schema(lambda body: completion('{"verdict": 0}')))
    judge = make_judge(server.url, structured="json_schema")
    with pytest.raises(JudgeError) as caught:
        await judge.complete(ask(json_schema=VERDICT_SCHEMA, max_tokens=32))
    assert str(caught.value) == (
        "the judge at 127.0.0.1 does not accept response_format json_schema (HTTP 500); "
        "use structured output 'auto' or 'json_object'"
    )


async def test_openai_judge__repairs_invalid_structured_output_once(
    server: FakeOpenAI, make_judge: JudgeFactory
) -> None:
    server.push(
        completion('Sure! {"verdict": "supported"}', prompt_tokens=50, completion_tokens=9),
        completion('```json\n{"verdict": 1}\n```', prompt_tokens=80, completion_tokens=7),
    )
    judge = make_judge(server.url)
    result = await judge.complete(ask(json_schema=VERDICT_SCHEMA, max_tokens=32, purpose="verdict"))
    assert result.data == {"verdict": 1}
    assert result.usage.calls == 2
    assert result.usage.parse_failures == 1
    assert (result.usage.prompt_tokens, result.usage.completion_tokens) == (130, 16)
    repair = server.requests[1].body["messages"]
    assert repair[:2] == server.requests[0].body["messages"]
    assert repair[2] == {"role": "assistant", "content": 'Sure! {"verdict": "supported"}'}
    assert repair[3]["role"] == "user"
    assert repair[3]["content"].startswith(
        "Your previous reply could not be used: the JSON does not match the schema at "
        "verdict: 'supported' is not one of [0, 1]. Reply again with only a JSON value"
    )


async def test_openai_judge__output_still_invalid_after_repair_is_a_judge_error(
    server: FakeOpenAI, make_judge: JudgeFactory
) -> None:
    server.push(completion("I think it is supported."), completion('{"verdict": 1, "evidence": "'))
    judge = make_judge(server.url)
    with pytest.raises(JudgeError) as caught:
        await judge.complete(
            ask("Is the sky green?", json_schema=VERDICT_SCHEMA, purpose="faithfulness")
        )
    message = str(caught.value)
    assert message == (
        "the judge's reply for faithfulness was not usable JSON after one repair attempt: the "
        "reply holds no complete JSON value (it may have been cut off by max_tokens)"
    )
    assert "sky" not in message
    usage = judge.usage_by_purpose()["faithfulness"]
    assert (usage.calls, usage.parse_failures) == (2, 2)


async def test_openai_judge__a_rerun_with_the_cache_makes_no_requests(
    server: FakeOpenAI, make_judge: JudgeFactory, tmp_path: Path
) -> None:
    server.push(
        completion("Yes", logprobs=[{"Yes": -0.1, "No": -2.5}]),
        completion('{"verdict": 1}'),
    )
    requests = [ask(logprobs=True), ask("structured", json_schema=VERDICT_SCHEMA, max_tokens=16)]
    first_judge = make_judge(server.url, cache=JudgeCache(tmp_path))
    first = [await first_judge.complete(r) for r in requests]
    assert server.request_count == 2

    second_judge = make_judge(server.url, cache=JudgeCache(tmp_path))
    second = [await second_judge.complete(r) for r in requests]
    assert server.request_count == 2
    assert [c.cached for c in second] == [True, True]
    assert [(c.text, c.top_logprobs, c.data) for c in second] == [
        (c.text, c.top_logprobs, c.data) for c in first
    ]
    assert second[0].usage == Usage(cache_hits=1)
    assert second_judge.usage_by_purpose()["test"] == Usage(cache_hits=2)
    # A hit still says what the completion cost when it was made.
    assert [c.cost for c in second] == [c.usage for c in first]
    assert second[0].cost is not None and second[0].cost.calls == 1


async def test_openai_judge__a_cache_entry_without_a_recorded_cost_is_still_a_hit(
    server: FakeOpenAI, make_judge: JudgeFactory, tmp_path: Path
) -> None:
    cache = JudgeCache(tmp_path)
    server.push(completion("Yes"))
    await make_judge(server.url, cache=cache).complete(ask())
    [entry] = [p for p in tmp_path.rglob("*.json")]
    entry.write_text('{"text": "Yes", "top_logprobs": [], "data": null}')
    result = await make_judge(server.url, cache=cache).complete(ask())
    assert (result.text, result.cached, result.cost) == ("Yes", True, None)
    assert server.request_count == 1


# Entries the judge never writes: each breaks a range of ground_gate/leaves/ranges.py, or holds text
# no UTF-8 file can (a lone surrogate). Each is discarded and the judge asked again.
HOSTILE_ENTRIES = {
    "logprob-nan": '{"text": "Yes", "top_logprobs": [{"Yes": NaN}], "data": null}',
    "logprob-infinity": '{"text": "Yes", "top_logprobs": [{"Yes": Infinity}], "data": null}',
    "logprob-1e999": '{"text": "Yes", "top_logprobs": [{"Yes": 1e999}], "data": null}',
    "logprob-1000": '{"text": "Yes", "top_logprobs": [{"Yes": 1000.0}], "data": null}',
    "logprob-positive": '{"text": "Yes", "top_logprobs": [{"Yes": 0.4}], "data": null}',
    "above-one": '{"text": "Yes", "top_logprobs": [{"Yes": -0.1, "yes": -0.1}], "data": null}',
    "logprob-a-string": '{"text": "Yes", "top_logprobs": [{"Yes": "-0.1"}], "data": null}',
    "logprob-400-digits": '{"text": "Yes", "top_logprobs": [{"Yes": -%s}], "data": null}'
    % ("9" * 400),
    "logprobs-an-object": '{"text": "Yes", "top_logprobs": {"Yes": -0.1}, "data": null}',
    "text-a-number": '{"text": 1, "top_logprobs": [], "data": null}',
    "text-lone-surrogate": '{"text": "Y\\ud800s", "top_logprobs": [], "data": null}',
    "token-lone-surrogate": '{"text": "Yes", "top_logprobs": [{"\\udfff": -0.1}], "data": null}',
    "5000-digit-integer": '{"text": "Yes", "top_logprobs": [], "n": %s}' % ("9" * 5000),
    "nested-100000-deep": '{"text": "Yes", "top_logprobs": [], "data": %s}'
    % ("[" * 100000 + "]" * 100000),
}


@pytest.mark.parametrize("entry", HOSTILE_ENTRIES.values(), ids=HOSTILE_ENTRIES.keys())
async def test_openai_judge__a_cache_entry_breaking_a_range_is_discarded_and_asked_again(
    server: FakeOpenAI, make_judge: JudgeFactory, tmp_path: Path, entry: str
) -> None:
    cache = JudgeCache(tmp_path)
    server.set_handler(lambda body: completion("No", logprobs=[{"No": -0.1, "Yes": -2.4}]))
    await make_judge(server.url, cache=cache).complete(ask(logprobs=True))
    [path] = [p for p in tmp_path.rglob("*.json")]
    path.write_text(entry, encoding="utf-8")
    result = await make_judge(server.url, cache=cache).complete(ask(logprobs=True))
    assert (result.text, result.cached) == ("No", False)
    assert result.top_logprobs == ({"No": -0.1, "Yes": -2.4},)
    assert server.request_count == 2
    assert json.loads(path.read_text(encoding="utf-8"))["text"] == "No"  # replaced


@pytest.mark.parametrize(
    "usage",
    [
        {"calls": -3},
        {"prompt_tokens": -5000},
        {"seconds": -1.0},
        {"completion_tokens": 1.5},
        {"retries": 10**20},
    ],
    ids=str,
)
async def test_openai_judge__a_cache_entry_with_a_bad_cost_is_a_hit_of_unknown_cost(
    server: FakeOpenAI, make_judge: JudgeFactory, tmp_path: Path, usage: dict[str, Any]
) -> None:
    """The verdict in the entry is sound; only its recorded cost is not: the cost is unknown
    (as for entries written before costs were recorded), never a negative figure."""
    cache = JudgeCache(tmp_path)
    server.push(completion("Yes"))
    await make_judge(server.url, cache=cache).complete(ask())
    [path] = [p for p in tmp_path.rglob("*.json")]
    entry = json.loads(path.read_text(encoding="utf-8"))
    entry["usage"].update(usage)
    path.write_text(json.dumps(entry), encoding="utf-8")
    result = await make_judge(server.url, cache=cache).complete(ask())
    assert (result.text, result.cached, result.cost) == ("Yes", True, None)


async def test_openai_judge__changed_inputs_miss_the_cache(
    server: FakeOpenAI, make_judge: JudgeFactory, tmp_path: Path
) -> None:
    server.set_handler(lambda body: completion("Yes"))
    judge = make_judge(server.url, cache=JudgeCache(tmp_path))
    await judge.complete(ask("a"))
    await judge.complete(ask("b"))
    await judge.complete(ask("a", max_tokens=2))
    await judge.complete(ask("a"))
    assert server.request_count == 3
    other_prompt = make_judge(server.url, cache=JudgeCache(tmp_path), prompt_version="2")
    await other_prompt.complete(ask("a"))
    assert server.request_count == 4


async def test_openai_judge__a_corrupted_cache_entry_is_ignored_and_rewritten(
    server: FakeOpenAI, make_judge: JudgeFactory, tmp_path: Path
) -> None:
    cache = JudgeCache(tmp_path)
    server.push(completion("Yes"), completion("Yes"))
    judge = make_judge(server.url, cache=cache)
    await judge.complete(ask())
    [entry] = [p for p in tmp_path.rglob("*.json")]
    entry.write_bytes(b'{"text": "Ye')
    again = make_judge(server.url, cache=cache)
    result = await again.complete(ask())
    assert (result.text, result.cached) == ("Yes", False)
    assert server.request_count == 2
    stored = cache.get(entry.stem)
    assert stored is not None
    assert (stored["text"], stored["top_logprobs"], stored["data"]) == ("Yes", [], None)
    assert stored["usage"]["calls"] == 1


async def test_openai_judge__a_cached_entry_that_breaks_the_schema_is_ignored(
    server: FakeOpenAI, make_judge: JudgeFactory, tmp_path: Path
) -> None:
    cache = JudgeCache(tmp_path)
    server.push(completion('{"verdict": 1}'), completion('{"verdict": 0}'))
    request = ask(json_schema=VERDICT_SCHEMA, max_tokens=16)
    await make_judge(server.url, cache=cache).complete(request)
    [entry] = [p for p in tmp_path.rglob("*.json")]
    cache.put(entry.stem, {"text": "{}", "top_logprobs": [], "data": {}})
    result = await make_judge(server.url, cache=cache).complete(request)
    assert (result.data, result.cached) == ({"verdict": 0}, False)


async def test_openai_judge__concurrency_bound_holds_at_the_server(
    server: FakeOpenAI, make_judge: JudgeFactory
) -> None:
    server.set_handler(lambda body: slow(completion("Yes"), 0.15))
    judge = make_judge(server.url, max_concurrency=3)
    results = await asyncio.gather(*(judge.complete(ask(f"q{i}")) for i in range(10)))
    assert [r.text for r in results] == ["Yes"] * 10
    assert server.request_count == 10
    assert server.max_in_flight == 3


async def test_openai_judge__chat_completions_without_v1_prefix_work(
    server: FakeOpenAI, make_judge: JudgeFactory
) -> None:
    server.push(completion("Yes"))
    judge = make_judge(server.url.removesuffix("/v1"))
    assert (await judge.complete(ask())).text == "Yes"
    assert server.requests[0].path == "/chat/completions"
    assert server.unscripted == 0


async def test_openai_judge__prompt_mode_sends_no_response_format_and_still_validates() -> None:
    schema = {"type": "object", "properties": {"xs": {"type": "array"}}, "required": ["xs"]}
    with FakeOpenAI([completion('Sure! {"xs": [1, 2]}')]) as server:
        judge = OpenAIJudge(
            build_openai_client("k", server.url, 5),
            model="m",
            prompt_version=PROMPT_VERSION,
            max_concurrency=1,
            max_retries=0,
            timeout_s=5,
            cache=None,
            structured="prompt",
        )
        request = JudgeRequest(
            (ChatMessage("user", "list"),), purpose="t", max_tokens=20, json_schema=schema
        )
        result = await judge.complete(request)
        await judge.aclose()
        assert "response_format" not in server.requests[0].body
    assert result.data == {"xs": [1, 2]}
    assert judge.structured_format == "prompt"


async def test_openai_judge__connect_runs_once_on_the_first_cache_miss_and_never_on_hits(
    server: FakeOpenAI, make_judge: JudgeFactory, tmp_path: Path
) -> None:
    server.set_handler(lambda body: completion("Yes"))
    starts: list[str] = []

    async def connect() -> None:
        starts.append("start")
        await asyncio.sleep(0.01)  # concurrent first calls wait for this one start

    cache = JudgeCache(tmp_path)
    judge = make_judge(server.url, cache=cache, connect=connect)
    await asyncio.gather(*(judge.complete(ask(f"q{i}")) for i in range(4)))
    assert (starts, server.request_count) == (["start"], 4)
    cached_judge = make_judge(server.url, cache=cache, connect=connect)
    await asyncio.gather(*(cached_judge.complete(ask(f"q{i}")) for i in range(4)))
    assert (starts, server.request_count) == (["start"], 4)  # all hits: nothing started


async def test_openai_judge__a_connect_failure_makes_the_judge_unavailable_once_and_for_all(
    server: FakeOpenAI, make_judge: JudgeFactory
) -> None:
    attempts: list[int] = []

    async def connect() -> None:
        attempts.append(1)
        raise ModelError("model file qwen.gguf: sha256 differs from the official file")

    judge = make_judge(server.url, connect=connect)
    for _ in range(2):
        with pytest.raises(JudgeUnavailableError, match="could not be started: model file"):
            await judge.complete(ask())
    assert (len(attempts), server.request_count) == (1, 0)


NOT_A_COMPLETION = [
    Reply(body=b"<html><body>Please sign in</body></html>", content_type="text/html"),
    Reply(body=b'{"id": "x", "object": "chat.completion", "choices": []}'),
    Reply(body=b'{"hello": "world"}'),
]


@pytest.mark.parametrize("reply", NOT_A_COMPLETION, ids=["html-200", "empty-choices", "other"])
async def test_openai_judge__an_endpoint_that_never_sent_a_completion_is_unusable(
    server: FakeOpenAI, make_judge: JudgeFactory, reply: Reply
) -> None:
    server.set_handler(lambda body: reply)
    judge = make_judge(server.url, max_retries=2)
    with pytest.raises(JudgeUnavailableError, match="is unusable: it sent no chat completion"):
        await judge.complete(ask(purpose="rating"))
    with pytest.raises(JudgeUnavailableError):  # later calls are refused at once
        await judge.complete(ask("Another?", purpose="rating"))
    assert server.request_count == 3
    usage = judge.usage_by_purpose()["rating"]
    assert (usage.calls, usage.retries) == (3, 2)  # failed requests are counted


async def test_openai_judge__an_html_body_is_quoted_escaped_and_short(
    server: FakeOpenAI, make_judge: JudgeFactory
) -> None:
    page = "<html>\n<title>Sign in</title>\u202e" + "x" * 200
    server.set_handler(lambda body: Reply(body=page.encode(), content_type="text/html"))
    judge = make_judge(server.url, max_retries=0)
    with pytest.raises(JudgeUnavailableError) as caught:
        await judge.complete(ask())
    message = str(caught.value)
    assert "'<html>\\n<title>Sign in</title>\\u202e" in message
    assert "\u202e" not in message and "\n" not in message
    assert "x" * 61 not in message and "..." in message


async def test_openai_judge__timeout_is_a_deadline_on_the_whole_call(
    server: FakeOpenAI, make_judge: JudgeFactory
) -> None:
    """A server that trickles its body a byte at a time never trips a per-read timeout."""
    server.set_handler(lambda body: trickling(completion("Yes"), every_s=0.2))
    judge = make_judge(server.url, timeout_s=1.0, max_retries=1)
    started = time.monotonic()
    with pytest.raises(JudgeUnavailableError, match="no answer within 1 s"):
        await judge.complete(ask())
    assert time.monotonic() - started < 10  # two attempts of 1 s, not the body's minute
    assert server.request_count == 2
    assert judge.usage_by_purpose()["test"].calls == 2


async def test_openai_judge__budget_counts_retries_and_no_request_starts_past_max_calls(
    server: FakeOpenAI, make_judge: JudgeFactory
) -> None:
    server.set_handler(lambda body: slow(completion("Yes", prompt_tokens=30), 0.05))
    server.push(error(500, "boom"))  # the first request fails and is retried: two requests
    limit = SpendingLimit(Budget(max_calls=7), None)
    judge = make_judge(server.url, max_concurrency=4, limit=limit)
    results = await asyncio.gather(
        *(judge.complete(ask(f"q{i}")) for i in range(12)), return_exceptions=True
    )
    refused = [r for r in results if isinstance(r, BudgetExceededError)]
    assert server.request_count == 7
    assert len(refused) == 12 - 6  # six answered, one of them after a retry
    assert limit.spent.calls == 7
    assert limit.spent.prompt_tokens == 6 * 30
    assert limit.exceeded == "max_calls 7 reached"


async def test_openai_judge__a_cache_hit_is_not_a_call_once_the_budget_is_spent(
    server: FakeOpenAI, make_judge: JudgeFactory, tmp_path: Path
) -> None:
    server.set_handler(lambda body: completion("Yes"))
    cache = JudgeCache(tmp_path)
    await make_judge(server.url, cache=cache).complete(ask("cached"))
    limit = SpendingLimit(Budget(max_calls=1), None)
    judge = make_judge(server.url, cache=cache, limit=limit)
    await judge.complete(ask("fresh"))
    with pytest.raises(BudgetExceededError):
        await judge.complete(ask("another"))
    assert (await judge.complete(ask("cached"))).cached
    assert server.request_count == 2
