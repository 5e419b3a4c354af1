"""One sticky comment per pull request and comment id: found by marker AND author, then edited.

Matching the author as well as the marker means a comment somebody else wrote (or quoted)
with our marker in it is never edited, and never makes us skip posting our own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Protocol

from ground_gate.github.body_limit import COMMENT_LIMIT_CHARS, fit_body
from ground_gate.leaves.masking import mask

# The author of comments posted with the workflow's GITHUB_TOKEN.
GITHUB_ACTIONS_LOGIN = "github-actions[bot]"


class CommentsAPI(Protocol):
    def list_issue_comments(self, repository: str, number: int) -> Any: ...

    def create_issue_comment(self, repository: str, number: int, body: str) -> dict[str, Any]: ...

    def update_issue_comment(
        self, repository: str, comment_id: int, body: str
    ) -> dict[str, Any]: ...


@dataclass(frozen=True)
class CommentResult:
    action: Literal["created", "updated"]
    id: int
    url: str
    trimmed: bool


def marker(comment_id: str) -> str:
    return f"<!-- ground-gate:{comment_id} -->"


def comment_body(markdown: str, comment_id: str, *, note: str) -> tuple[str, bool]:
    """The marker line, then the report fitted under GitHub's comment limit (secrets masked)."""
    head = marker(comment_id) + "\n"
    markdown = mask(markdown)
    fitted = fit_body(markdown, COMMENT_LIMIT_CHARS - len(head), note=note)
    return head + fitted, fitted != markdown


def find_sticky(comments: Any, comment_id: str, author: str) -> dict[str, Any] | None:
    """The newest comment by `author` whose body carries our marker (listings are oldest first).
    A comment of another shape (no author, a body that is not text, no usable id) is not ours."""
    tag = marker(comment_id)
    found: dict[str, Any] | None = None
    for comment in comments:
        user, body, number = comment.get("user"), comment.get("body"), comment.get("id")
        login = user.get("login") if isinstance(user, dict) else None
        usable = isinstance(number, int) and not isinstance(number, bool) and number > 0
        if login == author and isinstance(body, str) and tag in body and usable:
            found = comment
    return found


def upsert_sticky(
    api: CommentsAPI,
    repository: str,
    number: int,
    *,
    markdown: str,
    comment_id: str,
    author: str,
    note: str,
) -> CommentResult:
    """Edit our comment in place if there is one, else create it."""
    body, trimmed = comment_body(markdown, comment_id, note=note)
    existing = find_sticky(api.list_issue_comments(repository, number), comment_id, author)
    if existing is not None:
        updated = api.update_issue_comment(repository, int(existing["id"]), body)
        return CommentResult("updated", int(updated["id"]), str(updated["html_url"]), trimmed)
    created = api.create_issue_comment(repository, number, body)
    return CommentResult("created", int(created["id"]), str(created["html_url"]), trimmed)
