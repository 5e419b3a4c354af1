"""A cancelled CI job sends SIGTERM: the run stops like Ctrl-C and keeps what it scored."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from typing import Any

from tests.integration.fake_openai import FakeOpenAI, Reply
from tests.integration.test_cli_run import grade, write_project


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
