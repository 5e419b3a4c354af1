"""Publishing a finished evaluation to GitHub: job summary, step outputs, annotations, then the
sticky comment (best effort).

The job summary, the outputs and the annotations are always written; whatever happens while
commenting (a fork's read-only token, a 404, GitHub down), the run ends with a warning and the
gate's verdict is never changed by it.
"""

from __future__ import annotations

import json
import re
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from ground_gate.action_settings import Settings
from ground_gate.github import verdicts
from ground_gate.github.event import PR_NUMBER_FILE, load_event, pr_number, write_pr_number_file
from ground_gate.github.step_outputs import add_mask, annotate, append_step_summary, write_outputs
from ground_gate.github.sticky_comment import REPORT_DIR, GitHubAPI, Sleep, post_comment


@dataclass(frozen=True)
class ReportPaths:
    """Where `ground-gate action` writes its reports: `<working-directory>/ground-gate-report/`.

    The pull-request run uploads this directory as an artifact; the workflow_run run downloads
    it to the same place and publishes it.
    """

    directory: Path
    json: Path
    markdown: Path
    pr_number: Path
    html: Path
    junit: Path


@dataclass(frozen=True)
class PublishResult:
    passed: bool  # exactly the verdict given to publish()
    summary: str
    comment: str  # created | updated | skipped | failed
    comment_url: str | None
    warnings: tuple[str, ...]


def report_paths(settings: Settings) -> ReportPaths:
    directory = settings.working_directory / REPORT_DIR
    return ReportPaths(
        directory=directory,
        json=directory / "report.json",
        markdown=directory / "report.md",
        pr_number=directory / PR_NUMBER_FILE,
        html=directory / "report.html",
        junit=directory / "report.junit.xml",
    )


def mask_secrets(settings: Settings, out: TextIO | None = None) -> None:
    """Register the secrets with the runner's log masking; call before anything is logged."""
    for secret in (settings.openai_api_key, settings.github_token):
        if secret:
            add_mask(secret, out or sys.stdout)


def publish(
    settings: Settings,
    *,
    markdown: str,
    report: Mapping[str, Any],
    passed: bool,
    client: GitHubAPI | None,
    paths: ReportPaths,
    out: TextIO | None = None,
    sleep: Sleep = time.sleep,
) -> PublishResult:
    """Job summary, step outputs, annotations, then the sticky comment (best effort)."""
    return publish_report(
        settings,
        markdown=markdown,
        report=report,
        passed=passed,
        client=client,
        pr_number=None,
        paths=paths,
        out=out or sys.stdout,
        sleep=sleep,
        blocked=None,
    )


def publish_report(
    settings: Settings,
    *,
    markdown: str,
    report: Mapping[str, Any],
    passed: bool,
    client: GitHubAPI | None,
    pr_number: int | None,
    paths: ReportPaths,
    out: TextIO,
    sleep: Sleep,
    blocked: str | None,
    summary_as: str | None = None,
) -> PublishResult:
    """`summary_as` replaces the one-line summary made from the report (workflow_run mode)."""
    mask_secrets(settings, out)
    summary = summary_as or verdicts.summary_line(report, passed)
    warnings: list[str] = []

    def warn(message: str) -> None:
        warnings.append(message)
        annotate("warning", message, out, title="ground-gate")

    shown_md = _shown(paths.markdown, settings.workspace)
    if append_step_summary(
        settings.step_summary_path,
        markdown,
        note=f"> [!NOTE]\n> This report was trimmed to fit the job summary's 1 MiB limit. "
        f"The full report is `{shown_md}`: upload it as an artifact to keep it.",
    ):
        warn("the job summary was trimmed to GitHub's 1 MiB limit")
    _write_outputs(settings, report, passed=passed, summary=summary, paths=paths)
    _annotate_failures(report, out)

    number = pr_number
    if number is None and not settings.publish_only:
        number = _event_pr_number(settings)
        if number is not None and paths.directory.is_dir():
            write_pr_number_file(paths.pr_number, number)
    if blocked:
        warn(blocked)
        outcome, url = "skipped", None
    else:
        comment = markdown + page_note(settings, paths)
        outcome, url = post_comment(settings, client, comment, number, warn, out, sleep)
    print(summary, file=out)
    return PublishResult(passed, summary, outcome, url, tuple(warnings))


