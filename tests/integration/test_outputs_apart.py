"""No file the run writes overwrites another or an input (issue 31): responses.jsonl is
checked like the report files, and a target's own files (its prompt, its command's script,
its depends_on files) are inputs. Each case exits 2 before any call, the input kept."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from ground_gate.cli import cli
from tests.integration.fake_openai import FakeOpenAI
from tests.integration.target_app import COMMAND, config_text, model_and_judge, write_questions
from tests.integration.test_cli_targets import prompt_project


def _refused(config: Path, server: FakeOpenAI, *options: str) -> str:
    inputs = {p: p.read_bytes() for p in config.parent.rglob("*") if p.is_file()}
    result = CliRunner().invoke(cli, ["run", "-c", str(config), "--quiet", *options],
                                env={"FAKE_KEY": "sk-judge-key"})  # fmt: skip
    assert result.exit_code == 2, result.output
    assert server.request_count == 0
    assert {p: p.read_bytes() for p in inputs} == inputs  # every input as it was
    assert "Traceback" not in result.output
    return result.output


def test_run__responses_on_the_report_or_on_the_dataset_is_refused(tmp_path: Path) -> None:
    with FakeOpenAI(handler=model_and_judge) as server:
        config = prompt_project(tmp_path, server.url)
        report = tmp_path / "x.json"
        said = _refused(config, server, "--output-json", str(report),
                        "--output-responses", str(report))  # fmt: skip
        assert f"the targets' responses and the JSON report are one file ({report})" in said
        dataset = tmp_path / "questions.jsonl"
        said = _refused(config, server, "--output-responses", str(dataset))
        assert f"the targets' responses and dataset support's file are one file ({dataset})" in said


@pytest.mark.parametrize("option", ["--output-md", "--output-json", "--output-responses"])
def test_run__an_output_on_the_targets_prompt_file_is_refused(tmp_path: Path, option: str) -> None:
    with FakeOpenAI(handler=model_and_judge) as server:
        config = prompt_project(tmp_path, server.url)
        prompt = tmp_path / "prompts" / "answer.md"
        said = _refused(config, server, option, str(prompt))
    assert f"dataset support's prompt file are one file ({prompt})" in said


def test_run__an_output_on_the_commands_script_or_depends_on_file_is_refused(
    tmp_path: Path,
) -> None:
    write_questions(tmp_path)
    script = tmp_path / "app.py"
    script.write_text(COMMAND.read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "app.mode").write_text("answer", encoding="utf-8")
    argv = json.dumps([sys.executable, str(script), "answer"])
    target = f"      command: {argv}\n      depends_on: [app.mode]"
    with FakeOpenAI(handler=model_and_judge) as server:
        config = tmp_path / "gate.yml"
        config.write_text(config_text(server.url, tmp_path, target), encoding="utf-8")
        said = _refused(config, server, "--output-html", str(script))
        assert f"dataset support's command file {script} are one file ({script})" in said
        said = _refused(config, server, "--output-junit", str(tmp_path / "app.mode"))
        assert "dataset support's depends_on file app.mode are one file" in said
