"""A scripted OpenAI-compatible chat-completions server on 127.0.0.1, with fault injection.

Each test scripts what the server answers: a queue of `Reply` objects taken one per request,
or a handler called with the request body. Every request body is recorded, and the number of
requests being served at once is tracked so tests can check a concurrency bound.
"""

from __future__ import annotations

import itertools
import json
import math
import re
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

CHAT_PATHS = ("/v1/chat/completions", "/chat/completions")


@dataclass(frozen=True)
class Reply:
    """One scripted HTTP answer.

    delay_s: wait this long before answering (a client with a shorter timeout gives up first).
    truncate_to: send only this many bytes of the body while announcing its full length,
        then close the connection.
    trickle_s: send the headers at once, then the body one byte every this many seconds
        (a client whose timeout applies per read never gives up).
    """

    status: int = 200
    body: bytes = b""
    headers: Mapping[str, str] = field(default_factory=dict)
    content_type: str = "application/json"
    delay_s: float = 0.0
    truncate_to: int | None = None
    trickle_s: float = 0.0


@dataclass(frozen=True)
class RecordedRequest:
    path: str
    headers: Mapping[str, str]  # names lower-cased
    body: Any  # the parsed JSON body, or the raw text when it was not JSON


Handler = Callable[[Any], Reply]
_ids = itertools.count(1)


# The judge's question whether a text says anything at all: of a response before claims are
# extracted, and of a sentence the source does not hold (does it hold any information?)
INFORMS = "contain any information"


def says_something(prompt: str) -> bool:
    return INFORMS in prompt


def states_a_fact(body: Any) -> Reply | None:
    """Yes to the judge's "does it say anything at all" questions (a scripted sentence that is
    not in its source holds information, and so counts as not in the source), and NOT STATED
    to a fact of a sentence blanked out (metrics/facts.py: the source gives no other value);
    None for any other request, which the script answers."""
    prompt = body["messages"][-1]["content"]
    if fills_a_blank(prompt):
        return completion("NOT STATED", logprobs=[{"NOT": 0.0}], completion_tokens=3)
    if not says_something(prompt):
        return None
    return completion(
        "Yes", logprobs=[{"Yes": math.log(0.9), "No": math.log(0.1)}], completion_tokens=1
    )


def inner(tag: str, text: str) -> str:
    """What a prompt holds between <tag> and </tag>, each on its own line; "" if nothing."""
    match = re.search(rf"<{tag}>\n(.*?)\n</{tag}>", text, re.S)
    return match.group(1) if match else ""


def one_token(token: str, p: float, other: str) -> Reply:
    """A one-token reply: `token` at probability p, `other` at the rest."""
    return completion(
        token, logprobs=[{token: math.log(p), other: math.log(1 - p)}], completion_tokens=1
    )


def fills_a_blank(prompt: str) -> bool:
    """Whether a prompt asks for the value of one fact of a sentence (metrics/facts.py)."""
    return "fill the blank (___)" in prompt


