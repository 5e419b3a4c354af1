"""The demo of a target, measured: configs/demo-answers.yml as it is (the strict prompt) and
with `prompt:` pointed at prompt-loose.md (the pull request that should fail), each a cold
`ground-gate run` process with the local model as the target and as the judge, then the
strict one again on its warm cache. Run it under the model lock:

    .venv/bin/python -m bench.speed.demo_answers \
        --out bench/out/demo_answers.json

Per run: exit code, wall seconds (process start to exit, the model's start included), the
target's and the judge's calls, the scores' means, the rows failing, and the sentences judged
and marked "not in source".
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path
from typing import Any

from bench.speed.timed_run import timed_run

ROOT = Path(__file__).resolve().parents[2]

CONFIG = ROOT / "configs" / "demo-answers.yml"
ANSWERS = ROOT / "examples" / "answers"


def config_for(prompt: str, work: Path) -> Path:
    """The demo config in `work` (its cache there), with its paths made absolute."""
    text = CONFIG.read_text(encoding="utf-8").replace("../examples/answers/", f"{ANSWERS}/")
    path = work / "demo-answers.yml"
    path.write_text(text.replace(f"{ANSWERS}/prompt.md", f"{ANSWERS}/{prompt}"), "utf-8")
    return path


def measured(config: Path) -> dict[str, Any]:
    out = config.parent / "out"
    markdown = ["--output-md", str(out / "report.md")]
    code, seconds, report = timed_run(
        config, out / "report.json", cwd=config.parent, extra=markdown
    )
    units = [u for r in report["rows"] for u in r["metrics"]["groundedness"]["units"]]
    (target,) = report["targets"]
    return {
        "exit": code,
        "seconds": round(seconds, 1),
        "target_calls": target["usage"]["calls"],
        "target_seconds": target["seconds"],
        "judge_calls": report["usage"]["total"]["calls"],
        "means": {e["score"]: e["mean"] for e in report["scores"]},
        "failed_checks": [e["score"] for e in report["scores"] if e["passed"] is False],
        "rows_failing": sum(1 for r in report["rows"] if r["failing"]),
        "sentences": len(units),
        "not_in_source": sum(1 for u in units if u["verdict"] == "not in source"),
        "responses": [
            json.loads(line)["response"]
            for line in (out / "responses.jsonl").read_text(encoding="utf-8").splitlines()
        ],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path)
    parser.add_argument(
        "--work",
        type=Path,
        default=ROOT / "bench" / "out" / "demo-answers",
        help="where each run's config, cache and reports go (emptied first); kept after, so "
        "a later run with other thresholds reads the same answers from the cache",
    )
    args = parser.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    (args.work / "strict").mkdir(parents=True)
    (args.work / "loose").mkdir(parents=True)
    result: dict[str, Any] = {}
    strict_config = config_for("prompt.md", args.work / "strict")
    result["strict"] = measured(strict_config)
    result["loose"] = measured(config_for("prompt-loose.md", args.work / "loose"))
    result["strict_warm"] = measured(strict_config)
    text = json.dumps(result, indent=2, ensure_ascii=False)
    print(text)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
