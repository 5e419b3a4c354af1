"""Makes the files this case cannot keep in git."""

import json  # noqa: F401
import os  # noqa: F401
from pathlib import Path


def build(case: Path) -> None:
    (case / "config.yml").write_text(
        (case / "config.yml").read_text() + "x: " + "[" * 50000 + "]" * 50000 + "\n"
    )
