"""How the answers metric's `answered` prompt was chosen (issue 30): each candidate wording
asked of the same labelled rows with the local judge, its ROC AUC for answered (label 1)
against declined (label 0) per group. Run on the dev rows only; the test rows judge the one
chosen (`ground-gate calibrate`, bench/RESULTS.md).

    .venv/bin/python -m bench.quality.answer_rows --data ../shared/datasets --split dev \
        --out bench/out/answers-dev.jsonl
    .venv/bin/python -m bench.archive.answer_prompts --labels bench/out/answers-dev.jsonl \
        --questions 10 --variants shipped --show
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

from bench.peers.serve_local import bench_judge, measure_with_local_judge
from ground_gate.judge.base import ChatMessage, JudgeRequest
from ground_gate.leaves.stats import roc_auc
from ground_gate.metrics import prompts
from ground_gate.metrics.logprobs import yes_probability

ROOT = Path(__file__).resolve().parents[2]

NOTHING = "or holds no information at all (emoji, punctuation, an empty list)."
Prompt = Callable[[str | None, str], tuple[ChatMessage, ...]]


def _asking(task: str) -> Prompt:
    def build(question: str | None, answer: str) -> tuple[ChatMessage, ...]:
        return prompts._answer_messages(
            question, answer, f"{task}\nAnswer with one word: Yes or No."
        )

    return build


# name -> (prompt, whether Yes means answered): one view of a response
VIEWS: dict[str, tuple[Prompt, bool]] = {
    # the first wording tried, one prompt with the question
    "answers_question": (
        _asking(
            "Does the answer give the information the question asks for, at least in part, or "
            "respond to it with information on its subject? Answer No if it declines, says it "
            "does not know or cannot find the information, evades, only hedges, greets, thanks, "
            f"only agrees, asks a question back, talks about something else, {NOTHING}"
        ),
        True,
    ),
    "information": (
        _asking(
            "Does the answer give information on what the question asks about: at least one "
            "fact, figure, name, explanation or detail on its subject? Answer No if it only "
            "declines, says it does not know, evades, hedges, greets, thanks, agrees, asks a "
            f"question back, talks about something else, {NOTHING}"
        ),
        True,
    ),
    "non_answer": (
        _asking(
            "Is the answer a non-answer? Answer Yes if it only declines, says it does not know "
            "or cannot find the information, evades, hedges, greets, thanks, agrees, asks a "
            f"question back, talks about something else, {NOTHING} Answer No if it gives any "
            "information on the subject of the question."
        ),
        False,
    ),
    # claim extraction's first question until issue 30 (prompts.states_facts then)
    "states_facts": (
        _asking(
            "Does the answer state at least one fact about the subject of the question? Answer "
            "No if it only declines, says it does not know or cannot find the information, "
            "greets, or asks a question."
        ),
        True,
    ),
    "new_information": (
        _asking(
            "Does the answer give the person who asked any information they did not have: a "
            "fact, figure, name, event or explanation on the subject being asked or talked "
            "about? Agreeing, thanking, greeting, declining, saying it does not know, hedging, "
            "asking back, repeating their words or talking about something else gives no "
            f"information; nor does an answer that {NOTHING.removeprefix('or ')}"
        ),
        True,
    ),
    "text_information": (  # the question left out: does the text inform at all?
        lambda _question, answer: prompts._answer_messages(
            None,
            answer,
            "Does the answer contain any information: a fact, figure, name, event, description "
            "or explanation? Answer No if it only agrees, thanks, greets, declines, says it "
            f"does not know, hedges or asks a question, {NOTHING}\n"
            "Answer with one word: Yes or No.",
        ),
        True,
    ),
    # non_answer with the answer before the question (tried so that both views would share
    # the answer as their prefix): far worse, not kept
    "non_answer_answer_first": (
        lambda question, answer: (
            ChatMessage("system", prompts.SYSTEM),
            ChatMessage(
                "user",
                f"{prompts._block('answer', answer)}\n{prompts._block('question', question or '')}"
                "\n\nIs the answer a non-answer to the question? Answer Yes if it only declines, "
                "says it does not know or cannot find the information, evades, hedges, greets, "
                f"thanks, agrees, asks a question back, talks about something else, {NOTHING} "
                "Answer No if it gives any information on the subject of the question.\n"
                "Answer with one word: Yes or No.",
            ),
        ),
        False,
    ),
    # the metric's two views as it asks them (prompts.informs, prompts.evades)
    "informs": (lambda _question, answer: prompts.informs(answer), True),
    "evades": (lambda question, answer: prompts.evades(answer, question or ""), False),
    "substance": (
        _asking(
            "Does the answer say something of substance in reply: information, facts or an "
            "explanation on the subject of the question? Answer No if it only declines, says "
            "it does not know, evades, hedges, greets, thanks, agrees, asks a question back, "
            f"talks about something else, {NOTHING}"
        ),
        True,
    ),
}


# a variant: the views whose P(answered) it averages; the single views, and the pairs tried
VARIANTS: dict[str, tuple[str, ...]] = {
    **{name: (name,) for name in VIEWS},
    "information+text_information": ("information", "text_information"),
    "non_answer+text_information": ("non_answer", "text_information"),
    "text_information+non_answer_answer_first": ("text_information", "non_answer_answer_first"),
    "shipped": ("informs", "evades"),  # metrics/answers.py
}


async def measure(url: str, args: argparse.Namespace) -> None:
    judge = bench_judge(url, args.out / "cache")
    rows = [json.loads(line) for line in args.labels.read_text("utf-8").splitlines() if line]
    # a swapped row asks what its unswapped row asks (this prompt reads no source)
    rows = [r for r in rows if "answered" in r and "-swapped-" not in r["id"]]
    if args.questions is not None:  # the first N questions of the QA group, every other row
        asked = list(
            dict.fromkeys(r["id"].split("-")[1] for r in rows if r["id"].startswith("lfqa"))
        )
        kept = set(asked[: args.questions])
        rows = [r for r in rows if not r["id"].startswith("lfqa") or r["id"].split("-")[1] in kept]
    groups = sorted({r["dataset"] for r in rows})
    print("| prompt | " + " | ".join(groups) + " | all |")
    print("|---|" + "---|" * (len(groups) + 1))
    for name in args.variants:
        scored: list[tuple[str, float, int]] = []
        for row in rows:
            views = []
            for view in VARIANTS[name]:
                build, yes_answers = VIEWS[view]
                messages = build(row["question"], row["response"])
                p = yes_probability(
                    await judge.complete(JudgeRequest(messages, view, logprobs=True))
                )
                views.append(p if yes_answers else 1 - p)
            scored.append((row["dataset"], sum(views) / len(views), row["answered"]))
        cells = []
        for group in [*groups, None]:
            mine = [(p, y) for g, p, y in scored if group is None or g == group]
            auc = roc_auc([p for p, _ in mine], [y for _, y in mine])
            cells.append("n/a" if auc is None else f"{auc:.3f} ({len(mine)})")
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)
        with (args.out / "probabilities.jsonl").open("a", encoding="utf-8") as dump:
            for (group, p, label), row in zip(scored, rows, strict=True):
                line = {"variant": name, "id": row["id"], "group": group, "p": p, "label": label}
                dump.write(json.dumps(line) + "\n")
        if args.show:
            for (group, p, label), row in zip(scored, rows, strict=True):
                if (p >= 0.5) != bool(label):
                    print(
                        f"  {name} wrong {group} {label} {p:.2f} {row['response'][:70]!r}",
                        file=sys.stderr,
                    )
    await judge.aclose()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--labels", type=Path, required=True)
    parser.add_argument("--gguf", default="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "answer-prompts")
    parser.add_argument("--variants", default=",".join(VARIANTS), type=lambda v: v.split(","))
    parser.add_argument("--show", action="store_true")
    parser.add_argument("--questions", type=int, help="LFQA questions to ask about (default: all)")
    args = parser.parse_args()
    return measure_with_local_judge(args, measure)


if __name__ == "__main__":
    sys.exit(main())
