"""GitHub misbehaving after the gate: every answer of a shape the API does not document, too
big, or looping, is one warning; the job summary and the outputs are written and the gate's
verdict (hence the exit code) is the one the evaluation gave. Against tests/integration/
fake_github.py, told to misbehave route by route (FakeGitHub.misbehave)."""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ground_gate.github.client import MAX_PAGES
from ground_gate.leaves.exit_codes import exit_code
from tests.integration.fake_github import REPO_ID, FakeGitHub, Raw
from tests.integration.test_github_action import (
    MARKDOWN,
    MARKER,
    REPO,
    TOKEN,
    bot_comments,
    do_publish,
    new_run,
)

COMMENTS = f"/repos/{REPO}/issues/17/comments"
A_COMMENT = {"id": 5, "html_url": "https://github.com/o/r/pull/17#issuecomment-5"}


def gzip_bomb(mib: int) -> bytes:
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    block = packer.compress(bytes(2**20))
    return block + b"".join(packer.compress(bytes(2**20)) for _ in range(mib - 1)) + packer.flush()


# (route, answer, status, headers, the end of what the warning says GitHub answered)
SHAPES: dict[str, tuple[str, Any, int, dict[str, str], str]] = {
    "list-comments an object": (
        "list-comments", {"message": "ok"}, 200, {}, "an object, not a list of comments",
    ),
    "list-comments a string": ("list-comments", "comments", 200, {}, "a string, not a list"),
    "list-comments null": ("list-comments", None, 200, {}, "null, not a list of comments"),
    "list-comments items not objects": (
        "list-comments", [42, "x"], 200, {}, "a number where an object was expected",
    ),
    "list-comments html": (
        "list-comments", Raw(b"<html>Sign in</html>"), 200, {}, "answered 200: not JSON",
    ),
    "list-comments 5000-digit id": (
        "list-comments", Raw(b'[{"id": ' + b"9" * 5000 + b"}]"), 200, {}, "answered 200: not JSON",
    ),
    "list-comments nested 100000 deep": (
        "list-comments", Raw(b"[" * 100000 + b"]" * 100000), 200, {},
        "answered 200: not JSON (RecursionError)",
    ),
    "list-comments gzip bomb": (
        "list-comments", Raw(gzip_bomb(64)), 200, {"Content-Encoding": "gzip"},
        "a body that was refused: the body is larger than 32 MiB once decoded",
    ),
    "list-comments over 32 MiB": (
        "list-comments", Raw(b"[" + b" " * (33 * 2**20) + b"]"), 200, {},
        "a body that was refused: the body is larger than 32 MiB once decoded",
    ),
    "list-comments brotli": (
        "list-comments", Raw(b"x"), 200, {"Content-Encoding": "br"},
        "a body that was refused: the body is encoded as br, which was not asked for",
    ),
    "create-comment no id": ("create-comment", {}, 201, {}, "a comment without an id"),
    "create-comment id a string": (
        "create-comment", {**A_COMMENT, "id": "5"}, 201, {}, "a comment without an id",
    ),
    "create-comment id negative": (
        "create-comment", {**A_COMMENT, "id": -1}, 201, {}, "a comment without an id",
    ),
    "create-comment id true": (
        "create-comment", {**A_COMMENT, "id": True}, 201, {}, "a comment without an id",
    ),
    "create-comment no html_url": (
        "create-comment", {"id": 5, "html_url": None}, 201, {}, "a comment without an html_url",
    ),
    "create-comment a list": (
        "create-comment", [A_COMMENT], 201, {}, "a list where an object was expected",
    ),
    "create-comment empty body": ("create-comment", Raw(b""), 201, {}, "answered 201: not JSON"),
}  # fmt: skip


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub(token=TOKEN) as server:
        yield server
    assert server.violations == []


@pytest.mark.parametrize("passed", [True, False], ids=["gate passed", "gate failed"])
@pytest.mark.parametrize("shape", SHAPES.values(), ids=SHAPES.keys())
def test_misbehaving_github__one_warning_and_the_gates_exit_code(
    tmp_path: Path, fake: FakeGitHub, shape: tuple[str, Any, int, dict[str, str], str], passed: bool
) -> None:
    route, answer, status, headers, said = shape
    fake.misbehave(route, answer, status=status, headers=headers, times=3)
    run = new_run(tmp_path, fake)
    result = do_publish(run, fake, passed=passed)
    assert result.passed is passed
    assert result.comment == "failed"
    [warning] = result.warnings
    method = "POST" if route == "create-comment" else "GET"
    assert warning.startswith(f"could not comment on pull request #17 (GitHub API {method} ")
    assert said in warning
    assert warning.endswith("The report is in the job summary.")
    assert run.summary.read_text() == MARKDOWN
    assert ("passed", "true" if passed else "false") in run.outputs()
    assert run.sleeps == []  # GitHub answered: nothing to retry
    settings = run.settings()
    code = exit_code(passed=passed, incomplete=False, fail_on_threshold=settings.fail_on_threshold)
    assert code == (0 if passed else 1)


