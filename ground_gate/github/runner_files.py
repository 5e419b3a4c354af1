"""The files the runner hands a step: the event payload, read once and checked, and
GITHUB_OUTPUT / GITHUB_STEP_SUMMARY, regular files to append to.

Both are read before any evaluation (action_settings.py), so a payload that is not JSON, a
FIFO where the payload should be, or a directory where the runner's output file should be is
one line and exit 2 at the start, not a traceback after every judge call was made.
"""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

from ground_gate.leaves.errors import ConfigError
from ground_gate.leaves.file_reader import Unreadable, problem, read_capped

# GitHub caps a webhook's payload at 25 MB; the event file is that payload.
# https://docs.github.com/en/webhooks/webhook-events-and-payloads#payload-cap
MAX_EVENT_BYTES = 25 * 2**20


def read_event_payload(path: Path) -> dict[str, Any]:
    """The JSON object at `path` (GITHUB_EVENT_PATH): a regular file of at most 25 MiB."""
    try:
        payload = json.loads(read_capped(path, MAX_EVENT_BYTES).decode("utf-8"))
    except Unreadable as exc:
        too_large = f"larger than {MAX_EVENT_BYTES // 2**20} MiB, GitHub's cap on a payload"
        why = problem(exc, "the event payload (JSON)", too_large)
        raise ConfigError(f"{path}: cannot read the event payload: {why}") from None
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        why = type(exc).__name__ if isinstance(exc, RecursionError) else str(exc)[:200]
        raise ConfigError(f"{path}: cannot read the event payload: {why}") from None
    if not isinstance(payload, dict):
        raise ConfigError(f"{path}: expected the event payload to be a JSON object")
    return payload


def append_problem(path: Path) -> str | None:
    """Why the runner's file at `path` cannot be appended to (None if it can): it is absent
    (then created) or a regular file, never a directory, a pipe or a device."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"cannot use {str(path)!r}: {exc.strerror}"
    if stat.S_ISREG(mode):
        return None
    kind = "a directory" if stat.S_ISDIR(mode) else "not a regular file"
    return f"expected a file to append to, {str(path)!r} is {kind}"
