"""The workflow_run half of the fork-safe pattern: read the report artifact a pull request's
run left, check it may be published there, and publish it. Never evaluates anything."""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass
from typing import Any, TextIO

from ground_gate.action_settings import Settings
from ground_gate.errors import ConfigError, GitHubError
from ground_gate.github.event import load_event, read_pr_number_file, workflow_run_head_sha
from ground_gate.github.publish import PublishResult, ReportPaths, publish_report, report_paths
from ground_gate.github.sticky_comment import DOCS, REPORT_DIR, GitHubAPI, Sleep, with_retries


@dataclass(frozen=True)
class Artifact:
    markdown: str
    report: dict[str, Any]
    pr_number: int


def read_artifact(paths: ReportPaths) -> Artifact:
    """The reports and PR number a pull-request run left for the workflow_run run."""
    for path in (paths.json, paths.markdown, paths.pr_number):
        if not path.is_file():
            raise ConfigError(
                f"{path}: missing; in a workflow_run workflow, download the pull-request run's "
                f"'{REPORT_DIR}' artifact into the working directory first (see {DOCS})"
            )
    try:
        report = json.loads(paths.json.read_text(encoding="utf-8"))
        markdown = paths.markdown.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ConfigError(f"{paths.directory}: cannot read the report artifact: {exc}") from exc
    if not isinstance(report, dict):
        raise ConfigError(f"{paths.json}: expected a JSON object (a ground-gate report)")
    return Artifact(
        markdown=markdown, report=report, pr_number=read_pr_number_file(paths.pr_number)
    )


def publish_artifact(
    settings: Settings,
    *,
    client: GitHubAPI | None,
    out: TextIO | None = None,
    sleep: Sleep = time.sleep,
) -> PublishResult:
    """workflow_run mode: publish the downloaded artifact; never evaluate anything."""
    out = out or sys.stdout
    paths = report_paths(settings)
    artifact = read_artifact(paths)
    return publish_report(
        settings,
        markdown=artifact.markdown,
        report=artifact.report,
        passed=artifact.report.get("passed") is True,
        client=client,
        pr_number=artifact.pr_number,
        paths=paths,
        out=out,
        sleep=sleep,
        blocked=check_pr_head(settings, client, artifact.pr_number, sleep),
    )


def check_pr_head(
    settings: Settings, client: GitHubAPI | None, number: int, sleep: Sleep
) -> str | None:
    """The artifact's PR number comes from the PR's own (untrusted) run: check that this PR's
    head is the commit the run was for, so a crafted number cannot aim the comment elsewhere."""
    if client is None or settings.comment == "never":
        return None
    expected = workflow_run_head_sha(load_event(settings.event_path))
    try:
        pull = with_retries(lambda: client.get_pull_request(settings.repository, number), sleep)
    except GitHubError as exc:
        return f"not commenting: cannot read pull request #{number} ({exc})"
    head = ((pull.get("head") or {}).get("sha")) if isinstance(pull, dict) else None
    if expected is None or head != expected:
        return (
            f"not commenting: pull request #{number} is at {head}, not at the commit this report "
            f"was made for ({expected}); a newer run will report on it"
        )
    return None
