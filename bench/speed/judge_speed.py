"""Seconds per row of the local judge on labelled rows, and where the time goes.

The rows run as `calibrate` runs them (one at a time, the config's metrics, no judge cache,
so every call reaches the server), on a llama.cpp server started the way this checkout
starts it. The server's own log then says, call by call, how many prompt tokens it read and
how many it took from its prefix cache (the key-value cache of the previous call's longest
common prefix), and how long it spent reading and generating; the rest of the judge's time is
overhead (HTTP, chat template, log-probabilities).

    flock LOCK .venv/bin/python -m bench.speed.judge_speed -c bench/configs/heldout.yml \
        --labels bench/out/speed_lfqa10.jsonl --out bench/out/speed-lfqa.json

To time another checkout's code on the same rows, run this module from this checkout's root
with that checkout's interpreter and its tree first on the path:
`PYTHONPATH=OTHER:. OTHER/.venv/bin/python -P -m bench.speed.judge_speed ...` (`-P` keeps the
working directory from coming first, so `ground_gate` is OTHER's and `bench` this one's).
Labelled rows stay outside the repository.
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
from ground_gate.config.loader import load_config
from ground_gate.judge import factory
from ground_gate.judge.clients import PLACEHOLDER_API_KEY, build_openai_client
from ground_gate.metrics import build_metrics
from ground_gate.metrics.prompts import PROMPT_VERSION
from ground_gate.stages.labels import read_labelled
from ground_gate.stages.runner import RunResult, run

# llama-cpp-python's verbose server log: per call, a prefix-match line when the previous
# prompt's cache served a prefix, then llama.cpp's timings (reset at each call), ending with
# the "total time" line
_PREFIX_HIT = re.compile(r"Llama\.generate: (\d+) prefix-match hit, remaining (\d+) prompt tokens")
_PROMPT_EVAL = re.compile(r"prompt eval time =\s*([\d.]+) ms /\s*(\d+) tokens")
_EVAL = re.compile(r"\beval time =\s*([\d.]+) ms /\s*(\d+) runs")
_TOTAL = "total time ="


def server_calls(log: str) -> list[dict[str, float]]:
    """One entry per call, in order: prompt tokens its prefix cache served and those it read,
    and the seconds llama.cpp says it spent reading and generating."""
    calls: list[dict[str, float]] = []
    block: list[str] = []
    for line in log.splitlines():
        block.append(line)
        if _TOTAL not in line:
            continue
        text = "\n".join(block)
        block = []
        hit = _PREFIX_HIT.search(text)
        read = _PROMPT_EVAL.search(text)
        generated = [m for m in _EVAL.finditer(text) if "prompt eval" not in m.group(0)]
        calls.append(
            {
                "served": int(hit.group(1)) if hit else 0,
                "read": int(read.group(2)) if read else 0,
                "read_s": float(read.group(1)) / 1000 if read else 0.0,
                "generate_s": sum(float(m.group(1)) for m in generated) / 1000,
            }
        )
    return calls


def group_figures(
    result: RunResult, groups: dict[tuple[str, str], str], calls: list[dict[str, float]]
) -> dict[str, Any]:
    """Per label group: rows, judge seconds, calls, prompt tokens, and what the server's log
    says of those calls (the rows ran one at a time, so the log's calls are theirs, in order)."""
    out: dict[str, Any] = {}
    position = 0
    for row in result.rows:
        entry = out.setdefault(groups[(row.dataset, row.sample_id)], dict.fromkeys(_SUMS, 0))
        entry["rows"] += 1
        entry["seconds"] += row.seconds
        row_calls = sum(m.usage.calls for m in row.metrics)
        for metric in row.metrics:
            entry["prompt_tokens"] += metric.usage.prompt_tokens
            entry["errors"] += metric.status == "error"
        entry["calls"] += row_calls
        for call in calls[position : position + row_calls]:
            for key in ("served", "read", "read_s", "generate_s"):
                entry[key] += call[key]
        position += row_calls
    return {name: _per_row(entry) for name, entry in out.items()}


_SUMS = ("rows", "seconds", "calls", "prompt_tokens", "errors", "served", "read", "read_s")
_SUMS += ("generate_s",)


def _per_row(entry: dict[str, Any]) -> dict[str, Any]:
    rows, seconds = entry["rows"], entry["seconds"]
    prompt = entry["prompt_tokens"]
    return {
        "rows": rows,
        "errors": entry["errors"],
        "s_per_row": round(seconds / rows, 2),
        "calls_per_row": round(entry["calls"] / rows, 2),
        "prompt_tokens_per_row": round(prompt / rows),
        "read_tokens_per_row": round(entry["read"] / rows),
        "served_from_prefix_cache": round(entry["served"] / prompt, 3) if prompt else None,
        "prompt_tokens_per_judge_s": round(prompt / seconds, 1) if seconds else None,
        "read_tokens_per_judge_s": round(entry["read"] / seconds, 1) if seconds else None,
        "server_reading_s_per_row": round(entry["read_s"] / rows, 2),
        "server_generating_s_per_row": round(entry["generate_s"] / rows, 2),
        "other_s_per_row": round((seconds - entry["read_s"] - entry["generate_s"]) / rows, 2),
        "judge_seconds": round(seconds, 1),
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
        log = server.log_tail(lines=10**7)
        calls = server_calls(log)
    return {
        "groups": group_figures(result, groups, calls),
        "server_calls": len(calls),
        "judge_calls": sum(m.usage.calls for r in result.rows for m in r.metrics),
        "server_flags": _flags(command),
        "incomplete": result.incomplete,
        "server_log": log,
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
    args.out.with_suffix(".server.log").write_text(out.pop("server_log"), encoding="utf-8")
    args.out.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
