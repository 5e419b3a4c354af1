"""Time to a verdict with the action's real image: sizes, start to first judge call, judge
time per 100 rows, and a re-run with a warm judge cache.

Run after `bash scripts/test-container.sh` has built the images (or give your own tags):

    .venv/bin/python -m bench.speed.time_to_verdict --image ground-gate:test \
        --base-image ground-gate-base:test --out bench/out/time_to_verdict.json

Each run starts the container as GitHub's runner does (tests/container/docker_action.py).
`fake`: the scripted OpenAI-compatible judge on 127.0.0.1 answering every call after a fixed
latency, 100 rows of two sentences each, every sentence unsupported (groundedness' worst case
for evidence), once with `evidence: unsupported` (the default before issue 11) and once with the
default (`shown`), then again on the warm cache. `local`: the demo rows (or, with --local-rows N, N
failing rows like the fake's) with the 1.5B model inside the container with no network, the
model mounted where actions/cache restores it.
"""

from __future__ import annotations

import argparse
import gzip
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from ground_gate.local.model_cache import default_model_dir
from tests.container.docker_action import WORKSPACE, Job, run_action
from tests.integration import fake_openai

ROOT = Path(__file__).resolve().parents[2]
EVENT = ROOT / "tests" / "fixtures" / "github" / "push.json"
KEY = "sk-bench-not-a-secret"


