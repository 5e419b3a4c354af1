from __future__ import annotations

from typing import Any

from ground_gate.github.body_limit import COMMENT_LIMIT_CHARS
from ground_gate.github.comments import (
    CommentResult,
    comment_body,
    find_sticky,
    marker,
    upsert_sticky,
)

BOT = "github-actions[bot]"


def comment(id_: int, body: str, login: str) -> dict[str, Any]:
    return {"id": id_, "body": body, "user": {"login": login}, "html_url": f"https://c/{id_}"}


class FakeComments:
    """In-memory issue comments; records the writes."""

    def __init__(self, comments: list[dict[str, Any]]) -> None:
        self.comments = comments
        self.writes: list[tuple[str, int, str]] = []

    def list_issue_comments(self, repository: str, number: int) -> Any:
        return iter(self.comments)

    def create_issue_comment(self, repository: str, number: int, body: str) -> dict[str, Any]:
        self.writes.append(("create", number, body))
        created = comment(900, body, BOT)
        self.comments.append(created)
        return created

    def update_issue_comment(self, repository: str, comment_id: int, body: str) -> dict[str, Any]:
        self.writes.append(("update", comment_id, body))
        return comment(comment_id, body, BOT)


def test_marker__names_the_comment_id() -> None:
    assert marker("default") == "<!-- ground-gate:default -->"


def test_comment_body__marker_first_then_report() -> None:
    assert comment_body("| a |\n", "default", note="n") == (
        "<!-- ground-gate:default -->\n| a |\n",
        False,
    )


def test_comment_body__fits_the_limit_with_the_marker() -> None:
    markdown = (
        "| t |\n<details>\n" + "".join(f"row {i:06d}\n" for i in range(10_000)) + "</details>\n"
    )
    body, trimmed = comment_body(markdown, "default", note="> trimmed")
    assert trimmed is True
    assert len(body) <= COMMENT_LIMIT_CHARS
    assert body.startswith("<!-- ground-gate:default -->\n| t |\n<details>\nrow 000000\n")
    assert body.endswith("</details>\n\n> trimmed\n")


def test_find_sticky__marker_and_author_newest_wins() -> None:
    comments = [
        comment(1, "<!-- ground-gate:default -->\nold", BOT),
        comment(2, "quoting <!-- ground-gate:default --> here", "mallory"),
        comment(3, "<!-- ground-gate:other -->\nanother gate", BOT),
        comment(4, "<!-- ground-gate:default -->\nnewer", BOT),
        comment(5, "unrelated", BOT),
        {"id": 6, "body": None, "user": None},  # a deleted user's comment
    ]
    assert find_sticky(comments, "default", BOT) == comments[3]
    assert find_sticky(comments, "other", BOT) == comments[2]
    assert find_sticky(comments, "default", "mallory") == comments[1]
    assert find_sticky(comments, "missing", BOT) is None


def test_upsert_sticky__creates_when_none_is_ours() -> None:
    api = FakeComments([comment(2, "<!-- ground-gate:default -->", "mallory")])
    result = upsert_sticky(
        api, "o/r", 17, markdown="report\n", comment_id="default", author=BOT, note="n"
    )
    assert result == CommentResult("created", 900, "https://c/900", False)
    assert api.writes == [("create", 17, "<!-- ground-gate:default -->\nreport\n")]


def test_upsert_sticky__updates_ours_in_place() -> None:
    api = FakeComments([comment(7, "<!-- ground-gate:default -->\nold", BOT)])
    result = upsert_sticky(
        api, "o/r", 17, markdown="new\n", comment_id="default", author=BOT, note="n"
    )
    assert result == CommentResult("updated", 7, "https://c/7", False)
    assert api.writes == [("update", 7, "<!-- ground-gate:default -->\nnew\n")]
