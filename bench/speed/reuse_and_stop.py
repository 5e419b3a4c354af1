"""Reuse and early stopping on 100 rows: what a pull request costs to decide against a baseline.

A command target (the pull request's own program) answers 100 labelled dialogue rows of
`../shared/datasets/begin_dev.jsonl` (question, source); the embedded judge (the 1.5B local
model) scores groundedness and the answer scores (`metrics: {groundedness: {}, answers: {}}`).
Every timed run starts with an empty judge cache (a judge call is a judge call); the last,
`--judge-all`, keeps the cache the run before it left, since only its decisions are compared.

1. baseline: the program answers every row with the dataset's response; a run without
   `--baseline` judges all 100 (the cost of any pull request before reuse, without a cache hit);
2. ten: the same, ten answers replaced by another row's (unsupported), run with `--baseline`;
3. every: every answer changed ("Well, " + the response), run with `--baseline`, and again with
   `--judge-all`: the decisions of the two are compared, check by check.

    .venv/bin/python -m bench.speed.reuse_and_stop --rows 100 --changed 10 --out bench/out/reuse

Writes `summary.json` in --out: per run its wall seconds, judging seconds (and of them the
rows judged, to the decision, before the server start and the evidence quotes), rows judged,
reused and not judged, judge calls, exit code and each check's decision.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT.parent / "shared" / "datasets" / "begin_dev.jsonl"
APP = """import json, sys
answers = json.load(open(sys.argv[1], encoding="utf-8"))
for line in sys.stdin:
    row = json.loads(line)
    print(json.dumps({"id": row["id"], "response": answers[row["id"]]}), flush=True)
"""
CONFIG = """version: 1
judge: {{provider: local, model: qwen2.5-coder-1.5b, cache_dir: cache}}
datasets:
  - name: dialogue
    path: rows.jsonl
    target: {{command: ["{python}", app.py, answers.json], timeout_s: 120}}
metrics: {{groundedness: {{}}, answers: {{}}}}
thresholds:
  groundedness: {{min: 0.3, max_drop: 0.05}}
  answered: {{min: 0.5, max_drop: 0.1}}
"""


def prepare(out: Path, rows: int, seed: int) -> list[dict[str, Any]]:
    chosen = [json.loads(line) for line in SOURCE.read_text(encoding="utf-8").splitlines()]
    chosen = [r for r in chosen if r.get("question")]
    random.Random(seed).shuffle(chosen)
    chosen = chosen[:rows]
    out.mkdir(parents=True, exist_ok=True)
    with (out / "rows.jsonl").open("w", encoding="utf-8") as file:
        for r in chosen:
            file.write(
                json.dumps({"id": r["id"], "question": r["question"], "context": r["source"]})
                + "\n"
            )
    (out / "app.py").write_text(APP, encoding="utf-8")
    (out / "gate.yml").write_text(CONFIG.format(python=sys.executable), encoding="utf-8")
    return chosen


def run(
    out: Path, name: str, answers: dict[str, str], *args: str, fresh: bool = True
) -> dict[str, Any]:
    (out / "answers.json").write_text(json.dumps(answers), encoding="utf-8")
    if fresh:
        shutil.rmtree(out / "cache", ignore_errors=True)
    report = out / f"{name}.json"
    started = time.monotonic()
    done = subprocess.run(
        [str(ROOT / ".venv" / "bin" / "ground-gate"), "run", "-c", "gate.yml",
         "--output-json", report.name, "--output-md", f"{name}.md", "--force", *args],
        cwd=out, capture_output=True, text=True,
    )  # fmt: skip
    wall = round(time.monotonic() - started, 1)
    data = json.loads(report.read_text(encoding="utf-8"))
    settled = data.get("settled") or {}
    reused = sum(1 for r in data["rows"] if r.get("reused"))
    found = {
        "exit": done.returncode,
        "wall_s": wall,
        "judging_s": data["seconds"],
        # the rows judged one at a time, to the decision; the rest of judging_s is the server's
        # start and the evidence quoted for the rows the comment shows, after the decision
        "rows_judging_s": round(sum(r["seconds"] for r in data["rows"] if not r.get("reused")), 1),
        "rows_reused": reused,
        "rows_judged": len(data["rows"]) - reused,
        "rows_not_judged": len(settled.get("not_judged", [])),
        "judge_calls": data["usage"]["total"]["calls"],
        "decisions": {f"{s['dataset']}/{s['score']}": s["passed"] for s in data["scores"]},
        "failed_checks": sorted(
            f"{s['dataset']}/{s['score']}" for s in data["scores"] if s["passed"] is False
        ),
    }
    print(name, json.dumps(found), flush=True)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=100)
    parser.add_argument("--changed", type=int, default=10)
    parser.add_argument("--seed", type=int, default=45)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "reuse")
    parser.add_argument(
        "--skip-every", action="store_true", help="only the baseline and the ten changed answers"
    )
    parser.add_argument(
        "--reuse-baseline",
        action="store_true",
        help="keep --out's baseline.json: no new baseline run",
    )
    args = parser.parse_args()
    out = args.out.resolve()
    rows = prepare(out, args.rows, args.seed)
    base = {r["id"]: r["response"] for r in rows}
    summary: dict[str, Any] = {"rows": args.rows, "changed": args.changed}
    if args.reuse_baseline:
        summary["baseline"] = json.loads((out / "summary.json").read_text())["baseline"]
    else:
        summary["baseline"] = run(out, "baseline", base)
    ten = dict(base)
    for i, r in enumerate(rows[: args.changed]):
        ten[r["id"]] = rows[-1 - i]["response"]  # another row's answer
    summary["ten"] = run(out, "ten", ten, "--baseline", "baseline.json")
    # the ten judged whatever the stopping rule says: what judging them costs, from an empty cache
    summary["ten_judge_all"] = run(
        out, "ten-all", ten, "--baseline", "baseline.json", "--judge-all"
    )
    if args.skip_every:
        (out / "summary.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
        return
    every = {k: "Well, " + v for k, v in base.items()}
    summary["every"] = run(out, "every", every, "--baseline", "baseline.json")
    summary["every_judge_all"] = run(
        out, "every-all", every, "--baseline", "baseline.json", "--judge-all", fresh=False
    )
    summary["same_decisions"] = (
        summary["every"]["failed_checks"] == summary["every_judge_all"]["failed_checks"]
        and summary["every"]["exit"] == summary["every_judge_all"]["exit"]
    )
    (out / "summary.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
