"""Makes the files this case cannot keep in git."""

import json  # noqa: F401
import os
from pathlib import Path


def build(case: Path) -> None:
    outside = case.parent / "outside"
    outside.mkdir(exist_ok=True)
    (outside / "credentials").write_text(
        "aws_access_key_id=AKIAFAKE\naws_secret_access_key=FAKEsecret\n"
    )
    os.symlink(outside / "credentials", case / "rows.jsonl")
