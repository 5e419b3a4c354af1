"""`ground-gate run` with a command target whose grandchild holds stdout in a session of its
own (issue 43, item 6): the exchange ends within timeout_s + 2 s, the messages say what
happened, and SIGTERM or SIGINT mid-exchange ends the run with exit 2, no traceback and no
process of the tree left. Real processes (tree_command.py); the judge is scripted on
127.0.0.1."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.integration.fake_openai import FakeOpenAI
from tests.integration.target_app import (
    config_text,
    model_and_judge,
    run_in_background,
    write_questions,
)
from tests.integration.test_command_tree import TREE_COMMAND, kill_marked, marked

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the supervisor needs /proc")

# a daemon in a session of its own (setsid, then a double fork: its parent exits, it is
# orphaned), deaf to SIGTERM, holding the command's stdout and stderr, sleeping forever
DAEMON = {"setsid": True, "double_fork": True, "ignore_term": True, "hold": "both",
          "forever": True, "children": []}  # fmt: skip


def _project(root: Path, url: str, spec: dict[str, Any], marker: str, timeout_s: int) -> Path:
    write_questions(root)
    pids = root / "pids"
    pids.mkdir()
    (root / "tree.json").write_text(json.dumps(spec), encoding="utf-8")
    argv = [sys.executable, str(TREE_COMMAND), str(root / "tree.json"), str(pids), marker]
    target = f"      command: {json.dumps(argv)}\n      timeout_s: {timeout_s}"
    config = root / "gate.yml"
    config.write_text(config_text(url, root, target), encoding="utf-8")
    return config


def _target(root: Path) -> dict[str, Any]:
    report = json.loads((root / "report.json").read_text(encoding="utf-8"))
    (target,) = report["targets"]
    return dict(target)


@pytest.mark.parametrize("then", ["exit", "sleep"])
def test_run__a_grandchild_holding_stdout_in_its_own_session_ends_within_timeout_s_plus_2_s(
    tmp_path: Path, then: str
) -> None:
    marker = f"tree-{uuid.uuid4().hex}"
    spec = {"answer": -1, "then": then, "ignore_term": True, "children": [DAEMON]}
    try:
        with FakeOpenAI(handler=model_and_judge) as judge:
            process = run_in_background(_project(tmp_path, judge.url, spec, marker, timeout_s=2))
            _, stderr = process.communicate(timeout=60)
        left = marked(marker)
    finally:
        kill_marked(marker)
    assert process.returncode == 0, stderr
    assert "Traceback" not in stderr and "Unknown child process" not in stderr, stderr
    target = _target(tmp_path)
    assert (target["answered"], target["errors"], target["stopped"]) == (20, 0, None)
    assert target["usage"]["seconds"] < 2 + 2, target["usage"]
    assert not left, "a process of the command's tree outlived the run"
    lingered = "answered every row it was sent but was still running 2 s after its last line"
    assert (lingered in stderr) == (then == "sleep"), stderr


def test_run__a_command_silent_after_3_rows_stops_saying_which_rows_it_answered(
    tmp_path: Path,
) -> None:
    marker = f"tree-{uuid.uuid4().hex}"
    spec = {"answer": 3, "then": "sleep", "ignore_term": False, "children": [DAEMON]}
    try:
        with FakeOpenAI(handler=model_and_judge) as judge:
            process = run_in_background(_project(tmp_path, judge.url, spec, marker, timeout_s=1))
            _, stderr = process.communicate(timeout=60)
        left = marked(marker)
    finally:
        kill_marked(marker)
    assert process.returncode == 2, stderr
    said = " ".join(stderr.split())
    assert "gave no answer within 1 s after answering 3 of 20 row(s)" in said, stderr
    assert "(not answered: 'q04', 'q05', 'q06', 'q07-mars', 'q08' and 12 more)" in said, stderr
    assert _target(tmp_path)["usage"]["seconds"] < 1 + 2
    assert not left


def _grown(root: Path, url: str, marker: str) -> subprocess.Popen[str]:
    """ground-gate running a command that answers 3 rows, then sleeps deaf to SIGTERM with a
    daemon in a session of its own and a nested pair: started, its four processes up."""
    nested = {**DAEMON, "setsid": False, "double_fork": False, "children": [DAEMON]}
    spec = {"answer": 3, "then": "sleep", "ignore_term": True, "children": [DAEMON, nested]}
    process = run_in_background(_project(root, url, spec, marker, timeout_s=120))
    deadline = time.monotonic() + 30
    while len(list((root / "pids").iterdir())) < 4 and time.monotonic() < deadline:
        time.sleep(0.05)
    return process


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_run__a_stop_signal_mid_exchange_exits_2_with_no_traceback_and_no_process_left(
    tmp_path: Path, sig: int
) -> None:
    marker = f"tree-{uuid.uuid4().hex}"
    try:
        with FakeOpenAI(handler=model_and_judge) as judge:
            process = _grown(tmp_path, judge.url, marker)
            time.sleep(0.5)  # its three answers read
            process.send_signal(sig)
            stopped = time.monotonic()
            _, stderr = process.communicate(timeout=30)
            took = time.monotonic() - stopped
        left = marked(marker)
    finally:
        kill_marked(marker)
    assert process.returncode == 2, stderr
    assert "Traceback" not in stderr and "Event loop is closed" not in stderr, stderr
    assert "Unknown child process" not in stderr and "is closed" not in stderr, stderr
    assert "interrupted" in stderr, stderr
    assert took < 5, f"the run took {took:.1f} s to stop"
    assert not left, "a process of the command's tree outlived the run"
    responses = (tmp_path / "responses.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["id"] for line in responses] == ["q01", "q02", "q03"]


def test_run__killed_outright_mid_exchange_leaves_no_process_of_the_tree(tmp_path: Path) -> None:
    """SIGKILL runs no handler of ground-gate's: the supervisor, told by PR_SET_PDEATHSIG,
    ends the tree itself."""
    marker = f"tree-{uuid.uuid4().hex}"
    try:
        with FakeOpenAI(handler=model_and_judge) as judge:
            process = _grown(tmp_path, judge.url, marker)
            assert len(marked(marker)) >= 4, "the tree never grew"
            process.kill()
            process.communicate(timeout=30)
            deadline = time.monotonic() + 3
            while marked(marker) and time.monotonic() < deadline:
                time.sleep(0.05)
        left = marked(marker)
    finally:
        kill_marked(marker)
    assert not left, "the command's tree outlived a ground-gate killed outright"
