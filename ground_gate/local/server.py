"""The lifecycle of a llama.cpp server (llama-cpp-python) on 127.0.0.1 for the local judge.

The server runs in its own process group, on a free port, with its output in a temporary log.
It is stopped on every exit path: leaving the `with` block or calling `stop()` (normally or by
an exception, Ctrl-C included, and SIGTERM/SIGHUP, which the CLI's one signal policy
in `ground_gate.leaves.exit_codes` turns into KeyboardInterrupt), interpreter exit
(atexit), and, as a last resort, the death of ground-gate itself: the child watches its
parent and exits when it is re-parented, so even `kill -9` leaves no orphan. This module
installs no signal handler.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from ground_gate.leaves.errors import ModelError
from ground_gate.leaves.process_group import own_group, signal_group
from ground_gate.local.bootstrap import MISSING_MODULE_EXIT

HOST = "127.0.0.1"
SERVER_MODULE = "llama_cpp.server"
MISSING_EXTRA = "the local judge needs the 'local' extra: pip install \"ground-gate[local]\""
DEFAULT_CONTEXT_TOKENS = 4096
LOG_TAIL_LINES = 15
_PORT_ATTEMPTS = 3
MICRO_BATCH = 128

_BOOTSTRAP = Path(__file__).with_name("bootstrap.py")


def default_threads() -> int:
    """The CPUs this process may run on (a container's quota, not the host's count)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


class _PortTakenError(Exception):
    """Someone bound our port between our probe and the server's bind; try another."""


