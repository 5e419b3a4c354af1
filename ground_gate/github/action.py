"""Action mode: publish a finished evaluation to GitHub.

The job summary, the step outputs and the annotations are always written; the PR comment is
best effort. Whatever happens while commenting (a fork's read-only token, a 404, GitHub down),
the run ends with a warning and the gate's verdict is never changed by it.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TextIO, TypeVar

from ground_gate.errors import ConfigError, GitHubError
from ground_gate.github import checks
from ground_gate.github.body import COMMENT_LIMIT_CHARS
from ground_gate.github.client import GitHubHTTPError, GitHubNetworkError
from ground_gate.github.comments import GITHUB_ACTIONS_LOGIN, CommentResult, upsert_sticky
from ground_gate.github.event import (
    PR_NUMBER_FILE,
    load_event,
    pr_number,
    read_pr_number_file,
    workflow_run_head_sha,
    write_pr_number_file,
)
from ground_gate.github.outputs import add_mask, annotate, append_step_summary, write_outputs
from ground_gate.settings import Settings

REPORT_DIR = "ground-gate-report"
DOCS = "docs/github-action.md"
RETRY_DELAYS_S = (2.0, 5.0)  # three attempts in all for 5xx and network errors

T = TypeVar("T")


class GitHubAPI(Protocol):
    def authenticated_login(self) -> str: ...

    def list_issue_comments(self, repository: str, number: int) -> Any: ...

    def create_issue_comment(self, repository: str, number: int, body: str) -> dict[str, Any]: ...

    def update_issue_comment(
        self, repository: str, comment_id: int, body: str
    ) -> dict[str, Any]: ...

    def get_pull_request(self, repository: str, number: int) -> dict[str, Any]: ...


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


@dataclass(frozen=True)
class Artifact:
    markdown: str
    report: dict[str, Any]
    pr_number: int


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
    )


def mask_secrets(settings: Settings, out: TextIO | None = None) -> None:
    """Register the secrets with the runner's log masking; call before anything is logged."""
    for secret in (settings.openai_api_key, settings.github_token):
        if secret:
            add_mask(secret, out or sys.stdout)


def gate_exit_code(settings: Settings, passed: bool) -> int:
    """0 when passed or when `fail-on-threshold: false`; 1 otherwise. Errors are the CLI's 2."""
    return 0 if passed or not settings.fail_on_threshold else 1


def publish(
    settings: Settings,
    *,
    markdown: str,
    report: Mapping[str, Any],
    passed: bool,
    client: GitHubAPI | None,
    pr_number: int | None = None,
    paths: ReportPaths | None = None,
    out: TextIO | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> PublishResult:
    """Job summary, outputs, annotations, then the sticky comment (best effort).

    `pr_number` overrides the number read from the event payload (workflow_run mode).
    """
    return _publish(
        settings,
        markdown=markdown,
        report=report,
        passed=passed,
        client=client,
        pr_number=pr_number,
        paths=paths or report_paths(settings),
        out=out or sys.stdout,
        sleep=sleep,
        blocked=None,
    )


def _publish(
    settings: Settings,
    *,
    markdown: str,
    report: Mapping[str, Any],
    passed: bool,
    client: GitHubAPI | None,
    pr_number: int | None,
    paths: ReportPaths,
    out: TextIO,
    sleep: Callable[[float], None],
    blocked: str | None,
) -> PublishResult:
    mask_secrets(settings, out)
    summary = checks.summary_line(report, passed)
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
    write_outputs(
        settings.output_path,
        {
            "passed": "true" if passed else "false",
            "report-json": _shown(paths.json, settings.workspace),
            "report-markdown": shown_md,
            "scores": json.dumps(checks.scores_by_dataset(report), separators=(",", ":")),
            "summary": summary,
            "prompt-version": str((report.get("judge") or {}).get("prompt_version", "")),
        },
    )
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
        outcome, url = _comment(settings, client, markdown, number, warn, out, sleep)
    print(summary, file=out)
    return PublishResult(passed, summary, outcome, url, tuple(warnings))


def report_error(settings: Settings, message: str, out: TextIO | None = None) -> None:
    """A run that could not finish (bad config, judge unreachable): say so where people look.

    An annotation, a job summary paragraph and the `passed`/`summary` outputs; the caller
    still exits 2. No comment: a PR comment is for verdicts, not for workflow mistakes.
    """
    out = out or sys.stdout
    annotate("error", message, out, title="ground-gate")
    append_step_summary(
        settings.step_summary_path,
        f"## ground-gate could not run\n\n```text\n{message}\n```\n",
        note="> [!NOTE]\n> The message was trimmed.",
    )
    write_outputs(
        settings.output_path,
        {"passed": "false", "summary": f"ground-gate: error: {message.splitlines()[0]}"},
    )


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
    sleep: Callable[[float], None] = time.sleep,
) -> PublishResult:
    """workflow_run mode: publish the downloaded artifact; never evaluate anything."""
    out = out or sys.stdout
    paths = report_paths(settings)
    artifact = read_artifact(paths)
    return _publish(
        settings,
        markdown=artifact.markdown,
        report=artifact.report,
        passed=artifact.report.get("passed") is True,
        client=client,
        pr_number=artifact.pr_number,
        paths=paths,
        out=out,
        sleep=sleep,
        blocked=_check_pr_head(settings, client, artifact.pr_number, sleep),
    )


