"""Issue 33, design 1, no judge: how far do rules alone get on swapped facts?

Per summary sentence, the checkable facts the rules of metrics/facts.py find (numbers in
digits or words with their units, months and weekdays, capitalised names), each looked up in
the whole source:
"equal" when the source has it, else "different" when the passages the sentence is about
(passages.focus) hold a fact of the same kind (the source may state another value), else
"absent". Measured against aggrefact_dev's marked spans: how many spans hold a checkable fact
at all, and how many the rules flag; and how many rows of each label have a fact flagged.

    .venv/bin/python -m bench.archive.fact_rules --labels ../shared/datasets/aggrefact_dev.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from ground_gate.leaves.sentences import split_sentences
from ground_gate.metrics.facts import find, stated
from ground_gate.metrics.passages import focus


def verdicts(response: str, source: str) -> list[tuple[str, int, int]]:
    """(verdict, start, end) of each fact of `response` (metrics/facts.py's rules), positions
    in the response: "equal" when the whole source states it, else "different" when the
    passages the sentence is about hold a fact of the same kind, else "absent"."""
    out = []
    at = 0
    for sentence in split_sentences(response):
        start = response.find(sentence, at)
        at = start + len(sentence)
        kinds_nearby = {fact.kind for fact in find(focus(sentence, source))}
        for fact in find(sentence):
            verdict = (
                "equal"
                if stated(fact, source)
                else "different"
                if fact.kind in kinds_nearby
                else "absent"
            )
            out.append((verdict, start + fact.start, start + fact.end))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--labels", type=Path, required=True)
    args = parser.parse_args()
    counts: Counter[str] = Counter()
    for line in args.labels.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        found = verdicts(row["response"], row["source"])
        label = "grounded" if row["label"] == 1 else "not grounded"
        counts[f"rows {label}"] += 1
        counts[f"rows {label} with a fact 'different'"] += any(v == "different" for v, *_ in found)
        if "contradiction" in row["hallucination_types"]:
            counts["rows labelled contradiction"] += 1
            flagged = any(v == "different" for v, *_ in found)
            counts["rows labelled contradiction with a fact 'different'"] += flagged
        for span in row["hallucinated_spans"]:
            kind = span["type"]
            if span["start"] is None:
                counts[f"spans {kind}, not placed in the response"] += 1
                continue
            inside = [v for v, a, b in found if a < span["end"] and b > span["start"]]
            counts[f"spans {kind}"] += 1
            counts[f"spans {kind} holding a checkable fact"] += bool(inside)
            counts[f"spans {kind} with a fact 'different'"] += "different" in inside
            counts[f"spans {kind} with a fact 'absent'"] += "absent" in inside
    for name in sorted(counts):
        print(f"| {name} | {counts[name]} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