def completion(
    content: str,
    *,
    logprobs: Sequence[Mapping[str, float]] | None = None,
    prompt_tokens: int = 12,
    completion_tokens: int | None = None,
    cached_tokens: int | None = 0,
    finish_reason: str = "stop",
    model: str = "fake-model",
) -> Reply:
    """A 200 chat completion shaped like OpenAI's.

    logprobs: per generated token, its alternatives token -> logprob; the generated token is
        the most likely one.
    cached_tokens: None leaves out prompt_tokens_details, as some servers do.
    """
    choice: dict[str, Any] = {
        "index": 0,
        "message": {"role": "assistant", "content": content, "refusal": None},
        "logprobs": None if logprobs is None else {"content": _logprob_content(logprobs)},
        "finish_reason": finish_reason,
    }
    generated = completion_tokens if completion_tokens is not None else max(1, len(content) // 4)
    usage: dict[str, Any] = {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": generated,
        "total_tokens": prompt_tokens + generated,
    }
    if cached_tokens is not None:
        usage["prompt_tokens_details"] = {"cached_tokens": cached_tokens, "audio_tokens": 0}
    body = {
        "id": f"chatcmpl-fake-{next(_ids)}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "system_fingerprint": "fp_fake",
        "choices": [choice],
        "usage": usage,
    }
    return Reply(body=json.dumps(body).encode("utf-8"))


def error(
    status: int,
    message: str,
    *,
    headers: Mapping[str, str] | None = None,
    error_type: str = "server_error",
) -> Reply:
    body = {"error": {"message": message, "type": error_type, "param": None, "code": None}}
    return Reply(status=status, body=json.dumps(body).encode("utf-8"), headers=headers or {})


def rate_limited(retry_after: str | None = None, *, retry_after_ms: str | None = None) -> Reply:
    headers = {}
    if retry_after is not None:
        headers["Retry-After"] = retry_after
    if retry_after_ms is not None:
        headers["retry-after-ms"] = retry_after_ms
    return error(429, "Rate limit reached", headers=headers, error_type="requests")


def slow(reply: Reply, delay_s: float) -> Reply:
    return Reply(
        status=reply.status,
        body=reply.body,
        headers=reply.headers,
        content_type=reply.content_type,
        delay_s=delay_s,
        truncate_to=reply.truncate_to,
    )


def malformed_json() -> Reply:
    """A 200 whose JSON body is broken (complete on the wire, unparsable)."""
    return Reply(body=b'{"id": "chatcmpl-broken", "object": "chat.completion", "choices": [{')


def truncated(reply: Reply, keep: int | None = None) -> Reply:
    """The body cut short on the wire: the connection closes before Content-Length is reached."""
    cut = keep if keep is not None else len(reply.body) // 2
    return Reply(status=reply.status, body=reply.body, headers=reply.headers, truncate_to=cut)


def trickling(reply: Reply, every_s: float = 2.0) -> Reply:
    """`reply` sent one byte every `every_s` seconds after the headers."""
    return Reply(
        status=reply.status,
        body=reply.body,
        headers=reply.headers,
        content_type=reply.content_type,
        delay_s=reply.delay_s,
        trickle_s=every_s,
    )


def rejects_json_schema(inner: Handler, *, status: int = 500) -> Handler:
    """Answer json_schema requests as llama-cpp-python's server does (HTTP 500), else `inner`."""

    def handler(body: Any) -> Reply:
        response_format = body.get("response_format") if isinstance(body, dict) else None
        if isinstance(response_format, dict) and response_format.get("type") == "json_schema":
            return error(
                status,
                "1 validation error: body -> response_format -> type: Input should be 'text' "
                "or 'json_object', got 'json_schema'",
                error_type="internal_server_error",
            )
        return inner(body)

    return handler


class FakeOpenAI:
    """Use as a context manager; `url` is the base URL to give the OpenAI client."""

    def __init__(
        self,
        replies: Iterable[Reply] = (),
        *,
        handler: Handler | None = None,
        paths: Sequence[str] = CHAT_PATHS,
    ) -> None:
        """paths: the paths it answers (others get 404): an app's own, for a target."""
        self.paths = tuple(paths)
        self._replies: deque[Reply] = deque(replies)
        self._handler = handler
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self.requests: list[RecordedRequest] = []
        self.unscripted = 0
        self.handler_errors: list[BaseException] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.first_request_at: float | None = None  # time.time() of the first request
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        if self._server is None:
            raise RuntimeError("the fake server is not running")
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    @property
    def origin(self) -> str:
        """http://127.0.0.1:PORT, for an app's URL."""
        return self.url.removesuffix("/v1")

    @property
    def request_count(self) -> int:
        with self._lock:
            return len(self.requests)

    def push(self, *replies: Reply) -> None:
        with self._lock:
            self._replies.extend(replies)

    def set_handler(self, handler: Handler | None) -> None:
        with self._lock:
            self._handler = handler

    def __enter__(self) -> FakeOpenAI:
        server = _QuietServer(("127.0.0.1", 0), _make_request_handler(self))
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.02}, name="fake-openai"
        )
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        if self.handler_errors and exc_info[0] is None:
            raise AssertionError(f"the fake server's handler failed: {self.handler_errors[0]!r}")

    def _next_reply(self, body: Any) -> Reply:
        with self._lock:
            if self._replies:
                return self._replies.popleft()
            handler = self._handler
            if handler is None:
                self.unscripted += 1
        if handler is None:
            return error(500, "fake server: no scripted reply left")
        try:
            return handler(body)
        except Exception as exc:  # a test's handler bug: fail the test at exit
            with self._lock:
                self.handler_errors.append(exc)
            return error(500, "fake server: the test's handler raised")

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            if self.first_request_at is None:
                self.first_request_at = time.time()
            self.requests.append(request)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)

    def _done(self) -> None:
        with self._lock:
            self.in_flight -= 1


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that hung up mid-answer is part of the script, not a server bug


