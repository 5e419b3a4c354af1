"""A command and every process it starts, ended as one, however they leave its process group.

A process group does not hold a program's descendants: one that calls setsid() leaves it, and
a double-forked daemon is reparented to init, where no walk from the program's pid finds it
(a walk of /proc misses a fork and exit that happen between two looks). On Linux the command
therefore runs under a small supervisor, this module's `main` in a Python of its own, which
makes itself a child subreaper (prctl
PR_SET_CHILD_SUBREAPER): every orphan of the tree is reparented to it rather than to init, so
the processes under it are exactly what the command started, however it forked, for as long
as the supervisor lives. The flag is the supervisor's alone: set on ground-gate's own process
it would adopt the orphans of every child it has (the local judge's server's too) and leave
them unreaped. No root and no cgroup are needed.

The supervisor hands its stdin, stdout and stderr to the command and keeps none of them. When
the command exits, whatever it left running is ended and the supervisor exits as the command
did (its code, or its signal). On SIGTERM, SIGINT or SIGHUP (ground-gate's deadline or its
own stop), or when ground-gate dies (PR_SET_PDEATHSIG), it ends the whole tree: SIGTERM, then
SIGKILL after GRACE_S, pass after pass until nothing is left (a process that forks while it is
ended is found on the next pass). Standard library only: it starts in a few milliseconds.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import resource
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

GRACE_S = 0.5  # between SIGTERM and SIGKILL
KILL_FOR_S = 3.0  # SIGKILL passes stop after this long (a process of another user survives)
POLL_S = 0.02
STARTED = b"0\n"  # what the status pipe says when the command started (else its errno)
_PR_SET_PDEATHSIG, _PR_SET_CHILD_SUBREAPER = 1, 36
_STOPS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


def available() -> bool:
    """Whether commands run under the supervisor here (Linux, with /proc)."""
    return sys.platform == "linux" and os.path.isdir("/proc/self")


def supervised(argv: Sequence[str], status_fd: int) -> list[str]:
    """The argv that runs `argv` under the supervisor, which writes STARTED or the errno of
    the failed start on `status_fd` (to pass to the child) and closes it. Isolated (-I):
    neither the working directory nor PYTHONPATH can put a module of their own in its way;
    ground_gate itself is found where this process found it (an install or a checkout)."""
    # the folder holding the ground_gate package: one level up per dot in this module's name
    home = str(Path(os.path.abspath(__file__)).parents[__name__.count(".")])
    boot = (
        f"import sys; sys.path.insert(0, {home!r}); from {__name__} import main; main(sys.argv[1:])"
    )
    return [sys.executable, "-I", "-c", boot, str(os.getpid()), str(status_fd), "--", *argv]


def descendants(root: int) -> list[int]:
    """Every live process below `root` (zombies are dead: they only wait to be reaped)."""
    children: dict[int, list[int]] = {}
    dead: set[int] = set()
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as stat:
                fields = stat.read().rpartition(b")")[2].split()
        except OSError:  # gone between the listing and the read
            continue
        pid = int(name)
        children.setdefault(int(fields[1]), []).append(pid)
        if fields[0] in (b"Z", b"X"):
            dead.add(pid)
    found: list[int] = []
    todo = list(children.get(root, ()))
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, ()))
    return [pid for pid in found if pid not in dead]


def end_tree(root: int, *, grace_s: float = GRACE_S, reap: bool = False) -> list[int]:
    """Every process below `root` ended: SIGTERM (and SIGCONT, so a stopped one can obey),
    then SIGKILL after `grace_s` for what is left, until nothing is. reap: `root` is this
    process, which reaps its children as they die. Returns what is still alive (a process
    this user may not signal), which is empty when all went well."""
    _signal(descendants(root), signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline:
        if reap:
            _reap()
        if not descendants(root):
            return []
        time.sleep(POLL_S)
    deadline = time.monotonic() + KILL_FOR_S
    while time.monotonic() < deadline:
        if reap:
            _reap()
        alive = descendants(root)
        if not alive:
            return []
        _signal(alive, signal.SIGKILL)
        time.sleep(POLL_S / 4)
    return descendants(root)


def _signal(pids: Sequence[int], sig: int) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)
            if sig == signal.SIGTERM:
                os.kill(pid, signal.SIGCONT)


def _reap() -> None:
    with contextlib.suppress(ChildProcessError):
        while os.waitpid(-1, os.WNOHANG)[0] > 0:
            pass


class _Stop(Exception):
    """A stop signal, or ground-gate gone."""


def _stop(signum: int, frame: object) -> None:
    raise _Stop


def _prctl(option: int, value: int) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(option, value, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))


def _start(argv: Sequence[str], status_fd: int) -> int:
    """The command started with this process's stdio, which this process then lets go of."""
    try:
        child = subprocess.Popen(argv)
    except OSError as exc:
        os.write(status_fd, f"{exc.errno or 0}\n".encode())
        os._exit(127)
    os.write(status_fd, STARTED)
    os.close(status_fd)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)
    return child.pid


def _wait(pid: int) -> int:
    """The command's wait status; orphans adopted meanwhile are reaped as they die."""
    while True:
        got, status = os.waitpid(-1, 0)
        if got == pid:
            return status


def _exit_as(status: int) -> NoReturn:
    """This process ends as the command did: its exit code, or killed by its signal."""
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # no core file in the working tree
        with contextlib.suppress(OSError, ValueError):  # SIGKILL and SIGSTOP keep theirs
            signal.signal(sig, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [sig])
        os.kill(os.getpid(), sig)
        os._exit(128 + sig)  # a signal whose default is not to end (SIGCHLD, SIGURG)
    os._exit(os.waitstatus_to_exitcode(status))


def main(args: Sequence[str]) -> NoReturn:
    """`PARENT_PID STATUS_FD -- ARGV...`: ARGV run and its whole tree ended with it."""
    parent, status_fd, argv = int(args[0]), int(args[1]), list(args[3:])
    for sig in _STOPS:
        signal.signal(sig, _stop)
    status = (signal.SIGTERM + 128) << 8
    try:
        with contextlib.suppress(OSError):  # refused (a seccomp filter): only the walk is left
            _prctl(_PR_SET_CHILD_SUBREAPER, 1)
            _prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
        if os.getppid() != parent:  # ground-gate died before the line above
            raise _Stop
        status = _wait(_start(argv, status_fd))
    except _Stop:
        pass
    for sig in _STOPS:
        signal.signal(sig, signal.SIG_IGN)  # ending already
    end_tree(os.getpid(), reap=True)
    _exit_as(status)
