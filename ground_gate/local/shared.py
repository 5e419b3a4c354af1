"""One llama.cpp server shared by the processes of one session (pytest-xdist's workers): never
one model per worker on a machine of two cores.

The processes agree on a directory. The first that needs the judge starts the server under a
file lock, watching the session's own process (not itself: a worker may finish first), and
writes where it listens; the others read it. A server that failed to start is written too, so
the others say why at once instead of trying again. Whoever made the directory (the session)
stops the server by its process group when the session ends; the server also exits on its own
once that process is gone (bootstrap.py), even after a `kill -9`.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import signal
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

from ground_gate.leaves.errors import ModelError
from ground_gate.leaves.process_group import signal_group
from ground_gate.local.bootstrap import alive
from ground_gate.local.server import LocalServer

SERVER_FILE = "server.json"
LOCK_FILE = "server.lock"
STOP_GRACE_S = 10.0


@dataclass(frozen=True)
class Shared:
    """Where the shared server listens, or why it could not start."""

    base_url: str = ""
    model_file: str = ""
    pid: int = 0
    log_dir: str = ""
    error: str = ""


def shared_server(directory: Path, owner_pid: int, make: Callable[[], LocalServer]) -> Shared:
    """The session's server: the one another process started, else one started now (made by
    `make`, watching `owner_pid`) and left running. ModelError when it cannot start, now or
    when another process tried."""
    with _locked(directory):
        found = read_shared(directory)
        if found is not None and found.error:
            raise ModelError(found.error)
        if found is not None and alive(found.pid):
            return found
        server = make()
        server.watch_pid = owner_pid
        try:
            server.start()
        except ModelError as exc:
            _write(directory, Shared(error=str(exc)))
            raise
        base_url = server.base_url
        pid, log_dir = server.detach()
        shared = Shared(base_url, server.model_path.name, pid, str(log_dir))
        _write(directory, shared)
        return shared


def stop_shared(directory: Path, grace_s: float = STOP_GRACE_S) -> bool:
    """Stop the server started for `directory` (SIGTERM to its group, SIGKILL after `grace_s`)
    and remove its log; whether there was one."""
    found = read_shared(directory)
    if found is None or not found.pid:
        return False
    signal_group(found.pid, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while alive(found.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    signal_group(found.pid, signal.SIGKILL)
    shutil.rmtree(found.log_dir, ignore_errors=True)
    (directory / SERVER_FILE).unlink(missing_ok=True)
    return True


def read_shared(directory: Path) -> Shared | None:
    """What the directory says of its server; None when no process wrote it (or it is not
    ours to read: a file of another shape)."""
    try:
        data = json.loads((directory / SERVER_FILE).read_text(encoding="utf-8"))
        return Shared(**data) if isinstance(data, dict) else None
    except (OSError, ValueError, TypeError):
        return None


def _write(directory: Path, shared: Shared) -> None:
    partial = directory / f".{SERVER_FILE}.{os.getpid()}"
    partial.write_text(json.dumps(asdict(shared)), encoding="utf-8")
    partial.replace(directory / SERVER_FILE)


@contextlib.contextmanager
def _locked(directory: Path) -> Iterator[None]:
    directory.mkdir(parents=True, exist_ok=True)
    with (directory / LOCK_FILE).open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
