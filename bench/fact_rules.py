"""Issue 33, design 1, no judge: how far do rules alone get on swapped facts?

Per summary sentence, the checkable facts a small rule set finds (numbers in digits or words,
ordinals, months and weekdays, capitalised names), each looked up in the whole source:
"equal" when the source has it, else "different" when the passages the sentence is about
(passages.focus) hold a fact of the same kind (the source may state another value), else
"absent". Measured against aggrefact_dev's marked spans: how many spans hold a checkable fact
at all, and how many the rules flag; and how many rows of each label have a fact flagged.

    .venv/bin/python bench/fact_rules.py --labels ../shared/datasets/aggrefact_dev.jsonl
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ground_gate.metrics.passages import focus
from ground_gate.sentences import split_sentences

_NUMBERS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy "
    "eighty ninety hundred thousand million billion first second third fourth fifth sixth "
    "seventh eighth ninth tenth"
)
_CALENDAR = (
    "january february march april may june july august september october november december "
    "monday tuesday wednesday thursday friday saturday sunday"
)
NUMBER_WORDS, CALENDAR = frozenset(_NUMBERS.split()), frozenset(_CALENDAR.split())
DIGITS = re.compile(r"\d+(?:\s*[.,]\s*\d+)*")
WORD = re.compile(r"[A-Za-z][A-Za-z'\-]*")
NAME = re.compile(r"\b[A-Z][\w'\-]+(?:\s+(?:of|the|de|van|von)?\s*[A-Z][\w'\-]+)*")
Fact = tuple[str, str, int, int]  # kind, value, start, end (in the sentence)


def facts(sentence: str) -> list[Fact]:
    found: list[Fact] = [
        ("number", re.sub(r"[\s,]", "", m.group()), m.start(), m.end())
        for m in DIGITS.finditer(sentence)
    ]
    for m in WORD.finditer(sentence):
        word = m.group().lower()
        if word in NUMBER_WORDS:
            found.append(("number", word, m.start(), m.end()))
        elif word in CALENDAR:
            found.append(("date", word, m.start(), m.end()))
    for m in NAME.finditer(sentence):
        if m.start() > 0 or " " in m.group():  # a sentence's first word is no name by itself
            found.append(("name", m.group().lower(), m.start(), m.end()))
    return found


def verdicts(response: str, source: str) -> list[tuple[str, int, int]]:
    """(verdict, start, end) of each fact of `response`, positions in the response."""
    lower = source.lower()
    numbers = {re.sub(r"[\s,]", "", m.group()) for m in DIGITS.finditer(source)}
    out = []
    at = 0
    for sentence in split_sentences(response):
        start = response.find(sentence, at)
        at = start + len(sentence)
        kinds_nearby = {kind for kind, *_ in facts(focus(sentence, source))}
        for kind, value, a, b in facts(sentence):
            if kind == "number" and value[0].isdigit():
                present = value in numbers
            elif kind == "name":
                present = all(part in lower for part in value.split())
            else:
                present = re.search(rf"\b{re.escape(value)}\b", lower) is not None
            verdict = "equal" if present else "different" if kind in kinds_nearby else "absent"
            out.append((verdict, start + a, start + b))
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
