"""`ground-gate action`, the container's entrypoint, run as the runner runs it.

The environment is what a Docker action gets: INPUT_* variables with action.yml's defaults,
GITHUB_* variables, a real-shaped event payload and empty GITHUB_OUTPUT / GITHUB_STEP_SUMMARY
files, with the working directory at the workspace. The judge is a scripted OpenAI-compatible
server reached through the `openai-base-url` input; GitHub is the fake REST API. Docker itself
cannot run on the development machines: this is the container's whole job minus the image.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest
from click.testing import CliRunner

from ground_gate.cli import cli
from tests.action_env import FIXTURES, file_commands
from tests.action_env import action_env as action_env_of
from tests.integration.fake_github import FakeGitHub
from tests.integration.support_bot import CONFIG, ROWS

TOKEN = "ghs_entrypoint_token"
OPENAI_KEY = "sk-entrypoint-0123456789"


@pytest.fixture
def github_token() -> str:
    return TOKEN


def action_env(tmp_path: Path, judge: Any, github: FakeGitHub, **inputs: str) -> dict[str, str]:
    workspace = tmp_path / "workspace"
    (workspace / "data").mkdir(parents=True, exist_ok=True)
    (workspace / "ground-gate.yml").write_text(CONFIG)
    (workspace / "data" / "support.jsonl").write_text(
        "".join(json.dumps(row) + "\n" for row in ROWS)
    )
    values = {"openai-api-key": OPENAI_KEY, "openai-base-url": judge.url, "github-token": TOKEN}
    values.update(inputs)
    env = action_env_of(
        workspace, file_commands(tmp_path / "file_commands"), api_url=github.url, **values
    )
    env.update(CI="true", OPENAI_API_KEY="")  # the key must come from the input
    return env


def outputs(env: dict[str, str]) -> dict[str, str]:
    text = Path(env["GITHUB_OUTPUT"]).read_text()
    blocks = re.findall(r"([\w-]+)<<(ghadelimiter_[0-9a-f-]{36})\n(.*?)\n\2\n", text, re.S)
    return {name: value for name, _, value in blocks}


def invoke(env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.chdir(env["GITHUB_WORKSPACE"])  # the runner's --workdir /github/workspace
    return CliRunner().invoke(cli, ["action"], env=env, catch_exceptions=False)


def test_entrypoint__creates_then_updates_one_comment(
    tmp_path: Path, judge: Any, github: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = action_env(tmp_path, judge, github)
    first = invoke(env, monkeypatch)

    assert first.exit_code == 1, first.output
    workspace = Path(env["GITHUB_WORKSPACE"])
    report_md = (workspace / "ground-gate-report" / "report.md").read_text()
    report = json.loads((workspace / "ground-gate-report" / "report.json").read_text())
    assert report["passed"] is False
    (comment,) = github.comments[17]
    assert comment["body"] == f"<!-- ground-gate:default -->\n{report_md}"  # no page promised
    assert "| <details> @octo-org" not in comment["body"]  # escaped by the report, kept so
    assert Path(env["GITHUB_STEP_SUMMARY"]).read_text() == report_md
    assert outputs(env) == {
        "passed": "false",
        "report-json": "ground-gate-report/report.json",
        "report-markdown": "ground-gate-report/report.md",
        "report-html": "ground-gate-report/report.html",
        "report-junit": "ground-gate-report/report.junit.xml",
        "scores": '{"support-bot":{"rating":0.5}}',
        "summary": "ground-gate: failed: 1 of 1 check failed (support-bot rating: 0.50 < min 0.80)",
        "prompt-version": report["judge"]["prompt_version"],
    }
    assert (workspace / "ground-gate-report" / "pr-number.txt").read_text() == "17\n"
    junit = ElementTree.parse(workspace / "ground-gate-report" / "report.junit.xml").getroot()
    failed = [c.get("name") for c in junit.iter("testcase") if c.find("failure") is not None]
    assert (junit.tag, junit.get("failures"), len(failed)) == ("testsuites", "2", 2)
    assert f"::add-mask::{OPENAI_KEY}" in first.output
    assert OPENAI_KEY not in first.output.replace(f"::add-mask::{OPENAI_KEY}", "")
    assert all(r.headers["authorization"] == f"Bearer {OPENAI_KEY}" for r in judge.requests)

    second_env = action_env(tmp_path, judge, github, fail_on_threshold="false")
    second = invoke(second_env, monkeypatch)

    assert second.exit_code == 0, second.output  # fail-on-threshold: false
    assert [c["id"] for c in github.comments[17]] == [comment["id"]]
    assert github.routes_called().count("POST create-comment") == 1
    assert github.routes_called()[-1] == "PATCH update-comment"


def test_entrypoint__fork_403_keeps_the_gates_exit_code(
    tmp_path: Path, judge: Any, github: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    github.script("create-comment", 403, message="Resource not accessible by integration")
    env = action_env(tmp_path, judge, github)
    env["GITHUB_EVENT_PATH"] = str(FIXTURES / "pull_request_fork.json")

    result = invoke(env, monkeypatch)

    assert result.exit_code == 1, result.output
    assert "::warning title=ground-gate::could not comment on pull request #18" in result.output
    assert Path(env["GITHUB_STEP_SUMMARY"]).read_text().startswith("## ")
    assert outputs(env)["passed"] == "false"


def test_entrypoint__bad_config_exits_2_with_an_annotation(
    tmp_path: Path, judge: Any, github: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = action_env(tmp_path, judge, github, config="missing.yml")

    result = invoke(env, monkeypatch)

    assert result.exit_code == 2, result.output
    assert "::error title=ground-gate::" in result.output
    assert outputs(env)["passed"] == "false"
    assert github.requests == []
    assert judge.requests == []


def test_entrypoint__the_baseline_input_reaches_the_gate_and_the_comment(
    tmp_path: Path, judge: Any, github: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    first_env = action_env(tmp_path, judge, github)
    invoke(first_env, monkeypatch)
    workspace = Path(first_env["GITHUB_WORKSPACE"])
    report_dir = workspace / "ground-gate-report"
    (workspace / "main-report.json").write_text((report_dir / "report.json").read_text())

    env = action_env(tmp_path, judge, github, baseline="main-report.json")
    result = invoke(env, monkeypatch)

    assert result.exit_code == 1, result.output  # the rating's min still misses: 0.5 < 0.8
    (entry,) = json.loads((report_dir / "report.json").read_text())["scores"]
    assert entry["baseline"]["paired"] == len(ROWS)
    assert (entry["baseline"]["delta"], entry["baseline"]["direction"]) == (0.0, "noise")
    (comment,) = github.comments[17]
    assert re.search(r"\| \u274c 0\.50 \u2192 0\.50 < 0\.80 +\|", comment["body"])


def _payload(tmp_path: Path, text: str) -> str:
    path = tmp_path / "event.json"
    path.write_text(text, encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(
    ("variable", "make", "said"),
    [
        ("GITHUB_OUTPUT", lambda tmp: str(tmp), "is a directory"),
        ("GITHUB_STEP_SUMMARY", lambda tmp: str(tmp), "is a directory"),
        ("GITHUB_EVENT_PATH", lambda tmp: _payload(tmp, "{not json"), "cannot read the event"),
        ("GITHUB_EVENT_PATH", lambda tmp: _payload(tmp, "[1, 2]"), "to be a JSON object"),
        ("GITHUB_EVENT_PATH", lambda tmp: _payload(tmp, '"\\ud800' + "[" * 9), "cannot read"),
        ("GITHUB_EVENT_PATH", lambda tmp: _payload(tmp, "[" * 100000), "cannot read"),
        ("GITHUB_EVENT_PATH", lambda tmp: str(tmp), "is a directory"),
        ("GITHUB_EVENT_PATH", lambda tmp: "/dev/zero", "not a regular file"),
    ],
    ids=["output a folder", "summary a folder", "event not JSON", "event a list",
         "event cut short", "event 100000 deep", "event a folder", "event /dev/zero"],
)  # fmt: skip
def test_entrypoint__a_runner_file_that_cannot_be_used_is_exit_2_before_any_judge_call(
    tmp_path: Path,
    judge: Any,
    github: FakeGitHub,
    monkeypatch: pytest.MonkeyPatch,
    variable: str,
    make: Any,
    said: str,
) -> None:
    env = action_env(tmp_path, judge, github)
    env[variable] = make(tmp_path)
    result = invoke(env, monkeypatch)
    assert result.exit_code == 2, result.output
    assert "ground-gate: error: the action's environment is incomplete or invalid:" in result.output
    assert f"  - {variable}: " in result.output and said in result.output
    assert "Traceback" not in result.output
    assert judge.requests == [] and github.requests == []


def test_entrypoint__a_fifo_event_payload_is_refused_unread(
    tmp_path: Path, judge: Any, github: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    env = action_env(tmp_path, judge, github)
    env["GITHUB_EVENT_PATH"] = str(tmp_path / "event.fifo")
    os.mkfifo(env["GITHUB_EVENT_PATH"])  # nobody writes: a reader would block forever
    result = invoke(env, monkeypatch)
    assert result.exit_code == 2, result.output
    assert "not a regular file (a pipe or a device?)" in result.output


@pytest.mark.parametrize(
    "payload",
    ['{"pull_request": [17]}', '{"pull_request": "17"}', '{"pull_request": {"number": "17"}}',
     '{"pull_request": {"number": -17}}', '{"pull_request": {"number": 1e999}}', "{}"],
)  # fmt: skip
def test_entrypoint__an_event_without_a_usable_pr_number_keeps_the_verdict(
    tmp_path: Path, judge: Any, github: FakeGitHub, monkeypatch: pytest.MonkeyPatch, payload: str
) -> None:
    """Before: `pull_request` as a list raised after the evaluation (exit 1, whatever the
    verdict). Now there is no pull request to comment on: the verdict's exit code, no comment."""
    env = action_env(tmp_path, judge, github, fail_on_threshold="false")
    env["GITHUB_EVENT_PATH"] = _payload(tmp_path, payload)
    result = invoke(env, monkeypatch)
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    assert github.comments == {}
    assert outputs(env)["passed"] == "false"


@pytest.mark.parametrize("fail_on_threshold", ["true", "false"])
def test_entrypoint__github_misbehaving_after_the_gate_keeps_the_exit_code(
    tmp_path: Path,
    judge: Any,
    github: FakeGitHub,
    monkeypatch: pytest.MonkeyPatch,
    fail_on_threshold: str,
) -> None:
    """Before: a list-comments answer that is an object, or a 201 with no id, raised (exit 1
    whatever the verdict)."""
    github.misbehave("list-comments", {"message": "an object"})
    env = action_env(tmp_path, judge, github, fail_on_threshold=fail_on_threshold)
    result = invoke(env, monkeypatch)
    assert result.exit_code == (1 if fail_on_threshold == "true" else 0), result.output
    assert "::warning title=ground-gate::could not comment on pull request #17" in result.output
    assert "an object, not a list of comments" in result.output

    github.misbehave("create-comment", {}, status=201)
    again = invoke(env, monkeypatch)
    assert again.exit_code == result.exit_code, again.output
    assert "a comment without an id" in again.output
