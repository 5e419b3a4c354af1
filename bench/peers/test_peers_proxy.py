"""Checks of counting_proxy.py against a scripted upstream on 127.0.0.1."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from bench.peers.counting_proxy import CountingProxy, Counts, usage_from_body


class Upstream(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    seen: list[dict[str, Any]] = []  # noqa: RUF012

    def log_message(self, format: str, *args: Any) -> None:
        return

    def _send(self, status: int, body: bytes, content_type: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        self._send(200, json.dumps({"data": [{"id": "m"}]}).encode())

    def do_POST(self) -> None:
        doc = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        Upstream.seen.append({"path": self.path, "body": doc})
        if self.path.endswith("/responses"):
            self._send(404, b'{"detail": "Not Found"}')
        elif doc.get("stream"):
            chunks = [{"choices": []}, {"usage": {"prompt_tokens": 7, "completion_tokens": 2}}]
            sse = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
            self._send(200, sse.encode(), "text/event-stream")
        else:
            usage = {"prompt_tokens": 11, "completion_tokens": 3}
            self._send(200, json.dumps({"choices": [], "usage": usage}).encode())


@pytest.fixture
def upstream() -> Iterator[str]:
    Upstream.seen = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), Upstream)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def _post(url: str, doc: dict[str, Any]) -> tuple[int, bytes]:
    request = urllib.request.Request(
        url, data=json.dumps(doc).encode(), headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def test_counting_proxy__counts_calls_and_usage(upstream: str) -> None:
    with CountingProxy(upstream) as proxy:
        assert _post(f"{proxy.base_url}/chat/completions", {"messages": []})[0] == 200
        assert _post(f"{proxy.base_url}/chat/completions", {"stream": True})[0] == 200
        assert _post(f"{proxy.base_url}/responses", {"input": "x"})[0] == 404
        with urllib.request.urlopen(f"{proxy.base_url}/models", timeout=10) as resp:
            assert json.load(resp) == {"data": [{"id": "m"}]}
        assert proxy.snapshot() == Counts(
            calls=3, failed_calls=1, prompt_tokens=18, completion_tokens=5
        )
    assert [s["path"] for s in Upstream.seen] == [
        "/v1/chat/completions",
        "/v1/chat/completions",
        "/v1/responses",
    ]


def test_counting_proxy__caps_max_tokens_only_when_asked(upstream: str) -> None:
    with CountingProxy(upstream, max_tokens=64) as proxy:
        _post(f"{proxy.base_url}/chat/completions", {"messages": []})
        _post(f"{proxy.base_url}/chat/completions", {"messages": [], "max_tokens": 5})
    with CountingProxy(upstream) as proxy:
        _post(f"{proxy.base_url}/chat/completions", {"messages": []})
    assert [s["body"].get("max_tokens") for s in Upstream.seen] == [64, 5, None]


def test_counting_proxy__unreachable_upstream_is_a_failed_call() -> None:
    with CountingProxy("http://127.0.0.1:9/v1", timeout=2) as proxy:
        status, body = _post(f"{proxy.base_url}/chat/completions", {})
        assert status == 502
        assert b"proxy:" in body
        assert proxy.snapshot() == Counts(calls=1, failed_calls=1)


def test_usage_from_body__reads_responses_api_names() -> None:
    body = json.dumps({"usage": {"input_tokens": 4, "output_tokens": 9}}).encode()
    assert usage_from_body(body, "application/json") == (4, 9)
    assert usage_from_body(b"not json", "application/json") == (0, 0)
