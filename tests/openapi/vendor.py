"""Re-create github-operations.json from @octokit/openapi's dereferenced description.

Usage (in a temporary directory, never in the repository):
    npm pack @octokit/openapi@<version> && tar xzf octokit-openapi-<version>.tgz
    python tests/openapi/vendor.py package/generated/api.github.com.deref.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

# (path, method) of every operation ground-gate calls.
OPERATIONS = (
    ("/user", "get"),
    ("/repos/{owner}/{repo}/issues/{issue_number}/comments", "get"),
    ("/repos/{owner}/{repo}/issues/{issue_number}/comments", "post"),
    ("/repos/{owner}/{repo}/issues/comments/{comment_id}", "patch"),
    ("/repos/{owner}/{repo}/pulls/{pull_number}", "get"),
    ("/repos/{owner}/{repo}/actions/runs/{run_id}/artifacts", "get"),
)


def subset(description: dict) -> dict:
    paths: dict[str, dict] = {}
    for path, method in OPERATIONS:
        paths.setdefault(path, {})[method] = description["paths"][path][method]
    return {"openapi": description["openapi"], "info": description["info"], "paths": paths}


def main(source: str) -> None:
    description = json.loads(Path(source).read_text(encoding="utf-8"))
    target = Path(__file__).with_name("github-operations.json")
    target.write_text(json.dumps(subset(description), indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
