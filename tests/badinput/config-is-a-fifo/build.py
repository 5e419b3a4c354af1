"""Makes the files this case cannot keep in git."""

import json  # noqa: F401
import os
from pathlib import Path


def build(case: Path) -> None:
    os.mkfifo(case / "config.yml")
