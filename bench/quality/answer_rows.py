"""Labelled rows for the answers metric (issue 30), built from the human-labelled sets and
written to bench/out/ (the labelled files are not copied into the repository).

    .venv/bin/python -m bench.quality.answer_rows --data ../shared/datasets --split dev \
        --out bench/out/answers-dev.jsonl
    .venv/bin/python -m bench.quality.answer_rows --data ../shared/datasets --split test \
        --out bench/out/answers-test.jsonl

Two groups, each row labelled `answered` (1: the response answers its question; 0: it
declines, evades or says nothing) and, for QA, `answerable` (1: the source holds the answer):

- `lfqa-answers`: each LFQA question (lfqa_dev.jsonl, split by the SHA-256 of its question id)
  with a model's answer to it (answered 1, answerable 1), with two declines or evasions
  (answered 0, answerable 1), and both again against another question's source (answerable 0).
  The declines are written here in two disjoint lists: DEV_DECLINES picked the prompts and
  thresholds, TEST_DECLINES is used only by `--split test`.
- `begin-generic`: BEGIN dialogue replies people labelled Generic (`informative` 0: "i agree.",
  "hello") against attributable ones of the same sources (1), split by the hash of their id;
  `answered` = `informative`, no answerability (the previous turn is not a question).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

# Declines, evasions, hedges, greetings, changes of subject and answers that say nothing,
# as support bots and RAG apps write them. Two disjoint lists: one to design with, one to test.
DEV_DECLINES = (
    "I'm sorry, I can't help with that.",
    "I don't know.",
    "The documentation does not say.",
    "I couldn't find that information in the provided documents.",
    "Unfortunately, I am not able to answer this question.",
    "As an AI language model, I cannot provide an answer to that.",
    "That's a great question! There are many factors to consider, and it really depends.",
    "It depends on the situation.",
    "Hello! How can I help you today?",
    "Thanks for reaching out! Is there anything else I can help you with?",
    "Could you clarify what you mean?",
    "Please contact our support team for more information.",
    "Our offices are open Monday to Friday, 9 am to 5 pm.",
    "🎉🎉🎉",
    "[]",
    "...",
    "N/A",
    "Lo siento, no puedo ayudarte con eso.",
    "I'm not sure about that one, sorry.",
    "This question is outside the scope of what I can answer.",
)
TEST_DECLINES = (
    "Apologies, but I'm unable to assist with this request.",
    "No idea, to be honest.",
    "The provided context doesn't contain enough information to answer.",
    "Sorry, that isn't covered in the sources I have access to.",
    "I cannot answer that based on the information given.",
    "I'd rather not speculate on that.",
    "Good question! Let me think about it and get back to you.",
    "There are several possible answers, and opinions differ.",
    "Hi there! 👋",
    "Thank you for your question.",
    "What exactly would you like to know?",
    "You may want to consult an expert on this topic.",
    "Shipping is free on all orders over $50.",
    "👍",
    "{}",
    "—",
    "null",
    "Désolé, je ne sais pas.",
    "Hmm, hard to say.",
    "I'm afraid I can't provide details on that.",
)
SPLITS = ("dev", "test")


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _read(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _in_split(key: str, split: str) -> bool:
    return (int(_hash(key)[:8], 16) % 2 == 0) == (split == "dev")


def _row(
    row_id: str, group: str, source: str, question: str | None, response: str, **labels: int
) -> dict[str, Any]:
    return {
        "id": row_id,
        "dataset": group,
        "source": source,
        "question": question,
        "response": response,
        **labels,
    }


def lfqa_rows(path: Path, split: str) -> list[dict[str, Any]]:
    by_question: dict[int, list[dict[str, Any]]] = {}
    for row in _read(path):
        by_question.setdefault(row["meta"]["question_id"], []).append(row)
    ids = sorted(
        (q for q in by_question if _in_split(f"lfqa-{q}", split)), key=lambda q: _hash(str(q))
    )
    declines = DEV_DECLINES if split == "dev" else TEST_DECLINES
    out: list[dict[str, Any]] = []
    for index, qid in enumerate(ids):
        # a grounded answer when there is one (an answer all the same when not)
        answer = sorted(by_question[qid], key=lambda r: (-r["label"], r["id"]))[0]
        other = sorted(by_question[ids[(index + 1) % len(ids)]], key=lambda r: r["id"])[0]
        question, source = answer["question"], answer["source"]
        picks = [declines[int(_hash(f"{qid}-{k}")[:8], 16) % len(declines)] for k in (0, 1)]
        if picks[0] == picks[1]:
            picks[1] = declines[(declines.index(picks[0]) + 1) % len(declines)]
        base, group = f"lfqa-q{qid}", "lfqa-answers"
        out.append(
            _row(
                f"{base}-answer",
                group,
                source,
                question,
                answer["response"],
                answered=1,
                answerable=1,
            )
        )
        for k, decline in enumerate(picks):
            out.append(
                _row(
                    f"{base}-decline{k}", group, source, question, decline, answered=0, answerable=1
                )
            )
        out.append(
            _row(
                f"{base}-swapped-answer",
                group,
                other["source"],
                question,
                answer["response"],
                answered=1,
                answerable=0,
            )
        )
        out.append(
            _row(
                f"{base}-swapped-decline",
                group,
                other["source"],
                question,
                picks[0],
                answered=0,
                answerable=0,
            )
        )
    return out


def begin_rows(path: Path, split: str) -> list[dict[str, Any]]:
    return [
        _row(
            r["id"],
            "begin-generic",
            r["source"],
            r["question"],
            r["response"],
            answered=int(r["informative"]),
        )
        for r in sorted(_read(path), key=lambda r: _hash(r["id"]))
        if _in_split(r["id"], split)
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="the folder of the labelled sets")
    parser.add_argument("--split", choices=SPLITS, required=True)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    rows = lfqa_rows(args.data / "lfqa_dev.jsonl", args.split)
    rows += begin_rows(args.data / "begin_generic_dev.jsonl", args.split)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    groups: dict[str, int] = {}
    for row in rows:
        groups[row["dataset"]] = groups.get(row["dataset"], 0) + 1
    print(f"{len(rows)} rows ({groups}) -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
