from __future__ import annotations

from pathlib import Path

import pytest

from ground_gate.github.event import (
    load_event,
    pr_number,
    read_pr_number_file,
    workflow_run_head_sha,
    write_pr_number_file,
)
from ground_gate.leaves.errors import ConfigError

FIXTURES = Path(__file__).parents[1] / "fixtures" / "github"


@pytest.mark.parametrize(
    ("event_name", "fixture", "expected"),
    [
        ("pull_request", "pull_request.json", 17),
        ("pull_request", "pull_request_fork.json", 18),
        ("pull_request_target", "pull_request_target.json", 18),
        ("issue_comment", "issue_comment_pr.json", 17),
        ("issue_comment", "issue_comment_issue.json", None),
        ("push", "push.json", None),
        ("workflow_run", "workflow_run_fork.json", None),
    ],
)
def test_pr_number__from_real_shaped_payloads(
    event_name: str, fixture: str, expected: int | None
) -> None:
    assert pr_number(event_name, load_event(FIXTURES / fixture)) == expected


def test_pr_number__ignores_a_non_integer_number() -> None:
    assert pr_number("pull_request", {"pull_request": {"number": "17"}}) is None
    assert pr_number("pull_request", {"pull_request": {"number": True}}) is None
    assert pr_number("pull_request", {}) is None


def test_load_event__no_path_is_an_empty_payload() -> None:
    assert load_event(None) == {}


def test_load_event__broken_json_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "event.json"
    path.write_text("{not json")
    with pytest.raises(ConfigError, match=r"event\.json: cannot read the event payload: "):
        load_event(path)
    path.write_text("[1]")
    with pytest.raises(ConfigError) as caught:
        load_event(path)
    assert str(caught.value) == f"{path}: expected the event payload to be a JSON object"


def test_workflow_run_head_sha__from_the_payload() -> None:
    payload = load_event(FIXTURES / "workflow_run_fork.json")
    assert workflow_run_head_sha(payload) == "6dcb09b5b57875f334f61aebed695e2e4193db5e"
    assert workflow_run_head_sha({}) is None


def test_pr_number_file__round_trip(tmp_path: Path) -> None:
    path = tmp_path / "pr-number.txt"
    write_pr_number_file(path, 18)
    assert path.read_text() == "18\n"
    assert read_pr_number_file(path) == 18


@pytest.mark.parametrize("content", ["", "0", "-3", "18; rm -rf /", "1e3", "99999999999"])
def test_read_pr_number_file__rejects_anything_but_a_number(tmp_path: Path, content: str) -> None:
    path = tmp_path / "pr-number.txt"
    path.write_text(content)
    with pytest.raises(ConfigError) as caught:
        read_pr_number_file(path)
    assert str(caught.value) == (
        f"{path}: expected a pull request number (digits only), got {content.strip()!r}"
    )
