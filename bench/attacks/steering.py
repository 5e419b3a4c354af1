"""How well `metrics/addressed.py` finds text addressed to the judge, and how often it cuts
ordinary text.

    .venv/bin/python -m bench.attacks.steering --labels ../shared/datasets/*.jsonl

Attack and look-alike sets (bench/data/injection_set_*.json) were written by helpers that
never saw the detector: set A was used to develop the patterns, set B was measured once,
afterwards, as the held-out figure, and set C (issue 25) was written and committed before it
was first measured. Every response, source and question of the labelled
datasets is real text that must not be cut.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ground_gate.metrics.addressed import screen

ROOT = Path(__file__).resolve().parents[2]

SETS = {
    "A (developed on)": ROOT / "bench" / "data" / "injection_set_a.json",
    "B (held out)": ROOT / "bench" / "data" / "injection_set_b.json",
    "C (held out, issue 25)": ROOT / "bench" / "data" / "injection_set_c.json",
}


def caught(texts: list[str]) -> list[str]:
    return [t for t in texts if screen(t).removed]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--labels", type=Path, nargs="*", default=[])
    parser.add_argument("--show", action="store_true", help="print every miss and false cut")
    args = parser.parse_args()
    print("| set | attacks cut | look-alikes cut |")
    print("|---|---|---|")
    for name, path in SETS.items():
        corpus = json.loads(path.read_text(encoding="utf-8"))
        attacks, benign = corpus["attacks"], corpus["benign"]
        hit, false = caught(attacks), caught(benign)
        print(f"| {name} | {len(hit)}/{len(attacks)} | {len(false)}/{len(benign)} |")
        if args.show:
            for text in attacks:
                if text not in hit:
                    print(f"  missed: {text!r}", file=sys.stderr)
            for text in false:
                print(f"  false cut: {text!r}", file=sys.stderr)
    texts = 0
    cut: list[tuple[str, str]] = []
    for path in args.labels:
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            row = json.loads(line)
            for field in ("response", "source", "question"):
                value = row.get(field)
                if isinstance(value, str):
                    texts += 1
                    cut.extend((row.get("id", "?"), p) for p in screen(value).removed)
    if args.labels:
        names = ", ".join(p.name for p in args.labels)
        print(f"| labelled texts ({names}) | - | {len(cut)}/{texts} |")
        for row_id, passage in cut if args.show else ():
            print(f"  false cut in {row_id}: {passage!r}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
