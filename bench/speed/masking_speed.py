"""Masking's speed on a long report: a JSON report of about 5 MB (real rows' sources and
responses, as `ground-gate run` writes them) with three secrets registered and quoted a few
times in the forms a reply gives them, and an adversarial text of the same size made of the
secrets' first halves, each followed by whitespace and invisible characters (every position a
near miss). Times the first `mask` (the expression compiled) and the median of three more.

Another masking module (the one before a change) may be measured beside the tree's, the two
alternated in one process:

    git show <commit>:ground_gate/leaves/masking.py > /tmp/masking_before.py
    .venv/bin/python -m bench.speed.masking_speed --data ../shared/datasets/dev_mini.jsonl \\
        --before /tmp/masking_before.py
"""

from __future__ import annotations

import argparse
import base64
import importlib.util
import json
import statistics
import time
from pathlib import Path
from types import ModuleType
from urllib.parse import quote

ROOT = Path(__file__).resolve().parents[2]

SECRETS = (
    "sk-live-4f9a8b7c6d5e3a2b",
    "hunter2-Correct-Horse",
    "ghp_0123456789abcdefABCDEFghijklmnopqr",
)
TARGET_CHARS = 5_000_000


def _module(path: str | None) -> ModuleType:
    if path is None:
        from ground_gate.leaves import masking

        return masking
    spec = importlib.util.spec_from_file_location("masking_measured", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _forms(secret: str) -> list[str]:
    raw = secret.encode()
    return [
        secret,
        "\u200b".join(secret),
        " ".join(secret[i : i + 4] for i in range(0, len(secret), 4)),
        base64.b64encode(b"user:" + raw).decode(),
        quote(secret, safe=""),
    ]


def report_text(data: Path) -> str:
    """A report's JSON of about TARGET_CHARS characters: the rows cycled, every 500th response
    quoting a secret in one of its forms."""
    rows = [json.loads(line) for line in data.read_text(encoding="utf-8").splitlines() if line]
    forms = [form for secret in SECRETS for form in _forms(secret)]
    out: list[dict[str, str]] = []
    size, index = 0, 0
    while size < TARGET_CHARS:
        row = rows[index % len(rows)]
        response = str(row.get("response", ""))
        if index % 500 == 0:
            response += f" The key is {forms[(index // 500) % len(forms)]}."
        entry = {"id": f"row-{index}", "source": str(row.get("source", "")), "response": response}
        size += len(json.dumps(entry, ensure_ascii=False))
        out.append(entry)
        index += 1
    return json.dumps({"rows": out}, indent=2, ensure_ascii=False)


def adversarial_text() -> str:
    """Near misses at every turn: each secret's first half, then a run of whitespace and
    invisible characters, then a wrong character."""
    piece = "".join(s[: len(s) // 2] + " \u200b\t \u00a0 " * 3 + "!" for s in SECRETS)
    return (piece * (TARGET_CHARS // len(piece) + 1))[:TARGET_CHARS]


def timed(masking: ModuleType, text: str) -> tuple[float, int]:
    """(seconds of the first mask, the expression compiled; secrets masked)."""
    masking.forget_all()
    for secret in SECRETS:
        masking.register(secret)
    start = time.perf_counter()
    masked = masking.mask(text)
    return time.perf_counter() - start, masked.count(masking.MASK)


def _once(masking: ModuleType, text: str) -> float:
    start = time.perf_counter()
    masking.mask(text)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, required=True, help="a JSONL file of rows")
    parser.add_argument("--before", help="a masking.py to measure beside the tree's")
    args = parser.parse_args()
    modules = {"now": _module(None)}
    if args.before:
        modules = {"before": _module(args.before), **modules}
    for name, text in (("report", report_text(args.data)), ("adversarial", adversarial_text())):
        times: dict[str, list[float]] = {which: [] for which in modules}
        firsts: dict[str, tuple[float, int]] = {}
        for _ in range(3):  # alternated, so a busy machine weighs on both alike
            for which, masking in modules.items():
                firsts[which] = timed(masking, text)
                times[which] += [_once(masking, text) for _ in range(2)]
        for which, (first, count) in firsts.items():
            print(
                f"{name} ({which}): {len(text) / 1e6:.1f} M characters, {len(SECRETS)} secrets: "
                f"first mask {first:.3f} s, then {statistics.median(times[which]):.3f} s "
                f"(median of 6); {count} masked"
            )


if __name__ == "__main__":
    main()
