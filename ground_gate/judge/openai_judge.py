"""The judge over any OpenAI-compatible chat-completions endpoint (OpenAI, Azure, llama.cpp, vLLM).

The SDK's own retries are off (max_retries=0 in the builders): retrying here lets one policy
cover every server, count retries in Usage, honour Retry-After, and stop the whole run at once
when the endpoint is down instead of letting every queued row rediscover it.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import openai

from ground_gate.errors import ConfigError, GroundGateError, JudgeError, JudgeUnavailableError
from ground_gate.judge.base import ChatMessage, Completion, JudgeRequest, Usage
from ground_gate.judge.cache import JudgeCache, cache_key
from ground_gate.judge.retry import backoff_delay, is_retryable_status, retry_after_seconds
from ground_gate.judge.structured import (
    StructuredOutputError,
    json_object_format,
    json_schema_format,
    mentions_response_format,
    parse_and_validate,
    repair_message,
    validation_error,
)

log = logging.getLogger(__name__)

StructuredMode = Literal["json_schema", "json_object", "prompt", "auto"]

# Bump when anything here changes what a cached completion would contain (repair wording,
# parsing rules), so old cache entries stop matching.
PROMPT_VERSION = "1"
TOP_LOGPROBS = 20
DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1"
# Local servers ignore the key, but the SDK insists on having one.
PLACEHOLDER_API_KEY = "not-needed"
_FALLBACK_STATUSES = frozenset({400, 422, 500})
_MAX_SERVER_MESSAGE_CHARS = 300

Sleep = Callable[[float], Awaitable[None]]


def build_openai_client(
    api_key: str | None, base_url: str | None, timeout_s: float
) -> openai.AsyncOpenAI:
    """A client for OpenAI or any compatible server; a server of our own needs no key."""
    if not api_key:
        if base_url is None:
            raise JudgeUnavailableError(
                "no API key for the OpenAI judge: set the environment variable named by "
                "judge.api_key_env"
            )
        api_key = PLACEHOLDER_API_KEY
    return openai.AsyncOpenAI(
        api_key=api_key,
        base_url=base_url or DEFAULT_OPENAI_BASE_URL,
        timeout=timeout_s,
        max_retries=0,
    )


def build_azure_client(
    api_key: str | None, endpoint: str | None, api_version: str | None, timeout_s: float
) -> openai.AsyncAzureOpenAI:
    """An Azure OpenAI client; `model` in the judge is then the deployment name."""
    if not endpoint:
        raise ConfigError("judge.base_url: the Azure OpenAI endpoint is required for azure")
    if not api_version:
        raise ConfigError("judge.api_version: an API version is required for azure")
    if not api_key:
        raise JudgeUnavailableError(
            "no API key for the Azure OpenAI judge: set the environment variable named by "
            "judge.api_key_env"
        )
    return openai.AsyncAzureOpenAI(
        api_key=api_key,
        azure_endpoint=endpoint,
        api_version=api_version,
        timeout=timeout_s,
        max_retries=0,
    )


@dataclass(frozen=True)
class _Reply:
    text: str
    top_logprobs: tuple[Mapping[str, float], ...]


@dataclass(frozen=True)
class _Failure:
    """One failed attempt that may be retried."""

    description: str
    retry_after: float | None = None
    endpoint_down: bool = True  # exhausted retries mean the endpoint is unusable
    switch_format: bool = False  # json_schema was rejected: ask again at once with json_object


class _MalformedResponse(Exception):
    pass


class OpenAIJudge:
    """Implements `Judge` over `chat.completions.create`, with retries, cache and usage."""

    def __init__(
        self,
        client: openai.AsyncOpenAI | openai.AsyncAzureOpenAI,
        *,
        model: str,
        temperature: float = 0.0,
        max_concurrency: int,
        max_retries: int,
        timeout_s: float,
        cache: JudgeCache | None,
        context_tokens: int | None = None,
        structured: StructuredMode = "auto",
        sleep: Sleep = asyncio.sleep,
        prompt_version: str = PROMPT_VERSION,
        rand: Callable[[], float] = random.random,
        clock: Callable[[], float] = time.perf_counter,
        connect: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        """connect: awaited once, before the first request leaves (a cache hit needs none),
        e.g. to start a local server; if it raises, the judge is unavailable from then on."""
        if max_concurrency < 1:
            raise ValueError("max_concurrency must be at least 1")
        if max_retries < 0:
            raise ValueError("max_retries must not be negative")
        if timeout_s <= 0:
            raise ValueError("timeout_s must be positive")
        self._client = client
        self._model = model
        self._temperature = temperature
        self._max_retries = max_retries
        self._timeout_s = timeout_s
        self._cache = cache
        self._context_tokens = context_tokens
        self._format: Literal["json_schema", "json_object", "prompt"] = (
            structured if structured in ("json_object", "prompt") else "json_schema"
        )
        self._may_fall_back = structured == "auto"
        self._sleep = sleep
        self._prompt_version = prompt_version
        self._rand = rand
        self._clock = clock
        self._semaphore = asyncio.Semaphore(max_concurrency)
        self._host = client.base_url.host or str(client.base_url)
        self._unavailable: str | None = None
        self._connect = connect
        self._connect_lock = asyncio.Lock()
        self._usage: dict[str, Usage] = {}
        self._cache_write_failed = False

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
    def structured_format(self) -> Literal["json_schema", "json_object", "prompt"]:
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
        key = cache_key(
            model=self._model,
            temperature=self._temperature,
            max_tokens=request.max_tokens,
            logprobs=request.logprobs,
            schema=request.json_schema,
            messages=request.messages,
            prompt_version=self._prompt_version,
        )
        cached = self._from_cache(key, request)
        if cached is not None:
            self._account(request.purpose, cached.usage)
            return cached
        await self._connected()
        usage = Usage()
        try:
            completion = await self._complete_fresh(request, usage)
        finally:
            self._account(request.purpose, usage)
        self._to_cache(key, completion)
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
                self._unavailable = f"the judge could not be started: {exc}"
                raise JudgeUnavailableError(self._unavailable) from None
            self._connect = None

    async def _complete_fresh(self, request: JudgeRequest, usage: Usage) -> Completion:
        reply = await self._call(request, request.messages, usage)
        schema = request.json_schema
        if schema is None:
            return Completion(text=reply.text, top_logprobs=reply.top_logprobs, usage=usage)
        try:
            data = parse_and_validate(reply.text, schema)
        except StructuredOutputError as problem:
            usage.parse_failures += 1
            repair = (
                *request.messages,
                ChatMessage("assistant", reply.text),
                ChatMessage("user", repair_message(str(problem), schema)),
            )
            reply = await self._call(request, repair, usage)
            try:
                data = parse_and_validate(reply.text, schema)
            except StructuredOutputError as second:
                usage.parse_failures += 1
                raise JudgeError(
                    f"the judge's reply for {request.purpose} was not usable JSON after one "
                    f"repair attempt: {second}"
                ) from None
        return Completion(text=reply.text, top_logprobs=reply.top_logprobs, data=data, usage=usage)

    async def _call(
        self, request: JudgeRequest, messages: Sequence[ChatMessage], usage: Usage
    ) -> _Reply:
        """One completion, retried on rate limits, server errors, timeouts and bad bodies."""
        retries = 0
        while True:
            self._raise_if_unavailable()
            response_format = self._response_format(request)
            failure: _Failure
            async with self._semaphore:
                self._raise_if_unavailable()
                started = self._clock()
                try:
                    response = await self._client.chat.completions.create(
                        **self._arguments(request, messages, response_format)
                    )
                    reply = self._read(response, request, usage)
                except openai.APIStatusError as exc:
                    failure = self._status_failure(exc, request, response_format)
                except openai.APIConnectionError as exc:
                    failure = self._connection_failure(exc)
                except (json.JSONDecodeError, openai.APIResponseValidationError) as exc:
                    failure = _Failure(
                        f"malformed response body ({type(exc).__name__})", endpoint_down=False
                    )
                except _MalformedResponse as exc:
                    failure = _Failure(str(exc), endpoint_down=False)
                else:
                    usage.seconds += self._clock() - started
                    return reply
                usage.seconds += self._clock() - started
            if failure.switch_format:
                usage.retries += 1
                continue
            if retries >= self._max_retries:
                raise self._exhausted(failure, request, retries + 1)
            delay = failure.retry_after
            if delay is None:
                delay = backoff_delay(retries, rand=self._rand)
            retries += 1
            usage.retries += 1
            log.info(
                "judge call for %s failed (%s); retry %d of %d in %.2f s",
                request.purpose,
                failure.description,
                retries,
                self._max_retries,
                delay,
            )
            await self._sleep(delay)

    def _arguments(
        self,
        request: JudgeRequest,
        messages: Sequence[ChatMessage],
        response_format: dict[str, Any] | None,
    ) -> dict[str, Any]:
        arguments: dict[str, Any] = {
            "model": self._model,
            "messages": [{"role": m.role, "content": m.content} for m in messages],
            "temperature": self._temperature,
            "max_tokens": request.max_tokens,
            "timeout": self._timeout_s,
        }
        if request.logprobs:
            arguments["logprobs"] = True
            arguments["top_logprobs"] = TOP_LOGPROBS
        if response_format is not None:
            arguments["response_format"] = response_format
        return arguments

    def _response_format(self, request: JudgeRequest) -> dict[str, Any] | None:
        if request.json_schema is None or self._format == "prompt":
            return None
        if self._format == "json_schema":
            return json_schema_format(request.json_schema, request.purpose)
        return json_object_format(request.json_schema)

    def _read(self, response: Any, request: JudgeRequest, usage: Usage) -> _Reply:
        choices = getattr(response, "choices", None)
        if not choices:
            raise _MalformedResponse("the response has no choices")
        choice = choices[0]
        message = getattr(choice, "message", None)
        content = getattr(message, "content", None)
        if content is not None and not isinstance(content, str):
            raise _MalformedResponse("the response's message content is not text")
        usage.calls += 1
        reported = getattr(response, "usage", None)
        usage.prompt_tokens += _int(getattr(reported, "prompt_tokens", 0))
        usage.completion_tokens += _int(getattr(reported, "completion_tokens", 0))
        details = getattr(reported, "prompt_tokens_details", None)
        usage.cached_tokens += _int(getattr(details, "cached_tokens", 0))
        top = _top_logprobs(choice) if request.logprobs else ()
        return _Reply(text=content or "", top_logprobs=top)

    def _status_failure(
        self,
        exc: openai.APIStatusError,
        request: JudgeRequest,
        response_format: dict[str, Any] | None,
    ) -> _Failure:
        status = exc.status_code
        detail = self._server_message(exc)
        rejected_format = (
            response_format is not None
            and response_format["type"] == "json_schema"
            and status in _FALLBACK_STATUSES
            and (mentions_response_format(detail) or mentions_response_format(str(exc.body)))
        )
        if rejected_format:
            if not self._may_fall_back:
                raise JudgeError(
                    f"the judge at {self._host} does not accept response_format json_schema "
                    f"(HTTP {status}); use structured output 'auto' or 'json_object'"
                )
            if self._format == "json_schema":
                log.info(
                    "the judge at %s rejected response_format json_schema (HTTP %d); "
                    "using json_object with the schema from now on",
                    self._host,
                    status,
                )
                self._format = "json_object"
            return _Failure("response_format json_schema rejected", switch_format=True)
        if status in (401, 403):
            raise self._mark_unavailable(
                f"the judge rejected the API key (HTTP {status}) at {self._host}: check the "
                f"key and its access to model {self._model!r}"
            )
        if status == 404:
            raise self._mark_unavailable(
                f"the judge at {self._host} answered HTTP 404 for model {self._model!r}: check "
                "judge.base_url and judge.model (for Azure, the deployment name)"
            )
        if is_retryable_status(status):
            headers = exc.response.headers if exc.response is not None else {}
            description = f"HTTP {status}" + (f": {detail}" if detail else "")
            return _Failure(description, retry_after_seconds(headers))
        raise JudgeError(
            f"the judge at {self._host} refused the request for {request.purpose} "
            f"(HTTP {status})" + (f": {detail}" if detail else "")
        )

    def _connection_failure(self, exc: openai.APIConnectionError) -> _Failure:
        if isinstance(exc, openai.APITimeoutError):
            return _Failure(f"no answer within {self._timeout_s:g} s")
        cause = exc.__cause__
        reason = type(cause).__name__ if cause is not None else "connection error"
        return _Failure(f"connection failed ({reason})")

    def _exhausted(self, failure: _Failure, request: JudgeRequest, attempts: int) -> JudgeError:
        if failure.endpoint_down:
            return self._mark_unavailable(
                f"the judge at {self._host} is unavailable: {failure.description} "
                f"(after {attempts} attempts)"
            )
        return JudgeError(
            f"the judge at {self._host} kept sending unusable responses for {request.purpose}: "
            f"{failure.description} (after {attempts} attempts)"
        )

    def _mark_unavailable(self, message: str) -> JudgeUnavailableError:
        if self._unavailable is None:
            self._unavailable = message
        error = JudgeUnavailableError(message)
        # The SDK's exception echoes the server's body (a 401 may quote part of the key).
        error.__suppress_context__ = True
        return error

    def _raise_if_unavailable(self) -> None:
        if self._unavailable is not None:
            raise JudgeUnavailableError(self._unavailable)

    def _server_message(self, exc: openai.APIStatusError) -> str:
        body = exc.body
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
        text = " ".join(str(message).split()) if message else ""
        key = getattr(self._client, "api_key", None)
        if isinstance(key, str) and len(key) >= 8:
            text = text.replace(key, "***")
        if len(text) > _MAX_SERVER_MESSAGE_CHARS:
            text = text[: _MAX_SERVER_MESSAGE_CHARS - 3] + "..."
        return text

    def _from_cache(self, key: str, request: JudgeRequest) -> Completion | None:
        if self._cache is None:
            return None
        entry = self._cache.get(key)
        if entry is None:
            return None
        text = entry.get("text")
        raw_top = entry.get("top_logprobs", [])
        data = entry.get("data")
        if not isinstance(text, str) or not _is_logprob_list(raw_top):
            return None
        if request.json_schema is not None and validation_error(data, request.json_schema):
            return None
        return Completion(
            text=text,
            top_logprobs=tuple(dict(item) for item in raw_top),
            data=data if request.json_schema is not None else None,
            usage=Usage(cache_hits=1),
            cost=Usage.from_dict(entry.get("usage")),
            cached=True,
        )

    def _to_cache(self, key: str, completion: Completion) -> None:
        if self._cache is None:
            return
        entry = {
            "text": completion.text,
            "top_logprobs": [dict(item) for item in completion.top_logprobs],
            "data": completion.data,
            "usage": completion.usage.as_dict(),
        }
        try:
            self._cache.put(key, entry)
        except OSError as exc:
            if not self._cache_write_failed:
                self._cache_write_failed = True
                log.warning(
                    "could not write the judge cache in %s (%s); continuing without it",
                    self._cache.directory,
                    exc.strerror or type(exc).__name__,
                )

    def _account(self, purpose: str, usage: Usage) -> None:
        self._usage.setdefault(purpose, Usage()).add(usage)


def _top_logprobs(choice: Any) -> tuple[Mapping[str, float], ...]:
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


def _is_logprob_list(value: Any) -> bool:
    return isinstance(value, list) and all(
        isinstance(item, dict)
        and all(
            isinstance(k, str) and isinstance(v, int | float) and not isinstance(v, bool)
            for k, v in item.items()
        )
        for item in value
    )


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
