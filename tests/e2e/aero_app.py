"""A support app for the Aero 3 demo questions, as a command target (one JSON object a line on
stdin, one answer a line on stdout), in the ways an app's change can make it say less.

Modes (argv[1]):
- `honest`: answers each question its documentation answers with the passage's first sentence,
  and says the documentation does not say where the row's documentation cannot answer;
- `declines`: as honest, but declines every answerable question, in the phrasings of a prompt
  change gone wrong, taken in turn;
- `nothing`: as honest, but answers every answerable question with no word at all (emoji,
  punctuation, an empty list).
"""

from __future__ import annotations

import json
import sys

DECLINES = (
    "I'm sorry, I can't help with that.",
    "I'm not able to answer questions about this product.",
    "Please contact our support team for help with that.",
    "Sorry, I don't have that information.",
)
NOTHING = ("🎉🎉🎉", "[]", "{}", "...", "\u2014")


def honest(row: dict[str, object]) -> str:
    if row.get("answerable") is False:
        return "The documentation does not say."
    return str(row["context"]).split(". ")[0].rstrip(".") + "."


def answer(mode: str, index: int, row: dict[str, object]) -> str:
    if mode == "honest" or not row.get("answerable"):
        return honest(row)
    if mode == "declines":
        return DECLINES[index % len(DECLINES)]
    if mode == "nothing":
        return NOTHING[index % len(NOTHING)]
    raise SystemExit(f"unknown mode {mode!r}")


def main(mode: str) -> int:
    for index, line in enumerate(sys.stdin):
        row = json.loads(line)
        print(json.dumps({"id": row["id"], "response": answer(mode, index, row)}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