def test_misbehaving_github__an_update_answered_with_no_id_is_a_warning(
    tmp_path: Path, fake: FakeGitHub
) -> None:
    fake.add_comment(17, f"{MARKER}\nold", "github-actions[bot]")
    fake.misbehave("update-comment", {"html_url": "x"})
    result = do_publish(new_run(tmp_path, fake), fake, passed=True)
    assert (result.passed, result.comment) == (True, "failed")
    assert "PATCH" in result.warnings[0] and "a comment without an id" in result.warnings[0]


def test_misbehaving_github__a_page_linking_to_itself_is_read_once(
    tmp_path: Path, fake: FakeGitHub
) -> None:
    """Before: 54,310 requests in 90 s. The page already read ends the listing."""
    first_page = f"{fake.url}{COMMENTS}?per_page=100"
    fake.misbehave("list-comments", [], headers={"Link": f'<{first_page}>; rel="next"'}, times=9)
    result = do_publish(new_run(tmp_path, fake), fake, passed=True)
    assert result.comment == "created" and result.warnings == ()
    assert fake.routes_called().count("GET list-comments") == 1
    assert len(bot_comments(fake, 17)) == 1


def test_misbehaving_github__endless_pages_stop_at_the_page_cap(
    tmp_path: Path, fake: FakeGitHub
) -> None:
    def next_page(query: dict[str, list[str]]) -> dict[str, str]:
        page = int(query.get("page", ["1"])[0])
        url = f"{fake.url}/repositories/{REPO_ID}/issues/17/comments?per_page=100&page={page + 1}"
        return {"Link": f'<{url}>; rel="next"'}

    fake.misbehave("list-comments", [], headers=next_page, times=10 * MAX_PAGES)
    result = do_publish(new_run(tmp_path, fake), fake, passed=True)
    assert (result.passed, result.comment) == (True, "failed")
    assert f"answered more than {MAX_PAGES} pages of comments" in result.warnings[0]
    assert fake.routes_called().count("GET list-comments") == MAX_PAGES == 100


@pytest.mark.parametrize(
    "user",
    [{"message": "ok"}, [], None, {"login": 5}, Raw(b"not json")],
    ids=["no login", "a list", "null", "login a number", "not JSON"],
)
def test_misbehaving_github__an_odd_user_answer_is_the_bot(
    tmp_path: Path, fake: FakeGitHub, user: Any
) -> None:
    """GET /user decides whose comment is ours; an answer of another shape means the token is
    the workflow's, as for the 403 an installation token gets."""
    fake.misbehave("get-user", user)
    result = do_publish(new_run(tmp_path, fake), fake, passed=True)
    assert result.comment == "created" and result.warnings == ()
    assert len(bot_comments(fake, 17)) == 1


def test_misbehaving_github__comments_of_other_shapes_are_not_ours(
    tmp_path: Path, fake: FakeGitHub
) -> None:
    odd = [
        {"id": 1, "body": f"{MARKER}\nx", "user": "github-actions[bot]"},
        {"id": 2, "body": 7, "user": {"login": "github-actions[bot]"}},
        {"id": "3", "body": f"{MARKER}\nx", "user": {"login": "github-actions[bot]"}},
        {"body": f"{MARKER}\nx", "user": {"login": "github-actions[bot]"}},
    ]
    fake.misbehave("list-comments", odd)
    result = do_publish(new_run(tmp_path, fake), fake, passed=True)
    assert result.comment == "created" and result.warnings == ()
    assert fake.routes_called()[-1] == "POST create-comment"
    assert json.dumps(odd)  # the listing itself was read and skipped, not refused


PULLS = {
    "a list": ([{"head": {"sha": "x"}}], "failed", "a list where an object was expected"),
    "head a list": ({"head": ["sha"]}, "skipped", "pull request #18 is at None"),
    "sha a number": ({"head": {"sha": 6}}, "skipped", "pull request #18 is at None"),
    "sha of 100,000 characters": (
        {"head": {"sha": "f" * 100_000}}, "skipped", f"pull request #18 is at {'f' * 40}, not",
    ),
    "not JSON": (Raw(b"<html>"), "failed", "not JSON"),
}  # fmt: skip


@pytest.mark.parametrize("pull", PULLS.values(), ids=PULLS.keys())
def test_misbehaving_github__a_pull_request_of_another_shape_is_never_commented(
    tmp_path: Path, fake: FakeGitHub, pull: tuple[Any, str, str]
) -> None:
    """workflow_run mode checks the PR's head before commenting: an answer of another shape
    means no comment, said once, never a traceback."""
    from tests.integration.test_github_action import (
        pr_run_artifact,
        publish_pull_request_run,
        workflow_run_with,
    )

    answer, outcome, said = pull
    artifact = pr_run_artifact(tmp_path, fake)
    fake.misbehave("get-pull", answer, times=3)
    result = publish_pull_request_run(workflow_run_with(tmp_path, fake, artifact))
    assert result.comment == outcome
    [warning] = result.warnings
    assert said in warning and len(warning) < 500
    assert fake.comments == {}
