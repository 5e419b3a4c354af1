"""Start a llama.cpp server (llama-cpp-python) on 127.0.0.1 for benchmarks.

Standard library only, so both the project venv and the peers venv can import it. The server
itself runs under a Python that has `llama_cpp.server` (the project `.venv` by default).

    .venv/bin/python -m bench.peers.serve_local --gguf qwen2.5-coder-1.5b-instruct-q4_k_m.gguf
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import IO, Any

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_PYTHON = REPO_ROOT / ".venv" / "bin" / "python"
MODEL_DIR = Path.home() / ".cache" / "ground-gate" / "models"

# Official files (DESIGN.md section 3): name -> (bytes, sha256).
KNOWN_MODELS: dict[str, tuple[int, str]] = {
    "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf": (
        1117320768,
        "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    ),
    "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf": (
        491400064,
        "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    ),
}


class ServerError(RuntimeError):
    """The local server could not be started or did not become ready."""


def resolve_gguf(name_or_path: str, *, verify_sha256: bool = False) -> Path:
    """Find a GGUF given as a path or as a file name in the model cache; check known files."""
    path = Path(name_or_path).expanduser()
    if not path.is_file():
        path = MODEL_DIR / name_or_path
    if not path.is_file():
        raise ServerError(f"model file not found: {name_or_path} (also looked in {MODEL_DIR})")
    known = KNOWN_MODELS.get(path.name)
    if known is not None:
        size, sha = known
        if path.stat().st_size != size:
            raise ServerError(
                f"{path.name}: {path.stat().st_size} bytes, expected {size} (incomplete copy?)"
            )
        if verify_sha256 and _sha256(path) != sha:
            raise ServerError(f"{path.name}: sha256 differs from the official file")
    return path


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def server_command(
    gguf: Path,
    *,
    python: Path,
    port: int,
    alias: str,
    n_ctx: int,
    n_threads: int | None,
) -> list[str]:
    cmd = [
        str(python),
        "-m",
        "llama_cpp.server",
        "--model",
        str(gguf),
        "--model_alias",
        alias,
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--n_ctx",
        str(n_ctx),
    ]
    if n_threads:
        cmd += ["--n_threads", str(n_threads), "--n_threads_batch", str(n_threads)]
    return cmd


def _wait_ready(base_url: str, proc: subprocess.Popen[bytes], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise ServerError(f"llama.cpp server exited with code {proc.returncode}")
        try:
            with urllib.request.urlopen(f"{base_url}/models", timeout=5) as resp:
                json.load(resp)
                return
        except (urllib.error.URLError, ConnectionError, TimeoutError, ValueError):
            time.sleep(0.5)
    raise ServerError(f"llama.cpp server not ready after {timeout:.0f} s")


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=15)


def _project_server() -> Any:
    """ground-gate's own `LocalServer` (stdlib only, importable from any venv), if present."""
    try:
        from ground_gate.leaves.errors import ModelError
        from ground_gate.local.server import LocalServer
    except ImportError:
        return None
    return LocalServer, ModelError


@contextlib.contextmanager
def llama_server(
    gguf: Path,
    *,
    python: Path = DEFAULT_PYTHON,
    port: int | None = None,
    alias: str | None = None,
    n_ctx: int = 4096,
    n_threads: int | None = None,
    startup_timeout: float = 300.0,
    log: IO[bytes] | None = None,
) -> Iterator[str]:
    """Run the server for the duration of the block; yields its base URL (ending in /v1).

    Uses ground-gate's `LocalServer` (which also stops the server if this process dies) when
    no fixed port is asked for; otherwise runs `python -m llama_cpp.server` directly.
    """
    project = _project_server() if port is None else None
    if project is not None:
        local_server, model_error = project
        server = local_server(
            gguf,
            context_tokens=n_ctx,
            threads=n_threads,
            python=str(python),
            startup_timeout_s=startup_timeout,
            model_alias=alias or gguf.stem,
        )
        try:
            server.start()
        except model_error as exc:
            raise ServerError(str(exc)) from exc
        try:
            yield server.base_url
        finally:
            server.stop()
        return
    port = port or free_port()
    cmd = server_command(
        gguf,
        python=python,
        port=port,
        alias=alias or gguf.stem,
        n_ctx=n_ctx,
        n_threads=n_threads,
    )
    proc = subprocess.Popen(
        cmd,
        stdout=log if log is not None else subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
    )
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        _wait_ready(base_url, proc, startup_timeout)
        yield base_url
    finally:
        _stop(proc)


def bench_judge(url: str, cache: Path) -> Any:
    """The project's judge against the server at `url`, one request at a time, its answers
    cached in `cache` (a rerun of a bench script asks nothing twice)."""
    from ground_gate.judge.cache import JudgeCache
    from ground_gate.judge.clients import build_openai_client
    from ground_gate.judge.openai_judge import OpenAIJudge
    from ground_gate.metrics.prompts import PROMPT_VERSION

    return OpenAIJudge(
        build_openai_client(None, url, 300), model="local", prompt_version=PROMPT_VERSION,
        max_concurrency=1, max_retries=2, timeout_s=300, cache=JudgeCache(cache),
    )  # fmt: skip


def measure_with_local_judge(
    args: argparse.Namespace,
    measure: Callable[[str, argparse.Namespace], Awaitable[None]],
    n_ctx: int = 4096,
) -> int:
    """A bench script's main: `measure(url, args)` against a server of `args.gguf`, its
    output folder `args.out` made first."""
    args.out.mkdir(parents=True, exist_ok=True)
    with llama_server(resolve_gguf(args.gguf), n_ctx=n_ctx) as url:
        asyncio.run(measure(url, args))
    return 0


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gguf", required=True, help="path, or file name in the model cache")
    parser.add_argument("--port", type=int, default=None, help="default: a free port")
    parser.add_argument("--alias", default=None, help="model name the server answers to")
    parser.add_argument("--n-ctx", type=int, default=4096)
    parser.add_argument("--threads", type=int, default=os.cpu_count(), help="default: all cores")
    parser.add_argument("--python", type=Path, default=DEFAULT_PYTHON)
    parser.add_argument("--verify-sha256", action="store_true")
    args = parser.parse_args(argv)
    try:
        gguf = resolve_gguf(args.gguf, verify_sha256=args.verify_sha256)
        # SIGTERM ends the block below the same way Ctrl-C does, so the child is stopped.
        signal.signal(signal.SIGTERM, _interrupt)
        with llama_server(
            gguf,
            python=args.python,
            port=args.port,
            alias=args.alias,
            n_ctx=args.n_ctx,
            n_threads=args.threads,
            log=sys.stderr.buffer,
        ) as base_url:
            print(base_url, flush=True)
            while True:
                time.sleep(3600)
    except ServerError as exc:
        print(f"serve_local: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 0


if __name__ == "__main__":
    sys.exit(main())
