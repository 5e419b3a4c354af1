"""A `ground-gate run` with a command target and a baseline, followed call by call (issue 44).

The run is made in this process, on the ground_gate that Python imports (run from a checkout's
root, which comes first on sys.path): 20 questions (tests/integration/target_app.py) answered
by a command target (tests/integration/target_command.py, a small script speaking JSON
lines), scored by the scripted OpenAI-compatible judge on 127.0.0.1
(tests/integration/fake_openai.py); `--rows N` answers the first N. A first run writes the
baseline report; the judge's cache is emptied; the second run, `--baseline` that report, is
traced with sys.setprofile (and threading.setprofile): every Python call and return whose
code lives under ground_gate/. Modules are all imported by the first run, so the trace holds
the run's work, not imports.
Each figure is the median of `--repeat` such pairs of runs (3), its range beside it: the event
loop and the judge server's threads interleave a little differently each time.

Where execution stands in ground_gate after each event: a call is in the callee's module, a
return in the caller's (when the caller is ground_gate code; a return to the event loop or a
library leaves the trail alone). The trail is that sequence, each thread its own, repeats
merged. Figures:

  modules          distinct ground_gate modules visited
  switches         moves of the trail from one module to another (a call or a return that
                   crosses modules, directly or through a library or the event loop)
  returns          moves into a module visited before and left: back and forth
  packages         distinct packages of the modules visited (ground_gate, ground_gate.targets...)
  package_switches, package_returns   the same two figures on the trail of packages
  pairs            distinct (from, to) module pairs the trail moves along
  calls            Python calls into ground_gate code (coroutine resumes included)

Measure two trees with the same script (before: a worktree of the older commit, the script
copied into it, since the working directory comes first on sys.path), then side by side:

    cd <before-worktree> && python -m bench.structure.run_trace --label before --json before.json
    python -m bench.structure.run_trace --label after --json after.json
    python -m bench.structure.run_trace --compare before.json after.json
"""

from __future__ import annotations

import argparse
import functools
import itertools
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
from collections import Counter, defaultdict
from pathlib import Path
from types import FrameType
from typing import Any

import ground_gate

PACKAGE_DIR = Path(ground_gate.__file__).resolve().parent
FIGURES = (
    "modules",
    "switches",
    "returns",
    "packages",
    "package_switches",
    "package_returns",
    "pairs",
    "calls",
)


class Tracer:
    """Every call and return of ground_gate code, per thread: (event, module, caller's module)."""

    def __init__(self, package_dir: Path) -> None:
        self.prefix = str(package_dir) + os.sep
        self.top = package_dir.name
        self.names: dict[str, str | None] = {}
        self.events: dict[int, list[tuple[str, str, str | None]]] = defaultdict(list)

    def module(self, filename: str) -> str | None:
        name = self.names.get(filename, "")
        if name != "":
            return name
        found: str | None = None
        if filename.startswith(self.prefix) and filename.endswith(".py"):
            parts = filename[len(self.prefix) : -3].split(os.sep)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found = ".".join([self.top, *parts])
        self.names[filename] = found
        return found

    def profile(self, frame: FrameType, event: str, _arg: Any) -> None:
        if event != "call" and event != "return":
            return
        name = self.module(frame.f_code.co_filename)
        if name is None:
            return
        back = frame.f_back
        caller = self.module(back.f_code.co_filename) if back is not None else None
        self.events[threading.get_ident()].append((event, name, caller))

    def __enter__(self) -> Tracer:
        threading.setprofile(self.profile)
        sys.setprofile(self.profile)
        return self

    def __exit__(self, *_exc: object) -> None:
        sys.setprofile(None)
        threading.setprofile(None)  # type: ignore[arg-type]


@functools.cache
def package_of(module: str) -> str:
    """The package a module lives in; a package's __init__ is its own package's."""
    path = PACKAGE_DIR.parent.joinpath(*module.split("."))
    return module if path.is_dir() else module.rpartition(".")[0]


def trail(events: list[tuple[str, str, str | None]]) -> list[str]:
    """Where execution stands after each event, repeats merged."""
    out: list[str] = []
    for event, module, caller in events:
        at = module if event == "call" else caller
        if at is not None and (not out or out[-1] != at):
            out.append(at)
    return out


def moves(path: list[str]) -> tuple[int, int, set[tuple[str, str]]]:
    """A trail's switches, its moves back into a place left before, and the pairs it moves
    along."""
    seen = set(path[:1])
    returns = 0
    for there in path[1:]:
        returns += there in seen
        seen.add(there)
    return max(len(path) - 1, 0), returns, set(itertools.pairwise(path))


def merged(path: list[str]) -> list[str]:
    return [here for i, here in enumerate(path) if i == 0 or path[i - 1] != here]


