"""Posting the sticky comment: find ours, create or update it, retry what can be retried,
and turn every failure into one warning that says why. Never changes the gate's verdict."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, TextIO, TypeVar

from ground_gate.github.body_limit import COMMENT_LIMIT_CHARS
from ground_gate.github.client import GitHubHTTPError, GitHubNetworkError
from ground_gate.github.comments import GITHUB_ACTIONS_LOGIN, CommentResult, upsert_sticky
from ground_gate.github.step_outputs import say
from ground_gate.leaves.errors import GitHubError

DOCS = "docs/github-action.md"
REPORT_DIR = "ground-gate-report"
RETRY_DELAYS_S = (2.0, 5.0)  # three attempts in all for 5xx and network errors

T = TypeVar("T")
Sleep = Callable[[float], None]


class GitHubAPI(Protocol):
    def authenticated_login(self) -> str: ...

    def list_issue_comments(self, repository: str, number: int) -> Any: ...

    def create_issue_comment(self, repository: str, number: int, body: str) -> dict[str, Any]: ...

    def update_issue_comment(
        self, repository: str, comment_id: int, body: str
    ) -> dict[str, Any]: ...

    def get_pull_request(self, repository: str, number: int) -> dict[str, Any]: ...


@dataclass(frozen=True)
class Comment:
    """One run's sticky comment, in plain values the action read from its settings: where it
    goes, whether it is wanted, and with which client."""

    client: GitHubAPI | None  # None: no github-token
    repository: str
    number: int | None  # the pull request; None when the run is for none
    comment_id: str
    mode: str  # auto | always | never
    event_name: str  # named when `always` meets a run that is for no pull request
    run_url: str | None  # the run, whose job summary a trimmed comment points to


def post_comment(
    comment: Comment,
    markdown: str,
    warn: Callable[[str], None],
    out: TextIO,
    sleep: Callable[[float], None],
) -> tuple[str, str | None]:
    client, number = comment.client, comment.number
    if comment.mode == "never":
        return "skipped", None
    if number is None:
        if comment.mode == "always":
            warn(
                f"comment: always, but this {comment.event_name} run is not for a pull request; "
                "the report is in the job summary"
            )
        return "skipped", None
    if client is None:
        warn(
            "no github-token: cannot comment on the pull request; the report is in the job summary"
        )
        return "skipped", None
    author = comment_author(client)
    note = trim_note(comment.run_url)
    try:
        result: CommentResult = with_retries(
            lambda: upsert_sticky(
                client,
                comment.repository,
                number,
                markdown=markdown,
                comment_id=comment.comment_id,
                author=author,
                note=note,
            ),
            sleep,
        )
    except GitHubError as exc:
        warn(comment_failure(exc, number))
        return "failed", None
    if result.trimmed:
        warn(f"the comment was trimmed to GitHub's {COMMENT_LIMIT_CHARS:,}-character limit")
    say(f"ground-gate: {result.action} comment {result.url}", out)
    return result.action, result.url


def comment_author(client: GitHubAPI) -> str:
    """Whose comment is ours: the token's user for a personal token, else github-actions[bot].

    GET /user answers 403 for the workflow's GITHUB_TOKEN (an installation token).
    https://docs.github.com/en/rest/users/users#get-the-authenticated-user
    """
    try:
        return client.authenticated_login()
    except GitHubError:
        return GITHUB_ACTIONS_LOGIN


def with_retries(attempt: Callable[[], T], sleep: Callable[[float], None]) -> T:
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


def comment_failure(exc: GitHubError, number: int) -> str:
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


def trim_note(run_url: str | None) -> str:
    where = f"the [job summary]({run_url})" if run_url else "the job summary"
    return (
        f"> [!NOTE]\n> This comment was trimmed to fit GitHub's {COMMENT_LIMIT_CHARS:,}-character "
        f"limit: some per-row details are missing. The full report is in {where} and in the "
        f"`{REPORT_DIR}` files of the run."
    )