# --- the comment -------------------------------------------------------------------------------


def _comment(
    settings: Settings,
    client: GitHubAPI | None,
    markdown: str,
    number: int | None,
    warn: Callable[[str], None],
    out: TextIO,
    sleep: Callable[[float], None],
) -> tuple[str, str | None]:
    if settings.comment == "never":
        return "skipped", None
    if number is None:
        if settings.comment == "always":
            warn(
                f"comment: always, but this {settings.event_name} run is not for a pull request; "
                "the report is in the job summary"
            )
        return "skipped", None
    if client is None:
        warn(
            "no github-token: cannot comment on the pull request; the report is in the job summary"
        )
        return "skipped", None
    author = _comment_author(client)
    note = _trim_note(settings)
    try:
        result: CommentResult = _with_retries(
            lambda: upsert_sticky(
                client,
                settings.repository,
                number,
                markdown=markdown,
                comment_id=settings.comment_id,
                author=author,
                note=note,
            ),
            sleep,
        )
    except GitHubError as exc:
        warn(_comment_failure(exc, number))
        return "failed", None
    if result.trimmed:
        warn(f"the comment was trimmed to GitHub's {COMMENT_LIMIT_CHARS:,}-character limit")
    print(f"ground-gate: {result.action} comment {result.url}", file=out)
    return result.action, result.url


def _comment_author(client: GitHubAPI) -> str:
    """Whose comment is ours: the token's user for a personal token, else github-actions[bot].

    GET /user answers 403 for the workflow's GITHUB_TOKEN (an installation token).
    https://docs.github.com/en/rest/users/users#get-the-authenticated-user
    """
    try:
        return client.authenticated_login()
    except GitHubError:
        return GITHUB_ACTIONS_LOGIN


def _with_retries(attempt: Callable[[], T], sleep: Callable[[float], None]) -> T:
    """Retry on 5xx/429/network errors; other errors (403, 404, 422) are final.

    For the comment, `attempt` is the whole find-then-write: re-listing before each retry is
    what keeps a POST whose answer was lost from ever producing a second comment.
    """
    for delay in RETRY_DELAYS_S:
        try:
            return attempt()
        except GitHubError as exc:
            if not _retryable(exc):
                raise
            sleep(delay)
    return attempt()


def _retryable(exc: GitHubError) -> bool:
    if isinstance(exc, GitHubNetworkError):
        return True
    return isinstance(exc, GitHubHTTPError) and (exc.status >= 500 or exc.status == 429)


def _comment_failure(exc: GitHubError, number: int) -> str:
    status = exc.status if isinstance(exc, GitHubHTTPError) else None
    if status == 403:
        why = (
            "the token may not write comments. A pull request from a fork gets a read-only "
            f"token: use the two-workflow (workflow_run) pattern in {DOCS}, or give the job "
            "`permissions: pull-requests: write`"
        )
    elif status == 404:
        why = "the pull request or repository was not found, or the token cannot see it"
    else:
        why = "GitHub did not accept the comment after retrying"
    return (
        f"could not comment on pull request #{number} ({exc}); {why}. "
        "The report is in the job summary."
    )


def _check_pr_head(
    settings: Settings, client: GitHubAPI | None, number: int, sleep: Callable[[float], None]
) -> str | None:
    """The artifact's PR number comes from the PR's own (untrusted) run: check that this PR's
    head is the commit the run was for, so a crafted number cannot aim the comment elsewhere."""
    if client is None or settings.comment == "never":
        return None
    expected = workflow_run_head_sha(load_event(settings.event_path))
    try:
        pull = _with_retries(lambda: client.get_pull_request(settings.repository, number), sleep)
    except GitHubError as exc:
        return f"not commenting: cannot read pull request #{number} ({exc})"
    head = ((pull.get("head") or {}).get("sha")) if isinstance(pull, dict) else None
    if expected is None or head != expected:
        return (
            f"not commenting: pull request #{number} is at {head}, not at the commit this report "
            f"was made for ({expected}); a newer run will report on it"
        )
    return None


# --- small helpers -----------------------------------------------------------------------------


def _event_pr_number(settings: Settings) -> int | None:
    return pr_number(settings.event_name, load_event(settings.event_path))


def _annotate_failures(report: Mapping[str, Any], out: TextIO) -> None:
    incomplete = checks.incomplete_reason(report)
    if incomplete:
        annotate(
            "error", f"the evaluation did not complete: {incomplete}", out, title="ground-gate"
        )
    for check in checks.failures(report):
        annotate(
            "error",
            f"{check.dataset}: {check.score} {check.reason}",
            out,
            title=f"ground-gate: {check.dataset} {check.score}",
        )


def _trim_note(settings: Settings) -> str:
    where = f"the [job summary]({settings.run_url})" if settings.run_url else "the job summary"
    return (
        f"> [!NOTE]\n> This comment was trimmed to fit GitHub's {COMMENT_LIMIT_CHARS:,}-character "
        f"limit: some per-row details are missing. The full report is in {where} and in the "
        f"`{REPORT_DIR}` files of the run."
    )


def _shown(path: Path, workspace: Path) -> str:
    """Paths relative to the workspace: the container's /github/workspace is another path on
    the runner, so later steps can only use relative ones."""
    try:
        return path.relative_to(workspace).as_posix()
    except ValueError:
        return path.as_posix()
