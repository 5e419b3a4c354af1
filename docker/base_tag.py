"""Print the tag of the base image that docker/base.Dockerfile builds from this checkout.

The tag is `deps-` and 12 hex digits of a sha256 over what decides the base image's contents:
the base Dockerfile's bytes and pyproject.toml's dependency lists (not its version or tool
settings, which change without touching the dependencies). The action's Dockerfile names this
tag; tests/unit/test_github_action_files.py fails when the two disagree, so a dependency
change cannot ship on a stale base. Standard library only: CI runs it before any install.
"""

from __future__ import annotations

import hashlib
import json
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def base_tag(root: Path = ROOT) -> str:
    project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    dependencies = {
        "dependencies": project.get("dependencies", []),
        # the extras the base installs (see EXTRAS there); `dev` is not in the image
        "local": project.get("optional-dependencies", {}).get("local", []),
        "python": project.get("requires-python"),
    }
    digest = hashlib.sha256()
    digest.update((root / "docker" / "base.Dockerfile").read_bytes())
    digest.update(json.dumps(dependencies, sort_keys=True).encode("utf-8"))
    return f"deps-{digest.hexdigest()[:12]}"


if __name__ == "__main__":
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT
    print(base_tag(root))
