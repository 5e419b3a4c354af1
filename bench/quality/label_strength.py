"""ROC AUC against the rows labelled not grounded, split by how strongly their annotators
agreed, from a `calibrate --output-json` report and the labelled file it was run on.

    .venv/bin/python -m bench.quality.label_strength bench/out/dev_full890.json \\
        bench/out/dev_full890.jsonl

A row labelled not grounded is put in the class of its strongest span: "all" when every
annotator marked one of its spans not supported, "a majority" when more than half did,
"fewer" when no span has a majority saying not supported (e.g. two "partially" and one
"supported": LFQA counts a row grounded only when 2 of 3 annotators marked every sentence
supported). Rows
whose spans carry no raw annotator labels (AggreFact, BEGIN) are "no raw labels". Each class
is ranked against every row of the same group labelled grounded, so the figures say whether
the judge misses clear errors or the cases the annotators themselves split on.

Prints a markdown table for bench/RESULTS.md.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

SCORES = (("groundedness", False), ("hallucination", True), ("contradiction", True))
CLASSES = ("all", "a majority", "fewer", "no raw labels")


def strength(spans: Sequence[Mapping[str, Any]]) -> str:
    """The class of a row labelled not grounded, from its spans' raw annotator labels."""
    votes = [
        s["raw_label"] for s in spans if isinstance(s.get("raw_label"), list) and s["raw_label"]
    ]
    if not votes:
        return "no raw labels"
    share = max(v.count("not_supported") / len(v) for v in votes)
    return "all" if share == 1 else "a majority" if share > 0.5 else "fewer"


def auc(grounded: Sequence[float], not_grounded: Sequence[float]) -> float | None:
    """P(a grounded row scores above a row that is not), ties counted half."""
    if not grounded or not not_grounded:
        return None
    wins = sum((a > b) + 0.5 * (a == b) for a in grounded for b in not_grounded)
    return wins / (len(grounded) * len(not_grounded))


def table(report: Mapping[str, Any], labels: Mapping[str, Mapping[str, Any]]) -> list[str]:
    groups: dict[str, list[tuple[int, str, Mapping[str, float]]]] = {}
    missing = [r["id"] for r in report["rows_scored"] if r["id"] not in labels]
    if missing:
        raise SystemExit(
            f"{len(missing)} row(s) of the report are not in the labels, e.g. {missing[0]}"
        )
    for row in report["rows_scored"]:
        if not row.get("scores"):  # not scored (an interrupted run lists them too)
            continue
        labelled = labels[row["id"]]
        kind = "" if row["label"] == 1 else strength(labelled.get("hallucinated_spans") or [])
        groups.setdefault(row["group"], []).append((row["label"], kind, row["scores"]))
    lines = [
        "| group | rows labelled not grounded | rows | " + " | ".join(n for n, _ in SCORES) + " |",
        "|---|---|---|" + "---|" * len(SCORES),
    ]
    for group, rows in sorted(groups.items()):
        for kind in CLASSES:
            negatives = [s for label, k, s in rows if label == 0 and k == kind]
            if not negatives:
                continue
            cells = []
            for name, lower_is_better in SCORES:
                sign = -1.0 if lower_is_better else 1.0
                pos = [sign * s[name] for label, _, s in rows if label == 1 and name in s]
                neg = [sign * s[name] for s in negatives if name in s]
                value = auc(pos, neg)
                cells.append("-" if value is None else f"{value:.3f}")
            lines.append(f"| {group} | {kind} | {len(negatives)} | " + " | ".join(cells) + " |")
    return lines


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    report = json.loads(Path(argv[0]).read_text())
    labels = {}
    for line in Path(argv[1]).read_text().splitlines():
        if line.strip():
            row = json.loads(line)
            labels[row["id"]] = row
    print("\n".join(table(report, labels)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
