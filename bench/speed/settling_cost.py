"""What the stopping rule itself costs a run: `open_checks` after each row judged, as
commands/run.py asks it, on synthetic rows (no judge), for a pull request that changed every
answer. The rows, their scores and the baseline are seeded; the thresholds are the demo's
groundedness min and a max_drop, the check whose reach needs the bootstrap.

    python -m bench.speed.settling_cost --rows 100 --changed 100
"""

from __future__ import annotations

import argparse
import json
import random
import time

from ground_gate.config.model import Threshold
from ground_gate.leaves.results import MetricResult, RowResult
from ground_gate.verdict.dataset_scores import row_scores
from ground_gate.verdict.settling import Rules, open_checks

SCORES = {"groundedness": ("groundedness", "contradiction")}


def _row(row_id: str, rng: random.Random) -> RowResult:
    scores = {"groundedness": rng.uniform(0.6, 1.0), "contradiction": rng.uniform(0.0, 0.2)}
    return RowResult("d", row_id, (MetricResult("groundedness", "ok", scores),))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=100)
    parser.add_argument("--changed", type=int, default=100, help="rows judged again")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    ids = [f"r{i:04d}" for i in range(args.rows)]
    baseline = row_scores([_row(i, rng) for i in ids])
    now = [_row(i, rng) for i in ids]
    rules = Rules(
        datasets=["d"],
        scores_by_metric=SCORES,
        thresholds={
            "d": {
                "groundedness": Threshold(min=0.7, max_drop=0.05),
                "contradiction": Threshold(max=0.3, max_drop=0.05),
            }
        },
        on_error="fail",
        baseline=baseline,
    )
    reused, changed = now[: args.rows - args.changed], now[args.rows - args.changed :]
    started = time.perf_counter()
    asked = 0
    for judged in range(len(changed) + 1):
        pending = [("d", r.sample_id) for r in changed[judged:]]
        asked += 1
        if not open_checks(rules, reused + changed[:judged], pending):
            break
    seconds = time.perf_counter() - started
    print(json.dumps({"rows": args.rows, "changed": args.changed, "asked": asked,
                      "settled_after": judged, "seconds": round(seconds, 2)}))  # fmt: skip


if __name__ == "__main__":
    main()
