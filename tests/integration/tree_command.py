"""A command target that grows a tree of descendants before it answers, as a spec says:
`python tree_command.py SPEC_FILE PID_DIR MARKER` (SPEC_FILE: JSON). Every process of the tree writes an empty
file named by its pid in PID_DIR, so a test can find each one afterwards (MARKER, on the
command line of them all, tells them from a process that reused a pid).

The spec's root: `answer` (rows answered, -1 for all), `then` ("exit": exit 0 after stdin
closes; "sleep": sleep forever), `ignore_term`, `children`. Each child: `setsid` (a session of
its own: it leaves the process group), `double_fork` (a daemon: its parent exits at once and
it is orphaned), `ignore_term`, `hold` ("both", "stdout", "stderr" or "none": which of the
command's pipes it keeps open), `forever` (else it exits after 0.2 s), `children`.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any


def _record(pid_dir: Path) -> None:
    (pid_dir / str(os.getpid())).touch()


def _become(node: dict[str, Any], pid_dir: Path) -> None:
    if node["setsid"]:
        os.setsid()
    if node["double_fork"] and os.fork() > 0:
        os._exit(0)  # the intermediate parent goes: what it forked is an orphan
    _record(pid_dir)
    if node["ignore_term"]:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if node.get("fork_on_term"):
        signal.signal(signal.SIGTERM, lambda *_: _spawn({**node, "children": []}, pid_dir))
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)  # the rows are the command's to read
    if node["hold"] in ("stderr", "none"):
        os.dup2(null, 1)
    if node["hold"] in ("stdout", "none"):
        os.dup2(null, 2)
    for child in node["children"]:
        _spawn(child, pid_dir)
    if node.get("stop"):
        os.kill(os.getpid(), signal.SIGSTOP)
    if not node["forever"]:
        time.sleep(0.2)
        os._exit(0)
    time.sleep(node.get("seconds", 10**6))
    os._exit(0)


def _spawn(node: dict[str, Any], pid_dir: Path) -> None:
    if os.fork() == 0:
        try:
            _become(node, pid_dir)
        finally:
            os._exit(0)


def main(spec: dict[str, Any], pid_dir: Path) -> int:
    _record(pid_dir)
    if spec["ignore_term"]:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    for child in spec["children"]:
        _spawn(child, pid_dir)
    left = spec["answer"]
    for line in sys.stdin:
        if left == 0:
            continue
        row = json.loads(line)
        answer = row["context"].split(".")[0] + "."  # grounded: the first sentence of its context
        print(json.dumps({"id": row["id"], "response": answer}), flush=True)
        left -= 1
    while spec["then"] == "sleep":
        time.sleep(3600)
    return 0


if __name__ == "__main__":
    sys.exit(main(json.loads(Path(sys.argv[1]).read_text()), Path(sys.argv[2])))
