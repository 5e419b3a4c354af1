"""What goes to stdout and stderr: `--output-json -`, `--output-md -`, `-v`, `-h`, and
`python -m ground_gate`, through the CLI against the scripted OpenAI-compatible server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

from click.testing import CliRunner

from ground_gate import __version__
from ground_gate.cli import cli
from tests.integration.fake_openai import FakeOpenAI, rate_limited
from tests.integration.test_cli_run import grade, write_project

ENV = {"FAKE_KEY": "sk-secret-value"}


def test_run__output_json_dash__stdout_holds_only_the_json_report(tmp_path):
    with FakeOpenAI(handler=grade) as server:
        config = write_project(tmp_path, server.url)
        result = CliRunner().invoke(cli, ["run", "-c", str(config), "--output-json", "-"], env=ENV)

    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["status"] == "passed"
    assert [r["id"] for r in report["rows"]] == ["good-1", "good-2", "mars-1"]
    assert "\n## \u2705 ground-gate: passed" in "\n" + result.stderr
    assert not (tmp_path / "-").exists()


def test_run__output_md_dash__stdout_holds_the_markdown_once(tmp_path):
    with FakeOpenAI(handler=grade) as server:
        config = write_project(tmp_path, server.url)
        result = CliRunner().invoke(cli, ["run", "-c", str(config), "--output-md", "-"], env=ENV)

    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("## \u2705 ground-gate: passed")
    assert result.stdout.count("ground-gate: passed") == 1
    assert not (tmp_path / "-").exists()


def test_run__both_reports_to_stdout_is_a_usage_error(tmp_path):
    config = write_project(tmp_path, "http://127.0.0.1:9/v1")

    result = CliRunner().invoke(
        cli, ["run", "-c", str(config), "--output-json", "-", "--output-md", "-"], env=ENV
    )

    assert result.exit_code == 2
    assert "only one report can go to stdout" in result.stderr
    assert result.stdout == ""


def test_run__verbose_shows_retries_and_waits_on_stderr(tmp_path):
    with FakeOpenAI(handler=grade) as server:
        server.push(rate_limited("0"))
        config = write_project(tmp_path, server.url)
        quiet = CliRunner().invoke(cli, ["run", "-c", str(config), "--no-cache"], env=ENV)
        server.push(rate_limited("0"))
        loud = CliRunner().invoke(cli, ["-v", "run", "-c", str(config), "--no-cache"], env=ENV)

    assert quiet.exit_code == loud.exit_code == 0, loud.output
    retry_lines = [line for line in loud.stderr.splitlines() if "429" in line]
    assert retry_lines, loud.stderr
    assert all(line.startswith("ground-gate: ") for line in retry_lines)
    assert not [line for line in quiet.stderr.splitlines() if "429" in line]
    assert "sk-secret-value" not in loud.stderr


def test_cli__h_is_help_for_the_group_and_every_command():
    for args in (["-h"], ["run", "-h"], ["action", "-h"], ["models", "-h"]):
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 0, (args, result.output)
        assert "Usage:" in result.stdout


def test_python_m_ground_gate__version():
    result = subprocess.run(
        [sys.executable, "-m", "ground_gate", "--version"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"ground-gate, version {__version__}\n"


def _collides(tmp_path, *extra: str) -> tuple[int, str, int]:
    with FakeOpenAI(handler=grade) as server:
        config = write_project(tmp_path, server.url)
        before = config.read_bytes()
        result = CliRunner().invoke(cli, ["run", "-c", str(config), *extra], env=ENV)
        calls = server.request_count
    assert config.read_bytes() == before
    return result.exit_code, result.stderr, calls


def test_run__two_report_files_on_one_path_are_refused_before_any_call(tmp_path):
    report = tmp_path / "a"
    code, stderr, calls = _collides(
        tmp_path, "--output-json", str(report), "--output-md", str(report)
    )
    assert (code, calls) == (2, 0)
    assert stderr == (
        f"ground-gate: error: the markdown report and the JSON report are one file ({report}): give "
        "each file written a path of its own, apart from the files the command reads\n"
    )
    assert not report.exists()
    code, stderr, calls = _collides(
        tmp_path, "--output-json", str(report), "--output-html", str(tmp_path / "b" / ".." / "a")
    )
    assert (code, calls) == (2, 0)
    assert f"are one file ({tmp_path / 'b' / '..' / 'a'} and {report})" in stderr


def test_run__a_report_file_on_an_input_is_refused_and_the_input_kept(tmp_path):
    for option, target in (
        ("--output-md", "gate.yml"),
        ("--output-junit", "rows.jsonl"),
        ("--output-html", "gate.yml"),
    ):
        path = tmp_path / target
        code, stderr, calls = _collides(tmp_path, option, str(path))
        assert (code, calls) == (2, 0), option
        assert f"are one file ({path}): give each file written a path of its own" in stderr


def test_baseline_and_report__a_fifo_or_a_device_is_refused_at_once(tmp_path):
    """A FIFO would block the run and /dev/zero never end: both are refused before a byte is
    read, with exit 2 and the file named."""
    fifo = tmp_path / "baseline.json"
    os.mkfifo(fifo)
    config = write_project(tmp_path, "http://127.0.0.1:9/v1")  # never asked
    for args, name in (
        (["run", "-c", str(config), "--baseline", str(fifo)], f"baseline {fifo}"),
        (["run", "-c", str(config), "--baseline", "/dev/zero"], "baseline /dev/zero"),
        (["report", str(fifo)], f"report {fifo}"),
        (["report", "/dev/zero"], "report /dev/zero"),
    ):
        started = time.monotonic()
        result = CliRunner().invoke(cli, args, env=ENV)
        assert time.monotonic() - started < 5, args
        assert result.exit_code == 2, (args, result.output)
        assert result.stderr == (
            f"ground-gate: error: {name}: not a regular file (a pipe or a device?), expected a "
            "JSON report\n"
        )


def test_report__two_documents_to_the_terminal_or_a_pipe_are_not_a_collision(tmp_path):
    """/dev/stdout and /dev/stderr after `2>&1` are one pipe, which takes both documents."""
    report = tmp_path / "report.json"
    with FakeOpenAI(handler=grade) as server:
        config = write_project(tmp_path, server.url)
        CliRunner().invoke(cli, ["run", "-c", str(config), "--output-json", str(report)], env=ENV)
    done = subprocess.run(
        f"{sys.executable} -m ground_gate report {report} --md /dev/stdout --html /dev/stderr 2>&1",
        shell=True,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout
    assert "<!DOCTYPE html>" in done.stdout and "ground-gate: passed" in done.stdout
