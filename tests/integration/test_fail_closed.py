"""Issue 43's gate levers, tried as a pull request would pull them, through `ground-gate run`
with a command target and a scripted judge on 127.0.0.1:

- a target that returns an unrelated context with its answers, on every row or only on the
  rows it would fail, to move them to the "source cannot answer" side (the denominator of
  `answered`): it fails, whether the rows have their own context or not;
- a pull request that turns answers into declines or markdown with no word, under a config
  with no answers metric: it fails against the baseline, and the comment says so first.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from ground_gate.cli import cli
from tests.integration import fake_openai
from tests.integration.fake_openai import FakeOpenAI

ROWS = [
    {
        "id": f"q{i:02d}",
        "question": f"How much does the X{i} weigh?",
        "context": f"The X{i} weighs {i} kg.",
    }
    for i in range(1, 11)
]
UNRELATED = "Our office is closed on Sundays."
DECLINE = "The documentation does not say."
# the app: answers from the row's context; in mode `junk` with an unrelated context and a
# decline (rows listed, or every row); in mode `silent` with a decline or bare markdown
APP = """
import json, sys
mode, ids = sys.argv[1], set(sys.argv[2:])
for line in sys.stdin:
    row = json.loads(line)
    hit = not ids or row["id"] in ids
    context = row.get("context") or "The X{} weighs {} kg.".format(*[row["id"][1:].lstrip("0")] * 2)
    reply = {"id": row["id"], "response": context, "contexts": [context]}
    if mode == "junk" and hit:
        reply = {"id": row["id"], "response": "DECLINE", "contexts": ["UNRELATED"]}
    if mode == "silent" and hit:
        reply["response"] = "DECLINE" if int(row["id"][1:]) % 2 else "**  **"
    print(json.dumps(reply), flush=True)
""".replace("DECLINE", DECLINE).replace("UNRELATED", UNRELATED)


def _yes(yes: bool, p: float = 0.9) -> fake_openai.Reply:
    token, other = ("Yes", "No") if yes else ("No", "Yes")
    return fake_openai.completion(
        token, logprobs=[{token: math.log(p), other: math.log(1 - p)}], completion_tokens=1
    )


def judge(body: Any) -> fake_openai.Reply:
    """A decline informs of nothing and evades; a document holds a row's answer when it says
    what the X weighs; a sentence is supported when the source holds it."""
    prompt = body["messages"][-1]["content"]
    declines = DECLINE in prompt
    if fake_openai.fills_a_blank(prompt):
        return fake_openai.completion("NOT STATED", logprobs=[{"NOT": 0.0}], completion_tokens=3)
    if fake_openai.says_something(prompt):  # does it hold any information?
        return _yes(not declines)
    if "Is the answer a non-answer?" in prompt:
        return _yes(declines)
    if "Does the document contain the information needed" in prompt:
        return _yes("weighs" in prompt.split("<question>")[0])
    return _yes(not declines)  # a sentence's verdict


def project(root: Path, *app: str, answers: bool, context: bool = True) -> Path:
    rows = [r if context else {k: v for k, v in r.items() if k != "context"} for r in ROWS]
    (root / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    (root / "app.py").write_text(APP, encoding="utf-8")
    argv = json.dumps([sys.executable, str(root / "app.py"), *app])
    metrics = "groundedness: {evidence: none}" + (", answers: {}" if answers else "")
    gate = "  groundedness: {min: 0.7}\n  hallucination: {max: 0.2}\n" + (
        "  answered: {min: 0.8}\n  answered_anyway: {max: 0.4}\n" if answers else ""
    )
    config = root / f"gate-{'-'.join(app)}.yml"
    config.write_text(
        f"""version: 1
judge: {{provider: openai, model: fake-judge, base_url: "{{url}}", api_key_env: FAKE_KEY,
        max_retries: 0, cache_dir: "{root / "cache"}"}}
datasets:
  - name: support
    path: rows.jsonl
    target: {{command: {argv}, timeout_s: 20}}
