"""ground-gate's per-row calibration scores in the peers' row format, one file per score.

    .venv/bin/python bench/gg_rows.py bench/out/calibrate.json --out-dir bench/out/peers-1.5b

so that `bench/peers/score.py` computes the same figures for ground-gate and the peers on the
same rows. Scores where lower is better (hallucination, contradiction) are written as
1 - value, so that for every file a higher score means "more grounded". A row the metric
could not score (error, or nothing to judge) is written as a failure, as the peers' are.
Seconds per row are the judge time of that metric's calls.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from ground_gate.config.model import LOWER_IS_BETTER, METRIC_OF_SCORE


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("calibration", type=Path)
    parser.add_argument("--out-dir", type=Path, default=Path("bench/out/peers-1.5b"))
    args = parser.parse_args()
    report = json.loads(args.calibration.read_text(encoding="utf-8"))
    model = report["judge"]["model"]
    args.out_dir.mkdir(parents=True, exist_ok=True)
    for score, metric in METRIC_OF_SCORE.items():
        lines = []
        for row in report["rows_scored"]:
            if metric not in row["status"]:
                break
            usage = row["usage"][metric]
            value = row["scores"].get(score)
            status = row["status"][metric]
            lines.append(
                {
                    "id": row["id"],
                    "dataset": row["group"],
                    "label": row["label"],
                    "tool": f"ground-gate {score}",
                    "model": model,
                    "score": None
                    if value is None
                    else (1 - value if score in LOWER_IS_BETTER else value),
                    "error": None if status == "ok" else status,
                    "seconds": usage["seconds"],
                    "calls": usage["calls"],
                    "prompt_tokens": usage["prompt_tokens"],
                    "completion_tokens": usage["completion_tokens"],
                }
            )
        if lines:
            path = args.out_dir / f"ground-gate-{score}.jsonl"
            path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
            print(path)


if __name__ == "__main__":
    main()
