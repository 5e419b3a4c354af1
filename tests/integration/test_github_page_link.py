"""The action's post step links the comment to the page, one click from a row to its place:
the action's step comments (with no page promised), a later step uploads report.html, and
the post step (`ground-gate-action-post`) finds it through the fake GitHub API (its shapes
checked against GitHub's OpenAPI description) and edits the same comment."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from ground_gate.action_post import run_post
from ground_gate.render.anchors import row_link
from tests.integration.fake_github import FakeGitHub
from tests.integration.test_github_entrypoint import TOKEN, action_env, invoke
from tests.rendered import render_markdown

RUN_ID = 9100000001
MARKER = "<!-- ground-gate:default -->\n"


@pytest.fixture
def github_token() -> str:
    return TOKEN  # the token action_env gives the action


def _post(env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> tuple[int, str]:
    monkeypatch.chdir(env["GITHUB_WORKSPACE"])
    out, said = io.StringIO(), []
    code = run_post(env, said.append, out)
    return code, out.getvalue() + "".join(said)


def _report(env: dict[str, str]) -> dict[str, Any]:
    folder = Path(env["GITHUB_WORKSPACE"]) / "ground-gate-report"
    return json.loads((folder / "report.json").read_text(encoding="utf-8"))


def test_post__links_the_page_and_each_row_once_report_html_is_uploaded(
    tmp_path: Path, judge: Any, github: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = action_env(tmp_path, judge, github)
    assert invoke(env, monkeypatch).exit_code == 1
    (comment,) = github.comments[17]
    assert "report page" not in comment["body"] and "report.html" not in comment["body"]
    github.add_artifact(RUN_ID, "ground-gate-report")
    page = github.add_artifact(RUN_ID, "report.html")  # upload-artifact, archive: false

    code, said = _post(env, monkeypatch)

    assert code == 0, said
    url = f"https://github.com/octo-org/octo-repo/actions/runs/{RUN_ID}/artifacts/{page['id']}"
    report = _report(env)
    expected = render_markdown(report, page_url=url)
    (comment,) = github.comments[17]  # the same comment, edited
    assert comment["body"] == MARKER + expected
    assert f"[Open the report page]({url})" in comment["body"]
    failing = next(r for r in report["rows"] if r["failing"])
    assert f"]({row_link(url, failing)})" in comment["body"]  # the row's own anchor
    assert github.violations == []
    listed = [r for r in github.requests if r.route == "list-run-artifacts"]
    assert [r.query["name"] for r in listed] == [["report.html"]]


def test_post__only_the_zipped_folder_is_named_as_what_it_is(
    tmp_path: Path, judge: Any, github: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = action_env(tmp_path, judge, github)
    invoke(env, monkeypatch)
    folder = github.add_artifact(RUN_ID, "ground-gate-report")

    assert _post(env, monkeypatch)[0] == 0

    (comment,) = github.comments[17]
    assert "[Open the report page]" not in comment["body"]
    assert comment["body"].endswith(
        "Every row, its sentences and its source: `report.html` in the [ground-gate-report "
        f"artifact](https://github.com/octo-org/octo-repo/actions/runs/{RUN_ID}/artifacts/"
        f"{folder['id']}) (a zip). Upload `ground-gate-report/report.html` with "
        "`archive: false` as well and this comment links each row to its place on the page.\n"
    )
    assert github.violations == []


def test_post__nothing_uploaded_leaves_the_comment_as_it_is(
    tmp_path: Path, judge: Any, github: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = action_env(tmp_path, judge, github)
    invoke(env, monkeypatch)
    (before,) = github.comments[17]
    body = before["body"]
    github.add_artifact(RUN_ID, "report.html", expired=True)
    github.add_artifact(RUN_ID + 1, "report.html")  # another run's

    code, said = _post(env, monkeypatch)

    assert code == 0
    assert "no report page was uploaded" in said
    assert github.comments[17][0]["body"] == body
    assert [r.route for r in github.requests][-2:] == ["list-run-artifacts"] * 2


def test_post__without_actions_read_it_says_so_once_and_exits_0(
    tmp_path: Path, judge: Any, github: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = action_env(tmp_path, judge, github)
    invoke(env, monkeypatch)
    body = github.comments[17][0]["body"]
    github.script("list-run-artifacts", 403, message="Resource not accessible by integration")

    code, said = _post(env, monkeypatch)

    assert code == 0
    assert said.count("::warning") == 1
    assert "give the job `permissions: actions: read`" in said
    assert github.comments[17][0]["body"] == body


@pytest.mark.parametrize("inputs", [{"comment": "never"}, {"shard": "1/2"}])
def test_post__a_run_that_did_not_comment_edits_nothing(
    tmp_path: Path,
    judge: Any,
    github: FakeGitHub,
    monkeypatch: pytest.MonkeyPatch,
    inputs: dict[str, str],
) -> None:
    env = action_env(tmp_path, judge, github, **inputs)
    invoke(env, monkeypatch)
    github.add_artifact(RUN_ID, "report.html")
    seen = len(github.requests)

    assert _post(env, monkeypatch)[0] == 0

    assert github.requests[seen:] == []  # not even a look at the artifacts
    assert 17 not in github.comments


def test_post__a_record_left_by_another_run_is_not_ours(
    tmp_path: Path, judge: Any, github: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = action_env(tmp_path, judge, github)
    invoke(env, monkeypatch)
    github.add_artifact(RUN_ID + 5, "report.html")
    seen = len(github.requests)

    assert _post({**env, "GITHUB_RUN_ID": str(RUN_ID + 5)}, monkeypatch)[0] == 0

    assert github.requests[seen:] == []


def test_post__bad_settings_are_one_line_and_exit_0(monkeypatch: pytest.MonkeyPatch) -> None:
    said: list[str] = []
    assert run_post({"GITHUB_REPOSITORY": "not a repo"}, said.append, io.StringIO()) == 0
    assert len(said) == 1 and said[0].startswith("ground-gate: the report page is not linked: ")


@pytest.mark.parametrize(
    "answer",
    [[], {"artifacts": {"id": 1}}, {"artifacts": [5]}, {"artifacts": "x"}, None],
    ids=["a list", "artifacts an object", "artifacts not objects", "artifacts text", "null"],
)
def test_post__an_artifact_listing_of_another_shape_is_one_line_and_exit_0(
    tmp_path: Path,
    judge: Any,
    github: FakeGitHub,
    monkeypatch: pytest.MonkeyPatch,
    answer: Any,
) -> None:
    env = action_env(tmp_path, judge, github)
    invoke(env, monkeypatch)
    before = github.comments[17][0]["body"]
    github.misbehave("list-run-artifacts", answer, times=4)

    code, said = _post(env, monkeypatch)

    assert code == 0, said
    assert "Traceback" not in said and said.count("::warning") == 1
    assert "GitHub did not list this run's artifacts" in said
    assert github.comments[17][0]["body"] == before
