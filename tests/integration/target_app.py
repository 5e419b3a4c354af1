"""What the target tests share: 20 questions on a small product, the app's scripted answers
(over HTTP, or as a command speaking JSON lines: target_command.py), a prompt target's model
and the judge, both answered by one scripted OpenAI-compatible server.

Every answer is built from the row's own context, so a grounded answer is checkable; a row
whose id ends in "-mars" is answered with an invented sentence the judge marks not in source.
"""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.integration import fake_openai

COMMAND = Path(__file__).with_name("target_command.py")
QUESTIONS = [
    {
        "id": f"q{i:02d}" + ("-mars" if i == 7 else ""),
        "question": f"How much does the X{i} weigh?",
        "context": f"The X{i} weighs {i} kg. It ships in a blue box.",
    }
    for i in range(1, 21)
]


def write_questions(root: Path, rows: list[dict[str, Any]] = QUESTIONS) -> Path:
    path = root / "questions.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def answer_for(row_id: str, context: str) -> str:
    """The app's answer: the context's first sentence, plus an invented one for "-mars" rows."""
    first = context.split(".")[0] + "."
    return first + (" It also ships to Mars." if row_id.endswith("-mars") else "")


def command(*mode: str) -> list[str]:
    """argv of the scripted command app, in one of target_command.py's modes."""
    return [sys.executable, str(COMMAND), *mode]


def app_reply(body: Any) -> fake_openai.Reply:
    """The http app: {"answer": ..., "sources": [{"text": context}]} for {"q", "id", "ctx"}."""
    text = answer_for(body["id"], body["ctx"])
    payload = {"answer": text, "sources": [{"text": body["ctx"]}], "took_ms": 3}
    return fake_openai.Reply(body=json.dumps(payload).encode("utf-8"))


def _inner(tag: str, text: str) -> str:
    match = re.search(rf"<{tag}>\n(.*?)\n</{tag}>", text, re.S)
    return match.group(1) if match else ""


def is_judge_request(body: Any) -> bool:
    """The judge's verdict on a <sentence>, or its question whether one states a fact."""
    prompt = body["messages"][-1]["content"]
    return "<sentence>" in prompt or fake_openai.says_something(prompt)


def model_and_judge(body: Any) -> fake_openai.Reply:
    """One server for a prompt target's model and the judge: the judge's verdict requests
    name a <sentence>; anything else is the target's prompt, answered from its context line."""
    prompt = body["messages"][-1]["content"]
    if (said := fake_openai.states_a_fact(body)) is not None:
        return said
    if is_judge_request(body):
        sentence = _inner("sentence", prompt)
        token = "Unknown" if "Mars" in sentence else "Yes"
        other = "Yes" if token != "Yes" else "No"
        return fake_openai.completion(
            token, logprobs=[{token: math.log(0.9), other: math.log(0.1)}], completion_tokens=1
        )
    row_id = re.search(r"Row: (\S+)", prompt)
    context = re.search(r"Context: (.*)", prompt)
    assert row_id and context, prompt
    return fake_openai.completion(answer_for(row_id.group(1), context.group(1)))


def config_text(url: str, root: Path, target: str, *, on_error: str = "fail") -> str:
    """A config judging questions.jsonl's answers from `target` (YAML, indented under it)."""
    return f"""version: 1
judge:
  provider: openai
  model: fake-judge
  base_url: {url}
  api_key_env: FAKE_KEY
  max_retries: 0
  cache_dir: {root / "cache"}
datasets:
  - name: support
    path: questions.jsonl
    target:
{target}
metrics:
  groundedness: {{evidence: none}}
thresholds:
  groundedness: {{min: 0.5}}
on_error: {on_error}
"""


def run_in_background(config: Path) -> subprocess.Popen[str]:
    """`ground-gate run` of `config` as a process of its own (to signal, or to outlive a
    command's tree), its JSON report beside the config."""
    return subprocess.Popen(
        [sys.executable, "-m", "ground_gate", "run", "-c", str(config), "--quiet",
         "--output-json", str(config.parent / "report.json")],
        env={**os.environ, "FAKE_KEY": "sk-judge-key"},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
