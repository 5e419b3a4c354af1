"""Issue 33: rows labelled contradiction against grounded ones, and the marked spans.

Reads `calibrate --output-json` reports of groundedness's verdict method (sentence units) and
the labelled rows they judged, and prints for each report, as markdown:

- ROC AUC of groundedness and contradiction: rows labelled contradiction against grounded
  rows (all, then per dataset), with its standard error (Hanley-McNeil);
- span recall: of the spans marked as contradictions (placed in the response), how many fall
  in a sentence the judge did not call supported ("found"), and how many of those it called
  contradicted; the same for baseless spans (which should read "not in source");
- the judge's calls and seconds a row (what the completions cost when made).

    .venv/bin/python -m bench.quality.swapped_facts --labels bench/out/swaps125.jsonl \\
        before=bench/out/swaps-before.json after=bench/out/swaps-after.json
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from ground_gate.leaves.sentences import split_sentences
from ground_gate.leaves.stats import roc_auc


def standard_error(auc: float, positives: int, negatives: int) -> float:
    """Hanley and McNeil's standard error of an AUC."""
    q1, q2 = auc / (2 - auc), 2 * auc * auc / (1 + auc)
    variance = (
        auc * (1 - auc) + (positives - 1) * (q1 - auc * auc) + (negatives - 1) * (q2 - auc * auc)
    ) / (positives * negatives)
    return math.sqrt(max(variance, 0.0))


def auc_line(rows: list[dict[str, Any]], score: str) -> str:
    """'0.766 ± 0.041 (68 vs 57)': grounded (1) ranked above labelled contradiction (0)."""
    pairs = [(r["scores"][score], r["label"]) for r in rows if score in r["scores"]]
    if score != "groundedness":  # lower is better
        pairs = [(1 - value, label) for value, label in pairs]
    positives = sum(label for _, label in pairs)
    negatives = len(pairs) - positives
    auc = roc_auc([v for v, _ in pairs], [label for _, label in pairs])
    if auc is None:
        return "n/a"
    error = standard_error(auc, positives, negatives)
    return f"{auc:.3f} ± {error:.3f} ({negatives} vs {positives})"


def span_counts(row: dict[str, Any], labelled: dict[str, Any]) -> Counter[str]:
    """Per marked span kind: spans placed, found (in a sentence not called supported),
    contradicted (in a sentence called contradicted)."""
    counts: Counter[str] = Counter()
    units = row["units"].get("groundedness") or []
    response = labelled["response"]
    places, at = [], 0
    for sentence in split_sentences(response):
        start = response.find(sentence, at)
        places.append((start, start + len(sentence)))
        at = start + len(sentence)
    for span in labelled["hallucinated_spans"]:
        if span["start"] is None:
            continue
        kind = span["type"]
        hit = [
            units[i]["verdict"]
            for i, (a, b) in enumerate(places)
            if i < len(units) and a < span["end"] and b > span["start"]
        ]
        counts[f"{kind} spans"] += 1
        found = [v for v in hit if v != "supported"]
        counts[f"{kind} found"] += bool(found)
        counts[f"{kind} contradicted"] += "contradicted" in found
    return counts


def report(name: str, raw: dict[str, Any], labels: dict[str, dict[str, Any]]) -> None:
    rows = [r for r in raw["rows_scored"] if r["id"] in labels]
    for r in rows:
        r["dataset"] = labels[r["id"]]["dataset"]
    contra_or_grounded = [
        r for r in rows
        if r["label"] == 1 or "contradiction" in labels[r["id"]]["hallucination_types"]
    ]  # fmt: skip
    print(f"\n### {name}: {len(rows)} rows\n")
    print("| rows | groundedness AUC | contradiction AUC |\n|---|---|---|")
    groups = [("all", contra_or_grounded)] + [
        (d, [r for r in contra_or_grounded if r["dataset"] == d])
        for d in sorted({r["dataset"] for r in contra_or_grounded})
    ]
    for group, members in groups:
        print(f"| {group} | {auc_line(members, 'groundedness')} | "
              f"{auc_line(members, 'contradiction')} |")  # fmt: skip
    spans: Counter[str] = Counter()
    for r in rows:
        spans += span_counts(r, labels[r["id"]])
    print("\n| marked spans | placed | in a sentence not supported | of those, contradicted |")
    print("|---|---|---|---|")
    for kind in ("contradiction", "baseless", "unspecified"):
        print(f"| {kind} | {spans[f'{kind} spans']} | {spans[f'{kind} found']} | "
              f"{spans[f'{kind} contradicted']} |")  # fmt: skip
    calls = sum(r["cost"].get("groundedness", {}).get("calls", 0) for r in rows)
    seconds = sum(r["cost"].get("groundedness", {}).get("seconds", 0.0) for r in rows)
    print(f"\ncalls a row {calls / len(rows):.2f}, judge s a row {seconds / len(rows):.1f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--labels", type=Path, required=True)
    parser.add_argument("runs", nargs="+", help="NAME=calibrate.json")
    args = parser.parse_args()
    lines = args.labels.read_text(encoding="utf-8").splitlines()
    labels = {row["id"]: row for row in map(json.loads, filter(None, lines))}
    for run in args.runs:
        name, _, path = run.partition("=")
        report(name, json.loads(Path(path).read_text(encoding="utf-8")), labels)
    return 0


if __name__ == "__main__":
    sys.exit(main())
