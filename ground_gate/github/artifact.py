"""The workflow_run half of the fork-safe pattern: the files a pull request's run left, and
whether its report may be commented on. Never evaluates anything.

The report comes from the pull request's own run, which the pull request controls: the action
reads it through the strict report reader, renders it again (every string escaped, the
headline saying whose claim it is) and publishes it (action_endings.publish_artifact); the
result says only whether the comment could be published, never whether the gate passed.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ground_gate.github.event import PR_NUMBER_FILE, read_pr_number_file
from ground_gate.github.publish import Refusal, ReportPaths
from ground_gate.github.sticky_comment import DOCS, REPORT_DIR, GitHubAPI, Sleep, with_retries
from ground_gate.leaves.errors import ArtifactRefused, ConfigError, GitHubError

UNVERIFIED = "reported by the pull request's run, not re-verified"


def required_files(paths: ReportPaths) -> None:
    """ConfigError naming the file the workflow did not download (report.json, the PR's
    number): a workflow mistake, not the pull request's doing."""
    for path in (paths.json, paths.pr_number):
        if not path.is_file():
            raise ConfigError(
                f"{path}: missing; in a workflow_run workflow, download the pull-request run's "
                f"'{REPORT_DIR}' artifact into the working directory first (see {DOCS})"
            )


def shards_pr_number(reports: Sequence[Path]) -> int:
    """The pull request's number that the shard runs left beside their reports; every
    shard must have left one, all naming the same."""
    files = [path.parent / PR_NUMBER_FILE for path in reports]
    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        raise ConfigError(
            f"no {PR_NUMBER_FILE} beside {', '.join(missing[:3])}: upload each shard's whole "
            f"'{REPORT_DIR}' folder as its artifact (see {DOCS})"
        )
    numbers = sorted({read_pr_number_file(f) for f in files})
    if len(numbers) > 1:
        raise ArtifactRefused(
            f"the shard reports name different pull requests ({', '.join(map(str, numbers))})"
        )
    return numbers[0]


def check_pr_head(
    client: GitHubAPI | None,
    repository: str,
    number: int,
    expected: str | None,
    sleep: Sleep,
) -> Refusal | None:
    """The artifact's PR number comes from the PR's own (untrusted) run: check that this PR's
    head is `expected`, the commit the run was for (the workflow_run event's head_sha), so a
    crafted number cannot aim the comment elsewhere."""
    if client is None:
        return Refusal(
            "not commenting: no github-token; the report is in the job summary", "failed"
        )
    try:
        pull = with_retries(lambda: client.get_pull_request(repository, number), sleep)
    except GitHubError as exc:
        return Refusal(f"not commenting: cannot read pull request #{number} ({exc})", "failed")
    head = pull.get("head") if isinstance(pull, dict) else None
    sha = head.get("sha") if isinstance(head, dict) else None
    if expected is None or not isinstance(sha, str) or sha != expected:
        shown = sha[:40] if isinstance(sha, str) else None
        return Refusal(
            f"not commenting: pull request #{number} is at {shown}, not at the commit this report "
            f"was made for ({expected}); a newer run will report on it",
            "skipped",
        )
    return None
