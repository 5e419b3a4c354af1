"""Issue 45: the per-fact check's cost and AUC gain, per dataset.

Reads `calibrate --output-json` reports of groundedness's verdict method, made on the same
labelled rows and the same judge cache (facts on and off, before and after a change), and
prints one markdown table: per dataset (the rows' `group`) and run, the judge calls, prompt
tokens and judge seconds a row (what the completions cost when made, cache hits included, so
a run served from the cache reports the cost of a cold one), the sentences said to hold a
swapped fact, and the ROC AUC of groundedness and contradiction against the rows' labels (1
grounded), with its standard error (Hanley-McNeil).

    .venv/bin/python -m bench.quality.fact_cost off=bench/out/facts-off.json \\
        on=bench/out/facts-on.json

With `--rules FILE`, no judge: per dataset of the labelled rows in FILE, the facts the rules
find in the responses' sentences, those asked before issue 45 (not stated in the sentence's
passages: one call each) and now (also some fill could find them different: one call a
sentence), before a sentence the verdict calls contradicted is left out (that needs the judge).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from bench.quality.swapped_facts import standard_error
from ground_gate.leaves.sentences import split_sentences
from ground_gate.leaves.stats import roc_auc
from ground_gate.metrics.facts import could_differ, find, stated
from ground_gate.metrics.passages import focus

METRIC = "groundedness"


def auc(rows: list[dict[str, Any]], score: str) -> str:
    """'0.766 ± 0.041': grounded rows (label 1) ranked above the others."""
    pairs = [(r["scores"][score], r["label"]) for r in rows if score in r["scores"]]
    if score != "groundedness":  # lower is better
        pairs = [(1 - value, label) for value, label in pairs]
    labels = [label for _, label in pairs]
    found = roc_auc([v for v, _ in pairs], labels)
    if found is None:
        return "n/a"
    positives = sum(labels)
    return f"{found:.3f} ± {standard_error(found, positives, len(labels) - positives):.3f}"


def per_row(rows: list[dict[str, Any]], key: str) -> float:
    total = sum(float(r.get("cost", {}).get(METRIC, {}).get(key, 0)) for r in rows)
    return total / max(len(rows), 1)


def swapped(rows: list[dict[str, Any]]) -> int:
    units = (u for r in rows for u in r.get("units", {}).get(METRIC, []))
    return sum("swapped_fact" in u["detail"] for u in units)


def line(group: str, name: str, rows: list[dict[str, Any]]) -> str:
    grounded = sum(r["label"] for r in rows)
    return (
        f"| {group} ({len(rows)}: {grounded} grounded) | {name} | {per_row(rows, 'calls'):.2f} | "
        f"{per_row(rows, 'prompt_tokens'):,.0f} | {per_row(rows, 'seconds'):.1f} | "
        f"{swapped(rows)} | {auc(rows, 'groundedness')} | {auc(rows, 'contradiction')} |"
    )


def rules(path: Path) -> None:
    """Per dataset: rows, sentences, facts found, asked before and now, calls before and now."""
    counts: dict[str, list[int]] = {}
    for text in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(text)
        seen = counts.setdefault(row["dataset"], [0] * 7)
        seen[0] += 1
        for sentence in split_sentences(row["response"]):
            passage = focus(sentence, row["source"])
            found = find(sentence)
            before = [f for f in found if not stated(f, passage)]
            now = [f for f in before if could_differ(f, passage)]
            for i, n in enumerate((1, len(found), len(before), len(now), len(before), bool(now))):
                seen[i + 1] += n
    print(
        "| rows | sentences | facts found | asked before | asked now | calls before | calls now |"
    )
    print("|---|---|---|---|---|---|---|")
    for name, c in sorted(counts.items()):
        print(f"| {name} ({c[0]}) | " + " | ".join(f"{n / c[0]:.2f}" for n in c[1:]) + " |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="*", help="NAME=calibrate.json")
    parser.add_argument("--ids", type=Path, help="only the rows of this labelled file")
    parser.add_argument("--rules", type=Path, help="labelled rows: the facts asked, no judge")
    args = parser.parse_args()
    if args.rules:
        rules(args.rules)
        return 0
    wanted = None
    if args.ids:
        lines = args.ids.read_text(encoding="utf-8").splitlines()
        wanted = {json.loads(line)["id"] for line in lines if line.strip()}
    runs = []
    for run in args.runs:
        name, _, path = run.partition("=")
        rows = json.loads(Path(path).read_text(encoding="utf-8"))["rows_scored"]
        runs.append((name, [r for r in rows if wanted is None or r["id"] in wanted]))
    print("| rows | run | calls a row | prompt tokens a row | judge s a row | swapped facts said "
          "| groundedness AUC | contradiction AUC |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|")
    groups = sorted({r["group"] for _, rows in runs for r in rows})
    for group in [*groups, "all"]:
        for name, rows in runs:
            members = [r for r in rows if group in ("all", r["group"])]
            print(line(group, name, members))
    return 0


if __name__ == "__main__":
    sys.exit(main())
