"""How the action ends, written by one function: the job summary, the step outputs, the
annotations, the pull request's number, then the sticky comment (best effort), the summary
line said last.

Each way the action ends (ground_gate/action_endings.py) says what it leaves where people look
as an `Ending`, plain data, and `write_ending` writes it: nothing else writes the job summary
or the step outputs. The job summary, the outputs and the annotations are always written;
whatever happens while commenting (a fork's read-only token, a 404, GitHub down), the run ends
with a warning and the gate's verdict is never changed by it.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from ground_gate.github import verdicts
from ground_gate.github.event import PR_NUMBER_FILE, write_pr_number_file
from ground_gate.github.step_outputs import (
    add_mask,
    annotate,
    append_step_summary,
    say,
    write_outputs,
)
from ground_gate.github.sticky_comment import REPORT_DIR, Comment, Sleep, post_comment
from ground_gate.leaves.errors import GitHubError
from ground_gate.leaves.masking import register
from ground_gate.report.types import Report
from ground_gate.review import words

TITLE = "ground-gate"


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

    @classmethod
    def under(cls, working_directory: Path) -> ReportPaths:
        directory = working_directory / REPORT_DIR
        return cls(
            directory=directory,
            json=directory / "report.json",
            markdown=directory / "report.md",
            pr_number=directory / PR_NUMBER_FILE,
            html=directory / "report.html",
            junit=directory / "report.junit.xml",
        )


@dataclass(frozen=True)
class Annotation:
    level: str  # error | warning
    message: str
    title: str = TITLE


@dataclass(frozen=True)
class Refusal:
    """The comment not posted: the warning that says why, and how the result reads."""

    message: str
    outcome: str  # skipped (nothing to do) | failed (could not publish)


@dataclass(frozen=True)
class Ending:
    """What one way of ending leaves where people look, in the order write_ending writes it."""

    markdown: str  # the job summary's
    trim_note: str  # closes the job summary when the markdown had to be trimmed to fit
    outputs: Mapping[str, str]  # the step outputs, in order; `summary` is the one line
    passed: bool = False  # the verdict handed back: publishing never changes it
    masks: tuple[str, ...] = field(default=(), repr=False)  # secrets, masked first
    warn_trimmed: bool = False  # a trimmed job summary is also a warning
    annotations: tuple[Annotation, ...] = ()
    number_file: Path | None = None  # the comment's pull request, remembered here
    comment: Comment | Refusal | None = None  # the sticky comment, why not, or none at all
    said: str | None = None  # the log's last line


@dataclass(frozen=True)
class PublishResult:
    passed: bool  # exactly the ending's verdict
    summary: str
    comment: str  # created | updated | skipped | failed
    comment_url: str | None
    warnings: tuple[str, ...]


def write_ending(
    ending: Ending,
    *,
    summary_path: Path | None,
    output_path: Path | None,
    out: TextIO,
    sleep: Sleep,
) -> PublishResult:
    """The one writer of every way the action ends: masks, the job summary and the step
    outputs, the annotations, the pull request's number, the comment, the last line."""
    mask_secrets(ending.masks, out)
    warnings: list[str] = []

    def warn(message: str) -> None:
        warnings.append(message)
        annotate("warning", message, out, title=TITLE)

    try:
        trimmed = append_step_summary(summary_path, ending.markdown, note=ending.trim_note)
        if trimmed and ending.warn_trimmed:
            warn(words.SUMMARY_TRIMMED)
        write_outputs(output_path, ending.outputs)
    except GitHubError as exc:  # the verdict stands; the step's log says what is missing
        warn(str(exc))
    for annotation in ending.annotations:
        annotate(annotation.level, annotation.message, out, title=annotation.title)
    outcome, url = _comment(ending, warn, out, sleep)
    if ending.said is not None:
        say(ending.said, out)
    summary = ending.outputs.get("summary", "")
    return PublishResult(ending.passed, summary, outcome, url, tuple(warnings))


