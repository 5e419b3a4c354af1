"""What the answers metric and the decline check cost (issue 30): a config run cold (an empty
folder as the working directory, so an empty judge cache) by a given ground-gate, and the
judge's calls and seconds per row, per metric, from its JSON report. Run the same config
before and after a change by pointing --python at each checkout's environment:

    .venv/bin/python -m bench.speed.answers_cost --python <before>/.venv/bin/python \
        --config <before>/configs/demo.yml --label before --out bench/out/cost.jsonl
    .venv/bin/python -m bench.speed.answers_cost --python .venv/bin/python \
        --config configs/demo.yml --label after --out bench/out/cost.jsonl

One line of JSON a run is appended to --out; the table of RESULTS.md is made from them.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any


def run(python: Path, config: Path) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="answers-cost-") as folder:
        report = Path(folder) / "report.json"
        started = time.monotonic()
        # absolute, not resolved: a venv's python is a link that must stay the venv's
        argv = [str(python.absolute()), "-m", "ground_gate", "run", "-c", str(config.resolve())]
        done = subprocess.run(
            [*argv, "--quiet", "--output-json", str(report)],
            cwd=folder, capture_output=True, text=True, check=False,
        )  # fmt: skip
        wall = time.monotonic() - started
        if not report.exists():
            raise SystemExit(f"no report (exit {done.returncode}): {done.stderr[-2000:]}")
        data = json.loads(report.read_text(encoding="utf-8"))
    rows = max(sum(d["scored"] for d in data["datasets"]), 1)
    by_metric = data["usage"]["by_metric"]
    targets = data.get("targets") or []
    return {
        "exit": done.returncode,
        "rows": rows,
        "wall_s": round(wall, 1),
        "judge_calls_per_row": round(data["usage"]["total"]["calls"] / rows, 2),
        "judge_s_per_row": round(data["usage"]["total"]["seconds"] / rows, 2),
        "per_metric": {
            name: {
                "calls_per_row": round(u["calls"] / rows, 2),
                "s_per_row": round(u["seconds"] / rows, 2),
            }
            for name, u in by_metric.items()
        },
        "target_calls": sum(t["usage"]["calls"] for t in targets),
        "target_s": round(sum(t["seconds"] for t in targets), 1),
        "means": {e["score"]: e["mean"] for e in data["scores"]},
        "failed": [e["score"] for e in data["scores"] if e["passed"] is False],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", type=Path, required=True, help="the checkout's interpreter")
    parser.add_argument("--config", type=Path, required=True)
    parser.add_argument("--label", required=True)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    result = {"label": args.label, "config": args.config.name, **run(args.python, args.config)}
    line = json.dumps(result)
    print(line)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("a", encoding="utf-8") as handle:
        handle.write(line + "\n")


if __name__ == "__main__":
    main()
