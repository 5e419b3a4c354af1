"""Each way the action ends is one function of action_endings.py, and every one of them writes
the job summary, the step outputs and the annotations through one writer: github/publish.py's
`write_ending`, handed an `Ending` of plain values."""

from __future__ import annotations

import ast
import inspect
import io
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ground_gate import action_endings
from ground_gate.action_settings import Settings
from ground_gate.github.publish import Ending, PublishResult, ReportPaths, write_ending
from ground_gate.github.step_outputs import command
from tests.action_env import FIXTURES, action_env, file_commands

ROOT = Path(__file__).parents[2] / "ground_gate"
REPORT: dict[str, Any] = {
    "status": "failed",
    "passed": False,
    "incomplete": None,
    "scores": [
        {"dataset": "docs", "score": "groundedness", "mean": 0.5, "n_error": 0,
         "threshold": {"min": 0.8}, "passed": False, "reason": "0.50 is not >= 0.8"},
    ],
    "judge": {"prompt_version": "p1"},
}  # fmt: skip

End = Callable[[Settings, ReportPaths, io.StringIO], PublishResult]
# every ending, called as the action calls it (no client: nothing leaves the machine)
ENDINGS: dict[str, tuple[str, End]] = {
    "publish": (
        "pull_request",
        lambda s, paths, out: action_endings.publish(
            s, markdown="## failed\n", report=REPORT, passed=False, client=None, paths=paths,
            out=out,
        ),
    ),
    "publish_artifact": (
        "workflow_run",
        lambda s, paths, out: action_endings.publish_artifact(
            s, report=REPORT, markdown="## claimed\n", pr_number=18, client=None, paths=paths,
            out=out,
        ),
    ),
    "refuse_artifact": (
        "workflow_run",
        lambda s, paths, out: action_endings.refuse_artifact(s, "not a report", out),
    ),
    "report_error": (
        "pull_request",
        lambda s, paths, out: action_endings.report_error(s, "judge unreachable", out),
    ),
}  # fmt: skip


def test_endings__every_ending_is_listed_here() -> None:
    """A new way of ending (a function of action_endings handing back a PublishResult) is
    added to ENDINGS, and so checked to write through the one writer."""
    endings = {
        name
        for name, function in inspect.getmembers(action_endings, inspect.isfunction)
        if function.__module__ == action_endings.__name__
        and not name.startswith("_")
        and inspect.signature(function).return_annotation == "PublishResult"
    }
    assert endings == set(ENDINGS)


@pytest.mark.parametrize("name", sorted(ENDINGS))
def test_endings__each_writes_once_through_the_one_writer(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    event, end = ENDINGS[name]
    commands = file_commands(tmp_path / "commands")
    fixture = "workflow_run_fork.json" if event == "workflow_run" else "pull_request.json"
    env = action_env(
        tmp_path, commands, api_url="http://127.0.0.1:9", event=event, event_path=FIXTURES / fixture
    )
    settings = Settings.from_env(env)
    paths = action_endings.report_paths(settings)
    paths.directory.mkdir()
    written: list[Ending] = []

    def spy(ending: Ending, **where: Any) -> PublishResult:
        written.append(ending)
        return write_ending(ending, **where)

    monkeypatch.setattr(action_endings, "write_ending", spy)
    out = io.StringIO()

    result = end(settings, paths, out)

    (ending,) = written
    assert commands.summary.read_text(encoding="utf-8") == ending.markdown
    outputs = re.findall(
        r"([\w-]+)<<(ghadelimiter_[0-9a-f-]{36})\n(.*?)\n\2\n", commands.output.read_text(), re.S
    )
    assert [(key, value) for key, _, value in outputs] == list(ending.outputs.items())
    log = out.getvalue().splitlines()
    for annotation in ending.annotations:
        line = command(annotation.level, annotation.message, {"title": annotation.title})
        assert line in log
    assert (result.summary, result.passed) == (ending.outputs["summary"], ending.passed)


def _calls(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
    }


def test_endings__nothing_else_writes_the_summary_the_outputs_or_an_annotation() -> None:
    """The job summary and the step outputs are written by github/publish.py alone; so are
    annotations, but for the post step's own warnings (it links a page; it ends nothing)."""
    writers: dict[str, set[str]] = {"append_step_summary": set(), "write_outputs": set()}
    writers["annotate"] = set()
    for path in sorted(ROOT.rglob("*.py")):
        called = _calls(path)
        for name, found in writers.items():
            if name in called:
                found.add(path.relative_to(ROOT).as_posix())
    assert writers == {
        "append_step_summary": {"github/publish.py"},
        "write_outputs": {"github/publish.py"},
        "annotate": {"github/publish.py", "action_post.py"},
    }


@pytest.mark.parametrize("message", ["", "  \n "])
def test_report_error__an_empty_message_still_says_there_was_an_error(
    message: str, tmp_path: Path
) -> None:
    commands = file_commands(tmp_path / "commands")
    env = action_env(
        tmp_path, commands, api_url="http://127.0.0.1:9", event="pull_request",
        event_path=FIXTURES / "pull_request.json",
    )  # fmt: skip
    result = action_endings.report_error(Settings.from_env(env), message, io.StringIO())
    assert result.summary == "ground-gate: error: an error with no message"
    assert "an error with no message" in commands.summary.read_text(encoding="utf-8")
