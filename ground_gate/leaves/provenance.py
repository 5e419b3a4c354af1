"""Where a run was made: its commit, its branch and its CI run, so that a report compared with
it can name the baseline it was ("main @ 1a2b3c4, run 812, 2 days earlier").

In a GitHub Actions job the runner's variables say it (GITHUB_SHA, GITHUB_HEAD_REF for a pull
request's branch, else GITHUB_REF_NAME, and the run's address); elsewhere the git checkout the
config is in, when there is one and git answers within a second or two. Nothing is required:
a report without it is named by its date alone.
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

GIT_TIMEOUT_S = 2.0
MAX_CHARS = 200  # of a branch name or an address: a report names them, it does not hold files


@dataclass(frozen=True)
class Source:
    commit: str | None  # the full hexadecimal SHA
    branch: str | None
    run_url: str | None  # the CI run that made the report

    def is_known(self) -> bool:
        return any((self.commit, self.branch, self.run_url))


def source_of(env: Mapping[str, str], where: Path) -> Source:
    """The run's source: the CI's variables, else the git checkout holding `where`."""
    commit = _clean(env.get("GITHUB_SHA"))
    branch = _clean(env.get("GITHUB_HEAD_REF")) or _clean(env.get("GITHUB_REF_NAME"))
    server, repo, run = (
        env.get(k) for k in ("GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_RUN_ID")
    )
    run_url = _clean(f"{server}/{repo}/actions/runs/{run}") if server and repo and run else None
    if commit is None:
        commit = _git(where, "rev-parse", "HEAD")
        branch = branch or _git(where, "rev-parse", "--abbrev-ref", "HEAD")
    if branch == "HEAD":  # a detached checkout names no branch
        branch = None
    return Source(commit if commit and _is_sha(commit) else None, branch, run_url)


def _git(where: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(where), *args],
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT_S,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    return _clean(done.stdout) if done.returncode == 0 else None


def _clean(value: str | None) -> str | None:
    """One line of printable text, cut to MAX_CHARS; None when empty."""
    text = (value or "").strip()
    if not text:
        return None
    line = "".join(c for c in text.splitlines()[0] if c.isprintable())
    return line[:MAX_CHARS] or None


def _is_sha(value: str) -> bool:
    return 7 <= len(value) <= 64 and all(c in "0123456789abcdef" for c in value.lower())
