"""`--shard K/N`: which rows one of N runs scores.

A row belongs to the shard given by a stable hash of (dataset name, row key): the same in
every process, Python version and machine (not Python's salted `hash`), and independent of
the row's position, so adding or removing a row moves no other row to another shard.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass

_SPEC = re.compile(r"\s*(\d+)\s*/\s*(\d+)\s*")
MAX_SHARDS = 1000


@dataclass(frozen=True)
class Shard:
    """Shard `index` (1-based) of `count`."""

    index: int
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def holds(self, dataset: str, key: str) -> bool:
        return shard_of(dataset, key, self.count) == self.index


def parse_shard(text: str) -> Shard:
    """'2/4' -> Shard(2, 4); ValueError saying what is expected otherwise."""
    match = _SPEC.fullmatch(text)
    if match is None:
        raise ValueError(f"'{text}': expected K/N, e.g. 1/4 (shard K of N)")
    index, count = int(match.group(1)), int(match.group(2))
    if not 1 <= count <= MAX_SHARDS:
        raise ValueError(f"'{text}': N must be between 1 and {MAX_SHARDS}")
    if not 1 <= index <= count:
        raise ValueError(f"'{text}': K must be between 1 and N ({count})")
    return Shard(index, count)


def shard_of(dataset: str, key: str, count: int) -> int:
    """The 1-based shard of the row with `key` in `dataset`, among `count` shards."""
    canonical = json.dumps([dataset, key], ensure_ascii=False).encode("utf-8")
    return int.from_bytes(hashlib.sha256(canonical).digest()[:8], "big") % count + 1
