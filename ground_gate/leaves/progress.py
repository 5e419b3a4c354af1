"""Progress for people, one renderer for the whole tool: a bar rewritten in place on a terminal,
plain lines now and then in CI logs (which keep every byte written to them).

- `Terminal`: where progress goes and how it is drawn (the one renderer).
- `RowProgress`: rows judged or answered, with an ETA (called as `(done, total)`), under the
  label that says what it counts ("judging rows", "answering rows (target of support)").
- `ByteProgress`: model downloads and hashing (a `ProgressFn`: `(what, done, total)`), under
  what it does ("downloading x.gguf").

Every bar says what it counts, and fits the terminal's width (a longer line would wrap, and
the next redraw would start a new line instead of rewriting it).

All of it goes to stderr by default, so stdout keeps only the command's own output.
"""

from __future__ import annotations

import shutil
import sys
import time
from collections.abc import Callable
from typing import TextIO

# (what is happening, bytes done, bytes total): how downloads and hashing report progress
ProgressFn = Callable[[str, int, int], None]

MB = 1_000_000
MIN_BAR = 10  # the narrowest bar drawn before the label is cut


def fitted(label: str, bar_width: int, rest: str, columns: int) -> tuple[str, int]:
    """The label and bar width for a line `label [bar]rest` within `columns - 1` characters
    (the last column left free, so no terminal wraps the line): the bar narrowed first, down to
    MIN_BAR, then the label cut with an ellipsis."""
    room = columns - 1
    over = len(label) + 1 + bar_width + 2 + len(rest) - room
    if over > 0:
        narrower = max(MIN_BAR, bar_width - over)
        over -= bar_width - narrower
        bar_width = narrower
    if over > 0:
        keep = max(1, len(label) - over - 1)
        label = label[:keep] + "\u2026"
    return label, bar_width


class Terminal:
    """A line rewritten in place (`redraw`) on a TTY, or whole lines (`line`) in a log."""

    def __init__(self, stream: TextIO | None = None, *, tty: bool | None = None, width: int = 30):
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty() if tty is None else tty
        self.width = width
        self._open = False  # a redrawn line not yet ended

    def bar(self, done: int, total: int) -> str:
        """`[#####-----]`, full when there is nothing to do."""
        filled = self.width * done // total if total > 0 else self.width
        return "[" + "#" * filled + "-" * (self.width - filled) + "]"

    def redraw(self, text: str) -> None:
        self._write(f"\r{text}")
        self._open = True

    def line(self, text: str) -> None:
        """A whole line, after ending a redrawn one."""
        self.end()
        self._write(f"{text}\n")

    def end(self) -> None:
        if self._open:
            self._write("\n")
            self._open = False

    def _write(self, text: str) -> None:
        self.stream.write(text)
        self.stream.flush()


class RowProgress:
    """Rows judged or answered: call with (done, total) after each row; `close()` ends it.

    label: what it counts, e.g. "judging rows". A bar with the ETA on a terminal, after the
    label and sized to its width; in a log, a line every `line_every_s` and at the end.
    """

    def __init__(
        self,
        stream: TextIO | None = None,
        *,
        label: str,
        tty: bool | None = None,
        line_every_s: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
        columns: int | None = None,
    ) -> None:
        """columns: the terminal's width (default: asked of the terminal)."""
        self.terminal = Terminal(stream, tty=tty)
        self.label = label
        self._bar_width = self.terminal.width
        self.line_every_s = line_every_s
        self.columns = columns if columns is not None else shutil.get_terminal_size().columns
        self._clock = clock
        self._started = clock()
        self._last_line_at = self._started

    def __call__(self, done: int, total: int) -> None:
        now = self._clock()
        elapsed = now - self._started
        eta = _eta(done, total, elapsed)
        if self.terminal.tty:
            rest = f" {done}/{total}, ETA {eta} "
            label, self.terminal.width = fitted(self.label, self._bar_width, rest, self.columns)
            self.terminal.redraw(f"{label} {self.terminal.bar(done, total)}{rest}")
        elif done == total or now - self._last_line_at >= self.line_every_s:
            self._last_line_at = now
            self.terminal.line(
                f"ground-gate: {self.label}: {done}/{total}, {elapsed:.0f} s, ETA {eta}"
            )

    def close(self) -> None:
        self.terminal.end()


class ByteProgress:
    """Bytes downloaded or hashed, as a `ProgressFn`: (what, done, total); `close()` ends it.

    A bar with sizes on a terminal, redrawn when the percentage moves; in a log, the stage's
    name, then a line at every tenth crossed and at least every `line_every_s` while it moves.
    A total of 0 is a stage without sizes (waiting for a lock): its name only.
    """

    def __init__(
        self,
        stream: TextIO | None = None,
        *,
        tty: bool | None = None,
        width: int = 30,
        line_every_s: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.terminal = Terminal(stream, tty=tty, width=width)
        self.line_every_s = line_every_s
        self._clock = clock
        self._what: str | None = None
        self._last_line_at = 0.0
        self._last_percent = -1

    def __call__(self, what: str, done: int, total: int) -> None:
        if what != self._what:
            self._start(what, total)
        if total <= 0:
            return
        percent = min(100, done * 100 // total)
        if self.terminal.tty:
            if percent != self._last_percent:
                bar = self.terminal.bar(percent, 100)
                sizes = f"{done / MB:.1f}/{total / MB:.1f} MB"
                self.terminal.redraw(f"{what} {bar} {percent:3d}% {sizes}")
        elif self._line_due(percent):
            self.terminal.line(f"  {percent}% ({done / MB:.1f} of {total / MB:.1f} MB)")
        self._last_percent = percent
        if done >= total:
            self.terminal.end()
            self._what = None

    def close(self) -> None:
        self.terminal.end()

    def _start(self, what: str, total: int) -> None:
        self.terminal.end()
        self._what = what
        self._last_percent = -1
        self._last_line_at = self._clock()
        if total <= 0 or not self.terminal.tty:
            self.terminal.line(what)

    def _line_due(self, percent: int) -> bool:
        """A line at every tenth crossed, and at least every `line_every_s` while it moves."""
        if percent == self._last_percent:
            return False
        now = self._clock()
        crossed_tenth = percent // 10 > max(self._last_percent, 0) // 10
        if crossed_tenth or now - self._last_line_at >= self.line_every_s:
            self._last_line_at = now
            return True
        return False


def _eta(done: int, total: int, elapsed: float) -> str:
    if done == 0:
        return "--:--"
    left = elapsed / done * (total - done)
    minutes, seconds = divmod(int(left), 60)
    return f"{minutes:02d}:{seconds:02d}"
