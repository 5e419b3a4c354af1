"""timeout_s bounds the whole exchange with a command, however its descendants hold its pipes
(issue 43): generated trees of descendants (depth, fan-out, sessions of their own, daemons
that double-fork, processes that ignore SIGTERM, that hold stdout or stderr, that sleep
forever) never keep the exchange past timeout_s plus 2 s, and no process of the tree is alive
after it. Real processes (tree_command.py); each example's processes are killed whatever the
test finds, so a failing example leaves nothing behind."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ground_gate.datasets import Sample
from ground_gate.leaves.usage import Usage
from ground_gate.targets.command import Exchange, ask_command
from tests.hostile.command_trees import TREES

TREE_COMMAND = Path(__file__).with_name("tree_command.py")
SLACK_S = 2.0  # the bound: timeout_s plus this


def _node(children: st.SearchStrategy[list[dict[str, Any]]]) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {
            "setsid": st.booleans(),
            "double_fork": st.booleans(),
            "ignore_term": st.booleans(),
            "hold": st.sampled_from(["both", "stdout", "stderr", "none"]),
            "forever": st.booleans(),
            "children": children,
        }
    )


LEAF = _node(st.just([]))
DESCENDANTS = st.recursive(
    st.lists(LEAF, max_size=2),
    lambda inner: st.lists(_node(inner), min_size=1, max_size=2),
    max_leaves=6,
)
ROOTS = st.fixed_dictionaries(
    {
        "answer": st.sampled_from([-1, 0, 1]),
        "then": st.sampled_from(["exit", "sleep"]),
        "ignore_term": st.booleans(),
        "children": DESCENDANTS,
    }
)


def _samples(n: int = 3) -> list[Sample]:
    return [
        Sample(id=f"q{i}", sources=("The X200 weighs 1.2 kg.",), response="", question="Weight?")
        for i in range(n)
    ]


def alive(pid: int, marker: str) -> bool:
    """Whether `pid` is a live (not zombie) process with `marker` on its command line."""
    try:
        state = Path(f"/proc/{pid}/stat").read_bytes().rpartition(b")")[2].split()[0]
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return state not in (b"Z", b"X") and marker.encode() in argv


def marked(marker: str) -> list[int]:
    """Every live process with `marker` on its command line (recorded or not)."""
    return [int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit() and alive(int(p.name), marker)]  # fmt: skip


def kill_marked(marker: str) -> None:
    """The test's own processes killed, whatever the code under test left."""
    for _ in range(20):
        pids = marked(marker)
        if not pids:
            return
        for pid in pids:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.05)


def exchange(spec: dict[str, Any], pid_dir: Path, marker: str, timeout_s: float) -> Exchange:
    spec_file = pid_dir.with_suffix(".json")
    spec_file.write_text(json.dumps(spec), encoding="utf-8")
    argv = [sys.executable, str(TREE_COMMAND), str(spec_file), str(pid_dir), marker]
    asked = ask_command(argv, _samples(), timeout_s=timeout_s, usage=Usage(), env=os.environ)
    # a hang fails the test instead of holding the suite
    return asyncio.run(asyncio.wait_for(asked, timeout_s + 30))


def check(spec: dict[str, Any], pid_dir: Path, timeout_s: float) -> None:
    """The invariant: the exchange ends within timeout_s + 2 s, nothing of the tree is alive
    after it, and what the command answered is what the exchange says. A command that had not
    started by timeout_s (two Pythons, the supervisor's and the command's, start slowly on a
    loaded machine) is run again with three times as long, so the invariant is checked on a
    run whose tree existed; every run is held to the first two."""
    if not _checked(spec, pid_dir, timeout_s):
        again = pid_dir.with_name(f"{pid_dir.name}-again")
        again.mkdir()
        assert _checked(spec, again, timeout_s * 3), "the command never started"


def _checked(spec: dict[str, Any], pid_dir: Path, timeout_s: float) -> bool:
    """check's run; False when the command never started (its answers then say nothing)."""
    marker = f"tree-{uuid.uuid4().hex}"
    try:
        started = time.monotonic()
        done = exchange(spec, pid_dir, marker, timeout_s)
        took = time.monotonic() - started
        time.sleep(0.2)  # a process forked as the tree ended has recorded its pid by now
        left = [int(p.name) for p in pid_dir.iterdir() if alive(int(p.name), marker)]
        left += [pid for pid in marked(marker) if pid not in left]
    finally:
        kill_marked(marker)
    assert took < timeout_s + SLACK_S, f"the exchange took {took:.2f} s ({spec})"
    assert not left, f"still alive after the exchange: {left} ({spec})"
    if not list(pid_dir.iterdir()):
        return False
    answered = {-1: 3, 0: 0, 1: 1}[spec["answer"]]
    assert sum(a.ok for a in done.answers.values()) == answered
    if answered == 3:  # every row answered: the answers stand, whatever lingered
        assert done.stopped is None, done.stopped
        assert (done.notice is not None) == (spec["then"] == "sleep"), done.notice
    elif spec["then"] == "sleep":
        assert done.stopped is not None
        assert f"after answering {answered} of 3 row(s)" in done.stopped
        assert "not answered: " in done.stopped and "'q2'" in done.stopped
    return True


LINUX = pytest.mark.skipif(sys.platform != "linux", reason="the supervisor needs Linux's /proc")


@LINUX
@settings(max_examples=12)
@given(spec=ROOTS, timeout_s=st.sampled_from([1.0, 1.5]))
def test_command_tree__ends_within_timeout_s_plus_2_s_with_no_process_left(
    tmp_path_factory: pytest.TempPathFactory, spec: dict[str, Any], timeout_s: float
) -> None:
    check(spec, tmp_path_factory.mktemp("pids"), timeout_s)


@LINUX
@pytest.mark.parametrize("name", sorted(TREES))
def test_command_tree__the_hostile_corpus_ends_in_time_with_no_process_left(
    tmp_path: Path, name: str
) -> None:
    (tmp_path / "pids").mkdir()
    check(TREES[name], tmp_path / "pids", timeout_s=1.0)


@pytest.mark.parametrize(
    ("code", "said"),
    [("import sys; sys.exit(5)", "exited with code 5"),
     ("import os, signal; os.kill(os.getpid(), signal.SIGKILL)", "was killed by SIGKILL")],
)  # fmt: skip
def test_command__its_end_reads_through_the_supervisor(code: str, said: str) -> None:
    asked = ask_command(
        [sys.executable, "-c", code], _samples(), timeout_s=10, usage=Usage(), env=os.environ
    )
    done = asyncio.run(asyncio.wait_for(asked, 30))
    assert done.stopped is not None
    assert f"{said} after answering 0 of 3 row(s)" in done.stopped, done.stopped


def test_command_tree__without_the_supervisor_the_process_group_still_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where there is no supervisor (not Linux), the command's process group is what ends:
    a child that stays in it and holds stdout neither holds the exchange past the deadline
    nor outlives it."""
    monkeypatch.setattr("ground_gate.leaves.process_tree.available", lambda: False)
    child = {"setsid": False, "double_fork": False, "ignore_term": True, "hold": "both",
             "forever": True, "children": []}  # fmt: skip
    (tmp_path / "pids").mkdir()
    check({"answer": -1, "then": "exit", "ignore_term": False, "children": [child]},
          tmp_path / "pids", timeout_s=1.0)  # fmt: skip
