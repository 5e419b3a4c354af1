"""Side by side: ROC AUC per label group and score from two or more `calibrate --output-json`
reports, with the judge's calls, prompt tokens and seconds per row.

    .venv/bin/python -m bench.quality.compare_calibrations \\
        before=bench/out/verdict-dev_mini.json after=bench/out/focus-dev_mini.json

Prints a markdown table for bench/RESULTS.md. AUC counts a row labelled grounded above a
row that is not (for hallucination and contradiction, lower is better, and the AUC is of the
score's complement); "contradiction rows" is the AUC against rows labelled contradiction only.
Calls, tokens and seconds are what the completions cost when they were made (the report's
`cost`), so a run answered partly from the judge cache still shows its full price.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any


def main(argv: list[str]) -> int:
    if not argv or any("=" not in a for a in argv):
        print(__doc__, file=sys.stderr)
        return 2
    pairs = (a.split("=", 1) for a in argv)
    runs = {name: json.loads(Path(path).read_text()) for name, path in pairs}
    names = list(runs)
    first = runs[names[0]]
    header = ["group", "score"] + [f"AUC {n}" for n in names]
    header += [f"contradiction rows {n}" for n in names]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for group, entries in first["groups"].items():
        for entry in entries:
            cells = [group, entry["score"]]
            found = [_entry(runs[n], group, entry["score"]) for n in names]
            cells += [_fmt(f.get("auc") if f else None) for f in found]
            cells += [_fmt(_type_auc(f, "contradiction")) for f in found]
            print("| " + " | ".join(cells) + " |")
    print()
    print("| run | rows | judge calls | prompt tokens | calls/row | prompt tokens/row | s/row |")
    print("|---|---|---|---|---|---|---|")
    for name, run in runs.items():
        rows, usage = run["rows"], _total(run.get("cost") or run["usage"])
        print(
            f"| {name} | {rows} | {usage['calls']} | {usage['prompt_tokens']} | "
            f"{usage['calls'] / rows:.1f} | {usage['prompt_tokens'] / rows:.0f} | "
            f"{usage['seconds'] / rows:.1f} |"
        )
    return 0


def _entry(run: dict[str, Any], group: str, score: str) -> dict[str, Any] | None:
    return next((e for e in run["groups"].get(group, []) if e["score"] == score), None)


def _type_auc(entry: dict[str, Any] | None, kind: str) -> float | None:
    return (entry.get("type_auc") or {}).get(kind) if entry else None


def _total(usage: dict[str, dict[str, Any]]) -> dict[str, float]:
    keys = ("calls", "prompt_tokens", "seconds")
    return {k: sum(float(u.get(k, 0)) for u in usage.values()) for k in keys}


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
