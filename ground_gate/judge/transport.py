"""The judge's HTTP client: every response body bounded in bytes after decompression.

httpx would inflate a gzip body whole before the SDK parses it: a 10 MB gzip bomb becomes
gigabytes and a MemoryError. Here a response hook, run before the body is read, takes the
decoding over: Content-Encoding is undone 64 KiB at a time (ground_gate/leaves/capped.py) and the
body stops at MAX_RESPONSE_BYTES. The error it raises is an OpenAIError, which the SDK passes
on as it is, and the judge's failure table reads it as a malformed response (retried, never a
verdict). Hooks rather than a transport of our own: the SDK's client keeps the runner's
HTTPS_PROXY and NO_PROXY, which a custom transport would drop.

The SDK's HTTP library is whichever the installed openai release is built on (httpx2 in
recent releases, httpx before): the hooks and the stream class come from it, so any openai
the pyproject allows works.
"""

from __future__ import annotations

import importlib
from collections.abc import AsyncIterator
from types import ModuleType
from typing import Any

import openai

from ground_gate.judge.response import MalformedResponse
from ground_gate.leaves.capped import ACCEPT_ENCODING, Inflater, TooLarge, UndecodableBody

# The largest chat completion the judge reads: a verdict is a few hundred bytes, and a reply of
# 1,000 tokens with 20 alternatives each is about 2 MB.
MAX_RESPONSE_BYTES = 16 * 2**20


def _sdk_http() -> ModuleType:
    """The HTTP library openai's default client subclasses (its `AsyncClient`)."""
    client = next(c for c in openai.DefaultAsyncHttpxClient.__mro__ if c.__name__ == "AsyncClient")
    return importlib.import_module(client.__module__.split(".")[0])


SDK_HTTP = _sdk_http()  # httpx2 or httpx: what the installed openai is built on


class ResponseRefused(MalformedResponse, openai.OpenAIError):
    """A response body over the cap, or in an encoding that was not asked for."""


def bounded_http_client(max_bytes: int = MAX_RESPONSE_BYTES) -> Any:
    """The SDK's default client, asking for gzip or deflate only, reading at most `max_bytes`
    of any response once decoded."""

    async def ask(request: Any) -> None:
        request.headers["Accept-Encoding"] = ACCEPT_ENCODING

    async def bound(response: Any) -> None:
        try:
            inflater = Inflater(response.headers.get("Content-Encoding"), max_bytes)
        except UndecodableBody as exc:
            raise ResponseRefused(f"the response was refused: {exc}") from None
        raw = response.stream
        assert isinstance(raw, SDK_HTTP.AsyncByteStream)  # an AsyncClient's response
        for name in ("Content-Encoding", "Content-Length"):  # decoded here: httpx must not
            response.headers.pop(name, None)
        response.stream = _Bounded(raw, inflater)

    # A redirect is refused, not followed: the judge's key and the rows' text go to the
    # endpoint the config names and nowhere else (a 307 would resend both to another host).
    return openai.DefaultAsyncHttpxClient(
        event_hooks={"request": [ask], "response": [bound]}, follow_redirects=False
    )


class _Bounded(SDK_HTTP.AsyncByteStream):  # type: ignore[misc,name-defined]
    def __init__(self, raw: Any, inflater: Inflater) -> None:
        self._raw = raw
        self._inflater = inflater

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            async for chunk in self._raw:
                data = self._inflater.feed(chunk)
                if data:
                    yield data
        except (TooLarge, UndecodableBody) as exc:
            raise ResponseRefused(f"the response was refused: {exc}") from None

    async def aclose(self) -> None:
        await self._raw.aclose()
