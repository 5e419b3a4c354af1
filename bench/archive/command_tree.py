"""A command target whose grandchild holds stdout in a session of its own (issue 43, item 6):
how long `ground-gate run` takes, what it says, and what it leaves running.

    .venv/bin/python -m bench.archive.command_tree --timeout-s 8 --daemon-s 60 \
        --out bench/out/command_tree.json
    .venv/bin/python -m bench.archive.command_tree --source DIR ...  # ground_gate from DIR

The command (tests/integration/tree_command.py) first starts a daemon: setsid(), a double fork
(its parent exits: it is orphaned), SIGTERM ignored, the command's stdout and stderr held open,
alive for --daemon-s seconds. Then, per scenario: `exits` answers the 20 rows and exits;
`lingers` answers them and never exits; `silent` answers 3 and never says more; `sigterm` is
`silent` with SIGTERM sent to ground-gate one second after its third answer. The judge is
scripted on 127.0.0.1. Each row: wall time of the run, the target's exchange (the report's
target seconds), the exit code, the first line of stderr, whether stderr holds a traceback,
and the processes of the tree alive once the run has exited (all are killed after).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from tests.integration.fake_openai import FakeOpenAI
from tests.integration.target_app import config_text, model_and_judge, write_questions
from tests.integration.test_command_tree import TREE_COMMAND, kill_marked, marked

SCENARIOS = {"exits": (-1, "exit"), "lingers": (-1, "sleep"), "silent": (3, "sleep"),
             "sigterm": (3, "sleep")}  # fmt: skip


def _project(root: Path, url: str, name: str, args: argparse.Namespace, marker: str) -> Path:
    answer, then = SCENARIOS[name]
    daemon = {"setsid": True, "double_fork": True, "ignore_term": True, "hold": "both",
              "forever": True, "seconds": args.daemon_s, "children": []}  # fmt: skip
    spec = {"answer": answer, "then": then, "ignore_term": False, "children": [daemon]}
    write_questions(root)
    (root / "pids").mkdir()
    (root / "tree.json").write_text(json.dumps(spec), encoding="utf-8")
    argv = [sys.executable, str(TREE_COMMAND), str(root / "tree.json"), str(root / "pids"), marker]
    target = f"      command: {json.dumps(argv)}\n      timeout_s: {args.timeout_s}"
    config = root / "gate.yml"
    config.write_text(config_text(url, root, target), encoding="utf-8")
    return config


def _signal_after_answers(process: subprocess.Popen[str], root: Path) -> float | None:
    """When SIGTERM was sent, a second after the tree grew (None: it never did)."""
    deadline = time.monotonic() + 60
    while not (root / "pids").exists() or len(list((root / "pids").iterdir())) < 2:
        if time.monotonic() > deadline:
            return None
        time.sleep(0.05)
    time.sleep(1.0)
    process.send_signal(signal.SIGTERM)
    return time.monotonic()


def scenario(name: str, args: argparse.Namespace) -> dict[str, Any]:
    marker = f"tree-{uuid.uuid4().hex}"
    env = {**os.environ, "FAKE_KEY": "sk-judge-key"}
    if args.source:
        env["PYTHONPATH"] = str(Path(args.source).resolve())
    with tempfile.TemporaryDirectory() as tmp, FakeOpenAI(handler=model_and_judge) as judge:
        root = Path(tmp)
        config = _project(root, judge.url, name, args, marker)
        started = time.monotonic()
        process = subprocess.Popen(
            [sys.executable, "-m", "ground_gate", "run", "-c", str(config), "--quiet",
             "--output-json", str(root / "report.json")],
            env=env, cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        signalled = _signal_after_answers(process, root) if name == "sigterm" else None
        try:
            _, stderr = process.communicate(timeout=args.daemon_s + 120)
        finally:
            ended = time.monotonic()
            took = ended - started
            left = marked(marker)
            kill_marked(marker)
        report = root / "report.json"
        targets = json.loads(report.read_text("utf-8"))["targets"] if report.exists() else []
    return {
        "scenario": name,
        "seconds": round(took, 2),
        "exchange_s": round(targets[0]["usage"]["seconds"], 2) if targets else None,
        "signal_to_exit_s": round(ended - signalled, 2) if signalled else None,
        "exit": process.returncode,
        "traceback": "Traceback" in stderr or "Event loop is closed" in stderr,
        "left_running": len(left),
        "said": " ".join(stderr.split())[:400],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--timeout-s", type=int, default=8)
    parser.add_argument("--daemon-s", type=int, default=60)
    parser.add_argument("--source", help="run ground_gate from this directory (PYTHONPATH)")
    parser.add_argument("--only", nargs="*", choices=sorted(SCENARIOS), default=list(SCENARIOS))
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    results = []
    for name in args.only:
        results.append(scenario(name, args))
        print(json.dumps(results[-1]), flush=True)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
