"""A cancelled CI job sends SIGTERM: the run stops like Ctrl-C and keeps what it scored."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from ground_gate.leaves.exit_codes import FORCED_EXIT_GRACE_S
from tests.integration.fake_openai import FakeOpenAI, Reply
from tests.integration.test_cli_run import grade, write_project
from tests.integration.test_local_server import HERE, REPO, port_closed, wait_gone


def test_run__sigterm_writes_the_rows_scored_so_far_and_exits_2(tmp_path):
    def slow_after_first_row(body: Any) -> Reply:
        if "1.2 kg" not in json.dumps(body):
            time.sleep(0.5)
        return grade(body)

    rows = [
        {"id": f"row-{i}", "question": "Q?", "contexts": ["The X200 weighs 1.2 kg."], "answer": "It weighs 1.2 kg."}
        for i in range(1)
    ] + [
        {"id": f"slow-{i}", "question": "Q?", "contexts": [f"Doc {i}."], "answer": f"Answer {i}."}
        for i in range(20)
    ]  # fmt: skip
    with FakeOpenAI(handler=slow_after_first_row) as server:
        # one row at a time: the fast first row is finished long before the 25th request
        config = write_project(tmp_path, server.url, rows=rows, concurrency=1)
        report = tmp_path / "report.json"
        process = subprocess.Popen(
            [sys.executable, "-c", "from ground_gate.cli import main; main()",
             "run", "-c", str(config), "--output-json", str(report), "--quiet"],
            env={"FAKE_KEY": "k", "PATH": "/usr/bin:/bin"},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        deadline = time.monotonic() + 30
        while server.request_count < 25 and time.monotonic() < deadline:
            time.sleep(0.05)
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=30)
    assert process.returncode == 2, stderr
    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["status"] == "incomplete"
    assert data["incomplete"].startswith("interrupted")
    assert 1 <= len(data["rows"]) < len(rows)
    assert "Traceback" not in stderr


# ground-gate's process with its signal policy and a local judge server, whose orderly stop
# after the first signal is slow (`cleanup` seconds; "hang": it swallows the second signal too).
SLOW_STOP_SCRIPT = """
import sys, time
sys.path.insert(0, sys.argv[1])
sys.path.insert(0, sys.argv[2])
from pathlib import Path
from ground_gate.leaves.exit_codes import install_signal_policy
from test_local_server import fake_server
install_signal_policy()
tmp, how = Path(sys.argv[3]), sys.argv[4]
try:
    with fake_server(tmp / "tiny.gguf", tmp, mode="stubborn", stop_timeout_s=1.0) as server:
        try:
            print(server.pid, server.port, flush=True)
            time.sleep(600)
        except KeyboardInterrupt:
            print("stopping", flush=True)
            if how == "hang":
                try:
                    time.sleep(600)
                except BaseException:
                    time.sleep(600)
            time.sleep(600)
finally:
    print("unwound", flush=True)
"""


def start_slow_stop(tmp_path: Path, how: str) -> tuple[subprocess.Popen[str], int, int]:
    (tmp_path / "tiny.gguf").write_bytes(b"GGUF" + bytes(60))
    parent = subprocess.Popen(
        [sys.executable, "-c", SLOW_STOP_SCRIPT, str(REPO), str(HERE), str(tmp_path), how],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert parent.stdout is not None
    pid, port = (int(x) for x in parent.stdout.readline().split())
    return parent, pid, port


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_signal__a_second_signal_exits_at_once_with_128_plus_signum(
    tmp_path: Path, sig: int, code: int
) -> None:
    parent, pid, port = start_slow_stop(tmp_path, "slow")
    assert parent.stdout is not None
    parent.send_signal(sig)
    assert parent.stdout.readline() == "stopping\n"
    started = time.monotonic()
    parent.send_signal(sig)
    out, err = parent.communicate(timeout=20)
    assert parent.returncode == code, err
    assert time.monotonic() - started < 5
    assert out == "unwound\n"
    assert "Traceback" not in err
    assert wait_gone(pid)  # the local judge's server does not survive
    assert port_closed(port)


def test_signal__a_stop_that_hangs_after_the_second_signal_is_cut_short(tmp_path: Path) -> None:
    parent, pid, _ = start_slow_stop(tmp_path, "hang")
    assert parent.stdout is not None
    parent.send_signal(signal.SIGTERM)
    assert parent.stdout.readline() == "stopping\n"
    started = time.monotonic()
    parent.send_signal(signal.SIGTERM)
    parent.communicate(timeout=20)
    assert parent.returncode == 143
    assert time.monotonic() - started < FORCED_EXIT_GRACE_S + 3
    assert wait_gone(pid, within_s=5)  # the server watches its parent and leaves with it
