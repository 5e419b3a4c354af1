"""judge.budget against a judge that lies about usage: a scripted judge that answers
correctly and reports `prompt_tokens: -5000` on every second reply; eight rows, all four
metrics, a 3,000-token budget. Prints, for an honest and a lying judge, the exit code, the
requests the judge got, the tokens the budget counted and the rows scored.

    .venv/bin/python -m bench.archive.lying_judge [SRC ...]

SRC: a folder holding a `ground_gate/` to run (default: this checkout), e.g. a copy of an
older commit's, to compare before and after (bench/RESULTS.md, issue 25).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.integration.fake_openai import FakeOpenAI, Reply
from tests.integration.test_cli_run import ROWS, grade

ROOT = Path(__file__).resolve().parents[2]

EIGHT_ROWS = [{**row, "id": f"{row['id']}-{n}"} for n in range(3) for row in ROWS][:8]
CONFIG = """version: 1
judge:
  provider: openai
  model: fake-model
  base_url: {url}
  api_key_env: null
  max_retries: 1
  max_concurrency: 1
  cache_dir: null
  budget: {{max_tokens: 3000}}
datasets: [{{name: support, path: rows.jsonl}}]
metrics:
  groundedness: {{}}
  faithfulness: {{}}
  summary_accuracy: {{n_questions: 2}}
  rating: {{}}
"""


def judge(lie: int | None) -> Callable[[Any], Reply]:
    """grade's answers with the prompt tokens a tokenizer would count; `lie` on every second."""
    calls = {"n": 0}

    def handler(body: Any) -> Reply:
        calls["n"] += 1
        if not isinstance(body, dict):  # cut off when the stopped run closed its client
            return Reply(status=400, body=b"{}")
        data = json.loads(grade(body).body)
        chars = sum(len(m["content"]) for m in body["messages"])
        data["usage"]["prompt_tokens"] = chars * 10 // 44 + 10
        if lie is not None and calls["n"] % 2 == 0:
            data["usage"]["prompt_tokens"] = lie
        return Reply(body=json.dumps(data).encode("utf-8"))

    return handler


def run(src: str, lie: int | None) -> tuple[int, int, int, int]:
    """(exit code, requests, tokens counted, rows scored)."""
    tmp = Path(tempfile.mkdtemp())
    (tmp / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in EIGHT_ROWS))
    with FakeOpenAI(handler=judge(lie)) as server:
        (tmp / "gate.yml").write_text(CONFIG.format(url=server.url))
        command = [str(ROOT / ".venv" / "bin" / "ground-gate"), "run", "-c", "gate.yml"]
        command += ["--quiet", "--output-json", "r.json"]
        env = dict(os.environ, PYTHONPATH=src)
        done = subprocess.run(command, env=env, capture_output=True, cwd=tmp, check=False)
        requests = server.request_count
    report = json.loads((tmp / "r.json").read_text(encoding="utf-8"))
    spent = (report.get("budget") or {}).get("spent", {})
    tokens = spent.get("prompt_tokens", 0) + spent.get("completion_tokens", 0)
    return done.returncode, requests, tokens, len(report["rows"])


def main() -> int:
    for src in sys.argv[1:] or [str(ROOT)]:
        for lie in (None, -5000):
            kind = "honest" if lie is None else f"usage {lie} on every second reply"
            code, requests, tokens, rows = run(src, lie)
            figures = f"exit {code}, {requests} requests, {tokens:,} tokens, {rows} rows"
            print(f"{src}: {kind}: {figures}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
