"""ground-gate's per-row calibration scores in the peers' row format, one file per score.

    .venv/bin/python -m bench.peers.gg_rows bench/out/calibrate.json --out-dir bench/out/peers-1.5b

so that `bench/peers/score.py` computes the same figures for ground-gate and the peers on the
same rows. Scores where lower is better (hallucination, contradiction) are written as
1 - value, so that for every file a higher score means "more grounded". A row the metric
could not score (error, or nothing to judge) is written as a failure, as the peers' are.
Calls, tokens and seconds are what the metric's judge calls cost when they were made (a row
served from the cache keeps its recorded cost; one whose cache entries predate cost
recording is marked `cost_recorded: false` and left out of the cost means).

`--variants` also writes the scoring/aggregate variants (ground_gate/metrics/aggregation.py),
recomputed from the per-unit probabilities of the same run with the product's own functions:
the before/after comparison costs no judge call and sees the very same verdicts.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ground_gate.config.scores import LOWER_IS_BETTER, METRIC_OF_SCORE
from ground_gate.metrics.aggregation import answer_pair_probabilities, combine

Units = list[Mapping[str, Any]]


def _pairs(units: Units, verdict: str) -> float:
    shares = [
        answer_pair_probabilities(u["detail"]["p_summary"], u["detail"]["p_document"])[verdict]
        for u in units
    ]
    return combine(shares, "mean")


# variant file suffix -> (metric, score, function of the metric's units)
VARIANTS: dict[str, tuple[str, str, Callable[[Units], float]]] = {
    "groundedness-min": (
        "groundedness", "groundedness", lambda u: combine([x["score"] for x in u], "min"),
    ),
    "faithfulness-probability": (
        "faithfulness", "faithfulness",
        lambda u: combine([x["detail"]["p_supported"] for x in u], "mean"),
    ),
    "faithfulness-probability-min": (
        "faithfulness", "faithfulness",
        lambda u: combine([x["detail"]["p_supported"] for x in u], "min"),
    ),
    "agreement-probability": ("summary_accuracy", "agreement", lambda u: _pairs(u, "agree")),
    "hallucination-probability": (
        "summary_accuracy", "summary_hallucination", lambda u: _pairs(u, "hallucinated"),
    ),
    "contradiction-probability": (
        "summary_accuracy", "summary_contradiction", lambda u: _pairs(u, "contradicted"),
    ),
}  # fmt: skip


def _line(row: Mapping[str, Any], metric: str, score: str, tool: str, model: str,
          value: float | None) -> dict[str, Any]:  # fmt: skip
    cost = (row.get("cost") or row["usage"])[metric]
    status = row["status"][metric]
    return {
        "id": row["id"],
        "dataset": row["group"],
        "label": row["label"],
        "tool": tool,
        "model": model,
        "score": None if value is None else (1 - value if score in LOWER_IS_BETTER else value),
        "error": None if status == "ok" else status,
        "seconds": cost["seconds"],
        "calls": cost["calls"],
        "prompt_tokens": cost["prompt_tokens"],
        "completion_tokens": cost["completion_tokens"],
        # served from cache entries that predate cost recording: left out of cost means
        "cost_recorded": not cost.get("unrecorded", 0),
    }


def files(report: Mapping[str, Any], variants: bool) -> dict[str, list[dict[str, Any]]]:
    """File stem -> rows, for every score (and variant) the report's metrics produced."""
    model = report["judge"]["model"]
    rows = report["rows_scored"]
    out: dict[str, list[dict[str, Any]]] = {}
    for score, metric in METRIC_OF_SCORE.items():
        if rows and all(metric in row["status"] for row in rows):
            out[f"ground-gate-{score}"] = [
                _line(r, metric, score, f"ground-gate {score}", model, r["scores"].get(score))
                for r in rows
            ]
    if not variants:
        return out
    for suffix, (metric, score, compute) in VARIANTS.items():
        if rows and all(metric in row["status"] for row in rows):
            out[f"ground-gate-{suffix}"] = [
                _line(
                    r,
                    metric,
                    score,
                    f"ground-gate {suffix}",
                    model,
                    compute(r["units"][metric]) if r["status"][metric] == "ok" else None,
                )
                for r in rows
            ]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("calibration", type=Path)
    parser.add_argument("--out-dir", type=Path, default=Path("bench/out/peers-1.5b"))
    parser.add_argument("--variants", action="store_true", help="also write the variants")
    args = parser.parse_args()
    report = json.loads(args.calibration.read_text(encoding="utf-8"))
    args.out_dir.mkdir(parents=True, exist_ok=True)
    for stem, lines in files(report, args.variants).items():
        path = args.out_dir / f"{stem}.jsonl"
        path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
        print(path)


if __name__ == "__main__":
    main()
