"""Where a run was made (provenance.py), so a report compared with it can name its baseline."""

import shutil
import subprocess
from pathlib import Path

import pytest

from ground_gate.leaves.provenance import Source, source_of

SHA = "0123456789abcdef0123456789abcdef01234567"
ACTIONS = {
    "GITHUB_SHA": SHA,
    "GITHUB_REF_NAME": "main",
    "GITHUB_SERVER_URL": "https://github.com",
    "GITHUB_REPOSITORY": "octo/repo",
    "GITHUB_RUN_ID": "812",
}


def test_source_of__a_github_run_names_its_commit_branch_and_run(tmp_path: Path):
    assert source_of(ACTIONS, tmp_path) == Source(
        SHA, "main", "https://github.com/octo/repo/actions/runs/812"
    )
    pull = source_of({**ACTIONS, "GITHUB_HEAD_REF": "fix-answers"}, tmp_path)
    assert pull.branch == "fix-answers"  # a pull request's run: its head branch


def test_source_of__nothing_known_outside_ci_and_git(tmp_path: Path):
    source = source_of({}, tmp_path)
    assert source == Source(None, None, None) and not source.is_known()


def test_source_of__text_that_is_no_sha_or_holds_control_characters_is_not_kept(
    tmp_path: Path,
):
    source = source_of({"GITHUB_SHA": "not a sha", "GITHUB_REF_NAME": "a\x1b[2Jb\nc"}, tmp_path)
    assert source.commit is None and source.branch == "a[2Jb"


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_source_of__a_git_checkout_outside_ci(tmp_path: Path):
    def git(*args: str) -> str:
        done = subprocess.run(["git", "-C", str(tmp_path), *args], capture_output=True, text=True)
        return done.stdout.strip()

    git("init", "-q", "-b", "answers")
    (tmp_path / "a.txt").write_text("a", encoding="utf-8")
    git("add", "a.txt")
    git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "a")
    source = source_of({}, tmp_path)
    assert source == Source(git("rev-parse", "HEAD"), "answers", None)
