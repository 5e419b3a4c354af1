"""`ground-gate run`, `merge` and `report` at a terminal: a real process whose stdout is a
pseudo-terminal (pty), against the scripted OpenAI-compatible server. The summary is for
people: no HTML tag, every line within the terminal's width, the verdict last; a pipe or
`--output-md -` still gets the markdown. And `--version` imports no judge client."""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys
from pathlib import Path

from ground_gate.report.terminal import verdict_line
from tests.integration.fake_openai import FakeOpenAI
from tests.integration.test_cli_run import grade, write_project

ENV = {"FAKE_KEY": "sk-secret-value"}
COLUMNS = 72
TAG = re.compile(r"</?[a-z]+[ >/]")


def at_terminal(*args: str, cwd: Path) -> tuple[int, str]:
    """Run `ground-gate ARGS` with its stdout and stderr on a pseudo-terminal of COLUMNS
    columns; (exit code, what it printed, line endings as \\n)."""
    leader, follower = pty.openpty()
    env = {**os.environ, **ENV, "COLUMNS": str(COLUMNS), "LINES": "40", "TERM": "dumb"}
    process = subprocess.Popen(
        [sys.executable, "-m", "ground_gate", *args],
        stdin=subprocess.DEVNULL,
        stdout=follower,
        stderr=follower,
        cwd=cwd,
        env=env,
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    code = process.wait(timeout=120)
    os.close(leader)
    return code, b"".join(chunks).decode("utf-8").replace("\r\n", "\n")


def test_run__at_a_terminal_a_summary_for_people_with_the_verdict_last(tmp_path):
    with FakeOpenAI(handler=grade) as server:
        config = write_project(tmp_path, server.url)
        code, printed = at_terminal(
            "run", "-c", str(config), "--output-json", "out/report.json",
            "--output-html", "out/report.html", cwd=tmp_path,
        )  # fmt: skip
    report = json.loads((tmp_path / "out" / "report.json").read_text(encoding="utf-8"))
    lines = printed.rstrip("\n").split("\n")
    assert code == 0, printed
    assert lines[-1] == verdict_line(report, 0) == "PASSED: 0 of 2 check(s) failed (exit 0)"
    assert not TAG.search(printed), printed  # no <details>, no HTML at all
    assert "|---" not in printed  # no markdown table
    # the progress bar (stderr) redraws its line with carriage returns
    assert all(len(part) <= COLUMNS for line in lines for part in line.split("\r")), printed
    assert "Reports: JSON out/report.json, page out/report.html" in printed
    assert "\nground-gate: 3 row(s) in 1 dataset(s), judged by fake-model\n" in printed


def test_run__at_a_terminal_a_failed_run_names_its_checks_and_rows(tmp_path):
    rows = [{"id": f"mars-{i}", "context": "We ship to Europe.", "answer": "We ship to Mars."}
            for i in range(3)]  # fmt: skip
    with FakeOpenAI(handler=grade) as server:
        config = write_project(tmp_path, server.url, rows=rows)
        code, printed = at_terminal("run", "-c", str(config), cwd=tmp_path)
    lines = printed.rstrip("\n").split("\n")
    assert code == 1, printed
    assert lines[-1].startswith("FAILED: ") and lines[-1].endswith("(exit 1)")
    assert "Failing checks:" in printed and "Worst rows:" in printed
    assert "  x support/mars-0: fails " in printed
    assert not TAG.search(printed)


def test_run__output_md_dash_at_a_terminal_is_still_the_markdown(tmp_path):
    with FakeOpenAI(handler=grade) as server:
        config = write_project(tmp_path, server.url)
        code, printed = at_terminal("run", "-c", str(config), "--output-md", "-", cwd=tmp_path)
    assert code == 0, printed
    assert "\n## \u2705 ground-gate: passed\n" in printed  # after the progress bar (stderr)
    assert printed.endswith("</details>\n")


def test_report__a_saved_run_at_a_terminal_and_through_a_pipe(tmp_path):
    with FakeOpenAI(handler=grade) as server:
        config = write_project(tmp_path, server.url)
        at_terminal("run", "-c", str(config), "--output-json", "r.json", cwd=tmp_path)
    code, printed = at_terminal("report", "r.json", cwd=tmp_path)
    assert code == 0, printed
    assert printed.rstrip("\n").split("\n")[-1] == "PASSED: 0 of 2 check(s) failed (exit 0)"
    piped = subprocess.run(
        [sys.executable, "-m", "ground_gate", "report", "r.json"],
        cwd=tmp_path, capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert piped.stdout.startswith("## \u2705 ground-gate: passed")


def test_version__imports_no_judge_client_nor_the_pipeline():
    probe = (
        "import sys, runpy; sys.argv = ['ground-gate', '--version']\n"
        "try:\n    runpy.run_module('ground_gate', run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('openai', 'jsonschema', 'nltk', 'httpx') or m in "
        "('ground_gate.commands.run', 'ground_gate.report_files', 'ground_gate.metrics', "
        "'ground_gate.local.commands')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    assert out.endswith("[]\n"), out
