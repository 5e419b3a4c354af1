"""How a run ends: the exit codes, and the one policy for signals.

Exit codes: 0 the gate passed, 1 a threshold was missed, 2 a usage, config or data error or a
run that could not be completed (judge unreachable, interrupted). Every command and the
GitHub Action map their outcome here and nowhere else.
"""

from __future__ import annotations

import os
import signal
import threading
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


FORCED_EXIT_GRACE_S = 5.0  # after a second signal, the unwinding gets this long at most


class _Stopping:
    """SIGTERM, SIGHUP and SIGINT stop like Ctrl-C: KeyboardInterrupt unwinds every `with` and
    `finally`, so the local judge's server is stopped and the rows already scored are written.

    A second signal means "stop now": SystemExit(128 + signum) (143 for SIGTERM, 130 for
    Ctrl-C) unwinds once more, which stops the local judge's server again (its `with` block and
    its atexit hook), and a watchdog ends the process with the same code if that unwinding takes
    longer than FORCED_EXIT_GRACE_S. A third signal exits at once."""

    def __init__(self) -> None:
        self.signals = 0

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        self.signals += 1
        code = 128 + signum
        if self.signals == 1:
            raise KeyboardInterrupt
        if self.signals == 2:
            watchdog = threading.Timer(FORCED_EXIT_GRACE_S, os._exit, (code,))
            watchdog.daemon = True
            watchdog.start()
            raise SystemExit(code)
        os._exit(code)


def install_signal_policy() -> None:
    """The process's only signal handlers; the CLI installs them once, at start."""
    handler = _Stopping()
    for name in (*STOP_SIGNALS, "SIGINT"):
        sig = getattr(signal, name, None)
        if sig is not None:
            signal.signal(sig, handler)