def figures(tracer: Tracer) -> dict[str, Any]:
    modules: set[str] = set()
    pairs: set[tuple[str, str]] = set()
    switches = returns = calls = package_switches = package_returns = 0
    threads = []
    for events in tracer.events.values():
        calls += sum(1 for event, _, _ in events if event == "call")
        modules.update(module for _, module, _ in events)
        path = trail(events)
        s, r, p = moves(path)
        switches, returns, pairs = switches + s, returns + r, pairs | p
        s, r, _ = moves(merged([package_of(m) for m in path]))
        package_switches, package_returns = package_switches + s, package_returns + r
        threads.append(len(events))
    packages = Counter(package_of(m) for m in modules)
    return {
        "modules": len(modules),
        "switches": switches,
        "returns": returns,
        "packages": len(packages),
        "package_switches": package_switches,
        "package_returns": package_returns,
        "pairs": len(pairs),
        "calls": calls,
        "threads_with_events": len(threads),
        "modules_per_package": dict(sorted(packages.items())),
        "module_names": sorted(modules),
    }


def commit_of(folder: Path) -> dict[str, Any]:
    def git(*args: str) -> str:
        done = subprocess.run(
            ["git", *args], cwd=folder, capture_output=True, text=True, check=False
        )
        return done.stdout.strip()

    dirty = git("status", "--porcelain", "--untracked-files=all", "--", "ground_gate")
    return {"commit": git("rev-parse", "--short", "HEAD"), "ground_gate_dirty": bool(dirty)}


def invoke(args: list[str]) -> int:
    from ground_gate.cli import cli

    try:
        cli.main(args=args, prog_name="ground-gate", standalone_mode=False)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    return 0


def measure(rows: int) -> dict[str, Any]:
    from tests.integration.fake_openai import FakeOpenAI
    from tests.integration.target_app import (
        QUESTIONS,
        command,
        config_text,
        model_and_judge,
        write_questions,
    )

    os.environ["FAKE_KEY"] = "sk-judge-key"
    with (
        tempfile.TemporaryDirectory(prefix="run-trace-") as folder,
        FakeOpenAI(handler=model_and_judge) as judge,
    ):
        root = Path(folder)
        write_questions(root, QUESTIONS[:rows])
        target = f"      command: {json.dumps(command('answer'))}\n      timeout_s: 20"
        config = root / "gate.yml"
        config.write_text(config_text(judge.url, root, target), encoding="utf-8")
        baseline, report = root / "out" / "baseline.json", root / "out" / "report.json"
        common = ["run", "-c", str(config), "--quiet"]
        first = invoke([*common, "--output-json", str(baseline)])
        if first != 0 or not baseline.exists():
            raise SystemExit(f"the baseline run failed (exit {first})")
        shutil.rmtree(root / "cache", ignore_errors=True)
        with Tracer(PACKAGE_DIR) as tracer:
            code = invoke([*common, "--output-json", str(report), "--baseline", str(baseline)])
        if code != 0 or not report.exists():
            raise SystemExit(f"the traced run failed (exit {code})")
        data = json.loads(report.read_text(encoding="utf-8"))
    scored = sum(d.get("scored", 0) for d in data.get("datasets", []))
    return {"rows": rows, "scored": scored, "exit_code": code, **figures(tracer)}


def machine() -> dict[str, Any]:
    return {"nproc": os.cpu_count(), "python": platform.python_version()}


def repeated(rows: int, times: int) -> dict[str, Any]:
    """The median of `times` runs for each figure, and each figure's range over them (the
    event loop and the judge's threads interleave a little differently every run)."""
    runs = [measure(rows) for _ in range(times)]
    middle = {name: statistics.median_low([r[name] for r in runs]) for name in FIGURES}
    spread = {name: [min(r[name] for r in runs), max(r[name] for r in runs)] for name in FIGURES}
    modules = sorted({m for r in runs for m in r["module_names"]})
    return {**runs[0], **middle, "runs": times, "spread": spread, "module_names": modules}


def cell(result: dict[str, Any], name: str) -> str:
    low, high = result.get("spread", {}).get(name, (result[name], result[name]))
    return str(result[name]) if low == high else f"{result[name]} ({low}-{high})"


def table(results: list[dict[str, Any]]) -> str:
    names = [
        f"{r['label']} ({r['commit']}{' + edits' if r.get('ground_gate_dirty') else ''})"
        for r in results
    ]
    head = "| figure | " + " | ".join(names) + " |"
    lines = [head, "|---" * (len(results) + 1) + "|"]
    for name in FIGURES:
        lines.append(f"| {name} | " + " | ".join(cell(r, name) for r in results) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=20, help="questions answered (1-20)")
    parser.add_argument("--repeat", type=int, default=3, help="runs traced (median shown)")
    parser.add_argument("--label", default="this tree")
    parser.add_argument("--json", type=Path, help="write the figures here")
    parser.add_argument("--compare", nargs="+", type=Path, help="JSON files: print the table")
    options = parser.parse_args()
    if options.compare:
        results = [json.loads(p.read_text(encoding="utf-8")) for p in options.compare]
        print(table(results))
        return
    result = {
        "label": options.label,
        **commit_of(PACKAGE_DIR.parent),
        **machine(),
        **repeated(max(1, min(options.rows, 20)), max(1, options.repeat)),
    }
    if options.json:
        options.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(table([result]))
    print("packages:", ", ".join(f"{k} {v}" for k, v in result["modules_per_package"].items()))


if __name__ == "__main__":
    main()
