"""Makes the files this case cannot keep in git: a sparse 1 GB file, refused unread."""

from pathlib import Path


def build(case: Path) -> None:
    with open(case / "rows.jsonl", "wb") as handle:
        handle.truncate(1_000_000_000)
