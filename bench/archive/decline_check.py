"""Which question tells a sentence that only declines from one that claims something (issue 30):
each candidate asked of the sentences of real answers (LFQA, each must stay a claim), of claims
about another subject or hedged (must stay claims: the gate would lose them otherwise), and of
declines in many phrasings (must be found), with the local judge. Dev and test phrasings are
written apart; the test ones judge the one chosen.

    .venv/bin/python -m bench.archive.decline_check --data ../shared/datasets --split dev
    .venv/bin/python -m bench.archive.decline_check --data ../shared/datasets --split test \
        --variants shipped

Prints, per candidate and kind of sentence, how many were taken for declines.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Callable
from pathlib import Path

from bench.peers.serve_local import bench_judge, measure_with_local_judge
from bench.quality.answer_rows import DEV_DECLINES, TEST_DECLINES
from ground_gate.judge.base import ChatMessage, JudgeRequest
from ground_gate.leaves.sentences import split_sentences
from ground_gate.metrics import prompts
from ground_gate.metrics.logprobs import yes_probability

ROOT = Path(__file__).resolve().parents[2]

# Declines that speak of the source or of what is known ("X is not in the documentation"):
# the phrasing a strict RAG prompt makes a small model write, dev and test apart.
DEV_NOT_IN_SOURCE = (
    "The cost of the product is not specified in the documentation.",
    "The documentation does not mention the warranty period.",
    "There is no information about shipping times in the provided context.",
    "The context does not say which colours are available.",
    "I could not find the release date in the documents.",
    "The manual doesn't cover that.",
    "That detail isn't included in the sources I have.",
    "Unfortunately the provided text does not state the price.",
)
TEST_NOT_IN_SOURCE = (
    "The price of the Aero 3 is not given in the documentation.",
    "Nothing in the documentation says whether it supports 5 GHz Wi-Fi.",
    "The sources provided do not include the battery capacity.",
    "I don't see any mention of colour options in the context.",
    "The documents are silent on this point.",
    "No details about the warranty are provided.",
    "This is not covered by the available information.",
    "The text doesn't specify how long delivery takes.",
)
# Claims a gate must not lose: about another subject, hedged, or brief.
DEV_CLAIMS = (
    "Our competitor's vacuum caught fire last year.",
    "The company was founded in 1987 in Ohio.",
    "It probably lasts about five hours, though I'm not sure.",
    "I think the dock is sold separately.",
    "Yes.",
    "No, it cannot.",
)
TEST_CLAIMS = (
    "Most robot vacuums last about three years.",
    "The factory is in Shenzhen.",
    "It might cost around $300, I believe.",
    "As far as I know, it needs a subscription.",
    "Yes, it does.",
    "Not in Turbo mode.",
)

Prompt = Callable[[str], tuple[ChatMessage, ...]]


def about_subject(text: str) -> tuple[ChatMessage, ...]:
    """A candidate that was not shipped: apart from what a source does or does not hold,
    does the text state anything about its subject? (No for "The price is not given in the
    documentation.")"""
    task = (
        "Leave aside anything the answer says about a document, a context or a source (what "
        "it does or does not mention, specify or contain) and about what is or is not known. "
        "Does the rest of the answer state any fact about the subject itself?\n"
        "Answer with one word: Yes or No."
    )
    return (
        ChatMessage("system", prompts.SYSTEM),
        ChatMessage("user", f"<answer>\n{text}\n</answer>\n\n{task}"),
    )


# name -> (prompts whose P(Yes) are averaged, whether Yes means a decline)
VARIANTS: dict[str, tuple[tuple[Prompt, ...], bool]] = {
    "informs": ((prompts.informs,), False),  # a decline holds no information
    "about_subject": ((about_subject,), False),  # nothing said but what a source holds
    "mean of both": ((prompts.informs, about_subject), False),
}


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def answer_sentences(path: Path, split: str, n: int) -> list[str]:
    """Sentences of the LFQA answers of the split's questions (as bench/quality/answer_rows.py
    splits them), the first n by hash."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    chosen = [
        r
        for r in rows
        if (int(_hash(f"lfqa-{r['meta']['question_id']}")[:8], 16) % 2 == 0) == (split == "dev")
    ]
    sentences = sorted({s for r in chosen for s in split_sentences(r["response"])}, key=_hash)
    return sentences[:n]


async def measure(url: str, args: argparse.Namespace) -> None:
    judge = bench_judge(url, args.out / "cache")
    dev = args.split == "dev"
    kinds = {
        "answer sentences": (
            answer_sentences(args.data / "lfqa_dev.jsonl", args.split, args.n),
            False,
        ),
        "other claims": (DEV_CLAIMS if dev else TEST_CLAIMS, False),
        "declines": ((DEV_DECLINES if dev else TEST_DECLINES), True),
        "not in the source": ((DEV_NOT_IN_SOURCE if dev else TEST_NOT_IN_SOURCE), True),
    }
    print(f"| prompt | {' | '.join(f'{k} taken for declines' for k in kinds)} |")
    print("|---|" + "---|" * len(kinds))
    for name in args.variants:
        builds, yes_declines = VARIANTS[name]
        cells = []
        for kind, (texts, _) in kinds.items():
            taken = []
            for text in texts:
                ps = []
                for build in builds:
                    request = JudgeRequest(build(text), build.__name__, logprobs=True)
                    ps.append(yes_probability(await judge.complete(request)))
                p = sum(ps) / len(ps)
                if args.probabilities:
                    print(f"  {name} {kind}: {p:.2f} {text[:70]!r}", file=sys.stderr)
                if (p >= 0.5) == yes_declines:
                    taken.append(text)
            cells.append(f"{len(taken)} of {len(texts)}")
            if args.show:
                for text in taken:
                    print(f"  {name} {kind}: {text[:80]!r}", file=sys.stderr)
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)
    await judge.aclose()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="the folder of the labelled sets")
    parser.add_argument("--split", choices=("dev", "test"), required=True)
    parser.add_argument("--n", type=int, default=60, help="answer sentences to ask about")
    parser.add_argument("--gguf", default="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "decline-check")
    parser.add_argument("--variants", default=",".join(VARIANTS), type=lambda v: v.split(","))
    parser.add_argument("--show", action="store_true", help="print the sentences taken")
    parser.add_argument("--probabilities", action="store_true", help="print every P(Yes)")
    args = parser.parse_args()
    return measure_with_local_judge(args, measure)


if __name__ == "__main__":
    sys.exit(main())
