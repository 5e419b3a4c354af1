"""Cached answers of an http or command target, reused while the files it depends on are
unchanged.

An app's answers depend on code ground-gate cannot see, so they are cached only when the
target's `depends_on` globs name the files that define it: the key holds a digest of their
contents (paths and bytes), the target's definition (URL, body, answer paths; argv) and what
the row sends. Change one of those files and every row is asked again. Entries live in the
judge's content-addressed cache directory (judge/cache.py); a prompt target needs none of
this, its model's answers being cached like verdicts.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ground_gate.config.model import TargetConfig
from ground_gate.config.target import depends_on_files
from ground_gate.judge.cache import JudgeCache
from ground_gate.targets.answers import Answer

ANSWER_CACHE_VERSION = "target-answers-1"
_CHUNK = 1 << 20


def depends_on_digest(patterns: Sequence[str], base_dir: Path) -> str:
    """sha256 over the files the globs name: each file's path (relative to base_dir) and the
    sha256 of its bytes, in path order."""
    files = sorted({path for pattern in patterns for path in depends_on_files(pattern, base_dir)})
    digest = hashlib.sha256()
    for path in files:
        content = hashlib.sha256()
        with path.open("rb") as handle:
            while chunk := handle.read(_CHUNK):
                content.update(chunk)
        name = path.relative_to(base_dir) if path.is_relative_to(base_dir) else path
        digest.update(f"{name}\0{content.hexdigest()}\n".encode())
    return digest.hexdigest()


def definition_of(target: TargetConfig) -> dict[str, Any]:
    """What defines an http or command target's answers, besides the files it depends on."""
    if target.http is not None:
        http = target.http
        return {
            "url": http.url,
            "body": http.body,
            "headers": sorted(http.headers_env),  # the names, never the values
            "response": http.response,
            "contexts": http.contexts,
        }
    return {"command": list(target.command or ())}


class AnswerCache:
    """An http or command target's answers by what each row sends; a no-op when the target
    has no depends_on or the run has no cache."""

    def __init__(self, store: JudgeCache | None, target: TargetConfig) -> None:
        self._store = store if target.depends_on else None
        self._base = ""
        if self._store is not None:
            payload = {
                "version": ANSWER_CACHE_VERSION,
                "definition": definition_of(target),
                "depends_on": depends_on_digest(target.depends_on, target.base_dir),
            }
            self._base = _digest(payload)

    @property
    def enabled(self) -> bool:
        return self._store is not None

    def _key(self, request: Any) -> str:
        return _digest({"target": self._base, "request": request})

    def get(self, row_id: str, request: Any) -> Answer | None:
        if self._store is None:
            return None
        entry = self._store.get(self._key(request))
        if entry is None or not isinstance(entry.get("response"), str):
            return None
        contexts = entry.get("contexts")
        if contexts is not None and not (
            isinstance(contexts, list) and all(isinstance(c, str) for c in contexts)
        ):
            return None
        return Answer(
            row_id, entry["response"], None if contexts is None else tuple(contexts), cached=True
        )

    def put(self, request: Any, answer: Answer) -> None:
        if self._store is None or not answer.ok:
            return
        entry: Mapping[str, Any] = {
            "response": answer.response,
            "contexts": None if answer.contexts is None else list(answer.contexts),
        }
        try:
            self._store.put(self._key(request), entry)
        except OSError:
            self._store = None  # a read-only or full disk: go on uncached


def _digest(payload: Any) -> str:
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()
