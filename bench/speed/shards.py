"""Wall time of one runner against N shards run in parallel and merged, on the scripted judge.

The judge is tests/integration's scripted OpenAI-compatible server on 127.0.0.1 answering every
call after a fixed latency; with --server-slots it serves at most that many calls at once (a
provider's concurrency limit: the others wait their turn). The rows are synthetic support
answers of two sentences, a quarter of them with an invented sentence; metric groundedness
(per-sentence verdicts, evidence for the rows the comment shows), no judge cache. Each runner
is `ground-gate run` in its own process with `judge.max_concurrency` = --concurrency; the N
shards run at once, then `ground-gate merge`, whose report is checked against the single
runner's (scores and verdict).

    .venv/bin/python -m bench.speed.shards --rows 200 --shards 4 --latency 0.2 --concurrency 4
    .venv/bin/python -m bench.speed.shards --rows 200 --shards 4 --latency 0.2 --concurrency 4 \
        --server-slots 8
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tests.integration import fake_openai
from tests.integration.test_cli_run import grade

ROOT = Path(__file__).resolve().parents[2]

KEY = "sk-bench-not-a-secret"


def rows(count: int) -> list[dict[str, Any]]:
    out = []
    for i in range(count):
        answer = f"Order {i} ships today." + (" We ship to Mars." if i % 4 == 0 else " It is free.")
        out.append(
            {
                "id": f"order-{i}",
                "question": "Shipping?",
                "contexts": [f"Order {i} ships today. It is free. We ship in the EU."],
                "answer": answer,
            }
        )
    return out


def write_project(root: Path, url: str, count: int, concurrency: int) -> Path:
    data = root / "rows.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows(count)), encoding="utf-8")
    config = root / "gate.yml"
    config.write_text(
        f"""version: 1
judge:
  provider: openai
  model: fake-model
  base_url: {url}
  api_key_env: BENCH_KEY
  max_retries: 0
  max_concurrency: {concurrency}
  cache_dir: null
datasets:
  - {{name: support, path: rows.jsonl}}
metrics:
  groundedness: {{}}
thresholds:
  groundedness: {{min: 0.9}}
""",
        encoding="utf-8",
    )
    return config


def judge(latency_s: float, slots: int | None) -> fake_openai.FakeOpenAI:
    gate = threading.Semaphore(slots) if slots else None

    def handler(body: Any) -> fake_openai.Reply:
        if gate is None:
            return fake_openai.slow(grade(body), latency_s)
        with gate:
            time.sleep(latency_s)
        return grade(body)

    return fake_openai.FakeOpenAI(handler=handler)


def ground_gate(*args: str | Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "BENCH_KEY": KEY, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "ground_gate", *map(str, args)]
    return subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def finished(process: subprocess.Popen[bytes], allowed: tuple[int, ...]) -> None:
    _, err = process.communicate()
    if process.returncode not in allowed:
        raise SystemExit(f"ground-gate exited {process.returncode}: {err.decode()[-2000:]}")


def measure(args: argparse.Namespace, root: Path) -> dict[str, Any]:
    with judge(args.latency, args.server_slots) as server:
        config = write_project(root, server.url, args.rows, args.concurrency)
        whole = root / "whole.json"
        started = time.monotonic()
        finished(ground_gate("run", "-c", config, "--output-json", whole, "--quiet"), (0, 1))
        single = time.monotonic() - started
        single_calls = server.request_count

        started = time.monotonic()
        shards = [root / f"shard-{k}.json" for k in range(1, args.shards + 1)]
        running = [
            ground_gate(
                "run", "-c", config, "--shard", f"{k}/{args.shards}", "--output-json", path,
                "--quiet",
            )
            for k, path in enumerate(shards, start=1)
        ]  # fmt: skip
        for process in running:
            finished(process, (0,))
        sharded_runs = time.monotonic() - started
        merged = root / "merged.json"
        finished(ground_gate("merge", *shards, "--output-json", merged, "--quiet"), (0, 1))
        sharded = time.monotonic() - started
        sharded_calls = server.request_count - single_calls
    one, joined = (json.loads(p.read_text(encoding="utf-8")) for p in (whole, merged))
    same = one["scores"] == joined["scores"] and one["status"] == joined["status"]
    same = same and [r["id"] for r in one["rows"]] == [r["id"] for r in joined["rows"]]
    return {
        "single_s": round(single, 2),
        "single_calls": single_calls,
        "sharded_s": round(sharded, 2),
        "shards_only_s": round(sharded_runs, 2),
        "merge_s": round(sharded - sharded_runs, 2),
        "sharded_calls": sharded_calls,
        "rows_per_shard": [len(json.loads(p.read_text())["rows"]) for p in shards],
        "merged_equals_single": same,
        "status": one["status"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=200)
    parser.add_argument("--shards", type=int, default=4)
    parser.add_argument("--latency", type=float, default=0.2, help="seconds per judge call")
    parser.add_argument("--concurrency", type=int, default=4, help="judge.max_concurrency")
    parser.add_argument("--server-slots", type=int, help="calls the judge serves at once")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "shards.json")
    args = parser.parse_args()
    runs = []
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory() as tmp:
            runs.append(measure(args, Path(tmp)))
        print(json.dumps(runs[-1]), flush=True)
    result = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}",
        "settings": {k: v for k, v in vars(args).items() if k != "out"},
        "runs": runs,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(result["settings"]))


if __name__ == "__main__":
    main()
