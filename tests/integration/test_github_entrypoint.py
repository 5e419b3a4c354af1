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


PAGE_NOTE = (
    "\nEvery row, its marked sentences and its source with the evidence highlighted: "
    "`report.html` in the `ground-gate-report` artifact of "
    "[this workflow run](https://github.com/octo-org/octo-repo/actions/runs/9100000001).\n"
)


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
    assert comment["body"] == f"<!-- ground-gate:default -->\n{report_md}{PAGE_NOTE}"
    assert "| <details> @octo-org" not in comment["body"]  # escaped by the report, kept so
    assert Path(env["GITHUB_STEP_SUMMARY"]).read_text() == report_md
    assert outputs(env) == {
        "passed": "false",
        "report-json": "ground-gate-report/report.json",
        "report-markdown": "ground-gate-report/report.md",
        "report-html": "ground-gate-report/report.html",
        "report-junit": "ground-gate-report/report.junit.xml",
        "scores": '{"support-bot":{"rating":0.5}}',
        "summary": "ground-gate: failed, 1 of 1 checks missed their thresholds "
        "(support-bot rating: 0.50 is not \u2265 0.8)",
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
    assert "\u274c 0.50 (\u2265 0.80) \u00b10.00 [+0.00, +0.00] within noise" in comment["body"]
