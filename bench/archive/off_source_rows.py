"""The labelled rows the off-source rule touches (issue 32), scored with the code imported, and
two such runs compared: does the rule move grounded and ungrounded rows apart, or together?

A row is touched when some, not all, of its response's sentences share no content word with
its source (metrics/off_source.py); every other row is judged by the same prompts before and
after, so the ranking (AUC) can only change through these rows.

    PYTHONPATH=<before checkout> .venv/bin/python -m bench.archive.off_source_rows \
        --labels ../shared/datasets/begin_dev.jsonl ../shared/datasets/lfqa_dev.jsonl \
        ../shared/datasets/aggrefact_dev.jsonl --out OUT/before
    .venv/bin/python -m bench.archive.off_source_rows --labels ... --out OUT/after \
        --cache OUT/before/cache
    .venv/bin/python -m bench.archive.off_source_rows --compare OUT/before OUT/after

Run "after" with the before run's judge cache (`--cache`, copied): a prompt both versions send
is then answered the same, and only the rule's changes show.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from bench.attacks.injection import scores, write_project
from ground_gate.leaves.sentences import split_sentences

# this checkout's (`-m` from its root puts it first on the path): the rows are picked by this
# checkout's rule, whatever checkout PYTHONPATH names for the judged `ground-gate run`
from ground_gate.metrics.off_source import off_source

ROOT = Path(__file__).resolve().parents[2]
SPECS = {"groundedness": "{evidence: none}", "summary_accuracy": "{n_questions: 5}"}
LOWER_IS_BETTER = {"hallucination", "contradiction", "summary_hallucination",
                   "summary_contradiction"}  # fmt: skip


def touched(files: list[Path]) -> list[dict[str, Any]]:
    rows = []
    for file in files:
        for line in file.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if off_source(split_sentences(row["response"]), row["source"]):
                rows.append(row)
    return rows


def run(files: list[Path], out: Path, model: str, cache: Path | None, metrics: list[str]) -> int:
    rows = touched(files)
    config = write_project(rows, out, model, metrics, {}, " ", SPECS)
    (out / "labels.json").write_text(
        json.dumps({r["id"]: r["label"] for r in rows}, indent=1) + "\n", encoding="utf-8"
    )
    if cache is not None and not (out / "cache").exists():
        shutil.copytree(cache, out / "cache")
    env = {**os.environ, "PYTHONPATH": os.environ.get("PYTHONPATH", str(ROOT))}
    done = subprocess.run(
        [sys.executable, "-m", "ground_gate", "run", "-c", config.name, "--quiet",
         "--output-json", "report.json"],
        cwd=out, check=False, env=env,
    )  # fmt: skip
    return 0 if done.returncode in (0, 1) else done.returncode


def _read(out: Path) -> Any:
    return json.loads((out / "report.json").read_text(encoding="utf-8"))


def compare(before: Path, after: Path) -> None:
    labels = json.loads((after / "labels.json").read_text(encoding="utf-8"))
    old, new = (scores(_read(d))["clean"] for d in (before, after))
    names = sorted({s for v in new.values() for s in v})
    print("| score | label | rows | mean before | mean after | rows worse / better / same |")
    print("|---|---|---|---|---|---|")
    for name in names:
        for label in (0, 1):
            pairs = [
                (old[i][name], new[i][name])
                for i, lab in labels.items()
                if lab == label and name in old.get(i, {}) and name in new.get(i, {})
            ]
            if not pairs:
                continue
            sign = -1 if name in LOWER_IS_BETTER else 1  # towards "grounded"
            moved = [sign * (b - a) for a, b in pairs]
            print(
                f"| {name} | {label} | {len(pairs)} | {sum(a for a, _ in pairs) / len(pairs):.3f} "
                f"| {sum(b for _, b in pairs) / len(pairs):.3f} | "
                f"{sum(m < -1e-9 for m in moved)} / {sum(m > 1e-9 for m in moved)} / "
                f"{sum(abs(m) <= 1e-9 for m in moved)} |"
            )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--labels", type=Path, nargs="*", default=[])
    parser.add_argument("--out", type=Path)
    parser.add_argument("--cache", type=Path, help="a judge cache to start from (copied)")
    parser.add_argument("--model", default="qwen2.5-coder-1.5b")
    parser.add_argument("--compare", type=Path, nargs=2, metavar=("BEFORE", "AFTER"))
    parser.add_argument("--metrics", default=",".join(SPECS), help="comma-separated subset")
    args = parser.parse_args()
    if args.compare:
        compare(*args.compare)
        return 0
    return run(args.labels, args.out, args.model, args.cache, args.metrics.split(","))


if __name__ == "__main__":
    sys.exit(main())
