"""The judge over any OpenAI-compatible chat-completions endpoint (OpenAI, Azure, llama.cpp, vLLM).

This module owns the flow of one request: the cache first, then the call with retries, then
structured-output validation with one repair. What it leans on lives beside it: the clients
(`clients.py`) and their bounded bodies (`transport.py`), what each failure means
(`failures.py`), how long to wait (`retry.py`), how a response is read and checked
(`response.py`), the request's arguments (`request_body.py`), the response_format and
tolerant JSON parsing (`structured.py`), the one repair of invalid JSON (`repair.py`) and the
cache (`cache.py`).

The prompt version is the caller's (ground_gate.metrics.prompts.PROMPT_VERSION): it is part of
every cache key, so bump it there when anything changes what a completion would contain,
including the repair wording and parsing rules.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Literal

import openai

from ground_gate.judge.base import (
    JUDGE,
    ChatMessage,
    Completion,
    JudgeRequest,
    Speaker,
    with_usage,
)
from ground_gate.judge.budget import SpendingLimit
from ground_gate.judge.cache import CompletionCache, JudgeCache, request_key
from ground_gate.judge.failures import (
    CALL_EXCEPTIONS,
    Failed,
    Failure,
    Then,
    exception_failed,
    give_up_error,
    status_failed,
    wait_seconds,
)
from ground_gate.judge.repair import valid_data
from ground_gate.judge.request_body import StructuredFormat, chat_arguments, format_for
from ground_gate.judge.response import MalformedResponse, Reply, read_reply
from ground_gate.leaves.errors import GroundGateError, JudgeError, JudgeUnavailableError
from ground_gate.leaves.usage import Usage
from ground_gate.leaves.writable import Notice

log = logging.getLogger(__name__)

StructuredMode = Literal["json_schema", "json_object", "prompt", "auto"]
Sleep = Callable[[float], Awaitable[None]]


class OpenAIJudge:
    """Implements `Judge` over `chat.completions.create`, with retries, cache and usage."""

    reuses_prefix = False  # Judge.reuses_prefix; the factory sets it for the local server

    def __init__(
        self,
        client: openai.AsyncOpenAI | openai.AsyncAzureOpenAI,
        *,
        model: str,
        prompt_version: str,
        temperature: float = 0.0,
        max_concurrency: int,
        max_retries: int,
        timeout_s: float,
        cache: JudgeCache | None,
        context_tokens: int | None = None,
        structured: StructuredMode = "auto",
        sleep: Sleep = asyncio.sleep,
        rand: Callable[[], float] = random.random,
        clock: Callable[[], float] = time.perf_counter,
        connect: Callable[[], Awaitable[None]] | None = None,
        limit: SpendingLimit | None = None,
        speaker: Speaker = JUDGE,
    ) -> None:
        """prompt_version: the prompts' version, part of every cache key.
        connect: awaited once, before the first request leaves (a cache hit needs none),
        e.g. to start a local server; if it raises, the judge is unavailable from then on.
        limit: judge.budget, asked before every request (retries and repairs included).
        speaker: who answers, in messages (a prompt target's model too)."""
        _check_limits(max_concurrency, max_retries, timeout_s)
        self._client = client
        self._model = model
        self._prompt_version = prompt_version
        self._temperature = temperature
        self._max_retries = max_retries
        self._timeout_s = timeout_s
        self._cache = CompletionCache(cache)
        self._context_tokens = context_tokens
        self._format: StructuredFormat = structured if structured != "auto" else "json_schema"
        self._may_fall_back = structured == "auto"
        self._sleep = sleep
        self._rand = rand
        self._clock = clock
        self._semaphore = asyncio.Semaphore(max_concurrency)
        self._host = client.base_url.host or str(client.base_url)
        self._unavailable: str | None = None
        self._answered = False  # a chat completion came back at least once
        self._connect = connect
        self._connect_lock = asyncio.Lock()
        self._usage: dict[str, Usage] = {}
        self._limit = limit
        self._speaker = speaker
        self._notice = Notice(log, f"the {speaker.name}'s replies (at {self._host})")

    def __repr__(self) -> str:
        return f"OpenAIJudge(model={self._model!r}, host={self._host!r})"

    @property
    def model(self) -> str:
        return self._model

    @property
    def context_tokens(self) -> int | None:
        return self._context_tokens

    @property
    def host(self) -> str:
        return self._host

    @property
    def structured_format(self) -> StructuredFormat:
        """The response_format type now in use (json_object after a server rejected json_schema).

        "prompt": no response_format; the prompt asks for JSON and the reply is parsed
        tolerantly and validated. llama.cpp's grammar-constrained sampling checks the whole
        vocabulary at every token and runs 30x slower than plain generation on a CPU.
        """
        return self._format

    def usage_by_purpose(self) -> dict[str, Usage]:
        """Everything this judge spent, including calls that ended in an error, per purpose."""
        copies: dict[str, Usage] = {}
        for purpose, usage in self._usage.items():
            copies[purpose] = Usage()
            copies[purpose].add(usage)
        return copies

    async def aclose(self) -> None:
        await self._client.close()

    async def complete(self, request: JudgeRequest) -> Completion:
        self._raise_if_unavailable()
        key = request_key(
            request,
            model=self._model,
            temperature=self._temperature,
            prompt_version=self._prompt_version,
        )
        cached = self._cache.get(key, request.json_schema)
        if cached is not None:
            self._account(request.purpose, cached.usage)
            return cached
        await self._connected()
        usage = Usage()
        try:
            completion = await self._complete_fresh(request, usage)
        except JudgeError as exc:
            with_usage(exc, usage)  # the failed requests count in the caller's usage too
            raise
        finally:
            self._account(request.purpose, usage)
        self._cache.put(key, completion)
        return completion

    async def _connected(self) -> None:
        if self._connect is None:
            return
        async with self._connect_lock:
            self._raise_if_unavailable()
            if self._connect is None:
                return
            try:
                await self._connect()
            except (GroundGateError, OSError) as exc:
                self._unavailable = f"the {self._speaker.name} could not be started: {exc}"
                raise JudgeUnavailableError(self._unavailable) from None
            self._connect = None

    async def _complete_fresh(self, request: JudgeRequest, usage: Usage) -> Completion:
        reply = await self._call(request, request.messages, usage)
        data = None
        if request.json_schema is not None:

            async def call(messages: Sequence[ChatMessage]) -> Reply:
                return await self._call(request, messages, usage)

            reply, data, replaced = await valid_data(request, reply, call, usage, self._speaker)
            self._notice.count(replaced)
        return Completion(text=reply.text, top_logprobs=reply.top_logprobs, data=data, usage=usage)

    async def _call(
        self, request: JudgeRequest, messages: Sequence[ChatMessage], usage: Usage
    ) -> Reply:
        """One completion, retried as failures.POLICY says (rate limits, server errors, ...)."""
        retries = 0
        while True:
            outcome = await self._attempt(request, messages, usage)
            if isinstance(outcome, Reply):
                return outcome
            then = outcome.policy.then
            if then is Then.SWITCH_FORMAT:
                usage.retries += 1
                continue
            if then is Then.GIVE_UP or retries >= self._max_retries:
                raise self._give_up(outcome, request, retries + 1)
            delay = wait_seconds(outcome, retries, rand=self._rand)
            retries += 1
            usage.retries += 1
            log.info(
                "judge call for %s failed (%s); retry %d of %d in %.2f s%s",
                request.purpose,
                outcome.what,
                retries,
                self._max_retries,
                delay,
                " (the server's Retry-After)" if delay == outcome.retry_after else "",
            )
            await self._sleep(delay)

    async def _attempt(
        self, request: JudgeRequest, messages: Sequence[ChatMessage], usage: Usage
    ) -> Reply | Failed:
        """One request under the concurrency bound: the reply, or what went wrong.

        timeout_s is a deadline on the whole attempt (connect, headers and the complete body):
        the SDK's own timeout applies per read, so a server trickling a byte at a time would
        hold the call for as long as it likes."""
        self._raise_if_unavailable()
        response_format = format_for(request, self._format)
        async with self._semaphore:
            self._raise_if_unavailable()
            ticket = self._limit.reserve(messages, request.max_tokens) if self._limit else None
            tokens_before = (usage.prompt_tokens, usage.completion_tokens)
            started = self._clock()
            usage.calls += 1
            response = None
            try:
                async with asyncio.timeout(self._timeout_s):
                    response = await self._client.chat.completions.create(
                        **chat_arguments(
                            request,
                            messages,
                            model=self._model,
                            temperature=self._temperature,
                            timeout_s=self._timeout_s,
                            response_format=response_format,
                        )
                    )
                reply = read_reply(response, logprobs=request.logprobs, usage=usage)
                self._answered = True
                self._notice.count(reply.replaced)
                return reply
            except openai.APIStatusError as exc:
                return self._status_failed(exc, response_format)
            except CALL_EXCEPTIONS as exc:
                return exception_failed(exc, timeout_s=self._timeout_s)
            except (ValueError, RecursionError) as exc:  # the SDK parsing a body it cannot hold
                unreadable = MalformedResponse(f"the body cannot be read ({type(exc).__name__})")
                return exception_failed(unreadable, timeout_s=self._timeout_s)
            finally:
                usage.seconds += self._clock() - started
                if self._limit is not None and ticket is not None:
                    self._limit.settle(
                        ticket,
                        usage.prompt_tokens - tokens_before[0],
                        usage.completion_tokens - tokens_before[1],
                        answered=response is not None,
                    )

    def _status_failed(
        self, exc: openai.APIStatusError, response_format: dict[str, Any] | None
    ) -> Failed:
        key = getattr(self._client, "api_key", None)
        failed = status_failed(
            exc,
            api_key=key if isinstance(key, str) else None,
            asked_json_schema=response_format is not None
            and response_format["type"] == "json_schema",
            may_fall_back=self._may_fall_back,
        )
        if failed.policy.then is Then.SWITCH_FORMAT and self._format == "json_schema":
            log.info(
                "the judge at %s rejected response_format json_schema (HTTP %d); "
                "using json_object with the schema from now on",
                self._host,
                exc.status_code,
            )
            self._format = "json_object"
        return failed

    def _give_up(self, failed: Failed, request: JudgeRequest, attempts: int) -> JudgeError:
        error = give_up_error(
            failed,
            host=self._host,
            model=self._model,
            purpose=request.purpose,
            attempts=attempts,
            speaker=self._speaker,
        )
        if failed.failure is Failure.MALFORMED and not self._answered:
            # An endpoint that has never sent one chat completion (a login page, a proxy's
            # error page, an empty list of choices) is unusable, not one bad request.
            error = JudgeUnavailableError(
                f"the {self._speaker.name} at {self._host} is unusable: it sent no chat "
                f"completion, {failed.what} (after {attempts} attempts)"
            )
        if isinstance(error, JudgeUnavailableError) and self._unavailable is None:
            self._unavailable = str(error)
        return error

    def _raise_if_unavailable(self) -> None:
        if self._unavailable is not None:
            raise JudgeUnavailableError(self._unavailable)

    def _account(self, purpose: str, usage: Usage) -> None:
        self._usage.setdefault(purpose, Usage()).add(usage)


def _check_limits(max_concurrency: int, max_retries: int, timeout_s: float) -> None:
    if max_concurrency < 1:
        raise ValueError("max_concurrency must be at least 1")
    if max_retries < 0:
        raise ValueError("max_retries must not be negative")
    if timeout_s <= 0:
        raise ValueError("timeout_s must be positive")
