"""Makes the files this case cannot keep in git."""

import json
import os  # noqa: F401
from pathlib import Path


def build(case: Path) -> None:
    (case / "rows.jsonl").write_text(
        '{"id": "a", "contexts": ["The X200 weighs 1.2 kg."], "answer": "It weighs 1.2 kg."}\n'
        + json.dumps({"id": "b", "context": "c", "answer": "x" * 50_000_000})
        + "\n"
    )
