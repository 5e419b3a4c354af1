"""Progress for people: a live bar with ETA on a terminal, periodic plain lines in CI logs."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

# (what is happening, bytes done, bytes total): how downloads and hashing report progress
ProgressFn = Callable[[str, int, int], None]

PLAIN_EVERY_S = 30.0


def _eta(done: int, total: int, elapsed: float) -> str:
    if done == 0:
        return "--:--"
    left = elapsed / done * (total - done)
    minutes, seconds = divmod(int(left), 60)
    return f"{minutes:02d}:{seconds:02d}"


class ProgressReporter:
    """Call with (done, total) after each row; `close()` ends the line on a terminal."""

    def __init__(
        self,
        stream: TextIO | None = None,
        *,
        interactive: bool | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.stream = stream or sys.stderr
        self.interactive = self.stream.isatty() if interactive is None else interactive
        self.clock = clock
        self.started = clock()
        self.last_line = self.started
        self.drawn = False

    def __call__(self, done: int, total: int) -> None:
        now = self.clock()
        elapsed = now - self.started
        if self.interactive:
            width = 30
            filled = int(width * done / total) if total else width
            bar = "#" * filled + "-" * (width - filled)
            eta = _eta(done, total, elapsed)
            self.stream.write(f"\r[{bar}] {done}/{total} rows, ETA {eta} ")
            self.stream.flush()
            self.drawn = True
        elif done == total or now - self.last_line >= PLAIN_EVERY_S:
            self.last_line = now
            eta = _eta(done, total, elapsed)
            line = f"ground-gate: {done}/{total} rows scored, {elapsed:.0f} s, ETA {eta}\n"
            self.stream.write(line)
            self.stream.flush()

    def close(self) -> None:
        if self.drawn:
            self.stream.write("\n")
            self.stream.flush()
            self.drawn = False
