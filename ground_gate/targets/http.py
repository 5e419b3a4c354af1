"""An http target: the app's endpoint (a job service, a URL), one POST of a JSON body per row.

Failures follow the judge's table (judge/failures.py): 408, 409, 429 and 5xx are retried with
backoff that honours Retry-After, as are timeouts and lost connections; what is left after
max_retries is that row's error, except an app that cannot be reached at all or refuses the
credentials (401, 403), which stops the target: no later row would fare better. Header values
are read from the environment at request time and never appear in a message.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx
import jmespath

from ground_gate.config.model import HttpTarget
from ground_gate.datasets import Sample
from ground_gate.judge.base import quote_reply
from ground_gate.judge.budget import SpendingLimit
from ground_gate.judge.failures import Failure, classify_status, server_message
from ground_gate.judge.retry import backoff_delay, retry_after_seconds
from ground_gate.leaves.errors import ConfigError, TargetError
from ground_gate.leaves.json_keys import DuplicateKeyError
from ground_gate.leaves.usage import Usage
from ground_gate.targets.answers import Answer
from ground_gate.targets.reply import reply_json
from ground_gate.targets.templates import Template, parse, render, row_values

MAX_REPLY_BYTES = 10_000_000
_ALONE = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
RETRIED = frozenset({Failure.BUSY, Failure.SERVER_ERROR, Failure.TIMEOUT, Failure.CONNECTION})
Sleep = Callable[[float], Awaitable[None]]


def shown_url(url: str) -> str:
    """The URL as reports and messages show it: no credentials, no query (either may hold a
    secret)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{host}{port}{parts.path}"


def body_templates(spec: HttpTarget, config_file: str) -> dict[tuple[Any, ...], Template]:
    """Every string of the body as a template, by its place in the body."""
    found: dict[tuple[Any, ...], Template] = {}
    line = spec.body_line or 1

    def walk(value: Any, path: tuple[Any, ...]) -> None:
        if isinstance(value, str):
            found[path] = parse(value, config_file, line, fixed_line=True)
        elif isinstance(value, dict):
            for key, item in value.items():
                walk(item, (*path, key))
        elif isinstance(value, list):
            for index, item in enumerate(value):
                walk(item, (*path, index))

    walk(spec.body or {}, ())
    return found


def body_for(
    spec: HttpTarget, templates: Mapping[tuple[Any, ...], Template], sample: Sample, where: str
) -> Any:
    """The row's JSON body. A string that is one placeholder alone sends the value itself
    (a list stays a list); others are filled in as text. No body: {id, question, context}."""
    values = row_values(sample)
    if spec.body is None:
        return {"id": sample.id, "question": sample.question, "context": values["context"]}

    def fill(value: Any, path: tuple[Any, ...]) -> Any:
        if isinstance(value, str):
            alone = _ALONE.fullmatch(value.strip())
            if alone and alone.group(1) in values:
                return values[alone.group(1)]
            return render(templates[path], values, where)
        if isinstance(value, dict):
            return {key: fill(item, (*path, key)) for key, item in value.items()}
        if isinstance(value, list):
            return [fill(item, (*path, index)) for index, item in enumerate(value)]
        return value

    return fill(spec.body, ())


# Set by the HTTP client from the request itself; a config's value would break the request.
RESERVED_HEADERS = frozenset(
    {"content-length", "content-type", "host", "transfer-encoding", "connection", "expect",
     "te", "trailer", "upgrade", "keep-alive", "proxy-connection"}
)  # fmt: skip
_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9!#$%&'*+.^_`|~-]*")


def check_headers(spec: HttpTarget, env: Mapping[str, str], keys: str) -> None:
    """Every variable headers_env names is set, before any call (the values are read again at
    request time, and never shown)."""
    for header, name in spec.headers_env.items():
        value = env.get(name)
        if not value:
            raise ConfigError(
                f"{keys}.http.headers_env.{header}: the environment variable {name} is not set"
            )
        if any(ch in value for ch in "\r\n\0"):
            raise ConfigError(
                f"{keys}.http.headers_env.{header}: the environment variable {name} holds a "
                "line break; a header value is one line"
            )
        if not value.isascii() or not value.isprintable():
            raise ConfigError(
                f"{keys}.http.headers_env.{header}: the environment variable {name} holds a "
                "character a header cannot carry (only printable ASCII); its value is not shown"
            )
        if header.lower() in RESERVED_HEADERS or not _TOKEN.fullmatch(header):
            raise ConfigError(
                f"{keys}.http.headers_env.{header}: not a header ground-gate lets a config set "
                "(a header name is letters, digits and !#$%&'*+-.^_`|~, and not one of "
                f"{', '.join(sorted(RESERVED_HEADERS))}, which the request itself sets)"
            )


@dataclass
class _Failed:
    failure: Failure
    what: str
    retry_after: float | None = None


