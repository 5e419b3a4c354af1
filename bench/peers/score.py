"""Agreement with human labels and cost per row, from run_peers.py output files.

    python -m bench.peers.score bench/out/ragas.jsonl bench/out/trulens.jsonl [--by-dataset]

Standard library only. A failure is a row with an error or without a finite score. Failures
stay in every figure: they are scored as the worst possible score (below every real score:
ranked last for AUC, "not grounded" at any threshold), as a gate that never lets a failed
row pass would treat them. The "AUC ok" column is the AUC over the rows that have a score.
Cost means (calls, tokens, seconds per row) leave out rows marked `"cost_recorded": false`
(ground-gate rows served from a judge cache written before costs were recorded).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

WORST = -math.inf
TRACE_SUFFIX = ".trace.jsonl"  # run_peers --trace logs, not results


@dataclass(frozen=True)
class Row:
    id: str
    label: int
    score: float | None  # None = failure
    dataset: str
    model: str
    seconds: float
    calls: int
    prompt_tokens: int
    completion_tokens: int
    costed: bool = True  # False: the cost of this row was not recorded (left out of cost means)


def read_rows(path: Path) -> list[Row]:
    rows: dict[str, Row] = {}
    with path.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                doc: dict[str, Any] = json.loads(line)
                score = doc.get("score")
                ok = doc.get("error") is None and isinstance(score, int | float)
                ok = ok and math.isfinite(float(score))
                rows[str(doc["id"])] = Row(  # a re-run row replaces an earlier one
                    id=str(doc["id"]),
                    label=int(doc["label"]),
                    score=float(score) if ok else None,
                    dataset=str(doc.get("dataset") or "?"),
                    model=str(doc.get("model") or "?"),
                    seconds=float(doc.get("seconds") or 0.0),
                    calls=int(doc.get("calls") or 0),
                    prompt_tokens=int(doc.get("prompt_tokens") or 0),
                    completion_tokens=int(doc.get("completion_tokens") or 0),
                    costed=doc.get("cost_recorded", True) is not False,
                )
            except (ValueError, KeyError, TypeError) as exc:
                raise SystemExit(f"{path}:{lineno}: not a run_peers record ({exc})") from exc
    return list(rows.values())


def _scored(rows: Sequence[Row]) -> list[tuple[float, int]]:
    return [(WORST if r.score is None else r.score, r.label) for r in rows]


def roc_auc(pairs: Sequence[tuple[float, int]]) -> float | None:
    """P(grounded row scores above a not-grounded one), ties counted half (rank formula)."""
    n_pos = sum(1 for _, y in pairs if y == 1)
    n_neg = len(pairs) - n_pos
    if n_pos == 0 or n_neg == 0:
        return None
    ordered = sorted(pairs, key=lambda p: p[0])
    rank_sum = 0.0
    i = 0
    while i < len(ordered):
        j = i
        while j + 1 < len(ordered) and ordered[j + 1][0] == ordered[i][0]:
            j += 1
        mid_rank = (i + j) / 2 + 1  # average 1-based rank of the tie group
        rank_sum += mid_rank * sum(1 for k in range(i, j + 1) if ordered[k][1] == 1)
        i = j + 1
    return (rank_sum - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)


def confusion(pairs: Iterable[tuple[float, int]], threshold: float) -> tuple[int, int, int, int]:
    """(tp, fn, tn, fp) with grounded as positive; predicted grounded iff score >= threshold."""
    tp = fn = tn = fp = 0
    for score, label in pairs:
        predicted = score >= threshold
        if label == 1:
            tp, fn = (tp + 1, fn) if predicted else (tp, fn + 1)
        else:
            fp, tn = (fp + 1, tn) if predicted else (fp, tn + 1)
    return tp, fn, tn, fp


def balanced_accuracy(pairs: Sequence[tuple[float, int]], threshold: float) -> float | None:
    tp, fn, tn, fp = confusion(pairs, threshold)
    if tp + fn == 0 or tn + fp == 0:
        return None
    return (tp / (tp + fn) + tn / (tn + fp)) / 2


def f1_not_grounded(pairs: Sequence[tuple[float, int]], threshold: float) -> float | None:
    _, fn, tn, fp = confusion(pairs, threshold)
    # The positive class here is "not grounded": hits are tn, misses fp, false alarms fn.
    if 2 * tn + fp + fn == 0:
        return None
    return 2 * tn / (2 * tn + fp + fn)


def best_threshold(pairs: Sequence[tuple[float, int]]) -> tuple[float | None, float | None]:
    """(best balanced accuracy, lowest threshold reaching it) over every distinct real score."""
    best: tuple[float | None, float | None] = (None, None)
    # Every distinct real score, and above all of them (everything "not grounded").
    for threshold in [*sorted({s for s, _ in pairs if s != WORST}), math.inf]:
        value = balanced_accuracy(pairs, threshold)
        if value is not None and (best[0] is None or value > best[0]):
            best = (value, threshold)
    return best


@dataclass(frozen=True)
class Summary:
    name: str
    model: str
    n: int
    failures: int
    bacc_05: float | None
    bacc_best: float | None
    best_threshold: float | None
    auc: float | None
    auc_ok: float | None
    f1_not_grounded: float | None
    calls: float
    prompt_tokens: float
    completion_tokens: float
    seconds: float


def summarize(name: str, rows: Sequence[Row], threshold: float = 0.5) -> Summary:
    pairs = _scored(rows)
    ok_pairs = [(r.score, r.label) for r in rows if r.score is not None]
    bacc_best, best_t = best_threshold(pairs)
    costed = [r for r in rows if r.costed]
    n = len(costed) or 1
    models = sorted({r.model for r in rows})
    return Summary(
        name=name,
        model=",".join(models),
        n=len(rows),
        failures=sum(1 for r in rows if r.score is None),
        bacc_05=balanced_accuracy(pairs, threshold),
        bacc_best=bacc_best,
        best_threshold=best_t,
        auc=roc_auc(pairs),
        auc_ok=roc_auc(ok_pairs),
        f1_not_grounded=f1_not_grounded(pairs, threshold),
        calls=sum(r.calls for r in costed) / n,
        prompt_tokens=sum(r.prompt_tokens for r in costed) / n,
        completion_tokens=sum(r.completion_tokens for r in costed) / n,
        seconds=sum(r.seconds for r in costed) / n,
    )


def _fmt(value: float | None, digits: int = 3) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


HEADER = (
    "| tool | model | n | failures | bal. acc @0.5 | best bal. acc (threshold) | AUC | AUC ok "
    "| F1 not grounded @0.5 | calls/row | prompt tok/row | completion tok/row | s/row |"
)


def markdown(summaries: Sequence[Summary]) -> str:
    lines = [HEADER, "|" + "---|" * HEADER.count(" | ") + "---|"]
    for s in summaries:
        lines.append(
            f"| {s.name} | {s.model} | {s.n} | {s.failures} | {_fmt(s.bacc_05)} "
            f"| {_fmt(s.bacc_best)} ({_fmt(s.best_threshold, 2)}) | {_fmt(s.auc)} "
            f"| {_fmt(s.auc_ok)} | {_fmt(s.f1_not_grounded)} | {s.calls:.1f} "
            f"| {s.prompt_tokens:.0f} | {s.completion_tokens:.0f} | {s.seconds:.1f} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path, help="default: bench/out/*.jsonl")
    parser.add_argument("--by-dataset", action="store_true", help="also one row per dataset")
    parser.add_argument("--threshold", type=float, default=0.5)
    args = parser.parse_args(argv)
    files = args.files or sorted((Path(__file__).resolve().parent.parent / "out").glob("*.jsonl"))
    files = [f for f in files if not f.name.endswith(TRACE_SUFFIX)]
    if not files:
        print("score: no result files", file=sys.stderr)
        return 2
    summaries = []
    for path in files:
        rows = read_rows(path)
        summaries.append(summarize(path.stem, rows, args.threshold))
        if args.by_dataset:
            for dataset in sorted({r.dataset for r in rows}):
                subset = [r for r in rows if r.dataset == dataset]
                summaries.append(summarize(f"{path.stem} / {dataset}", subset, args.threshold))
    print(markdown(summaries))
    print(
        "\nFailures (error, NaN or missing score) are counted in n and scored as the worst "
        "score: ranked last for AUC and 'not grounded' at every threshold. "
        "'AUC ok' leaves them out."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
