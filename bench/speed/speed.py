"""Seconds per row for each metric with the local judge, and the effect of prefix reuse.

One llama.cpp server, one model, the same rows, no judge cache. For each metric alone, the
rows run one at a time (a row's calls are back to back, so the server reuses the document's
KV cache between them). Then all metrics together twice in the same run: once row by row
(prefix reuse) and once with rows interleaved, so consecutive calls come from different rows
and every call evaluates its whole prompt ("without prefix reuse"). The comparison only
means something for rows whose documents differ and are long: rows that share one document
reuse it even when interleaved.

    .venv/bin/python -m bench.speed.speed --model qwen2.5-coder-1.5b --data examples/demo/demo.jsonl
    .venv/bin/python -m bench.speed.speed --reuse-only --limit 2 \
        --data ../shared/datasets/dev_mini.jsonl --out bench/out/reuse.json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import time
from datetime import UTC, datetime
from pathlib import Path

from ground_gate.config.model import (
    DatasetConfig,
    FaithfulnessConfig,
    GroundednessConfig,
    MetricsConfig,
    RatingConfig,
    SummaryAccuracyConfig,
)
from ground_gate.datasets import load_samples
from ground_gate.judge.clients import build_openai_client
from ground_gate.judge.openai_judge import OpenAIJudge
from ground_gate.local.resolve import resolve_model
from ground_gate.local.server import LocalServer
from ground_gate.metrics import build_metrics
from ground_gate.metrics.prompts import PROMPT_VERSION
from ground_gate.stages.runner import RunResult, run

CONTEXT = 4096
REUSE = "all metrics, row by row (prefix reuse)"
NO_REUSE = "all metrics, rows interleaved (no prefix reuse)"


def metric_configs(n_questions: int) -> dict[str, MetricsConfig]:
    return {
        # evidence for every unsupported unit, as measured in bench/RESULTS.md (the runner
        # alone has no report to choose the shown units from)
        "groundedness (sentence)": MetricsConfig(
            groundedness=GroundednessConfig(evidence="unsupported")
        ),
        "groundedness (claim)": MetricsConfig(
            groundedness=GroundednessConfig(unit="claim", evidence="unsupported")
        ),
        "faithfulness": MetricsConfig(faithfulness=FaithfulnessConfig()),
        f"summary_accuracy (n={n_questions})": MetricsConfig(
            summary_accuracy=SummaryAccuracyConfig(n_questions=n_questions)
        ),
        "rating": MetricsConfig(rating=RatingConfig()),
    }


def measure(base_url: str, model: str, samples, metrics_config, rows_at_once: int) -> RunResult:
    async def go() -> RunResult:
        client = build_openai_client("not-needed", base_url, 300.0)
        judge = OpenAIJudge(
            client,
            model=model,
            prompt_version=PROMPT_VERSION,
            max_concurrency=1,
            max_retries=2,
            timeout_s=300.0,
            cache=None,
            context_tokens=CONTEXT,
            structured="prompt",
        )
        try:
            return await run(
                [("bench", samples)],
                build_metrics(metrics_config),
                judge,
                row_concurrency=rows_at_once,
            )
        finally:
            await judge.aclose()

    return asyncio.run(go())


def summary(result: RunResult) -> dict[str, float]:
    rows = max(len(result.rows), 1)
    usage = result.usage_by_metric()
    calls = sum(u.calls for u in usage.values())
    prompt = sum(u.prompt_tokens for u in usage.values())
    errors = sum(1 for r in result.rows for m in r.metrics if m.status == "error")
    return {
        "rows": len(result.rows),
        "seconds": round(result.seconds, 1),
        "s_per_row": round(result.seconds / rows, 2),
        "calls_per_row": round(calls / rows, 1),
        "prompt_tokens_per_row": round(prompt / rows),
        "errors": errors,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", default="qwen2.5-coder-1.5b")
    parser.add_argument("--data", type=Path, default=Path("examples/demo/demo.jsonl"))
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--n-questions", type=int, default=4)
    parser.add_argument("--out", type=Path, default=Path("bench/out/speed.json"))
    parser.add_argument(
        "--reuse-only",
        action="store_true",
        help="only the prefix-reuse comparison (use rows with distinct, long documents)",
    )
    args = parser.parse_args()

    samples = load_samples(DatasetConfig(name="bench", path=args.data))[: args.limit]
    path = resolve_model(args.model)
    results: dict[str, dict[str, float]] = {}
    with LocalServer(path, context_tokens=CONTEXT) as server:
        measure(server.base_url, args.model, samples[:1], metric_configs(1)["rating"], 1)  # warm up
        for name, config in metric_configs(args.n_questions).items():
            if args.reuse_only:
                break
            results[name] = summary(measure(server.base_url, args.model, samples, config, 1))
            print(name, results[name], flush=True)
        every = MetricsConfig(
            groundedness=GroundednessConfig(unit="claim", evidence="unsupported"),
            faithfulness=FaithfulnessConfig(),
            summary_accuracy=SummaryAccuracyConfig(n_questions=args.n_questions),
            rating=RatingConfig(),
        )
        modes = ((REUSE, 1), (NO_REUSE, len(samples)))
        for label, rows_at_once in modes:
            results[label] = summary(
                measure(server.base_url, args.model, samples, every, rows_at_once)
            )
            print(label, results[label], flush=True)
    reuse, no_reuse = results[REUSE]["seconds"], results[NO_REUSE]["seconds"]
    out = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, threads={server.threads}",
        "model": args.model,
        "data": str(args.data),
        "rows": len(samples),
        "results": results,
        "speedup_from_prefix_reuse": round(no_reuse / reuse, 2) if reuse else None,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    start = time.monotonic()
    main()
    print(f"total {time.monotonic() - start:.0f} s")
