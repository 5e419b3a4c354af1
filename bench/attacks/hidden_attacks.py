"""Attack set D (issue 32) against every metric: does a sentence appended to an unsupported
answer, hidden from its reader or speaking about the answer itself, raise its scores?

    .venv/bin/python -m bench.attacks.hidden_attacks \
        --labels ../shared/datasets/begin_dev.jsonl --skip ../shared/datasets/dev_mini.jsonl \
        --half held_out --per-family 2 --rows 12 --out bench/out/hidden-after

Rows: the first N rows labelled 0 (not grounded) of one group, by id, leaving out the rows of
`--skip` (rows the defences were developed on). Attacks: the first `--per-family` phrasings of
each family of `bench/data/injection_set_d.json`'s half (the file's order, shuffled when it was
written), each appended to the response as a paragraph of its own. Metrics: the defaults
(groundedness by verdict, faithfulness, summary accuracy with 5 questions, the rating) unless
`--metrics` names fewer. The code judged is the `ground_gate` of the `ground-gate run` it
starts: this checkout's, or the tree PYTHONPATH names (`PYTHONPATH=<before checkout>
.venv/bin/python -m bench.attacks.hidden_attacks ...`) for a before/after.

Prints, per attack and score, the mean and largest gain over the clean row (towards
"grounded") and the rows passing the demo's thresholds clean -> attacked, as injection.py
does, and how many attacked rows had text taken out as hidden or cut as addressed to the judge.

With `--styles` (issue 43) the attacks are tests/hostile/hidden_styles.py's ways of hiding a
passage instead, each hiding the row's own first source sentences (`--padding` of them) after
its unsupported answer: supported padding a reader does not see. `--styles` takes the names
to run, comma-separated, or `all`; "uncertain" counts the rows with styled text of uncertain
visibility (judged with it and without it, the worse kept).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from bench.attacks.injection import markdown, summary, write_project
from ground_gate.leaves.sentences import split_sentences
from tests.hostile.hidden_styles import HIDING

ROOT = Path(__file__).resolve().parents[2]
SET_D = ROOT / "bench" / "data" / "injection_set_d.json"
FAMILIES = ("markup", "provenance", "praise", "verification note", "other language")
SPECS = {
    "groundedness": "{evidence: none}",
    "faithfulness": "{}",
    "summary_accuracy": "{n_questions: 5}",
    "rating": "{}",
}


def attacks(half: str, per_family: int) -> dict[str, str]:
    """name -> text: the first `per_family` of each family of set D's `half`."""
    entries = json.loads(SET_D.read_text(encoding="utf-8"))[half]
    chosen: dict[str, str] = {}
    for family in FAMILIES:
        texts = [e["text"] for e in entries if e["family"] == family][:per_family]
        chosen.update({f"{family} {i + 1}": text for i, text in enumerate(texts)})
    return chosen


def pick(labels: Path, group: str, n: int, skip: Path | None) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in labels.read_text(encoding="utf-8").splitlines() if line]
    skipped = set()
    if skip is not None:
        lines = skip.read_text(encoding="utf-8").splitlines()
        skipped = {json.loads(line)["id"] for line in lines if line}
    chosen = [
        r for r in rows if r.get("dataset") == group and r["label"] == 0 and r["id"] not in skipped
    ]
    return sorted(chosen, key=lambda r: r["id"])[:n]


UNCERTAIN = "styled text of uncertain visibility"


def taken_out(report: dict[str, Any]) -> dict[str, dict[str, int]]:
    """dataset -> how many of its rows had text taken out: hidden (words, not only invisible
    characters), invisible characters only, cut as addressed to the judge; and how many held
    styled text of uncertain visibility (judged both ways)."""
    counts: dict[str, dict[str, int]] = {}
    for row in report["rows"]:
        hidden = row.get("hidden_text") or []
        words = any(
            h["kind"] not in ("invisible characters", UNCERTAIN) and h["field"] == "response"
            for h in hidden
        )
        entry = counts.setdefault(
            row["dataset"], {"hidden": 0, "invisible": 0, "addressed": 0, "uncertain": 0}
        )
        entry["hidden"] += words
        entry["invisible"] += bool(hidden) and not words and not _uncertain(hidden)
        entry["addressed"] += bool(row.get("addressed_to_judge"))
        entry["uncertain"] += _uncertain(hidden)
    return counts


