"""The hub download over real HTTP on 127.0.0.1: streaming, resuming, refusing."""

from __future__ import annotations

import hashlib
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from ground_gate.leaves.errors import ModelError
from ground_gate.local.downloads import http_download
from ground_gate.local.registry import KnownModel
from ground_gate.local.resolve import resolve_model

DATA = b"GGUF" + bytes(range(256)) * 3000  # 768,004 bytes: several read chunks


class Hub:
    """Serves DATA at any path; honours Range unless told not to; records Range headers."""

    def __init__(self) -> None:
        self.ranges: list[str | None] = []
        self.honour_range = True
        self.status: int | None = None  # force an error status
        hub = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                wanted = self.headers.get("Range")
                hub.ranges.append(wanted)
                if hub.status is not None:
                    self.send_error(hub.status)
                    return
                start = 0
                if wanted and hub.honour_range:
                    start = int(wanted.removeprefix("bytes=").removesuffix("-"))
                    if start >= len(DATA):
                        self.send_error(416)
                        return
                body = DATA[start:]
                self.send_response(206 if start else 200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"


@pytest.fixture
def hub() -> Iterator[Hub]:
    served = Hub()
    thread = threading.Thread(target=served.server.serve_forever, daemon=True)
    thread.start()
    yield served
    served.server.shutdown()
    served.server.server_close()


def test_http_download__streams_the_whole_file_with_progress(hub: Hub, tmp_path: Path) -> None:
    seen: list[tuple[int, int]] = []
    dest = tmp_path / "m.gguf.download"
    http_download(f"{hub.url}/m.gguf", dest, len(DATA), lambda w, d, t: seen.append((d, t)))
    assert dest.read_bytes() == DATA
    assert hub.ranges == [None]
    assert seen[0] == (0, len(DATA)) and seen[-1] == (len(DATA), len(DATA))


def test_http_download__resumes_a_partial_file(hub: Hub, tmp_path: Path) -> None:
    dest = tmp_path / "m.gguf.download"
    dest.write_bytes(DATA[:100_000])
    http_download(f"{hub.url}/m.gguf", dest, len(DATA), lambda *a: None)
    assert dest.read_bytes() == DATA
    assert hub.ranges == ["bytes=100000-"]


def test_http_download__starts_over_when_the_range_is_ignored(hub: Hub, tmp_path: Path) -> None:
    hub.honour_range = False
    dest = tmp_path / "m.gguf.download"
    dest.write_bytes(b"stale bytes")
    http_download(f"{hub.url}/m.gguf", dest, len(DATA), lambda *a: None)
    assert dest.read_bytes() == DATA


def test_http_download__http_error_is_a_model_error(hub: Hub, tmp_path: Path) -> None:
    hub.status = 404
    with pytest.raises(ModelError) as caught:
        http_download(f"{hub.url}/m.gguf", tmp_path / "x", len(DATA), lambda *a: None)
    assert str(caught.value) == f"{hub.url}/m.gguf: HTTP 404 Not Found"


def test_http_download__unreachable_hub_fails_fast(tmp_path: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again: nobody listens there
    with pytest.raises(ModelError) as caught:
        http_download(f"http://127.0.0.1:{port}/m.gguf", tmp_path / "x", 10, lambda *a: None)
    assert str(caught.value) == f"http://127.0.0.1:{port}/m.gguf: [Errno 111] Connection refused"


def test_resolve_model__downloads_from_a_hub_mirror_and_verifies(
    hub: Hub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_ENDPOINT", hub.url)
    model = KnownModel(
        name="tiny",
        filename="tiny.gguf",
        size=len(DATA),
        sha256=hashlib.sha256(DATA).hexdigest(),
        hub_repo="example/tiny-GGUF",
        license="MIT",
    )
    path = resolve_model("tiny", tmp_path, registry={"tiny": model})
    assert path == tmp_path / "tiny.gguf"
    assert path.read_bytes() == DATA
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        ".tiny.gguf.lock",
        "tiny.gguf",
        "tiny.gguf.sha256",
    ]


def test_http_download__unsatisfiable_range_discards_the_partial(hub: Hub, tmp_path: Path) -> None:
    dest = tmp_path / "m.gguf.download"
    dest.write_bytes(DATA)  # as long as the server's file, but we expect more
    with pytest.raises(ModelError) as caught:
        http_download(f"{hub.url}/m.gguf", dest, len(DATA) + 10, lambda *a: None)
    assert str(caught.value) == f"{hub.url}/m.gguf: HTTP 416 Requested Range Not Satisfiable"
    assert not dest.exists()