metrics: {{{metrics}}}
thresholds:
{gate}""",
        encoding="utf-8",
    )
    return config


def run(config: Path, url: str, *args: str) -> tuple[int, dict[str, Any], str]:
    config.write_text(config.read_text("utf-8").replace("{url}", url), encoding="utf-8")
    out = config.with_suffix("")
    result = CliRunner().invoke(
        cli,
        ["run", "-c", str(config), "--output-json", f"{out}.json", "--output-md", f"{out}.md",
         "--output-junit", f"{out}.xml", "--quiet", *args],
        env={"FAKE_KEY": "sk-judge-key"},
    )  # fmt: skip
    assert "Traceback" not in result.output, result.output
    assert result.exit_code in (0, 1), result.output
    report = json.loads(Path(f"{out}.json").read_text("utf-8"))
    return result.exit_code, report, Path(f"{out}.md").read_text("utf-8")


def verdicts(report: dict[str, Any]) -> dict[str, bool | None]:
    return {e["score"]: e["passed"] for e in report["scores"]}


def test_an_unrelated_context_on_every_row_fails_with_or_without_the_rows_own_context(tmp_path):
    with FakeOpenAI(handler=judge) as server:
        # the rows have their own context: their side is judged against it, so every decline
        # is a decline of a question its source answers
        code, report, _ = run(project(tmp_path, "junk", answers=True), server.url)
        assert code == 1
        assert verdicts(report)["answered"] is False
        answered = next(e for e in report["scores"] if e["score"] == "answered")
        assert (answered["mean"], answered["n"]) == (0.0, 10)
        # no context of their own: the target's contexts are all there is; no row is left on
        # the answered side, so the check measured nothing: not checked, and it fails
        bare = tmp_path / "bare"
        bare.mkdir()
        code, report, markdown = run(project(bare, "junk", answers=True, context=False), server.url)
    assert code == 1
    answered = next(e for e in report["scores"] if e["score"] == "answered")
    assert (answered["passed"], answered["mean"]) == (False, None)
    assert answered["reason"].startswith("not checked: no row's source holds what the row asks")
    assert "not checked" in markdown and "with no row to measure" in markdown
    assert "passed" not in markdown.split("\n")[0]


def test_an_unrelated_context_only_on_the_rows_it_would_fail_fails_too(tmp_path):
    with FakeOpenAI(handler=judge) as server:
        code, report, _ = run(
            project(tmp_path, "junk", "q02", "q05", "q09", answers=True), server.url
        )
    assert code == 1
    answered = next(e for e in report["scores"] if e["score"] == "answered")
    assert (answered["mean"], answered["n"], answered["passed"]) == (0.7, 10, False)


def test_declines_and_markdown_only_answers_fail_a_groundedness_only_gate_against_its_baseline(
    tmp_path,
):
    base_dir, pr_dir = tmp_path / "base", tmp_path / "pr"
    base_dir.mkdir()
    pr_dir.mkdir()
    silenced = [f"q{i:02d}" for i in range(1, 9)]  # 8 of 10 rows say nothing now
    with FakeOpenAI(handler=judge) as server:
        code, baseline, _ = run(project(base_dir, "answer", answers=False), server.url)
        assert code == 0 and "substance" not in verdicts(baseline)  # every row says something
        config = project(pr_dir, "silent", *silenced, answers=False)
        code, report, markdown = run(
            config, server.url, "--baseline", str(base_dir / "gate-answer.json")
        )
    assert code == 1
    # groundedness over the two rows left passes: the rows that say nothing left its mean
    assert verdicts(report)["groundedness"] is True
    substance = next(e for e in report["scores"] if e["score"] == "substance")
    assert (substance["mean"], substance["passed"]) == (0.2, False)
    assert substance["baseline"]["before"] == 1.0
    first_screen = "\n".join(markdown.splitlines()[:12])
    assert "substance" in first_screen and "\u274c" in first_screen
    failing = [r["id"] for r in report["rows"] if "substance" in r["failing"]]
    assert failing == silenced
