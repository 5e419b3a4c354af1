"""The hostile fork: a pull request from a fork controls its own run, so it controls the
artifact the privileged workflow_run job publishes. Whatever it puts there (a forged report.md,
a report.json claiming a pass with failing scores, strings made to ping, link, embed or hide,
a report that is not one at all), the bot never posts its markdown, never mentions anyone,
never links anywhere, never claims a verified pass, and its exit code says only whether it
could publish.

Each test runs `ground-gate action` (the container's entry point) with the environment of a
workflow_run run against the fake GitHub API.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from ground_gate.cli import cli
from ground_gate.render.escape import ZWSP
from tests.action_env import FIXTURES, action_env, file_commands
from tests.integration.fake_github import FakeGitHub

TOKEN = "ghs_fork_safety_token"
HEAD_SHA = "6dcb09b5b57875f334f61aebed695e2e4193db5e"  # workflow_run_fork.json's head_sha
PR = 18
HEADLINE = "## ground-gate: reported by the pull request's run: passed"
NOTE = (
    "These scores come from the pull request's own run and were not re-verified: the pull "
    "request controls that run (its data, config, code and any baseline it compared with), so "
    "this is what it reported, not a "
    "verdict of this repository."
)
EVIL = (
    "cc @octo-org/security @admin ![img](https://x.example/p.png) [click](https://evil.example)"
    " <img src=x onerror=alert(1)> \u202eevil\u202c \u2066x\u2069 z\u200bw\u200d\u2060 "
    "see https://evil.example/a?b=c and www.evil.example, mail me@evil.example, fixes #123 "
    "GH-7 octo-org/octo-repo#9 <https://auto.example> [ref]: https://ref.example "
    "commit 6dcb09b5b57875f334f61aebed695e2e4193db5e $\\href{https://m.example}{x}$ "
    "</details><script>x</script>\n```\nfence\n| a | b |\n# heading"
)
FORGED_MD = "## \u2705 ground-gate: passed\n\nAll good! cc @octo-org/security ![x](https://x)\n"


def usage() -> dict[str, Any]:
    names = ("calls", "prompt_tokens", "completion_tokens", "cached_tokens", "cache_hits")
    return {**dict.fromkeys(names, 1), "retries": 0, "parse_failures": 0, "seconds": 0.5}


def forged_row(i: int) -> dict[str, Any]:
    unit = {"text": EVIL, "score": 0, "verdict": EVIL, "evidence": EVIL, "detail": {"x": EVIL}}
    units = [{**unit, "verdict": "unsupported"}, unit]
    ok = {"status": "ok", "scores": {"groundedness": 0.05}, "error": None, "units": units}
    errored = {"status": "error", "scores": {}, "error": EVIL, "units": []}
    return {
        "dataset": EVIL,
        "id": f"{EVIL}-{i}",
        "seconds": 1.0,
        "failing": ["rating", "groundedness"],
        "metrics": {
            "groundedness": {**ok, "usage": usage()},
            "rating": {**errored, "usage": usage()},
        },
    }


def forged_report() -> dict[str, Any]:
    """Valid against the schema, `"passed": true`, and every score failing its threshold."""
    score = {
        "dataset": EVIL,
        "score": "groundedness",
        "mean": 0.05,
        "n": 3,
        "n_error": 0,
        "n_no_claims": 0,
        "ci95": [0.0, 0.1],
        "threshold": {"min": 0.8},
        "passed": True,  # forged: 0.05 is not >= 0.8
        "reason": EVIL,
    }
    rows = [forged_row(i) for i in range(3)]
    return {
        "schema_version": 1,
        "tool": {"name": "ground-gate", "version": EVIL},
        "created_at": "2026-11-22T10:00:00+00:00",
        "config": {"path": EVIL, "digest": "sha256:" + EVIL},
        "judge": {"provider": EVIL, "model": EVIL + " `a` b", "prompt_version": "v1"},
        "status": "passed",
        "passed": True,
        "incomplete": None,
        "on_error": "fail",
        "datasets": [{"name": EVIL, "rows": 3, "scored": 3}],
        "scores": [score, {**score, "score": "rating", "passed": False}],
        "rows": rows,
        "usage": {"by_metric": {"rating": usage(), "groundedness": usage()}, "total": usage()},
        "seconds": 3.0,
    }


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    with FakeGitHub(token=TOKEN) as server:
        server.pull_heads[PR] = HEAD_SHA
        yield server
    assert server.violations == []


def workflow_run_env(
    tmp_path: Path, github: FakeGitHub, report: Any, **files: str
) -> dict[str, str]:
    """The comment job: the artifact downloaded into ground-gate-report/, a write token."""
    workspace = tmp_path / "workspace"
    artifact = workspace / "ground-gate-report"
    artifact.mkdir(parents=True)
    text = report if isinstance(report, str) else json.dumps(report, ensure_ascii=False)
    (artifact / "report.json").write_text(text, encoding="utf-8")
    (artifact / "report.md").write_text(FORGED_MD, encoding="utf-8")
    (artifact / "pr-number.txt").write_text(f"{PR}\n")
    for name, content in files.items():
        (artifact / name).write_text(content, encoding="utf-8")
    return action_env(
        workspace,
        file_commands(tmp_path / "file_commands"),
        api_url=github.url,
        event="workflow_run",
        event_path=FIXTURES / "workflow_run_fork.json",
        run_id="9100000002",
        github_token=TOKEN,
        config="x.yml",
    )


def run_action(env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.chdir(env["GITHUB_WORKSPACE"])
    return CliRunner().invoke(cli, ["action"], env=env, catch_exceptions=False)


def outputs(env: dict[str, str]) -> dict[str, str]:
    text = Path(env["GITHUB_OUTPUT"]).read_text()
    blocks = re.findall(r"([\w-]+)<<(ghadelimiter_[0-9a-f-]{36})\n(.*?)\n\2\n", text, re.S)
    return {name: value for name, _, value in blocks}


# What GitHub would turn into a ping, a link, an image or markup, in text it renders.
OUR_TAGS = re.compile(r"<!-- ground-gate:default -->|</?details>|</?summary>")
LIVE = {
    "a mention": re.compile(r"(?<![\w`])@[A-Za-z0-9]"),
    "an issue reference": re.compile(r"(?:#|GH-)\d"),
    "a URL": re.compile(r"(?i)(?:https?|ftp)://|www\.|mailto:"),
    "an e-mail address": re.compile(r"\w@\w"),
    "a commit SHA": re.compile(r"\b[0-9a-f]{7,40}\b"),
    "a link or image": re.compile(r"(?<!\\)\]\(|(?<!\\)\[[^\]]*(?<!\\)\]"),
    "HTML": re.compile(r"<(?!/?(?:details|summary)>)[A-Za-z/!]"),
    "math": re.compile(r"(?<!\\)\$"),
    "an invisible character": re.compile("[\u202a-\u202e\u2066-\u2069\u200c-\u200f\u2060\u061c]"),
}


CODE_SPAN = re.compile(r"`[^`\n]*`")  # nothing renders in one: no markup, link or mention
IN_CODE_TOO = ("a mention", "an issue reference", "a URL", "an e-mail address")


def assert_inert(body: str) -> None:
    text = OUR_TAGS.sub("", body)
    outside_code = CODE_SPAN.sub("", text)
    found = {
        what: pattern.findall(text if what in IN_CODE_TOO else outside_code)[:3]
        for what, pattern in LIVE.items()
    }
    assert {what: hits for what, hits in found.items() if hits} == {}
    # the only zero-width characters are the ones the escaping put in to break something
    for match in re.finditer(ZWSP, text):
        around = text[match.start() - 1 : match.end() + 3]
        assert re.fullmatch(
            rf"[@#-]{ZWSP}.*|.{ZWSP}[:.].*|[0-9a-f]{ZWSP}[0-9a-f].*", around, re.S
        ), around


def test_hostile_fork__forged_pass_is_posted_as_an_unverified_claim_fully_escaped(
    tmp_path: Path, github: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = workflow_run_env(tmp_path, github, forged_report())

    result = run_action(env, monkeypatch)

    assert result.exit_code == 0, result.output  # published: that is all the exit code says
    (comment,) = github.comments[PR]
    body = comment["body"]
    assert body.startswith(f"<!-- ground-gate:default -->\n{HEADLINE}\n{NOTE}\n\n")
    assert "All good!" not in body  # the forged report.md is never read
    assert "\u2705" not in body  # no check mark anywhere: a claimed pass is not shown as one
    assert "\u274c" in body  # its failing check is still shown as failing
    assert EVIL not in body
    assert_inert(body)
    assert "\ufffd" in body  # the bidi controls were replaced where everyone can see them
    summary = Path(env["GITHUB_STEP_SUMMARY"]).read_text()
    assert summary == body.split("\n", 1)[1]
    assert outputs(env)["passed"] == "false"
    assert outputs(env)["summary"] == (
        "ground-gate: reported by the pull request's run, not re-verified: passed"
    )


def test_hostile_fork__a_forged_failure_still_exits_0_once_published(
    tmp_path: Path, github: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    report = forged_report()
    report.update(status="failed", passed=False)
    env = workflow_run_env(tmp_path, github, report)

    result = run_action(env, monkeypatch)

    assert result.exit_code == 0, result.output
    body = github.comments[PR][0]["body"]
    assert "## ground-gate: reported by the pull request's run: failed\n" in body
    assert_inert(body)


@pytest.mark.parametrize(
    ("broken", "problem"),
    [
        (lambda r: r.update(passed="yes"), "$.passed: 'yes' is not of type 'boolean'"),
        (lambda r: r.update(status="\u2705 passed @team"), "$.status: '\u2705 passed @team'"),
        (lambda r: r.update(markdown=FORGED_MD), "$: Additional properties are not allowed"),
        (lambda r: r["scores"][0].update(mean="0.99"), "$.scores[0].mean: '0.99' is not of"),
        (lambda r: r.pop("rows"), "$: 'rows' is a required property"),
        # names are a closed set: a score or metric no ground-gate writes is no report
        (lambda r: r["scores"][0].update(score=EVIL), "$.scores[0].score: 'cc @octo-org"),
        (
            lambda r: r["usage"]["by_metric"].update({EVIL: usage()}),
            "$.usage.by_metric: 'cc @octo-org",
        ),
    ],
)
def test_hostile_fork__an_invalid_report_is_refused_nothing_posted_exit_2(
    tmp_path: Path,
    github: FakeGitHub,
    monkeypatch: pytest.MonkeyPatch,
    broken: Any,
    problem: str,
) -> None:
    report = forged_report()
    broken(report)
    env = workflow_run_env(tmp_path, github, report)

    result = run_action(env, monkeypatch)

    assert result.exit_code == 2, result.output
    assert github.requests == []  # refused before asking GitHub anything
    warning = next(line for line in result.output.splitlines() if line.startswith("::warning"))
    assert warning.startswith(
        "::warning title=ground-gate::not publishing the pull request run's report: report.json: "
        f"does not match the published report schema ({problem}"
    )
    assert warning.endswith("; nothing was posted")
    assert "Traceback" not in result.output
    summary = Path(env["GITHUB_STEP_SUMMARY"]).read_text()
    assert summary.startswith("## ground-gate: nothing published\n")
    assert outputs(env)["passed"] == "false"


@pytest.mark.parametrize(
    "text",
    ["", "not json", "[1, 2]", '"a string"', "[" * 50_000 + "]" * 50_000, '{"a": NaN'],
)
def test_hostile_fork__an_unreadable_report_is_refused_exit_2(
    tmp_path: Path, github: FakeGitHub, monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    env = workflow_run_env(tmp_path, github, text)

    result = run_action(env, monkeypatch)

    assert result.exit_code == 2, result.output
    assert github.requests == []
    assert "::warning title=ground-gate::not publishing the pull request run's report: " in (
        result.output
    )
    assert "Traceback" not in result.output


def test_hostile_fork__a_comment_github_refuses_exits_2(
    tmp_path: Path, github: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    github.script("create-comment", 403, message="Resource not accessible by integration")
    env = workflow_run_env(tmp_path, github, forged_report())

    result = run_action(env, monkeypatch)

    assert result.exit_code == 2, result.output  # could not publish
    assert "::warning title=ground-gate::could not comment on pull request #18" in result.output


def test_hostile_fork__a_pr_number_aimed_elsewhere_is_not_commented(
    tmp_path: Path, github: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    github.pull_heads[3] = "0000000000000000000000000000000000000003"
    env = workflow_run_env(tmp_path, github, forged_report(), **{"pr-number.txt": "3\n"})

    result = run_action(env, monkeypatch)

    assert result.exit_code == 0, result.output  # nothing to publish for that pull request
    assert github.comments == {}
    assert "not commenting: pull request #3 is at 0000000000000000000000000000000000000003" in (
        result.output
    )


def test_hostile_fork__without_a_token_it_could_not_publish(
    tmp_path: Path, github: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = workflow_run_env(tmp_path, github, forged_report())
    env["INPUT_GITHUB-TOKEN"] = ""

    result = run_action(env, monkeypatch)

    assert result.exit_code == 2, result.output
    assert github.requests == []


@pytest.mark.parametrize(
    ("number", "why"),
    [
        ("NaN", "NaN is not a JSON number"),
        ("Infinity", "Infinity is not a JSON number"),
        ("1e999", "1e999 is out of range for a number"),
    ],
)
def test_hostile_fork__a_report_holding_nan_or_infinity_is_refused(
    tmp_path: Path,
    github: FakeGitHub,
    monkeypatch: pytest.MonkeyPatch,
    number: str,
    why: str,
) -> None:
    """`"mean": NaN` is what Python's json writes and reads by default, and `nan < 0.8` is
    false: the strict reader refuses it before any number reaches the comment."""
    text = json.dumps(forged_report()).replace('"mean": 0.05', f'"mean": {number}', 1)
    assert number in text
    env = workflow_run_env(tmp_path, github, text)

    result = run_action(env, monkeypatch)

    assert result.exit_code == 2, result.output
    assert github.requests == []
    assert (
        "::warning title=ground-gate::not publishing the pull request run's report: report.json: "
        f"not JSON ({why}); nothing was posted"
    ) in result.output
