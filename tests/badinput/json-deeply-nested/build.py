"""Makes the files this case cannot keep in git."""

import json  # noqa: F401
import os  # noqa: F401
from pathlib import Path


def build(case: Path) -> None:
    (case / "rows.json").write_text("[" * 50000 + "]" * 50000 + "\n")
