"""A command target's process: started under process_tree's supervisor (on Linux), its pipes
read as asyncio streams, and ended in a bounded time whatever holds them.

No wait here depends on a pipe closing. asyncio's `Process.wait()` returns only once the
program's pipes close, and a daemon that left the program's session holding stdout would hold
it for as long as it lives; so the program's exit is read from its return code, the tree is
ended by the supervisor (SIGTERM, then SIGKILL after a grace) or, if the supervisor does not
answer, by force from here, and then our ends of the pipes are closed (the transport, kept
for that)."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import signal
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ground_gate.leaves import process_tree
from ground_gate.leaves.process_group import own_group, signal_group

MAX_LINE_BYTES = 16 * 1024 * 1024
START_S = 30.0  # the supervisor says whether the command started (an interpreter starting)
SUPERVISOR_ANSWER_S = 1.0  # beyond its grace, before the tree is ended from here
POLL_S = 0.02


@dataclass
class Child:
    """The running command: its asyncio process (the supervisor's, when supervised)."""

    process: asyncio.subprocess.Process
    transport: asyncio.SubprocessTransport
    supervised: bool
    ended: bool = False
    reaper: asyncio.Task[None] | None = None  # unsupervised: the group ended when it exits

    @property
    def returncode(self) -> int | None:
        """The command's exit code once it exited (-N: killed by signal N), whatever its pipes."""
        return self.process.returncode

    def running(self) -> int:
        """How many processes of the command's tree are alive (the command itself included)."""
        if not self.supervised:
            return int(self.returncode is None)
        if _gone(self.process.pid):  # its tree went with it; the pid may be another's by now
            return 0
        return len(process_tree.descendants(self.process.pid))

    async def end(self) -> None:
        """The command and everything it started ended, our pipe ends closed, in about
        process_tree.GRACE_S + SUPERVISOR_ANSWER_S at most. It runs in `finally` blocks, a
        stop signal's cancellation included; if a second signal cuts it short, what is left
        is ended by force, in milliseconds, before the pipes are closed."""
        if self.ended:
            return
        self.ended = True
        if self.reaper is not None:
            self.reaper.cancel()
        pid = self.process.pid
        try:
            if self.supervised:
                await _end_supervised(pid)
            else:  # not Linux: the process group is all there is
                signal_group(pid, signal.SIGTERM)
                deadline = time.monotonic() + process_tree.GRACE_S
                while self.returncode is None and time.monotonic() < deadline:
                    await asyncio.sleep(POLL_S)
                signal_group(pid, signal.SIGKILL)
            await self._reaped()
        finally:
            try:
                if self.supervised and not _gone(pid):
                    process_tree.end_tree(pid, grace_s=0)
            finally:  # closing kills the supervisor if it is still there
                with contextlib.suppress(RuntimeError):  # the loop already closed
                    self.transport.close()

    async def _reaped(self) -> None:
        """asyncio's child watcher's word on the exit, so that closing the transport does not
        reap the process itself (the watcher would then warn of an unknown pid)."""
        deadline = time.monotonic() + SUPERVISOR_ANSWER_S
        while self.process.returncode is None and time.monotonic() < deadline:
            await asyncio.sleep(POLL_S / 4)


async def _end_supervised(pid: int) -> None:
    """The supervisor asked to end the tree; if it does not within its grace, the tree is
    ended from here while the supervisor still adopts its orphans, then the supervisor."""
    if not _gone(pid):
        signal_group(pid, signal.SIGTERM)
        deadline = time.monotonic() + process_tree.GRACE_S + SUPERVISOR_ANSWER_S
        while not _gone(pid) and time.monotonic() < deadline:
            await asyncio.sleep(POLL_S)
    if not _gone(pid):  # walked only while it lives: a reaped pid may be another's by now
        process_tree.end_tree(pid, grace_s=0)
        signal_group(pid, signal.SIGKILL)


def _gone(pid: int) -> bool:
    """Whether the process exited (a zombie, or already reaped by asyncio's child watcher)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rpartition(b")")[2].split()[0] in (b"Z", b"X")
    except OSError:
        return True


async def start(argv: Sequence[str], env: Mapping[str, str]) -> Child:
    """The command started with piped stdin, stdout and stderr; OSError (its strerror says
    why) when it cannot start."""
    loop = asyncio.get_running_loop()
    supervised = process_tree.available()
    args = list(argv)
    status_r = status_w = -1
    if supervised:
        status_r, status_w = os.pipe()
        args = process_tree.supervised(argv, status_w)
    try:
        transport, protocol = await loop.subprocess_exec(
            lambda: asyncio.subprocess.SubprocessStreamProtocol(MAX_LINE_BYTES, loop),
            args[0],
            *args[1:],
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=dict(env),
            pass_fds=(status_w,) if supervised else (),
            **own_group(),
        )
    except BaseException:
        if supervised:
            os.close(status_r)
        raise
    finally:
        if supervised:
            os.close(status_w)
    child = Child(asyncio.subprocess.Process(transport, protocol, loop), transport, supervised)
    if supervised:
        await _started(child, status_r)
    else:
        child.reaper = asyncio.create_task(_end_group_after(child))
    return child


async def _end_group_after(child: Child) -> None:
    """Without a supervisor: once the program exits, what it left running in its group goes
    too (what it wrote before it exited stays readable in the pipe)."""
    while child.returncode is None:
        await asyncio.sleep(POLL_S)
    signal_group(child.process.pid, signal.SIGKILL)


async def _started(child: Child, status_r: int) -> None:
    """The supervisor's word on the command's start: nothing more to do, or OSError."""
    try:
        said = await _status(status_r)
    except BaseException:
        await child.end()
        raise
    finally:
        os.close(status_r)
    if said != 0:
        await child.end()
        if said < 0:
            raise OSError(errno.ECHILD, "its supervisor ended before starting it")
        raise OSError(said, os.strerror(said))


async def _status(status_r: int) -> int:
    """0 (started), an errno, or -1 (the supervisor ended without a word, or took START_S)."""
    os.set_blocking(status_r, False)
    deadline = time.monotonic() + START_S
    while time.monotonic() < deadline:
        try:
            said = os.read(status_r, 32).strip()
        except BlockingIOError:
            await asyncio.sleep(POLL_S / 4)
            continue
        return int(said) if said.isdigit() else -1
    return -1