def _comment(
    ending: Ending, warn: Callable[[str], None], out: TextIO, sleep: Sleep
) -> tuple[str, str | None]:
    comment = ending.comment
    if comment is None:
        return "skipped", None
    if isinstance(comment, Refusal):
        warn(comment.message)
        return comment.outcome, None
    if ending.number_file is not None and comment.number is not None:
        _remember_number(ending.number_file, comment.number, warn)
    # the page is linked by the post step, once it is uploaded (github/page_link.py)
    return post_comment(comment, ending.markdown, warn, out, sleep)


def _remember_number(path: Path, number: int, warn: Callable[[str], None]) -> None:
    """The pull request of this run's event, written beside the reports for the workflow_run
    half (a workflow_run run publishes another run's: it has none of its own)."""
    if not path.parent.is_dir():
        return
    try:
        write_pr_number_file(path, number)
    except OSError as exc:
        warn(f"cannot write {path}: {exc.strerror or exc}")


def mask_secrets(secrets: Iterable[str | None], out: TextIO | None = None) -> None:
    """Register the secrets with the runner's log masking, and with ours (every file and line
    written: ground_gate/leaves/masking.py); call before anything is logged."""
    for secret in secrets:
        if secret:
            add_mask(secret, out or sys.stdout)
            register(secret)


def report_ending(
    report: Report,
    markdown: str,
    *,
    passed: bool,
    summary: str,
    paths: ReportPaths,
    workspace: Path,
    own_pages: bool,
) -> Ending:
    """A report published: its markdown in the job summary, the eight step outputs, an error
    annotation for an incomplete run and each missed threshold, the summary said last. The
    comment is the caller's to add; `own_pages`: the HTML and JUnit files are this run's."""
    shown_md = shown(paths.markdown, workspace)
    outputs = {
        "passed": "true" if passed else "false",
        "report-json": shown(paths.json, workspace),
        "report-markdown": shown_md,
        # in a workflow_run run these files are the pull request's own: never offered
        "report-html": _made_here(paths.html, workspace, own_pages),
        "report-junit": _made_here(paths.junit, workspace, own_pages),
        "scores": json.dumps(verdicts.scores_by_dataset(report), separators=(",", ":")),
        "summary": summary,
        "prompt-version": str(report["judge"].get("prompt_version", "")),
    }
    return Ending(
        markdown=markdown,
        trim_note="> [!NOTE]\n> " + words.REPORT_TRIMMED.format(path=f"`{shown_md}`"),
        outputs=outputs,
        passed=passed,
        warn_trimmed=True,
        annotations=_failures(report),
        said=summary,
    )


def _made_here(path: Path, workspace: Path, own_pages: bool) -> str:
    """The path of a report this run wrote, for an output; "" when there is none or the file
    came with the pull request's artifact (a workflow_run run writes neither)."""
    if not own_pages or not path.is_file():
        return ""
    return shown(path, workspace)


def _failures(report: Report) -> tuple[Annotation, ...]:
    found: list[Annotation] = []
    incomplete = verdicts.incomplete_reason(report)
    if incomplete:
        found.append(Annotation("error", words.NOT_COMPLETE.format(reason=incomplete)))
    if "shard" in report:  # its rows alone gate nothing: the merge job annotates, once
        return tuple(found)
    for check in verdicts.failures(report):
        found.append(
            Annotation(
                "error",
                f"{check.dataset}: {check.score} {check.reason}",
                title=f"ground-gate: {check.dataset} {check.score}",
            )
        )
    return tuple(found)


def fenced(message: str) -> str:
    """A message shown as is in markdown: it may quote a dataset or a report, so the fence is
    longer than any run of backticks in it."""
    fence = "`" * max(3, 1 + max((len(run) for run in re.findall("`+", message)), default=0))
    return f"{fence}text\n{message}\n{fence}\n"


def shown(path: Path, workspace: Path) -> str:
    """Paths relative to the workspace: the container's /github/workspace is another path on
    the runner, so later steps can only use relative ones."""
    try:
        return path.relative_to(workspace).as_posix()
    except ValueError:
        return path.as_posix()
