"""Time from start to verdict with a prompt target: 100 rows answered by a target's model and
judged, both served by one scripted OpenAI-compatible server that answers every request after a
fixed latency (0.8 s), max_concurrency 8 for both; cold (empty cache) and warm (a re-run).

    .venv/bin/python -m bench.speed.target_speed --rows 100 --latency 0.8 --repeat 3 \
        --out bench/out/target_speed.json

Each run is `ground-gate run` in its own process, timed from its start to its exit. Every
fifth row's answer carries an invented sentence the judge marks not in the source, so the
evidence pass (`evidence: shown`, the default) quotes for the worst rows as a real run does.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import statistics
import tempfile
from pathlib import Path
from typing import Any

from bench.speed.timed_run import timed_run
from tests.integration import fake_openai

ROOT = Path(__file__).resolve().parents[2]
PROMPT = "Answer from the context only.\nRow: {{id}}\nContext: {{context}}\nQ: {{question}}\n"


def rows(count: int) -> list[dict[str, Any]]:
    return [
        {
            "id": f"q{i:03d}",
            "question": f"How much does the X{i} weigh, and what colour is its box?",
            "context": f"The X{i} weighs {i % 9 + 1} kg. It ships in a blue box.",
        }
        for i in range(1, count + 1)
    ]


def serve(latency: float) -> fake_openai.Handler:
    def handler(body: Any) -> fake_openai.Reply:
        prompt = body["messages"][-1]["content"]
        if "<sentence>" in prompt:
            sentence = re.search(r"<sentence>\n(.*?)\n</sentence>", prompt, re.S)
            token = "Unknown" if sentence and "Mars" in sentence.group(1) else "Yes"
            other = "No" if token == "Yes" else "Yes"
            reply = fake_openai.completion(
                token, logprobs=[{token: math.log(0.9), other: math.log(0.1)}], completion_tokens=1
            )
        elif "Copy, word for word" in prompt:
            reply = fake_openai.completion("NOTHING FOUND")
        else:
            row = re.search(r"Row: q(\d+)", prompt)
            number = int(row.group(1)) if row else 0
            answer = f"The X{number} weighs {number % 9 + 1} kg. It ships in a blue box."
            if number % 5 == 0:
                answer += " It also ships to Mars."
            reply = fake_openai.completion(answer)
        return fake_openai.slow(reply, latency)

    return handler


def write_project(root: Path, url: str, count: int) -> Path:
    (root / "questions.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in rows(count)), encoding="utf-8"
    )
    (root / "answer.md").write_text(PROMPT, encoding="utf-8")
    config = root / "gate.yml"
    config.write_text(
        f"""version: 1
judge: {{provider: openai, model: judge, base_url: "{url}", api_key_env: BENCH_KEY,
  max_concurrency: 8, cache_dir: {root / "cache"}}}
datasets:
  - name: bench
    path: questions.jsonl
    target: {{prompt: answer.md, provider: openai, model: answerer, base_url: "{url}",
      api_key_env: BENCH_KEY, max_concurrency: 8, max_tokens: 100}}
metrics:
  groundedness: {{}}
thresholds:
  groundedness: {{min: 0.5}}
""",
        encoding="utf-8",
    )
    return config


def measured(config: Path) -> dict[str, Any]:
    env = {"BENCH_KEY": "sk-bench", "PATH": "/usr/bin:/bin"}
    code, seconds, data = timed_run(config, config.parent / "report.json", cwd=ROOT, env=env)
    return {
        "exit": code,
        "seconds": round(seconds, 2),
        "target_calls": data["targets"][0]["usage"]["calls"],
        "judge_calls": data["usage"]["total"]["calls"],
        "rows": len(data["rows"]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=100)
    parser.add_argument("--latency", type=float, default=0.8)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    runs: dict[str, list[dict[str, Any]]] = {"cold": [], "warm": []}
    with fake_openai.FakeOpenAI(handler=serve(args.latency)) as server:
        for _ in range(args.repeat):
            with tempfile.TemporaryDirectory() as work:
                config = write_project(Path(work), server.url, args.rows)
                runs["cold"].append(measured(config))
                runs["warm"].append(measured(config))
        peak = server.max_in_flight
    summary = {
        kind: {
            "median_seconds": statistics.median(r["seconds"] for r in found),
            "seconds": [r["seconds"] for r in found],
            "target_calls": found[0]["target_calls"],
            "judge_calls": found[0]["judge_calls"],
            "rows": found[0]["rows"],
            "exit": sorted({r["exit"] for r in found}),
        }
        for kind, found in runs.items()
    }
    result = {"rows": args.rows, "latency_s": args.latency, "max_in_flight": peak, **summary}
    text = json.dumps(result, indent=2)
    print(text)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
