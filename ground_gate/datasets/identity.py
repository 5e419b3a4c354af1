"""What identifies a row and a dataset, whatever their position in the file.

A row's key is its id when it has one, else a digest of the content the judge reads (sources,
question, response): inserting or removing a row changes no other row's key, where `row-N`
(the id shown for a row without one) would renumber every row after it. Identical rows are
told apart by their order among themselves only (`#2`, `#3`...), so a row elsewhere in the
file still moves nothing.

A dataset's digest is the SHA-256 of its file's bytes: two runs (or two shards) that read
different data say so in their reports.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

ID_KEY, CONTENT_KEY = "id:", "content:"
_CHUNK = 1 << 20


def id_key(row_id: str) -> str:
    return ID_KEY + row_id


def content_key(sources: tuple[str, ...], question: str | None, response: str) -> str:
    """The key of a row without an id: a digest of what the judge reads of it."""
    canonical = json.dumps([list(sources), question, response], ensure_ascii=False)
    return CONTENT_KEY + hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:32]


def nth_copy(key: str, copies_before: int) -> str:
    """The key of a content key's copy after `copies_before` identical rows: the first keeps
    the plain key, later ones `#2`, `#3`... (their order among themselves, nothing else)."""
    return key if copies_before == 0 else f"{key}#{copies_before + 1}"


def bytes_digest(data: bytes) -> str:
    """'sha256:' and the hex SHA-256 of `data` (a file already read, bounded)."""
    return f"sha256:{hashlib.sha256(data).hexdigest()}"


def file_digest(path: Path) -> str:
    """'sha256:' and the hex SHA-256 of the file's bytes, read in chunks."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return f"sha256:{digest.hexdigest()}"
