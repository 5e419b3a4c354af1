"""A command target's children end with it (issue 31): a program that leaves something
running in the background, holding its stdout, neither keeps the run waiting past its last
answer nor outlives the run, and a SIGTERM while it answers stops the run cleanly (exit 2, no
traceback) with the whole process group gone. Real processes; the judge is scripted on
127.0.0.1."""

from __future__ import annotations

import json
import shlex
import signal
import sys
import time
import uuid
from pathlib import Path

from tests.integration.fake_openai import FakeOpenAI
from tests.integration.target_app import (
    command,
    config_text,
    model_and_judge,
    run_in_background,
    write_questions,
)


def _marker() -> str:
    """A sleep duration no other process on the machine has on its command line."""
    return f"2999.{uuid.uuid4().int % 10**8:08d}"


def _running(marker: str) -> list[int]:
    """The processes whose command line holds `marker`."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                argv = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if marker.encode() in argv:
                found.append(int(entry.name))
    return found


def _gone(marker: str, within_s: float = 5.0) -> bool:
    deadline = time.monotonic() + within_s
    while _running(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not _running(marker)


def _project(root: Path, url: str, script: str, timeout_s: int) -> Path:
    write_questions(root)
    argv = json.dumps(["sh", "-c", script])
    config = root / "gate.yml"
    target = f"      command: {argv}\n      timeout_s: {timeout_s}"
    config.write_text(config_text(url, root, target), encoding="utf-8")
    return config


def test_command_target__a_background_child_holding_stdout_neither_stalls_nor_outlives_it(
    tmp_path: Path,
) -> None:
    marker = _marker()
    app = shlex.join(command("answer"))
    with FakeOpenAI(handler=model_and_judge) as judge:
        config = _project(tmp_path, judge.url, f"sleep {marker} & exec {app}", timeout_s=10)
        started = time.monotonic()
        process = run_in_background(config)
        _, stderr = process.communicate(timeout=60)
        took = time.monotonic() - started
    assert process.returncode == 0, stderr
    assert took < 10, f"the run waited {took:.1f} s on the child's open stdout"
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    (target,) = report["targets"]
    assert (target["answered"], target["errors"], target["stopped"]) == (20, 0, None)
    assert _gone(marker), "the command's background child outlived the run"


def test_command_target__sigterm_while_it_answers_ends_its_group_with_exit_2(
    tmp_path: Path,
) -> None:
    marker = _marker()
    silent = shlex.join([sys.executable, "-c", "import time; time.sleep(300)"])
    with FakeOpenAI(handler=model_and_judge) as judge:
        config = _project(tmp_path, judge.url, f"sleep {marker} & exec {silent}", timeout_s=120)
        process = run_in_background(config)
        deadline = time.monotonic() + 30
        while not _running(marker) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _running(marker), "the command never started"
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=30)
    assert process.returncode == 2, stderr
    assert "Traceback" not in stderr and "Event loop is closed" not in stderr, stderr
    assert "interrupted" in stderr
    assert _gone(marker), "the command's group outlived the run"
