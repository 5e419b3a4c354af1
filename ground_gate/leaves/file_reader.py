"""The one way a file a user names is opened: a regular file (a FIFO would block the run and
/dev/zero never end), at most a given size, read in bounded reads. Callers word the problem in
their own terms (a config, a dataset, a report); the policy is here, once."""

from __future__ import annotations

import stat
from pathlib import Path
from typing import IO, Literal

Kind = Literal["missing", "directory", "special", "too_large", "unreadable"]


class Unreadable(Exception):
    """Why a file cannot be read as one. kind: missing, directory, special (a pipe or a
    device), too_large (`size` bytes, None when it grew while read), unreadable (`reason`)."""

    def __init__(self, kind: Kind, *, size: int | None = None, reason: str = "") -> None:
        super().__init__(kind)
        self.kind = kind
        self.size = size
        self.reason = reason


def open_regular(path: Path, max_bytes: int) -> IO[bytes]:
    """`path` opened for reading once it is a regular file of at most `max_bytes`."""
    try:
        info = path.stat()
        if stat.S_ISDIR(info.st_mode):
            raise Unreadable("directory")
        if not stat.S_ISREG(info.st_mode):
            raise Unreadable("special")
        if info.st_size > max_bytes:
            raise Unreadable("too_large", size=info.st_size)
        return path.open("rb")
    except FileNotFoundError:
        raise Unreadable("missing") from None
    except (OSError, ValueError) as exc:  # ValueError: a NUL in the path
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise Unreadable("unreadable", reason=reason) from None


def read_capped(path: Path, max_bytes: int) -> bytes:
    """The whole of a regular file of at most `max_bytes` (checked again as it is read: the
    file may grow after the size was taken)."""
    with open_regular(path, max_bytes) as handle:
        try:
            raw = handle.read(max_bytes + 1)
        except OSError as exc:
            raise Unreadable("unreadable", reason=exc.strerror or str(exc)) from None
    if len(raw) > max_bytes:
        raise Unreadable("too_large")
    return raw


def problem(exc: Unreadable, expected: str, too_large: str | None = None) -> str:
    """The words for `exc` after the file's name: `expected` says what the file should have
    been ("a YAML config file"), `too_large` how big it may be."""
    if exc.kind == "missing":
        return f"no such file, expected {expected}"
    if exc.kind == "directory":
        return f"is a directory, expected {expected}"
    if exc.kind == "special":
        return f"not a regular file (a pipe or a device?), expected {expected}"
    if exc.kind == "too_large":
        return too_large or f"too large for {expected}"
    return f"cannot read it ({exc.reason})"