def image_sizes(image: str) -> dict[str, float]:
    """Uncompressed size, and gzip-compressed size (what a registry pull moves), in MB."""
    size = subprocess.run(
        ["docker", "image", "inspect", "-f", "{{.Size}}", image],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    save = subprocess.Popen(["docker", "save", image], stdout=subprocess.PIPE)
    assert save.stdout is not None
    compressed = 0
    compressor = gzip.compress
    while chunk := save.stdout.read(1 << 24):
        compressed += len(compressor(chunk, compresslevel=6))
    save.wait()
    return {"mb": round(int(size) / 1e6, 1), "pull_mb_gzip": round(compressed / 1e6, 1)}


def build_seconds(dockerfile: str, tag: str, build_args: list[str]) -> float:
    started = time.monotonic()
    subprocess.run(
        ["docker", "build", "--no-cache", "-q", "-f", dockerfile, *build_args, "-t", tag, "."],
        cwd=ROOT, check=True, capture_output=True,
    )  # fmt: skip
    return round(time.monotonic() - started, 1)


def fake_rows(n: int) -> str:
    rows = [
        {
            "id": f"row-{i:03d}",
            "question": "What does the policy say?",
            "contexts": [f"Policy {i}: returns are accepted within 30 days of delivery."],
            "answer": f"Policy {i} offers free shipping to Mars. It includes a lifetime warranty.",
        }
        for i in range(n)
    ]
    return "".join(json.dumps(r) + "\n" for r in rows)


def fake_config(evidence: str | None) -> str:
    policy = f"{{evidence: {evidence}}}" if evidence else "{}"
    return (
        "version: 1\njudge:\n  provider: openai\n  model: fake-model\n  max_retries: 0\n"
        "  max_concurrency: 8\n  cache_dir: .ground-gate/cache\n"
        "datasets:\n  - name: bench\n    path: data/rows.jsonl\n"
        f"metrics:\n  groundedness: {policy}\nthresholds:\n  groundedness: {{min: 0.5}}\n"
    )


def fake_judge(latency_s: float) -> fake_openai.FakeOpenAI:
    def handler(body: Any) -> Any:
        prompt = body["messages"][-1]["content"]
        if "Copy, word for word" in prompt:
            reply = fake_openai.completion("returns are accepted within 30 days")
        else:
            reply = fake_openai.completion("2", logprobs=[{"2": -0.01}])
        return fake_openai.slow(reply, latency_s)

    return fake_openai.FakeOpenAI(handler=handler)


def one_fake_run(image: str, rows: int, latency_s: float, evidence: str | None) -> dict[str, Any]:
    job = Job.create(EVENT)
    try:
        (job.workspace / "data").mkdir()
        (job.workspace / "data" / "rows.jsonl").write_text(fake_rows(rows))
        (job.workspace / "ground-gate.yml").write_text(fake_config(evidence))
        out: dict[str, Any] = {"evidence": evidence or "shown (default)"}
        for attempt in ("cold", "warm cache"):
            with fake_judge(latency_s) as judge:
                run = run_action(
                    image, job, inputs={"openai-base-url": judge.url, "comment": "never"},
                    secrets={"INPUT_OPENAI-API-KEY": KEY}, event_name="push",
                )  # fmt: skip
                report = json.loads((job.workspace / "ground-gate-report/report.json").read_text())
                out[attempt] = {
                    "exit_code": run.code,
                    "container_seconds": round(run.seconds, 2),
                    "judge_seconds": report["seconds"],
                    "calls": judge.request_count,
                    "start_to_first_call_s": (
                        round(judge.first_request_at - run.started, 2)
                        if judge.first_request_at
                        else None
                    ),
                }
        return out
    finally:
        job.remove()


def local_run(image: str, model: str, evidence: str | None, rows_text: str) -> dict[str, Any]:
    job = Job.create(EVENT)
    try:
        (job.workspace / "data").mkdir()
        (job.workspace / "data" / "rows.jsonl").write_text(rows_text)
        policy = f"{{evidence: {evidence}}}" if evidence else "{}"
        (job.workspace / "ground-gate.yml").write_text(
            f"version: 1\njudge:\n  provider: local\n  model: {model}\n  cache_dir: null\n"
            "datasets:\n  - name: rows\n    path: data/rows.jsonl\n"
            f"metrics:\n  groundedness: {policy}\nthresholds:\n  groundedness: {{min: 0.5}}\n"
        )
        run = run_action(
            image, job, network="none", event_name="push", inputs={"comment": "never"},
            mounts={default_model_dir(): f"{WORKSPACE}/.ground-gate/models"}, timeout_s=1800,
        )  # fmt: skip
        report = json.loads((job.workspace / "ground-gate-report/report.json").read_text())
        ready = [t for t, line in run.stderr_lines if "local judge is ready" in line]
        rows = len(report["rows"])
        return {
            "evidence": evidence or "shown (default)",
            "exit_code": run.code,
            "rows": rows,
            "container_seconds": round(run.seconds, 1),
            "judge_seconds": report["seconds"],
            "judge_seconds_per_100_rows": round(report["seconds"] / rows * 100, 1),
            "calls": report["usage"]["total"]["calls"],
            "start_to_judge_ready_s": round(ready[0], 2) if ready else None,
        }
    finally:
        job.remove()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--image", required=True)
    parser.add_argument("--base-image")
    parser.add_argument("--rows", type=int, default=100)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--model", default="qwen2.5-coder-1.5b")
    parser.add_argument(
        "--local-rows",
        type=int,
        default=0,
        help="local runs on this many failing rows like the fake's (default: the demo rows)",
    )
    parser.add_argument("--skip", action="append", default=[], choices=["build", "fake", "local"])
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "time_to_verdict.json")
    args = parser.parse_args()
    results: dict[str, Any] = {"image": image_sizes(args.image)}
    if args.base_image:
        results["base_image"] = image_sizes(args.base_image)
        if "build" not in args.skip:
            results["action_image_cold_build_s"] = build_seconds(
                "Dockerfile", "ground-gate:bench", ["--build-arg", f"BASE_IMAGE={args.base_image}"]
            )
    if "fake" not in args.skip:
        results["fake"] = [
            one_fake_run(args.image, args.rows, args.latency, policy)
            for policy in ("unsupported", None)
        ]
        results["fake_latency_s"] = args.latency
    if "local" not in args.skip:
        rows_text = (
            fake_rows(args.local_rows)
            if args.local_rows
            else (ROOT / "examples" / "demo" / "demo.jsonl").read_text()
        )
        results["local"] = [
            local_run(args.image, args.model, p, rows_text) for p in ("unsupported", None)
        ]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
