"""Nothing a run writes replaces a file it did not write (issue 43, item 7), against the scripted
judge on 127.0.0.1 and a real command target: an output path holding a user's file (any
content, a near-report included) is refused with exit 2 before any call, the file byte for
byte; `--force` replaces it; an earlier ground-gate output of the same kind is replaced without
it; and a file a target makes at an output path during the run is kept, not written over."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from hypothesis import example, given, settings
from hypothesis import strategies as st

from ground_gate.cli import cli
from ground_gate.leaves.own_files import is_own
from tests.integration.fake_github import FakeGitHub
from tests.integration.fake_openai import FakeOpenAI
from tests.integration.target_app import COMMAND, config_text, model_and_judge, write_questions
from tests.integration.test_github_action_shards import invoke as invoke_job
from tests.integration.test_github_action_shards import job_env
from tests.integration.test_github_entrypoint import TOKEN as ENTRYPOINT_TOKEN
from tests.integration.test_github_entrypoint import action_env as entrypoint_env
from tests.integration.test_github_entrypoint import invoke as invoke_action

PYTHON = shutil.which("python3") or sys.executable
# (option, the file's kind, what messages call it)
OPTIONS = [
    ("--output-json", "json", "a JSON report"),
    ("--output-md", "markdown", "a markdown report"),
    ("--output-junit", "junit", "a JUnit XML report"),
    ("--output-html", "html", "an HTML report page"),
    ("--output-responses", "responses", "a targets' responses file"),
]


def sh_project(root: Path, url: str, mode: str = "answer") -> Path:
    """questions.jsonl answered by answer_file.py, reached only through `sh -c` (no argument
    of the command names the script), the calls it answers counted in calls.txt."""
    rows = [
        {"id": f"q{i}", "question": "Weight?", "context": f"It weighs {i} kg."} for i in (1, 2, 3)
    ]
    write_questions(root, rows)
    (root / "answer_file.py").write_text(COMMAND.read_text(encoding="utf-8"), encoding="utf-8")
    argv = json.dumps(["sh", "-c", f"{PYTHON} answer_file.py {mode}"])
    config = root / "gate.yml"
    config.write_text(config_text(url, root, f"      command: {argv}"), encoding="utf-8")
    return config


def run(root: Path, *args: str) -> Result:
    result = CliRunner().invoke(
        cli, ["run", "-c", "gate.yml", "--quiet", *args], env={"FAKE_KEY": "sk-judge-key"}
    )
    assert "Traceback" not in result.output, result.output
    assert "sk-judge-key" not in result.output
    return result


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)  # a command runs where ground-gate runs
    return tmp_path


def test_run__the_script_sh_c_runs_is_never_an_output(here: Path) -> None:
    """The defect: `--output-json answer_file.py` overwrote the script a target runs through
    `sh -c "python3 answer_file.py"`, which no argument names."""
    with FakeOpenAI(handler=model_and_judge) as server:
        config = sh_project(here, server.url, "count calls.txt")
        script = (here / "answer_file.py").read_bytes()
        refused = run(here, "--output-json", "answer_file.py")
        assert refused.exit_code == 2, refused.output
        assert refused.stderr == (
            "ground-gate: error: --output-json answer_file.py: exists and is not a JSON report "
            "ground-gate wrote; --force overwrites it\n"
        )
        assert (here / "answer_file.py").read_bytes() == script
        assert server.request_count == 0 and not (here / "calls.txt").exists()  # before any call

        answered = run(here, "--output-json", "report.json")  # the target works from there
        assert answered.exit_code == 0, answered.output
        assert (here / "calls.txt").read_text(encoding="utf-8").split() == ["q1", "q2", "q3"]

        forced = run(here, "--output-json", "answer_file.py", "--force")
        assert forced.exit_code == 0, forced.output
        assert is_own(here / "answer_file.py", "json")
    assert config.is_file()


@settings(max_examples=25)
@given(
    option=st.sampled_from(OPTIONS),
    content=st.one_of(
        st.binary(max_size=200),
        st.sampled_from(
            [
                b'{"schema_version": 1, "tool": {"name": "ground_gate"}}',
                "## ✅ ground-gate passed\n".encode(),
                b'<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="ground">',
                b'<!DOCTYPE html>\n<meta name="generator" content="ground-gat">\n',
                b'{"dataset": "d", "id": "1", "response": "r", "contexts": null}\n',
            ]
        ),
    ),
)
@example(option=OPTIONS[0], content=b"#!/usr/bin/env python3\nprint('mine')\n")
def test_run__a_file_it_did_not_write_is_kept_byte_for_byte(
    tmp_path_factory: pytest.TempPathFactory, option: tuple[str, str, str], content: bytes
) -> None:
    flag, kind, what = option
    root = tmp_path_factory.mktemp("kept")
    with FakeOpenAI(handler=model_and_judge) as server:
        write_questions(root)
        target = json.dumps([sys.executable, str(COMMAND), "answer"])
        (root / "gate.yml").write_text(
            config_text(server.url, root, f"      command: {target}"), encoding="utf-8"
        )
        mine = root / "mine.out"
        mine.write_bytes(content)
        if kind == "responses" and content == b"":
            return  # an empty responses.jsonl is one: no row was answered
        result = CliRunner().invoke(
            cli, ["run", "-c", str(root / "gate.yml"), "--quiet", flag, str(mine)],
            env={"FAKE_KEY": "sk-judge-key"},
        )  # fmt: skip
        assert server.request_count == 0
    assert result.exit_code == 2, result.output
    assert result.stderr == (
        f"ground-gate: error: {flag} {mine}: exists and is not {what} ground-gate wrote; "
        "--force overwrites it\n"
    )
    assert mine.read_bytes() == content


def test_run__its_own_earlier_outputs_are_replaced_and_a_users_only_with_force(
    here: Path,
) -> None:
    paths = {flag: here / "out" / f"report.{kind}" for flag, kind, _ in OPTIONS}
    args = [item for flag, path in paths.items() for item in (flag, str(path))]
    with FakeOpenAI(handler=model_and_judge) as server:
        sh_project(here, server.url)
        first = run(here, *args)
        assert first.exit_code == 0, first.output
        earlier = {flag: path.read_bytes() for flag, path in paths.items()}
        for flag, kind, _ in OPTIONS:
            assert is_own(paths[flag], kind), flag
        # an earlier output of another run of the same kind: its own, replaced
        report = json.loads(earlier["--output-json"])
        report["created_at"] = "2000-01-01T00:00:00+00:00"
        paths["--output-json"].write_text(json.dumps(report), encoding="utf-8")
        second = run(here, *args)
        assert second.exit_code == 0, second.output
        assert json.loads(paths["--output-json"].read_bytes())["created_at"] != report["created_at"]
        # a user's file at one path: refused, the others untouched, nothing asked
        paths["--output-md"].write_text("# my notes\n", encoding="utf-8")
        calls = server.request_count
        third = run(here, *args)
        assert third.exit_code == 2
        assert "--output-md" in third.stderr and server.request_count == calls
        assert paths["--output-md"].read_text(encoding="utf-8") == "# my notes\n"
        forced = run(here, *args, "--force")
        assert forced.exit_code == 0, forced.output
        assert is_own(paths["--output-md"], "markdown")


def test_run__a_file_the_target_makes_at_an_output_path_is_kept(here: Path) -> None:
    """The check is made again as each file is written: the target wrote report.md while
    answering (its `count` mode appends each row's id to it), so the run does not replace it,
    says so (exit 2), and still writes the JSON report."""
    with FakeOpenAI(handler=model_and_judge) as server:
        sh_project(here, server.url, "count report.md")
        result = run(here, "--output-md", "report.md", "--output-json", "report.json")
    assert result.exit_code == 2, result.output
    assert (
        "ground-gate: error: --output-md report.md: exists and is not a markdown report "
        "ground-gate wrote; --force overwrites it"
    ) in result.stderr
    assert (here / "report.md").read_text(encoding="utf-8").split() == ["q1", "q2", "q3"]
    assert is_own(here / "report.json", "json")


def test_calibrate__a_users_file_is_refused_before_the_judge_is_called(here: Path) -> None:
    with FakeOpenAI(handler=model_and_judge) as server:
        sh_project(here, server.url)
        labels = here / "labels.jsonl"
        row = {"id": "1", "source": "It weighs 1 kg.", "response": "1 kg.", "label": 1}
        labels.write_text(json.dumps(row) + "\n", encoding="utf-8")
        (here / "notes.md").write_text("mine\n", encoding="utf-8")
        result = CliRunner().invoke(
            cli, ["calibrate", "-c", "gate.yml", "--labels", "labels.jsonl",
                  "--output-md", "notes.md"], env={"FAKE_KEY": "sk-judge-key"},
        )  # fmt: skip
        assert server.request_count == 0
    assert result.exit_code == 2, result.output
    assert "--output-md notes.md: exists and is not a markdown report" in result.stderr
    assert (here / "notes.md").read_text(encoding="utf-8") == "mine\n"


@pytest.fixture
def github_token() -> str:
    return ENTRYPOINT_TOKEN


def test_action__a_file_of_the_repositorys_in_its_folder_is_not_written_over(
    tmp_path: Path, judge: FakeOpenAI, github: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The action's folder holds a link to a file of the repository (a pull request can commit
    one): the action says so and ends (exit 2) before the judge is called, the file intact;
    its own earlier reports there are replaced (the next run)."""
    env = entrypoint_env(tmp_path, judge, github)
    workspace = Path(env["GITHUB_WORKSPACE"])
    (workspace / "README.md").write_text("# the project\n", encoding="utf-8")
    (workspace / "ground-gate-report").mkdir()
    page = workspace / "ground-gate-report" / "report.html"
    page.symlink_to(workspace / "README.md")
    result = invoke_action(env, monkeypatch)
    assert result.exit_code == 2, result.output
    assert (
        "report.html: exists and is not an HTML report page ground-gate wrote; the action "
        "writes its reports in "
    ) in result.output
    assert judge.request_count == 0
    assert (workspace / "README.md").read_text(encoding="utf-8") == "# the project\n"
    page.unlink()
    assert invoke_action(env, monkeypatch).exit_code == 1  # the run's verdict: it ran
    assert invoke_action(env, monkeypatch).exit_code == 1  # its own reports replaced
    assert is_own(page, "html") and not page.is_symlink()


def test_action__a_shards_baseline_copy_never_replaces_a_file_of_the_repositorys(
    tmp_path: Path, judge: FakeOpenAI, github: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A shard compared with a baseline leaves its copy as ground-gate-report/baseline.json:
    a file of the repository's there is refused before any call, as the report files are."""
    main = job_env(tmp_path, "main", judge, github, comment="never")
    assert invoke_job(main, monkeypatch).exit_code == 1
    env = job_env(tmp_path, "shard", judge, github, shard="1/4", baseline="main.json")
    workspace = Path(env["GITHUB_WORKSPACE"])
    shutil.copyfile(Path(main["GITHUB_WORKSPACE"]) / "ground-gate-report/report.json",
                    workspace / "main.json")  # fmt: skip
    (workspace / "ground-gate-report").mkdir()
    (workspace / "ground-gate-report" / "baseline.json").write_text("mine\n", encoding="utf-8")
    calls = judge.request_count
    result = invoke_job(env, monkeypatch)
    assert result.exit_code == 2, result.output
    assert "its baseline copy " in result.output
    assert "baseline.json: exists and is not a JSON report ground-gate wrote" in result.output
    assert (workspace / "ground-gate-report" / "baseline.json").read_text("utf-8") == "mine\n"
    assert judge.request_count == calls