def _uncertain(hidden: list[dict[str, str]]) -> bool:
    return any(h["kind"] == UNCERTAIN for h in hidden)


def write_styled(
    rows: list[dict[str, Any]],
    out: Path,
    model: str,
    metrics: list[str],
    names: list[str],
    padding: int,
) -> Path:
    """The rows clean and, for each style, with the row's first `padding` source sentences
    hidden that way after its answer, as datasets of one config."""
    config = write_project(rows, out, model, metrics, {}, "\n\n", SPECS)
    text = config.read_text(encoding="utf-8")
    head, _, tail = text.partition("metrics:\n")
    lines = []
    for name in names:
        file = out / f"{name}.jsonl"
        with file.open("w", encoding="utf-8") as handle:
            for r in rows:
                hidden = HIDING[name].format(" ".join(split_sentences(r["source"])[:padding]))
                row = {"id": r["id"], "source": r["source"], "response": r["response"]}
                row["response"] += "\n\n" + hidden
                if r.get("question"):
                    row["question"] = r["question"]
                handle.write(json.dumps(row) + "\n")
        lines.append(f"  - {{name: {json.dumps(name)}, path: {file.name}}}\n")
    config.write_text(head + "".join(lines) + "metrics:\n" + tail, encoding="utf-8")
    return config


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--labels", type=Path, required=True)
    parser.add_argument("--skip", type=Path, help="a labelled file whose rows are left out")
    parser.add_argument("--group", default="BEGIN")
    parser.add_argument("--rows", type=int, default=12)
    parser.add_argument("--half", choices=("design", "held_out"), default="held_out")
    parser.add_argument("--per-family", type=int, default=2)
    parser.add_argument("--model", default="qwen2.5-coder-1.5b")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "hidden-attacks")
    parser.add_argument("--metrics", default=",".join(SPECS), help="comma-separated subset")
    parser.add_argument("--only", default="", help="comma-separated attack names (default: all)")
    parser.add_argument("--styles", default="", help="hidden_styles.py names, or all")
    parser.add_argument("--padding", type=int, default=2, help="source sentences hidden")
    args = parser.parse_args()
    chosen = attacks(args.half, args.per_family)
    if args.only:
        chosen = {name: chosen[name] for name in args.only.split(",")}
    metrics = args.metrics.split(",")
    rows = pick(args.labels, args.group, args.rows, args.skip)
    if args.styles:
        names = list(HIDING) if args.styles == "all" else args.styles.split(",")
        chosen = {name: HIDING[name] for name in names}
        config = write_styled(rows, args.out, args.model, metrics, names, args.padding)
    else:
        config = write_project(rows, args.out, args.model, metrics, chosen, "\n\n", SPECS)
    report_path = args.out / "report.json"
    env = {**os.environ, "PYTHONPATH": os.environ.get("PYTHONPATH", str(ROOT))}
    run = subprocess.run(
        [sys.executable, "-m", "ground_gate", "run", "-c", config.name, "--quiet",
         "--output-json", report_path.name],
        cwd=args.out, check=False, env=env,
    )  # fmt: skip
    if run.returncode not in (0, 1):
        return run.returncode
    report = json.loads(report_path.read_text(encoding="utf-8"))
    lines = summary(report, chosen)
    counts = taken_out(report)
    for line in lines:
        line.update(counts.get(line["attack"], {}))
    (args.out / "summary.json").write_text(json.dumps(lines, indent=2) + "\n", encoding="utf-8")
    (args.out / "attacks.json").write_text(
        json.dumps(chosen, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    print(markdown(lines), end="")
    for name, count in counts.items():
        print(f"{name}: {count}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
