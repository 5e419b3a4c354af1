"""How a run ends: the exit codes, and the one policy for signals.

Exit codes: 0 the gate passed, 1 a threshold was missed, 2 a usage, config or data error or a
run that could not be completed (judge unreachable, interrupted). Every command and the
GitHub Action map their outcome here and nowhere else.
"""

from __future__ import annotations

import signal
from types import FrameType

EXIT_PASSED, EXIT_FAILED, EXIT_ERROR = 0, 1, 2
# A cancelled CI job gets SIGTERM; a closed terminal, SIGHUP.
STOP_SIGNALS = ("SIGTERM", "SIGHUP")


def exit_code(*, passed: bool, incomplete: bool, fail_on_threshold: bool = True) -> int:
    """The exit code of a finished run. An incomplete run is an error whatever the scores: a
    judge that stopped answering never passes the gate."""
    if incomplete:
        return EXIT_ERROR
    if passed or not fail_on_threshold:
        return EXIT_PASSED
    return EXIT_FAILED


class _Stopping:
    """SIGTERM and SIGHUP stop like Ctrl-C: KeyboardInterrupt unwinds every `with` and
    `finally`, so the local judge's server is stopped and the rows already scored are written.
    A repeated signal during that orderly stop is ignored, so cleanup is never cut short."""

    def __init__(self) -> None:
        self.stopping = False

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        if self.stopping:
            return
        self.stopping = True
        raise KeyboardInterrupt


def install_signal_policy() -> None:
    """The process's only signal handlers; the CLI installs them once, at start."""
    handler = _Stopping()
    for name in STOP_SIGNALS:
        sig = getattr(signal, name, None)
        if sig is not None:
            signal.signal(sig, handler)
