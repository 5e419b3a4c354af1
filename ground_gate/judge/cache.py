"""The on-disk judge cache: one JSON file per completion, named by the hash of its request.

Content addressing makes invalidation automatic (any change to model, parameters, messages or
prompt version is a new key) and lets concurrent runs share a directory: each entry is written
to a temporary file and renamed into place, so a reader sees a whole entry or none.
A damaged entry is a miss, and the next put replaces it.

Entries are readable by everyone the umask allows (0644 by default), not mkstemp's 0600: the
action's container writes them as root, and `actions/cache` saves them afterwards as the
runner's own user, which must be able to read them.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ground_gate.judge.base import ChatMessage

_KEY = re.compile(r"[0-9a-f]{64}")


def _file_mode() -> int:
    """0o666 less the process's umask: the mode open() would give a new file."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def cache_key(
    *,
    model: str,
    temperature: float,
    max_tokens: int,
    logprobs: bool,
    schema: Mapping[str, Any] | None,
    messages: Sequence[ChatMessage],
    prompt_version: str,
) -> str:
    """sha256 of the canonical JSON of everything that shapes the completion."""
    payload = {
        "model": model,
        "temperature": temperature,
        "max_tokens": max_tokens,
        "logprobs": logprobs,
        "schema": schema,
        "messages": [{"role": m.role, "content": m.content} for m in messages],
        "prompt_version": prompt_version,
    }
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


_FILE_MODE = _file_mode()


class JudgeCache:
    def __init__(self, directory: Path) -> None:
        self._directory = Path(directory)

    @property
    def directory(self) -> Path:
        return self._directory

    def __repr__(self) -> str:
        return f"JudgeCache({str(self._directory)!r})"

    def path_for(self, key: str) -> Path:
        if not _KEY.fullmatch(key):
            raise ValueError(f"cache key must be 64 lowercase hex digits, got {key[:80]!r}")
        return self._directory / key[:2] / key[2:4] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored entry, or None when absent, unreadable or not a JSON object."""
        try:
            raw = self.path_for(key).read_bytes()
            value = json.loads(raw.decode("utf-8"))
        except (OSError, ValueError):
            return None
        return value if isinstance(value, dict) else None

    def put(self, key: str, value: Mapping[str, Any]) -> None:
        path = self.path_for(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        data = json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        fd, temp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{key[:8]}.", suffix=".tmp")
        try:
            os.fchmod(fd, _FILE_MODE)
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
            os.replace(temp_name, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp_name)
            raise
