"""The workflow_run half of the fork-safe pattern: publish a pull request's run's report, which
the action read, checked and rendered again, as that run's claim. Never evaluates anything.

The report comes from the pull request's own run, which the pull request controls: the action
hands this module the report it read through the strict report reader, the markdown it
rendered from it (every string escaped, the headline saying whose claim it is) and the pull
request's number; the result says only whether the comment could be published, never whether
the gate passed.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from ground_gate.action_settings import Settings
from ground_gate.errors import ArtifactRefused, ConfigError, GitHubError
from ground_gate.github.event import (
    PR_NUMBER_FILE,
    load_event,
    read_pr_number_file,
    workflow_run_head_sha,
)
from ground_gate.github.publish import PublishResult, ReportPaths, fenced, publish_report
from ground_gate.github.step_outputs import annotate, append_step_summary, write_outputs
from ground_gate.github.sticky_comment import DOCS, REPORT_DIR, GitHubAPI, Sleep, with_retries

UNVERIFIED = "reported by the pull request's run, not re-verified"


@dataclass(frozen=True)
class Refusal:
    message: str
    outcome: str  # skipped (nothing to do) | failed (could not publish)


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


def publish_artifact(
    settings: Settings,
    *,
    report: Mapping[str, Any],
    markdown: str,
    pr_number: int,
    client: GitHubAPI | None,
    paths: ReportPaths,
    out: TextIO | None = None,
    sleep: Sleep = time.sleep,
) -> PublishResult:
    """workflow_run mode: publish the pull request run's report, re-rendered; never evaluate.

    The result's `comment` is `failed` when the report could not be posted; `passed` is
    always False: nothing here verifies the pull request's scores.
    """
    out = out or sys.stdout
    claimed = report.get("status") == "passed" and report.get("passed") is True
    refusal = check_pr_head(settings, client, pr_number, sleep)
    result = publish_report(
        settings,
        markdown=markdown,
        report=report,
        passed=False,
        client=client,
        pr_number=pr_number,
        paths=paths,
        out=out,
        sleep=sleep,
        blocked=refusal.message if refusal else None,
        summary_as=f"ground-gate: {UNVERIFIED}: " + ("passed" if claimed else "not passed"),
    )
    if refusal and refusal.outcome == "failed":
        return PublishResult(False, result.summary, "failed", None, result.warnings)
    return result


def refuse_artifact(settings: Settings, why: str, out: TextIO | None = None) -> PublishResult:
    """The pull request run's report was refused (not a report ground-gate writes): say so
    where people look; nothing is posted."""
    out = out or sys.stdout
    why = f"{why}; nothing was posted"
    message = f"not publishing the pull request run's report: {why}"
    annotate("warning", message, out, title="ground-gate")
    append_step_summary(
        settings.step_summary_path,
        "## ground-gate: nothing published\n\nThe pull request run's report was refused, so "
        f"no comment was posted:\n\n{fenced(why)}",
        note="> [!NOTE]\n> Trimmed.",
    )
    summary = "ground-gate: the pull request run's report was refused; nothing was posted"
    write_outputs(settings.output_path, {"passed": "false", "summary": summary})
    print(summary, file=out)
    return PublishResult(False, summary, "failed", None, (message,))


def check_pr_head(
    settings: Settings, client: GitHubAPI | None, number: int, sleep: Sleep
) -> Refusal | None:
    """The artifact's PR number comes from the PR's own (untrusted) run: check that this PR's
    head is the commit the run was for, so a crafted number cannot aim the comment elsewhere."""
    if settings.comment == "never":
        return None
    if client is None:
        return Refusal(
            "not commenting: no github-token; the report is in the job summary", "failed"
        )
    expected = workflow_run_head_sha(load_event(settings.event_path))
    try:
        pull = with_retries(lambda: client.get_pull_request(settings.repository, number), sleep)
    except GitHubError as exc:
        return Refusal(f"not commenting: cannot read pull request #{number} ({exc})", "failed")
    head = ((pull.get("head") or {}).get("sha")) if isinstance(pull, dict) else None
    if expected is None or head != expected:
        return Refusal(
            f"not commenting: pull request #{number} is at {head}, not at the commit this report "
            f"was made for ({expected}); a newer run will report on it",
            "skipped",
        )
    return None