def page_note(settings: Settings, paths: ReportPaths) -> str:
    """Where the run's HTML page can be downloaded: the workflow run that wrote it uploads
    the report folder as an artifact (the example workflows do). Nothing when this run wrote
    no page, or publishes another run's report (workflow_run mode)."""
    if settings.publish_only or not settings.run_url or not paths.html.is_file():
        return ""
    return (
        "\nEvery row, its marked sentences and its source with the evidence highlighted: "
        f"`{paths.html.name}` in the `{REPORT_DIR}` artifact of "
        f"[this workflow run]({settings.run_url}).\n"
    )


def report_error(settings: Settings, message: str, out: TextIO | None = None) -> None:
    """A run that could not finish (bad config, judge unreachable): say so where people look.

    An annotation, a job summary paragraph and the `passed`/`summary` outputs; the caller
    still exits 2. No comment: a PR comment is for verdicts, not for workflow mistakes.
    """
    out = out or sys.stdout
    annotate("error", message, out, title="ground-gate")
    append_step_summary(
        settings.step_summary_path,
        f"## ground-gate could not run\n\n{fenced(message)}",
        note="> [!NOTE]\n> The message was trimmed.",
    )
    write_outputs(
        settings.output_path,
        {"passed": "false", "summary": f"ground-gate: error: {message.splitlines()[0]}"},
    )


def fenced(message: str) -> str:
    """A message shown as is in markdown: it may quote a dataset or a report, so the fence is
    longer than any run of backticks in it."""
    fence = "`" * max(3, 1 + max((len(run) for run in re.findall("`+", message)), default=0))
    return f"{fence}text\n{message}\n{fence}\n"


def _write_outputs(
    settings: Settings, report: Mapping[str, Any], *, passed: bool, summary: str, paths: ReportPaths
) -> None:
    write_outputs(
        settings.output_path,
        {
            "passed": "true" if passed else "false",
            "report-json": _shown(paths.json, settings.workspace),
            "report-markdown": _shown(paths.markdown, settings.workspace),
            # in a workflow_run run these files are the pull request's own: never offered
            "report-html": _made_here(paths.html, settings),
            "report-junit": _made_here(paths.junit, settings),
            "scores": json.dumps(verdicts.scores_by_dataset(report), separators=(",", ":")),
            "summary": summary,
            "prompt-version": str((report.get("judge") or {}).get("prompt_version", "")),
        },
    )


def _made_here(path: Path, settings: Settings) -> str:
    """The path of a report this run wrote, for an output; "" when there is none or the file
    came with the pull request's artifact (a workflow_run run writes neither)."""
    if settings.publish_only or not path.is_file():
        return ""
    return _shown(path, settings.workspace)


def _event_pr_number(settings: Settings) -> int | None:
    return pr_number(settings.event_name, load_event(settings.event_path))


def _annotate_failures(report: Mapping[str, Any], out: TextIO) -> None:
    incomplete = verdicts.incomplete_reason(report)
    if incomplete:
        annotate(
            "error", f"the evaluation did not complete: {incomplete}", out, title="ground-gate"
        )
    if "shard" in report:  # its rows alone gate nothing: the merge job annotates, once
        return
    for check in verdicts.failures(report):
        annotate(
            "error",
            f"{check.dataset}: {check.score} {check.reason}",
            out,
            title=f"ground-gate: {check.dataset} {check.score}",
        )


def _shown(path: Path, workspace: Path) -> str:
    """Paths relative to the workspace: the container's /github/workspace is another path on
    the runner, so later steps can only use relative ones."""
    try:
        return path.relative_to(workspace).as_posix()
    except ValueError:
        return path.as_posix()