class LocalServer:
    """A running llama.cpp server; use as `with LocalServer(path) as server: server.base_url`."""

    def __init__(
        self,
        model_path: Path,
        *,
        context_tokens: int = DEFAULT_CONTEXT_TOKENS,
        threads: int | None = None,
        python: str = sys.executable,
        startup_timeout_s: float = 180.0,
        model_alias: str | None = None,
        module: str = SERVER_MODULE,
        extra_args: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
        stop_timeout_s: float = 10.0,
        watch_pid: int | None = None,
    ) -> None:
        self.model_path = Path(model_path)
        self.context_tokens = context_tokens
        self.threads = threads or default_threads()
        self.python = python
        self.startup_timeout_s = startup_timeout_s
        self.model_alias = model_alias or self.model_path.stem
        self.module = module
        self.extra_args = tuple(extra_args)
        self.env = dict(env) if env is not None else None
        self.stop_timeout_s = stop_timeout_s
        # the process whose end ends the server (None: this one); a shared server watches the
        # session that owns it, not the worker that happened to start it (local/shared.py)
        self.watch_pid = watch_pid
        self.port: int | None = None
        self.startup_seconds: float | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._log_dir: Path | None = None
        self._log: IO[bytes] | None = None
        self._lock = threading.RLock()

    # --- public surface -------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        if self.port is None:
            raise RuntimeError("the local server is not running")
        return f"http://{HOST}:{self.port}/v1"

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def check_running(self) -> None:
        """Raise ModelError with the log tail if the server died: call it on a connection error."""
        process = self._process
        if process is None:
            raise ModelError("the llama.cpp server is not running")
        code = process.poll()
        if code is not None:
            raise ModelError(
                f"the llama.cpp server {_describe_exit(code)}; last lines of its log:\n"
                f"{self.log_tail()}"
            )

    def start(self) -> LocalServer:
        if not self.model_path.is_file():
            raise ModelError(f"model file {self.model_path} does not exist")
        started = time.monotonic()
        try:
            for _ in range(_PORT_ATTEMPTS):
                port = _free_port()
                self._spawn(port)
                try:
                    self._wait_ready(port)
                except _PortTakenError:
                    self._terminate()
                    continue
                self.port = port
                self.startup_seconds = time.monotonic() - started
                return self
            raise ModelError(f"the llama.cpp server found no free port in {_PORT_ATTEMPTS} tries")
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        with self._lock:
            self._terminate()
            self.port = None
            if self._log is not None:
                self._log.close()
                self._log = None
            if self._log_dir is not None:
                shutil.rmtree(self._log_dir, ignore_errors=True)
                self._log_dir = None
            _forget(self)

    def detach(self) -> tuple[int, Path]:
        """Leave the running server to whoever stops it by its pid (its group), with its log
        directory: this object no longer stops it, at `stop()` or at exit. (pid, log dir)."""
        with self._lock:
            process, log_dir = self._process, self._log_dir
            if process is None or log_dir is None:
                raise RuntimeError("the local server is not running")
            self._process, self._log_dir = None, None
            if self._log is not None:
                self._log.close()
                self._log = None
            _forget(self)
            return process.pid, log_dir

    def log_tail(self, lines: int = LOG_TAIL_LINES) -> str:
        if self._log_dir is None:
            return ""
        try:
            text = (self._log_dir / "server.log").read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""
        return "\n".join(text.rstrip().splitlines()[-lines:])

    def __enter__(self) -> LocalServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # --- internals ------------------------------------------------------------------------

    def _command(self, port: int) -> list[str]:
        return [
            self.python,
            str(_BOOTSTRAP),
            self.module,
            str(self.watch_pid or os.getpid()),
            "--model",
            str(self.model_path),
            "--model_alias",
            self.model_alias,
            "--host",
            HOST,
            "--port",
            str(port),
            "--n_ctx",
            str(self.context_tokens),
            "--n_threads",
            str(self.threads),
            # reading a prompt: its default is the host's CPU count, not this process's share
            "--n_threads_batch",
            str(self.threads),
            # prompts read in micro-batches of 128 tokens: 47 tokens/s on 2 cores against 42
            # with llama.cpp's 512 (bench/RESULTS.md, "the machine's ceiling")
            "--n_ubatch",
            str(MICRO_BATCH),
            # Only matters for streamed requests; never let one client's call cut another's.
            "--interrupt_requests",
            "False",
            *self.extra_args,
        ]

    def _spawn(self, port: int) -> None:
        if self._log_dir is None:
            self._log_dir = Path(tempfile.mkdtemp(prefix="ground-gate-llama-"))
        if self._log is not None:
            self._log.close()
        self._log = (self._log_dir / "server.log").open("wb")
        env = {**os.environ, **self.env} if self.env is not None else None
        _remember(self)
        try:
            self._process = subprocess.Popen(
                self._command(port),
                stdin=subprocess.DEVNULL,
                stdout=self._log,
                stderr=subprocess.STDOUT,
                env=env,
                **own_group(),
            )
        except OSError as exc:
            raise ModelError(f"cannot start {self.python}: {exc.strerror}") from exc

    def _wait_ready(self, port: int) -> None:
        assert self._process is not None
        deadline = time.monotonic() + self.startup_timeout_s
        while True:
            code = self._process.poll()
            if code is not None:
                self._raise_died(code)
            if self._answers(port):
                return
            if time.monotonic() > deadline:
                raise ModelError(
                    f"the llama.cpp server did not answer within {self.startup_timeout_s:g} s; "
                    f"last lines of its log:\n{self.log_tail()}"
                )
            time.sleep(0.2)

    def _answers(self, port: int) -> bool:
        url = f"http://{HOST}:{port}/v1/models"
        try:
            with urllib.request.urlopen(url, timeout=2.0) as response:
                body: Any = json.loads(response.read().decode("utf-8"))
        except (OSError, ValueError):
            return False
        # Whoever answers must be serving our model, not a stranger that grabbed the port.
        ids = [m.get("id") for m in body.get("data", []) if isinstance(m, dict)]
        return self.model_alias in ids

    def _raise_died(self, code: int) -> None:
        tail = self.log_tail()
        if code == MISSING_MODULE_EXIT and f"cannot import {self.module}" in tail:
            raise ModelError(MISSING_EXTRA)
        if "address already in use" in tail.lower():
            raise _PortTakenError
        if "No module named" in tail:
            raise ModelError(f"{MISSING_EXTRA}\nlast lines of its log:\n{tail}")
        raise ModelError(
            f"the llama.cpp server {_describe_exit(code)} while starting "
            f"(model {self.model_path}); last lines of its log:\n{tail}"
        )

    def _terminate(self) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        _signal(process, signal.SIGTERM)
        try:
            process.wait(timeout=self.stop_timeout_s)
        except subprocess.TimeoutExpired:
            _signal(process, signal.SIGKILL)
            process.wait()
        # Anything the server left behind in its group goes too.
        _signal(process, signal.SIGKILL)


def _describe_exit(code: int) -> str:
    if code < 0:
        try:
            return f"was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with code {code}"


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        port: int = sock.getsockname()[1]
        return port


def _signal(process: subprocess.Popen[bytes], sig: int) -> None:
    if os.name != "posix" and process.poll() is not None:  # pragma: no cover
        return
    signal_group(process.pid, sig)


# --- the safety net: servers still running when the interpreter goes away ---------------------

_live: set[LocalServer] = set()
_live_lock = threading.Lock()
_atexit_registered = False


def _remember(server: LocalServer) -> None:
    global _atexit_registered
    with _live_lock:
        _live.add(server)
        if not _atexit_registered:
            atexit.register(_stop_all)
            _atexit_registered = True


def _forget(server: LocalServer) -> None:
    with _live_lock:
        _live.discard(server)


def _stop_all() -> None:
    for server in list(_live):
        server.stop()
