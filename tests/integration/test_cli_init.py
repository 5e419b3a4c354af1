"""`ground-gate init` on a user's own rows, then `ground-gate run` with the config it wrote,
against the scripted OpenAI-compatible server on 127.0.0.1: the first minute, end to end."""

from __future__ import annotations

import csv
import json
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from ground_gate.cli import cli
from ground_gate.stages.starter import origin
from tests.integration.fake_openai import FAKE_KEY_ENV, FakeOpenAI
from tests.integration.test_cli_run import ROWS, grade

SECRET = "sk-init-run-secret"


def test_init_then_run__the_written_config_reaches_a_report(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the judge cache (.ground-gate/cache) goes here too
    (tmp_path / "evals").mkdir()
    with (tmp_path / "evals" / "support.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["Ticket ID", "Query", "Retrieved passages", "Bot answer"])
        for row in ROWS:
            writer.writerow(
                [row["id"], row["question"], json.dumps(row["contexts"]), row["answer"]]
            )
    runner = CliRunner()
    with FakeOpenAI(handler=grade) as server:
        init = runner.invoke(
            cli,
            ["init", "--data", "evals/support.csv", "--base-url", server.url,
             "--model", "fake-model", "--api-key-env", FAKE_KEY_ENV,
             "--response-column", "Bot answer", "--id-column", "Ticket ID"],
        )  # fmt: skip
        assert init.exit_code == 0, init.output
        assert server.request_count == 0  # init calls no judge
        run = runner.invoke(
            cli,
            ["run", "-c", "ground-gate.yml", "--output-json", "ground-gate-report/report.json",
             "--output-html", "ground-gate-report/report.html"],
            env={FAKE_KEY_ENV: SECRET},
        )  # fmt: skip
    assert "Traceback" not in run.output
    assert run.exit_code == 1, run.output  # the row that ships to Mars misses the thresholds
    report = json.loads((tmp_path / "ground-gate-report" / "report.json").read_text("utf-8"))
    assert [r["id"] for r in report["rows"]] == ["good-1", "good-2", "mars-1"]
    assert report["status"] == "failed"
    assert {e["score"] for e in report["scores"]} >= {"groundedness", "answered"}
    assert (tmp_path / "ground-gate-report" / "report.html").is_file()
    assert server.request_count > 0
    for name in ("ground-gate.yml", ".github/workflows/ground-gate.yml"):
        assert SECRET not in (tmp_path / name).read_text(encoding="utf-8")


def _git(*args: str) -> None:
    subprocess.run(["git", *args], check=True, stdin=subprocess.DEVNULL, capture_output=True)


@pytest.fixture
def user_repo(tmp_path, monkeypatch):
    """The user's own repository (its remote is the user's app, not ground-gate) with rows."""
    repo = tmp_path / "app"
    repo.mkdir()
    _git("init", "-q", str(repo))
    _git("-C", str(repo), "remote", "add", "origin", "https://github.com/someuser/app.git")
    (repo / "rows.jsonl").write_text(
        '{"question": "q", "context": "c", "response": "r"}\n', encoding="utf-8"
    )
    monkeypatch.chdir(repo)
    monkeypatch.setattr(origin, "SOURCE", tmp_path / "nowhere")
    return repo


def _init() -> tuple[list[str], str]:
    result = CliRunner().invoke(cli, ["init", "--data", "rows.jsonl", "--no-api-key",
                                      "--base-url", "http://127.0.0.1:9/v1", "--model", "m"])  # fmt: skip
    assert result.exit_code == 0, result.output
    workflow = Path(".github/workflows/ground-gate.yml").read_text(encoding="utf-8")
    [uses] = [line.strip() for line in workflow.splitlines() if "ground-gate@" in line]
    return result.stdout.splitlines(), uses


def test_init__the_action_from_the_clone_ground_gate_was_installed_from(
    user_repo, tmp_path, monkeypatch
):
    clone = tmp_path / "ground-gate"
    clone.mkdir()
    _git("init", "-q", str(clone))
    _git("-C", str(clone), "remote", "add", "origin", "git@github.com:forker/ground-gate.git")
    (clone / "action.yml").write_text("name: ground-gate\n", encoding="utf-8")
    info = tmp_path / "site" / "gg_installed-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: gg-installed\nVersion: 0.1.0\n"
        "Project-URL: Repository, https://github.com/ground-gate/ground-gate\n",
        encoding="utf-8",
    )
    (info / "direct_url.json").write_text(
        json.dumps({"url": clone.as_uri(), "dir_info": {"editable": True}}), encoding="utf-8"
    )
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    monkeypatch.setattr(origin, "DISTRIBUTION", "gg-installed")
    lines, uses = _init()
    assert uses == "uses: forker/ground-gate@v1"  # not someuser/app: the user's own remote
    assert (
        "  action: forker/ground-gate@v1 (github.com/forker/ground-gate, where ground-gate "
        "came from: the git remote of the clone it was installed from; --action to change)" in lines
    )


def test_init__a_placeholder_and_what_to_replace_when_nothing_tells(user_repo, monkeypatch):
    monkeypatch.setattr(origin, "DISTRIBUTION", "gg-not-installed")
    lines, uses = _init()
    assert uses == "uses: OWNER/ground-gate@v1"
    assert lines[lines.index("next:") - 1 : lines.index("next:") + 2] == [
        "  action: OWNER/ground-gate@v1 (a placeholder: where ground-gate came from is not known here)",
        "next:",
        "  replace OWNER in .github/workflows/ground-gate.yml (uses: OWNER/ground-gate@v1) with the "
        "account that hosts ground-gate's action, or run init again with --action OWNER/REPO@REF",
    ]
