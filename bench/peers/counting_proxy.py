"""A counting HTTP proxy between a peer tool and the OpenAI-compatible judge server.

Every tool builds its own HTTP client (langchain, the openai SDK, tenacity retries, thread
pools), so counting at the wire is the one way to measure all of them the same way: each
request that reaches the judge is a call, and the `usage` the server returns is the cost.
Standard library only.
"""

from __future__ import annotations

import http.client
import json
import sys
import threading
import urllib.parse
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import IO, Any

# Paths whose requests are judge calls (anything else, e.g. GET /v1/models, is not counted).
CALL_SUFFIXES = ("/chat/completions", "/completions", "/responses", "/embeddings")
HOP_BY_HOP = {
    "connection",
    "keep-alive",
    "proxy-connection",
    "transfer-encoding",
    "upgrade",
    "te",
    "trailer",
    "content-length",
    "host",
    "accept-encoding",
}


@dataclass
class Counts:
    calls: int = 0
    failed_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def minus(self, other: Counts) -> Counts:
        return Counts(
            self.calls - other.calls,
            self.failed_calls - other.failed_calls,
            self.prompt_tokens - other.prompt_tokens,
            self.completion_tokens - other.completion_tokens,
        )


def usage_from_body(body: bytes, content_type: str) -> tuple[int, int]:
    """(prompt, completion) tokens from a JSON body or the last usage in an SSE stream."""
    docs: list[Any] = []
    if "text/event-stream" in content_type:
        for line in body.decode("utf-8", "replace").splitlines():
            if line.startswith("data:") and line[5:].strip() not in ("", "[DONE]"):
                try:
                    docs.append(json.loads(line[5:]))
                except ValueError:
                    continue
    else:
        try:
            docs.append(json.loads(body))
        except ValueError:
            return 0, 0
    for doc in reversed(docs):
        usage = doc.get("usage") if isinstance(doc, dict) else None
        if isinstance(usage, dict):
            prompt = usage.get("prompt_tokens", usage.get("input_tokens", 0)) or 0
            completion = usage.get("completion_tokens", usage.get("output_tokens", 0)) or 0
            return int(prompt), int(completion)
    return 0, 0


def _json_or_text(data: bytes) -> Any:
    try:
        return json.loads(data)
    except ValueError:
        return data.decode("utf-8", "replace")


class _QuietServer(ThreadingHTTPServer):
    """A client closing its keep-alive connection between calls is normal, not an error."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


class CountingProxy:
    """Forward requests to `upstream` (a base URL like http://127.0.0.1:8080/v1) and count."""

    def __init__(
        self,
        upstream: str,
        *,
        timeout: float = 900.0,
        max_tokens: int = 0,
        trace: IO[str] | None = None,
    ) -> None:
        parsed = urllib.parse.urlsplit(upstream)
        if parsed.scheme != "http" or not parsed.hostname:
            raise ValueError(f"upstream must be an http:// base URL, got {upstream!r}")
        self._host = parsed.hostname
        self._port = parsed.port or 80
        self._prefix = parsed.path.rstrip("/")
        self._timeout = timeout
        self._max_tokens = max_tokens
        self._trace = trace
        self.tag: str | None = None  # written into trace entries (the row being scored)
        self._lock = threading.Lock()
        self._counts = Counts()
        self._server = _QuietServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}{self._prefix}"

    def snapshot(self) -> Counts:
        with self._lock:
            return Counts(**vars(self._counts))

    def __enter__(self) -> CountingProxy:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    @staticmethod
    def _is_call(path: str) -> bool:
        return path.split("?", 1)[0].endswith(CALL_SUFFIXES)

    def _start(self, path: str) -> None:
        # Counted when sent: a call the tool gave up on (its own timeout) still cost the judge.
        if self._is_call(path):
            with self._lock:
                self._counts.calls += 1

    def _finish(
        self, path: str, request: bytes, status: int, body: bytes, content_type: str
    ) -> None:
        if not self._is_call(path):
            return
        prompt, completion = usage_from_body(body, content_type) if status < 400 else (0, 0)
        with self._lock:
            self._counts.failed_calls += status >= 400
            self._counts.prompt_tokens += prompt
            self._counts.completion_tokens += completion
            if self._trace is not None:
                entry = {
                    "tag": self.tag,
                    "path": path,
                    "status": status,
                    "request": _json_or_text(request),
                    "response": _json_or_text(body),
                }
                self._trace.write(json.dumps(entry) + "\n")
                self._trace.flush()

    def _rewrite(self, body: bytes) -> bytes:
        """Cap generation length when asked to (off by default: tools run as they ship)."""
        if not self._max_tokens or not body:
            return body
        try:
            doc = json.loads(body)
        except ValueError:
            return body
        if isinstance(doc, dict) and not doc.get("max_tokens"):
            doc["max_tokens"] = self._max_tokens
            return json.dumps(doc).encode()
        return body

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                return

            def _forward(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = proxy._rewrite(self.rfile.read(length)) if length else b""
                headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
                if body:
                    headers["Content-Length"] = str(len(body))
                proxy._start(self.path)
                conn = http.client.HTTPConnection(proxy._host, proxy._port, timeout=proxy._timeout)
                try:
                    conn.request(self.command, self.path, body=body or None, headers=headers)
                    resp = conn.getresponse()
                    data = resp.read()
                    status, reason, resp_headers = resp.status, resp.reason, resp.getheaders()
                except (OSError, http.client.HTTPException) as exc:
                    data = json.dumps({"error": {"message": f"proxy: {exc}"}}).encode()
                    status, reason = 502, "Bad Gateway"
                    resp_headers = [("Content-Type", "application/json")]
                finally:
                    conn.close()
                content_type = dict((k.lower(), v) for k, v in resp_headers).get("content-type", "")
                proxy._finish(self.path, body, status, data, content_type)
                self.send_response(status, reason)
                for key, value in resp_headers:
                    if key.lower() not in HOP_BY_HOP:
                        self.send_header(key, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = _forward
            do_POST = _forward

        return Handler