def _make_request_handler(fake: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    class RequestHandler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            try:
                body: Any = json.loads(raw.decode("utf-8"))
            except ValueError:
                body = raw.decode("utf-8", errors="replace")
            headers = {name.lower(): value for name, value in self.headers.items()}
            fake._record(RecordedRequest(self.path, headers, body))
            try:
                if self.path not in fake.paths:
                    self._send(error(404, f"fake server: unknown path {self.path}"))
                    return
                reply = fake._next_reply(body)
                if reply.delay_s and fake._stopping.wait(reply.delay_s):
                    return
                self._send(reply)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (its timeout), as real clients do
            finally:
                fake._done()

        def _send(self, reply: Reply) -> None:
            self.send_response(reply.status)
            self.send_header("Content-Type", reply.content_type)
            self.send_header("Content-Length", str(len(reply.body)))
            self.send_header("Connection", "close")
            for name, value in reply.headers.items():
                self.send_header(name, value)
            self.end_headers()
            payload = reply.body if reply.truncate_to is None else reply.body[: reply.truncate_to]
            if reply.trickle_s:
                self._trickle(payload, reply.trickle_s)
                return
            self.wfile.write(payload)
            self.wfile.flush()

        def _trickle(self, payload: bytes, every_s: float) -> None:
            self.wfile.flush()
            for i in range(len(payload)):
                if fake._stopping.wait(every_s):
                    return
                self.wfile.write(payload[i : i + 1])
                self.wfile.flush()

        def log_message(self, format: str, *args: Any) -> None:
            pass  # keep test output clean

    return RequestHandler


def _logprob_content(tokens: Sequence[Mapping[str, float]]) -> list[dict[str, Any]]:
    content = []
    for alternatives in tokens:
        ranked = sorted(alternatives.items(), key=lambda item: item[1], reverse=True)
        token, logprob = ranked[0]
        content.append(
            {
                "token": token,
                "logprob": logprob,
                "bytes": list(token.encode("utf-8")),
                "top_logprobs": [
                    {"token": t, "logprob": lp, "bytes": list(t.encode("utf-8"))}
                    for t, lp in ranked
                ],
            }
        )
    return content


FAKE_KEY_ENV = "FAKE_KEY"  # the variable the configs below name for the key


def judge_yaml(
    url: str,
    *,
    max_retries: int = 2,
    timeout_s: float | None = None,
    max_concurrency: int | None = None,
    cache_dir: Path | None = None,
) -> str:
    """The `judge:` block of a config judged by the scripted server at `url`, its key read
    from FAKE_KEY; `cache_dir: null` unless one is given."""
    lines = [
        "judge:",
        "  provider: openai",
        "  model: fake-model",
        f"  base_url: {url}",
        f"  api_key_env: {FAKE_KEY_ENV}",
        f"  max_retries: {max_retries}",
    ]
    if timeout_s is not None:
        lines.append(f"  timeout_s: {timeout_s}")
    if max_concurrency is not None:
        lines.append(f"  max_concurrency: {max_concurrency}")
    lines.append(f"  cache_dir: {cache_dir if cache_dir is not None else 'null'}")
    return "\n".join(lines) + "\n"
