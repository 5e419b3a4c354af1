"""A fixed, reproducible sample of labelled rows, written to bench/out/ (the labelled files
are not copied into the repository).

    .venv/bin/python -m bench.quality.sample_rows ../shared/datasets/aggrefact_dev.jsonl \
        --type contradiction 20 --grounded 20 --exclude ../shared/datasets/dev_mini.jsonl \
        --out bench/out/aggrefact_contradiction40.jsonl

    .venv/bin/python -m bench.quality.sample_rows ../shared/datasets/lfqa_dev.jsonl --any 100 \
        --exclude ../shared/datasets/dev_mini.jsonl --out bench/out/lfqa_sample100.jsonl

Rows are taken in id order: the first N grounded rows (label 1) and the first N rows whose
hallucination_types hold TYPE, leaving out the ids of --exclude (rows already used for design).
`--any N` takes N rows whatever their label, in the order of the SHA-256 of their id: a
fixed sample that does not lean on how ids were named. `--dataset NAME` keeps only the rows of
one dataset (the `dataset` field).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any


def read(path: Path) -> list[dict[str, Any]]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return sorted((json.loads(line) for line in lines if line.strip()), key=lambda r: r["id"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("labels", type=Path)
    parser.add_argument("--type", nargs=2, metavar=("TYPE", "N"), action="append", default=[])
    parser.add_argument("--grounded", type=int, default=0)
    parser.add_argument("--any", type=int, default=0)
    parser.add_argument("--exclude", type=Path, action="append", default=[])
    parser.add_argument("--dataset", help="only rows of this dataset (e.g. AggreFact/Goyal21)")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    excluded = {row["id"] for path in args.exclude for row in read(path)}
    rows = [r for r in read(args.labels) if r["id"] not in excluded]
    if args.dataset:
        rows = [r for r in rows if r.get("dataset") == args.dataset]
    chosen = [r for r in rows if r["label"] == 1][: args.grounded]
    for kind, count in args.type:
        typed = [r for r in rows if kind in (r.get("hallucination_types") or [])]
        chosen += [r for r in typed if r not in chosen][: int(count)]
    shuffled = sorted(rows, key=lambda r: hashlib.sha256(r["id"].encode()).hexdigest())
    chosen += [r for r in shuffled if r not in chosen][: args.any]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("".join(json.dumps(r) + "\n" for r in chosen), encoding="utf-8")
    print(f"{len(chosen)} rows -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