class HttpAsker:
    """Asks the app for one row at a time (the caller bounds the concurrency)."""

    def __init__(
        self,
        spec: HttpTarget,
        client: httpx.AsyncClient,
        env: Mapping[str, str],
        *,
        timeout_s: float,
        max_retries: int,
        usage: Usage,
        limit: SpendingLimit | None = None,
        sleep: Sleep = asyncio.sleep,
        rand: Callable[[], float] = random.random,
    ) -> None:
        self._spec = spec
        self._client = client
        self._env = env
        self._timeout_s = timeout_s
        self._max_retries = max_retries
        self._usage = usage
        self._limit = limit
        self._sleep = sleep
        self._rand = rand
        self._url = shown_url(spec.url)
        self._response = jmespath.compile(spec.response) if spec.response else None
        self._contexts = jmespath.compile(spec.contexts) if spec.contexts else None

    async def ask(self, sample: Sample, body: Any) -> Answer:
        started = time.perf_counter()
        retries = 0
        while True:
            outcome = await self._attempt(body)
            if not isinstance(outcome, _Failed):
                seconds = time.perf_counter() - started
                return self._answer(sample, outcome, seconds)
            if outcome.failure not in RETRIED or retries >= self._max_retries:
                return self._gave_up(sample, outcome, retries + 1, time.perf_counter() - started)
            delay = outcome.retry_after
            if delay is None:
                delay = backoff_delay(retries, rand=self._rand)
            retries += 1
            self._usage.retries += 1
            await self._sleep(delay)

    def _gave_up(self, sample: Sample, failed: _Failed, attempts: int, seconds: float) -> Answer:
        said = f"the app at {self._url} {failed.what} for row '{sample.id}'"
        if attempts > 1:
            said += f" (after {attempts} attempts)"
        if failed.failure in (Failure.CONNECTION, Failure.KEY_REJECTED):
            raise TargetError(said)
        return Answer(sample.id, None, seconds=seconds, error=said)

    async def _attempt(self, body: Any) -> tuple[int, bytes, str] | _Failed:
        ticket = self._limit.reserve((), 0) if self._limit is not None else None
        self._usage.calls += 1
        started = time.perf_counter()
        try:
            async with asyncio.timeout(self._timeout_s):
                status, raw, kind, headers = await self._post(body)
        except TimeoutError:
            return _Failed(Failure.TIMEOUT, f"did not answer within {self._timeout_s:g} s")
        except httpx.TimeoutException:
            return _Failed(Failure.TIMEOUT, f"did not answer within {self._timeout_s:g} s")
        except httpx.HTTPError as exc:
            return _Failed(Failure.CONNECTION, f"could not be reached ({type(exc).__name__})")
        finally:
            self._usage.seconds += time.perf_counter() - started
            if self._limit is not None and ticket is not None:
                self._limit.settle(ticket, 0, 0)
        if 200 <= status < 300:
            return status, raw, kind
        failure = classify_status(status, json_schema_rejected=False, may_fall_back=False)
        detail = self._detail(raw)
        what = f"answered HTTP {status}" + (f": {detail}" if detail else "")
        wait = retry_after_seconds(headers) if failure in RETRIED else None
        return _Failed(failure, what, wait)

    async def _post(self, body: Any) -> tuple[int, bytes, str, Mapping[str, str]]:
        headers = {name: self._env.get(var, "") for name, var in self._spec.headers_env.items()}
        async with self._client.stream("POST", self._spec.url, json=body, headers=headers) as reply:
            chunks: list[bytes] = []
            size = 0
            async for chunk in reply.aiter_bytes():
                size += len(chunk)
                if size > MAX_REPLY_BYTES:
                    break
                chunks.append(chunk)
            kind = reply.headers.get("content-type", "")
            return reply.status_code, b"".join(chunks), kind, dict(reply.headers)

    def _detail(self, raw: bytes) -> str:
        """The start of an error body, on one line (inert: server_message), without any header
        value we sent."""
        text = raw.decode("utf-8", errors="replace")
        try:
            body: Any = json.loads(text)
        except ValueError:
            body = text
        detail = server_message(body, None) or server_message(text, None)
        for var in self._spec.headers_env.values():
            secret = self._env.get(var, "")
            if len(secret) >= 4:
                detail = detail.replace(secret, "***")
        return detail

    def _answer(self, sample: Sample, reply: tuple[int, bytes, str], seconds: float) -> Answer:
        _, raw, kind = reply
        try:
            response, contexts = self._read(raw, kind)
        except ValueError as exc:
            error = f"the app at {self._url} answered row '{sample.id}' with {exc}"
            return Answer(sample.id, None, seconds=seconds, error=error)
        return Answer(sample.id, response, contexts, seconds=seconds)

    def _read(self, raw: bytes, kind: str) -> tuple[str, tuple[str, ...] | None]:
        text = raw.decode("utf-8", errors="replace")
        try:
            data: Any = reply_json(text)
        except DuplicateKeyError as exc:
            raise ValueError(f"JSON in which {exc} ({quote_reply(text, 80)})") from None
        except ValueError:
            if self._response is not None or self._contexts is not None:
                raise ValueError(f"a body that is not JSON ({quote_reply(text, 80)})") from None
            data = text
        if self._response is None:
            response = data
        else:
            response = self._response.search(data)
            if response is None:
                raise ValueError(
                    f"no '{self._spec.response}' in its reply ({quote_reply(text, 80)})"
                )
        if not isinstance(response, str):
            where = f"'{self._spec.response}'" if self._response else "its reply"
            raise ValueError(f"{where} not text ({quote_reply(text, 80)})")
        if not response.strip():
            raise ValueError("an empty response")
        return response.strip(), self._read_contexts(data)

    def _read_contexts(self, data: Any) -> tuple[str, ...] | None:
        if self._contexts is None:
            return None
        found = self._contexts.search(data)
        if found is None:
            return None
        items = [found] if isinstance(found, str) else found
        if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
            raise ValueError(f"'{self._spec.contexts}' that is not text or a list of texts")
        return tuple(i for i in items if i.strip())
