"""The on-disk judge cache: one JSON file per completion, named by the hash of its request.

Content addressing makes invalidation automatic (any change to model, parameters, messages or
prompt version is a new key) and lets concurrent runs share a directory: each entry is written
to a temporary file and renamed into place, so a reader sees a whole entry or none.
A damaged entry is a miss, and the next put replaces it: one that is not JSON, or whose numbers
break their ranges (a NaN log-probability, a negative token count: ground_gate/leaves/ranges.py), or
whose text no UTF-8 file can hold, is asked again rather than replayed.

Entries are readable by everyone the umask allows (0644 by default), not mkstemp's 0600: the
action's container writes them as root, and `actions/cache` saves them afterwards as the
runner's own user, which must be able to read them.

`CompletionCache` is the judge's side of it: a Completion in, a Completion out, and an entry
that no longer fits the request (a schema-invalid value, a damaged file) is a miss.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import re
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ground_gate.judge.base import ChatMessage, Completion, JudgeRequest
from ground_gate.judge.response import MalformedResponse, top_logprobs
from ground_gate.judge.structured import validation_error
from ground_gate.leaves.masking import mask
from ground_gate.leaves.usage import Usage
from ground_gate.leaves.writable import writable_value

log = logging.getLogger(__name__)

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


def request_key(
    request: JudgeRequest, *, model: str, temperature: float, prompt_version: str
) -> str:
    """The cache key of one request to a judge of `model` at `temperature`: the judge's own,
    and the plan's to look a request up without making it."""
    return cache_key(
        model=model,
        temperature=temperature,
        max_tokens=request.max_tokens,
        logprobs=request.logprobs,
        schema=request.json_schema,
        messages=request.messages,
        prompt_version=prompt_version,
    )


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
            value = json.loads(raw.decode("utf-8"), parse_constant=_refuse_constant)
        except (OSError, ValueError, RecursionError):
            return None
        return value if isinstance(value, dict) else None

    def put(self, key: str, value: Mapping[str, Any]) -> None:
        path = self.path_for(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        # masked: actions/cache saves the folder, and a fork's run can restore the base's
        text = mask(json.dumps(value, ensure_ascii=False, separators=(",", ":")))
        data = text.encode("utf-8")
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


class CompletionCache:
    """Completions kept in a JudgeCache (or nowhere, when it is None).

    A write that fails (a read-only or full disk) is logged once; the run goes on uncached.
    """

    def __init__(self, cache: JudgeCache | None) -> None:
        self._cache = cache
        self._write_failed = False

    @property
    def enabled(self) -> bool:
        """Whether completions are kept (a run answers a repeated request from the cache)."""
        return self._cache is not None

    def get(self, key: str, schema: Mapping[str, Any] | None) -> Completion | None:
        """The stored completion, or None when absent or unusable for a request with `schema`."""
        entry = self._cache.get(key) if self._cache is not None else None
        if entry is None or writable_value(entry)[1]:
            return None
        text = entry.get("text")
        data = entry.get("data")
        top = _top_logprobs(entry.get("top_logprobs", []))
        if not isinstance(text, str) or top is None:
            return None
        if schema is not None and validation_error(data, schema):
            return None
        return Completion(
            text=text,
            top_logprobs=top,
            data=data if schema is not None else None,
            usage=Usage(cache_hits=1),
            cost=Usage.from_dict(entry.get("usage")),
            cached=True,
        )

    def put(self, key: str, completion: Completion) -> None:
        if self._cache is None:
            return
        entry = {
            "text": completion.text,
            "top_logprobs": [dict(item) for item in completion.top_logprobs],
            "data": completion.data,
            "usage": completion.usage.as_dict(),
        }
        try:
            self._cache.put(key, entry)
        except OSError as exc:
            if not self._write_failed:
                self._write_failed = True
                log.warning(
                    "could not write the judge cache in %s (%s); continuing without it",
                    self._cache.directory,
                    exc.strerror or type(exc).__name__,
                )


def _top_logprobs(stored: Any) -> tuple[dict[str, float], ...] | None:
    """A stored `top_logprobs` (a list of {token: log-probability} objects) read as a reply's
    are, every number checked; None when it is not one."""
    if not isinstance(stored, list) or not all(isinstance(item, dict) for item in stored):
        return None
    as_reply = {
        "logprobs": {
            "content": [
                {"top_logprobs": [{"token": t, "logprob": lp} for t, lp in item.items()]}
                for item in stored
            ]
        }
    }
    try:
        return tuple(dict(item) for item in top_logprobs(as_reply))
    except MalformedResponse:
        return None


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")
