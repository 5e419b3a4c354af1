"""JSON objects whose keys are unique, wherever JSON enters (a dataset file, a report read
back, a target's reply): `{"answer": "a", "answer": "b"}` is refused, not silently the last."""

from __future__ import annotations

import json
from typing import Any


class DuplicateKeyError(ValueError):
    """An object gave `key` twice; its message names it, JSON-quoted and cut to 80 characters."""

    def __init__(self, key: str) -> None:
        super().__init__(f"the key {json.dumps(key)[:80]} is given twice")
        self.key = key


def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """json.loads's object_pairs_hook: the object, or DuplicateKeyError."""
    found = dict(pairs)
    if len(found) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise DuplicateKeyError(key)
            seen.add(key)
    return found
