"""Makes the files this case cannot keep in git."""

import json  # noqa: F401
import os  # noqa: F401
from pathlib import Path


def build(case: Path) -> None:
    (case / "config.yml").write_text(
        (case / "config.yml").read_text()
        + "a0: &a0 [1]\n"
        + "".join(f"a{i}: &a{i} [*a{i - 1}]\n" for i in range(1, 200))
    )
