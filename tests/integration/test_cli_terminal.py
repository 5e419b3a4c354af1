"""`ground-gate run`, `merge` and `report` at a terminal: a real process whose stdout is a
pseudo-terminal (pty), against the scripted OpenAI-compatible server. The summary is for
people: no HTML tag, every line within the terminal's width and wrapped rather than cut (the
invented sentence read whole at 80 columns), every check's score shown when the run passes
too, the verdict last with an unfinished run's cause whole, each progress bar labelled with
what it counts; a pipe or `--output-md -` still gets the markdown. And `--version` imports no
judge client."""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys
from pathlib import Path

from ground_gate.render.terminal_text import columns
from ground_gate.review.figures import score_cell, threshold_text
from tests.integration.fake_openai import FakeOpenAI, Reply, error
from tests.integration.target_app import command, model_and_judge
from tests.integration.test_cli_run import grade, write_project
from tests.integration.test_cli_targets import command_project
from tests.rendered import verdict_line

ENV = {"FAKE_KEY": "sk-secret-value"}
COLUMNS = 72
TAG = re.compile(r"</?[a-z]+[ >/]")


def at_terminal(*args: str, cwd: Path, width: int = COLUMNS) -> tuple[int, str]:
    """Run `ground-gate ARGS` with its stdout and stderr on a pseudo-terminal of `width`
    columns; (exit code, what it printed, line endings as \\n)."""
    leader, follower = pty.openpty()
    env = {**os.environ, **ENV, "COLUMNS": str(width), "LINES": "40", "TERM": "dumb"}
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


def screen(printed: str) -> list[str]:
    """What the terminal shows: each line as its last redraw left it (a progress bar redraws
    its line after carriage returns)."""
    return [line.split("\r")[-1] for line in printed.rstrip("\n").split("\n")]


def drawn(printed: str) -> list[str]:
    """Every line drawn, each redraw of a bar apart."""
    return [part for line in printed.split("\n") for part in line.split("\r")]


def joined(lines: list[str]) -> str:
    return " ".join(" ".join(lines).split())


def test_run__at_a_terminal_a_summary_for_people_with_the_verdict_last(tmp_path):
    with FakeOpenAI(handler=grade) as server:
        config = write_project(tmp_path, server.url)
        code, printed = at_terminal(
            "run", "-c", str(config), "--output-json", "out/report.json",
            "--output-html", "out/report.html", cwd=tmp_path,
        )  # fmt: skip
    report = json.loads((tmp_path / "out" / "report.json").read_text(encoding="utf-8"))
    lines = screen(printed)
    assert code == 0, printed
    assert lines[-1] == verdict_line(report, 0) == "PASSED (exit 0): 2 of 2 checks passed"
    assert not TAG.search(printed), printed  # no <details>, no HTML at all
    assert "|---" not in printed  # no markdown table
    assert all(columns(line) <= COLUMNS for line in drawn(printed)), printed
    assert "Reports: JSON out/report.json, page out/report.html" in lines
    assert "ground-gate: 3 rows in 1 dataset, judged by fake-model" in lines
    # a passing run shows its scores against their thresholds
    assert "support (3 rows): 2 of 2 checks passed" in lines
    grounded = report["scores"][0]
    assert grounded["score"] == "groundedness"
    said = f"{score_cell(grounded)}{threshold_text(grounded['threshold'])}"  # the report's
    assert said == f"{grounded['mean']:.2f} (\u2265 0.50)"
    assert f"  \u2705 groundedness   pass: {said}" in lines
    assert any(line.startswith("  \u2705 hallucination  pass: ") for line in lines)
    # a score with no threshold is not a line: the summary holds the checks (the page, all)
    assert not any("no threshold" in line for line in lines)
    # the bar says what it counts
    assert "judging rows [" in printed


INVENTED = "We ship to Mars and to every moon of Jupiter, free of charge, with a free astronaut."


def test_run__at_80_columns_a_failed_run_reads_its_checks_and_invented_sentence_whole(tmp_path):
    rows = [{"id": f"mars-{i}", "context": "We ship to Europe.", "answer": INVENTED}
            for i in range(3)]  # fmt: skip
    with FakeOpenAI(handler=grade) as server:
        config = write_project(tmp_path, server.url, rows=rows)
        code, printed = at_terminal("run", "-c", str(config), cwd=tmp_path, width=80)
    lines = screen(printed)
    assert code == 1, printed
    assert lines[-1] == "FAILED (exit 1): 2 of 2 checks failed"
    assert all(columns(line) <= 80 for line in drawn(printed)), printed
    assert "\u2026" not in printed  # nothing cut
    assert "Worst rows:" in lines
    assert "  \u274c support/mars-0: fails groundedness, hallucination" in lines
    assert f"\u201c{INVENTED}\u201d" in joined(lines)  # wrapped, whole
    fails = [line for line in lines if line.startswith("  \u274c groundedness   fail: ")]
    assert len(fails) == 1 and fails[0].endswith(" < 0.50")  # the threshold it missed
    assert not TAG.search(printed)


def test_run__at_a_terminal_an_unfinished_run_ends_on_its_cause_said_once(tmp_path):
    def falls_over(body: object) -> Reply:
        if "Mars" in json.dumps(body):
            return error(500, "the judge fell over: upstream connect error or disconnect/"
                         "reset before headers, reset reason: connection termination")  # fmt: skip
        return grade(body)

    with FakeOpenAI(handler=falls_over) as server:
        config = write_project(tmp_path, server.url, retries=0)
        code, printed = at_terminal(
            "run", "-c", str(config), "--output-json", "r.json", cwd=tmp_path, width=80
        )
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    lines = screen(printed)
    assert code == 2, printed
    cause = report["incomplete"]
    assert len(cause) > 150 and "connection termination" in cause
    # the verdict, last, after a blank line: the cause whole on its last lines, said once
    verdict = lines[len(lines) - 1 - lines[::-1].index("") + 1 :]
    assert joined(verdict) == verdict_line(report, 2)
    assert joined(verdict).endswith(f"the run did not finish: {cause}")
    assert joined(lines).count("connection termination") == 1  # no "error:" line above
    assert all(columns(line) <= 80 for line in drawn(printed)), printed


def test_run__a_targets_bar_and_the_judges_each_say_what_they_count(tmp_path):
    with FakeOpenAI(handler=model_and_judge) as judge:
        config = command_project(tmp_path, judge.url, "answer")
        assert command("answer")[-1] == "answer"
        code, printed = at_terminal("run", "-c", str(config), cwd=tmp_path)
    assert code == 0, printed
    bars = [part for part in drawn(printed) if "[" in part and "ETA" in part]
    assert bars, printed
    labels = {part.split(" [")[0] for part in bars}
    assert labels == {"answering rows (target of support)", "judging rows"}, labels
    assert all(columns(part) < COLUMNS for part in bars)


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
    assert printed.rstrip("\n").split("\n")[-1] == "PASSED (exit 0): 2 of 2 checks passed"
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
        "('ground_gate.commands.run', 'ground_gate.stages.report_files', 'ground_gate.metrics', "
        "'ground_gate.local.commands')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    assert out.endswith("[]\n"), out
