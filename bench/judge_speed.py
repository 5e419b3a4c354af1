"""Seconds per row of the local judge on labelled rows, and where the time goes.

The rows run as `calibrate` runs them (one at a time, the config's metrics, no judge cache,
so every call reaches the server), on a llama.cpp server started the way this checkout
starts it. The server's own log then says, call by call, how many prompt tokens it read and
how many it took from its prefix cache (the key-value cache of the previous call's longest
common prefix), and how long it spent reading and generating; the rest of the judge's time is
overhead (HTTP, chat template, log-probabilities).

    flock LOCK .venv/bin/python bench/judge_speed.py -c bench/configs/heldout.yml \
        --labels bench/out/speed_lfqa10.jsonl --out bench/out/speed-lfqa.json

To time another checkout's code on the same rows, run this file with that checkout's
interpreter (`OTHER/.venv/bin/python bench/judge_speed.py ...`): it imports the ground_gate
that interpreter has installed. Labelled rows stay outside the repository.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import sys
import time
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import ground_gate
from ground_gate.config import load_config
from ground_gate.judge import factory
from ground_gate.judge.clients import PLACEHOLDER_API_KEY, build_openai_client
from ground_gate.labels import read_labelled
from ground_gate.metrics import build_metrics
from ground_gate.metrics.prompts import PROMPT_VERSION
from ground_gate.runner import RunResult, run

# llama-cpp-python's verbose server log, one block per call
_PREFIX_HIT = re.compile(r"Llama\.generate: (\d+) prefix-match hit, remaining (\d+) prompt tokens")
_PROMPT_EVAL = re.compile(r"prompt eval time =\s*([\d.]+) ms /\s*(\d+) tokens")
_EVAL = re.compile(r"^\S*\s*eval time =\s*([\d.]+) ms /\s*(\d+) runs", re.MULTILINE)


def server_log_totals(log: str) -> dict[str, float]:
    """What the server's log says it did: tokens it read, tokens its prefix cache served
    (`prefix-match hit` lines), and the milliseconds it reports for reading and generating."""
    hits = [(int(a), int(b)) for a, b in _PREFIX_HIT.findall(log)]
    prompt = [(float(ms), int(n)) for ms, n in _PROMPT_EVAL.findall(log)]
    generated = [(float(ms), int(n)) for ms, n in _EVAL.findall(log)]
    return {
        "calls_with_prefix_hit": len(hits),
        "prefix_tokens_served": sum(a for a, _ in hits),
        "prompt_tokens_read": sum(n for _, n in prompt),
        "prompt_read_s": round(sum(ms for ms, _ in prompt) / 1000, 2),
        "generate_s": round(sum(ms for ms, _ in generated) / 1000, 2),
    }


def group_figures(result: RunResult, groups: dict[tuple[str, str], str]) -> dict[str, Any]:
    """Per label group: rows, judge seconds, calls and prompt tokens per row."""
    out: dict[str, Any] = {}
    for row in result.rows:
        entry = out.setdefault(
            groups[(row.dataset, row.sample_id)],
            {"rows": 0, "seconds": 0.0, "calls": 0, "prompt_tokens": 0, "errors": 0},
        )
        entry["rows"] += 1
        entry["seconds"] += row.seconds
        for metric in row.metrics:
            entry["calls"] += metric.usage.calls
            entry["prompt_tokens"] += metric.usage.prompt_tokens
            entry["errors"] += metric.status == "error"
    for entry in out.values():
        rows = entry["rows"]
        entry["s_per_row"] = round(entry["seconds"] / rows, 2)
        entry["calls_per_row"] = round(entry["calls"] / rows, 2)
        entry["prompt_tokens_per_row"] = round(entry["prompt_tokens"] / rows)
        entry["seconds"] = round(entry["seconds"], 2)
    return out


def throughput(figures: dict[str, Any], log: dict[str, float], seconds: float) -> dict[str, Any]:
    """Tokens per second of judge time: all prompt tokens, and those the server read."""
    prompt = sum(g["prompt_tokens"] for g in figures.values())
    return {
        "prompt_tokens_per_judge_s": round(prompt / seconds, 1) if seconds else None,
        "read_tokens_per_judge_s": round(log["prompt_tokens_read"] / seconds, 1)
        if seconds
        else None,
        "served_from_prefix_cache": round(log["prefix_tokens_served"] / prompt, 3)
        if prompt
        else None,
        "server_reading_share": round(log["prompt_read_s"] / seconds, 3) if seconds else None,
    }


def measure(config_path: Path, labels: Path, limit: int | None) -> dict[str, Any]:
    config = load_config(config_path, os.environ)
    labelled = read_labelled(labels, limit)
    groups = {(item.group, item.sample.id): item.group for item in labelled}
    names = dict.fromkeys(groups.values())
    work = [(g, [i.sample for i in labelled if i.group == g]) for g in names]
    metrics = build_metrics(config.metrics)
    server = factory._local_server(config.judge, lambda text: print(text, file=sys.stderr))
    with server:
        client = build_openai_client(PLACEHOLDER_API_KEY, server.base_url, config.judge.timeout_s)
        judge = factory._judge(config.judge, client, None, PROMPT_VERSION, None)

        async def go() -> RunResult:
            try:
                return await run(work, metrics, judge, row_concurrency=1)
            finally:
                await judge.aclose()

        result = asyncio.run(go())
        command = server._command(server.port or 0)
        log = server_log_totals(server.log_tail(lines=10**7))
    figures = group_figures(result, groups)
    seconds = sum(g["seconds"] for g in figures.values())
    return {
        "groups": figures,
        "judge_seconds": round(seconds, 1),
        "server_log": log,
        "throughput": throughput(figures, log, seconds),
        "server_flags": _flags(command),
        "incomplete": result.incomplete,
    }


def _flags(command: Iterable[str]) -> str:
    parts = list(command)
    start = parts.index("--n_ctx") if "--n_ctx" in parts else len(parts)
    return " ".join(parts[start:])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-c", "--config", type=Path, required=True)
    parser.add_argument("--labels", type=Path, required=True)
    parser.add_argument("--limit", type=int, default=None, help="rows per label group")
    parser.add_argument("--name", default=None, help="what this run is, for the output")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    started = time.monotonic()
    figures = measure(args.config, args.labels, args.limit)
    out = {
        "name": args.name,
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "checkout": str(Path(ground_gate.__file__).resolve().parent.parent.name),
        "config": str(args.config),
        "labels": str(args.labels),
        "load_average": round(os.getloadavg()[0], 2),
        "wall_s": round(time.monotonic() - started, 1),
        **figures,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
