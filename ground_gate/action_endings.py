"""How the action ends: one function for each way, each saying what it leaves where people look
(an `Ending`: the job summary, the step outputs, the annotations, the comment or none) and
handing it to the one writer, github/publish.py's `write_ending`.

- `publish`: the report this run made (evaluated, a shard's rows, or shard reports merged)
- `publish_artifact`: in a workflow_run run, a pull request run's report, as that run's claim
- `refuse_artifact`: that report refused; nothing is posted
- `report_error`: the run could not finish and left no report; no comment

With action.py and action_post.py, this is where the action's `Settings` are read: github/ is
handed plain values (the repository, the token's client, the pull request, paths, flags).
A new way of ending is one more function here.
"""

from __future__ import annotations

import sys
import time
from dataclasses import replace
from typing import TextIO

from ground_gate.action_settings import Settings
from ground_gate.github import verdicts
from ground_gate.github.artifact import UNVERIFIED, check_pr_head
from ground_gate.github.event import pr_number as event_pr_number
from ground_gate.github.event import workflow_run_head_sha
from ground_gate.github.publish import (
    Annotation,
    Ending,
    PublishResult,
    Refusal,
    ReportPaths,
    fenced,
    report_ending,
    write_ending,
)
from ground_gate.github.sticky_comment import Comment, GitHubAPI, Sleep
from ground_gate.report.types import Report
from ground_gate.review import words


def publish(
    settings: Settings,
    *,
    markdown: str,
    report: Report,
    passed: bool,
    client: GitHubAPI | None,
    paths: ReportPaths,
    out: TextIO | None = None,
    sleep: Sleep = time.sleep,
) -> PublishResult:
    """The report this run made: job summary, step outputs, annotations, then the sticky
    comment (best effort). `passed` is handed back as given: publishing never changes it."""
    number = None if settings.publish_only else event_pr_number(settings.event_name, settings.event)
    ending = report_ending(
        report,
        markdown,
        passed=passed,
        summary=verdicts.summary_line(report, passed),
        paths=paths,
        workspace=settings.workspace,
        own_pages=not settings.publish_only,
    )
    ending = replace(
        ending,
        masks=secrets(settings),
        number_file=paths.pr_number,  # for the workflow_run half
        comment=comment(settings, client, number),
    )
    return _write(settings, ending, out, sleep)


def publish_artifact(
    settings: Settings,
    *,
    report: Report,
    markdown: str,
    pr_number: int,
    client: GitHubAPI | None,
    paths: ReportPaths,
    out: TextIO | None = None,
    sleep: Sleep = time.sleep,
) -> PublishResult:
    """workflow_run mode: publish the pull request run's report, re-rendered; never evaluate.

    The comment is posted only while the pull request's head is the commit the run was for.
    The result's `comment` is `failed` when the report could not be posted; `passed` is
    always False: nothing here verifies the pull request's scores.
    """
    claimed = report.get("status") == "passed" and report.get("passed") is True
    refusal = None
    if settings.comment != "never":
        head = workflow_run_head_sha(settings.event)
        refusal = check_pr_head(client, settings.repository, pr_number, head, sleep)
    ending = report_ending(
        report,
        markdown,
        passed=False,
        summary=f"ground-gate: {UNVERIFIED}: " + ("passed" if claimed else "not passed"),
        paths=paths,
        workspace=settings.workspace,
        own_pages=not settings.publish_only,
    )
    ending = replace(
        ending,
        masks=secrets(settings),
        comment=refusal or comment(settings, client, pr_number),
    )
    return _write(settings, ending, out, sleep)


def refuse_artifact(settings: Settings, why: str, out: TextIO | None = None) -> PublishResult:
    """The pull request run's report was refused (not a report ground-gate writes): say so
    where people look; nothing is posted."""
    why = words.NOTHING_POSTED.format(why=why)
    summary = words.REFUSED_SUMMARY
    ending = Ending(
        markdown=f"## {words.REFUSED_HEADLINE}\n\n{words.REFUSED}\n\n{fenced(why)}",
        trim_note=f"> [!NOTE]\n> {words.TRIMMED}",
        outputs={"passed": "false", "summary": summary},
        comment=Refusal(words.REFUSED_COMMENT.format(why=why), "failed"),
        said=summary,
    )
    return _write(settings, ending, out, time.sleep)


def report_error(settings: Settings, message: str, out: TextIO | None = None) -> PublishResult:
    """A run that could not finish (bad config, judge unreachable): say so where people look.

    An annotation, a job summary paragraph and the `passed`/`summary` outputs; the caller
    still exits 2. No comment: a PR comment is for verdicts, not for workflow mistakes.
    """
    message = message.strip() or words.NO_MESSAGE
    summary = words.ERROR_SUMMARY.format(message=message.splitlines()[0])
    ending = Ending(
        markdown=f"## {words.COULD_NOT_RUN}\n\n{fenced(message)}",
        trim_note=f"> [!NOTE]\n> {words.MESSAGE_TRIMMED}",
        outputs={"passed": "false", "summary": summary},
        annotations=(Annotation("error", message),),
    )
    return _write(settings, ending, out, time.sleep)


def _write(settings: Settings, ending: Ending, out: TextIO | None, sleep: Sleep) -> PublishResult:
    return write_ending(
        ending,
        summary_path=settings.step_summary_path,
        output_path=settings.output_path,
        out=out or sys.stdout,
        sleep=sleep,
    )


# --- the plain values github/ is handed, read from the settings in one place -----------------


def report_paths(settings: Settings) -> ReportPaths:
    return ReportPaths.under(settings.working_directory)


def secrets(settings: Settings) -> tuple[str, ...]:
    """What the runner and every writer mask."""
    return tuple(s for s in (settings.openai_api_key, settings.github_token) if s)


def comment(settings: Settings, client: GitHubAPI | None, number: int | None) -> Comment:
    """The run's sticky comment on pull request `number` (None: the run is for none)."""
    return Comment(
        client=client,
        repository=settings.repository,
        number=number,
        comment_id=settings.comment_id,
        mode=settings.comment,
        event_name=settings.event_name,
        run_url=settings.run_url,
    )
