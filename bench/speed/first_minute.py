"""From a fresh clone to a report: `pip install .`, `ground-gate init` on one's own rows, one
`ground-gate run` against an OpenAI-compatible judge, each step timed apart.

    .venv/bin/python -m bench.speed.first_minute --rows 30 --latency 0.5
    .venv/bin/python -m bench.speed.first_minute --rows 30 --latency 0.5 --no-pip-cache

The judge is tests/integration's scripted OpenAI-compatible server on 127.0.0.1, standing in
for a hosted judge: it answers every call after --latency seconds (supported, unless the
sentence mentions Mars). Steps: `git clone` of this repository's HEAD into a temporary folder;
`python -m venv`; `pip install .` from the clone, as scripts/setup.sh installs (no extras: a
hosted judge needs no llama.cpp), with pip's own cache or none (--no-pip-cache: every package
downloaded); then, in a folder holding only the rows (JSONL: id, query, passages, bot_answer,
a fifth of them adding a sentence about Mars), with the new environment's `ground-gate`:

    ground-gate init --data rows.jsonl --base-url URL --model fake-model --api-key-env JUDGE_KEY
    ground-gate run -c ground-gate.yml --output-json ground-gate-report/report.json \
        --output-html ground-gate-report/report.html

The tool's own time is init + run (each from the process's start to its exit, so Python's
start and the imports count). The run's exit code is the scripted judge's verdict, not a
measurement: what counts is that report.json and report.html are there.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tests.integration import fake_openai
from tests.integration.test_cli_run import grade

ROOT = Path(__file__).resolve().parents[2]

KEY_ENV = "JUDGE_KEY"
KEY = "sk-bench-not-a-secret"


def rows(count: int) -> str:
    out = []
    for i in range(count):
        answer = f"Order {i} ships today." + (" We ship to Mars." if i % 5 == 0 else " It is free.")
        row = {
            "id": f"order-{i}",
            "query": "When does my order ship, and what does shipping cost?",
            "passages": [f"Order {i} ships today.", "Shipping is free. We ship in the EU."],
            "bot_answer": answer,
        }
        out.append(json.dumps(row) + "\n")
    return "".join(out)


def timed(command: list[str], cwd: Path, env: dict[str, str], ok: tuple[int, ...]) -> float:
    started = time.monotonic()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    seconds = time.monotonic() - started
    if done.returncode not in ok:
        raise SystemExit(f"{command[:2]} exited {done.returncode}: {done.stderr[-2000:]}")
    return round(seconds, 2)


def install(tmp: Path, pip_cache: bool) -> tuple[Path, dict[str, Any]]:
    """A fresh clone of HEAD installed into a fresh virtual environment; its bin folder."""
    clean = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    clone = tmp / "clone"
    clone_s = timed(["git", "clone", "--quiet", str(ROOT), str(clone)], tmp, clean, (0,))
    venv = tmp / "venv"
    venv_s = timed([sys.executable, "-m", "venv", str(venv)], tmp, clean, (0,))
    command = [str(venv / "bin" / "python"), "-m", "pip", "install", "--disable-pip-version-check"]
    command += [] if pip_cache else ["--no-cache-dir"]
    started = time.monotonic()
    done = subprocess.run(
        [*command, "."], cwd=clone, env=clean, capture_output=True, text=True, check=True
    )
    pip_s = round(time.monotonic() - started, 2)
    lines = done.stdout.splitlines()
    facts = {
        "commit": subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=clone, capture_output=True, text=True
        ).stdout.strip(),
        "clone_s": clone_s,
        "venv_s": venv_s,
        "pip_install_s": pip_s,
        "pip_cache": pip_cache,
        "pip_lines_using_cached": sum(1 for line in lines if "Using cached" in line),
        "pip_lines_downloading": sum(1 for line in lines if line.strip().startswith("Downloading")),
        # wheels pip read from a folder on this machine (its config's find-links or a file://
        # index), not from a package index over the network
        "pip_lines_local_wheels": sum(
            1 for line in lines if line.startswith("Processing ") and ".whl" in line
        ),
    }
    return venv / "bin", facts


def first_run(bin_dir: Path, tmp: Path, args: argparse.Namespace) -> dict[str, Any]:
    project = tmp / "project"
    project.mkdir()
    (project / "rows.jsonl").write_text(rows(args.rows), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env[KEY_ENV] = KEY
    gate = str(bin_dir / "ground-gate")

    def handler(body: Any) -> fake_openai.Reply:
        return fake_openai.slow(grade(body), args.latency)

    with fake_openai.FakeOpenAI(handler=handler) as server:
        init_s = timed(
            [gate, "init", "--data", "rows.jsonl", "--base-url", server.url,
             "--model", "fake-model", "--api-key-env", KEY_ENV],
            project, env, (0,),
        )  # fmt: skip
        run_s = timed(
            [gate, "run", "-c", "ground-gate.yml", "--output-json",
             "ground-gate-report/report.json", "--output-html",
             "ground-gate-report/report.html", "--quiet"],
            project, env, (0, 1),
        )  # fmt: skip
        calls = server.request_count
    report = json.loads((project / "ground-gate-report" / "report.json").read_text("utf-8"))
    return {
        "init_s": init_s,
        "run_s": run_s,
        "tool_s": round(init_s + run_s, 2),
        "judge_calls": calls,
        "rows_in_report": len(report["rows"]),
        "status": report["status"],
        "html_written": (project / "ground-gate-report" / "report.html").is_file(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=30)
    parser.add_argument("--latency", type=float, default=0.5, help="seconds per judge call")
    parser.add_argument("--no-pip-cache", action="store_true", help="pip install --no-cache-dir")
    parser.add_argument(
        "--installed",
        type=Path,
        help="the bin folder of an environment ground-gate is installed in: skip the clone "
        "and the install",
    )
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "first_minute.json")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        if args.installed is None:
            bin_dir, setup = install(tmp, pip_cache=not args.no_pip_cache)
        else:
            bin_dir, setup = args.installed, {}
        measured = first_run(bin_dir, tmp, args)
    result = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}",
        "settings": {k: v for k, v in vars(args).items() if k not in ("out", "installed")},
        "install": setup,
        "first_run": measured,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
