"""A child program in a process group of its own, and the group ended as one: what a program
starts in the background (`sleep 3000 &`, a worker pool) goes with it, at a timeout, at the
end of a run and on a signal. Used by the local model's server and by a command target."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from typing import Any


def own_group() -> dict[str, Any]:
    """Keyword arguments to subprocess.Popen or asyncio.create_subprocess_exec that start the
    program as the leader of a new process group (a new session on POSIX)."""
    if os.name == "posix":
        return {"start_new_session": True}
    return {"creationflags": getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)}  # pragma: no cover


def signal_group(pid: int, sig: int = signal.SIGKILL) -> None:
    """Send `sig` to the whole group led by `pid`; a group already gone is no error. The
    leader may have exited: its children stay in the group until they exit too."""
    if os.name != "posix":  # pragma: no cover
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGTERM)
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)
