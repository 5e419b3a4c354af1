"""End to end: configs/demo-answers.yml's prompt target, the real local model answering and
judging, on one of its questions. What only this test shows is a prompt target's answers
judged: the strict prompt (`prompt.md`) passes the demo's groundedness gate and the loose one
(`prompt-loose.md`, the demo's pull request that should fail) fails it for the reason it was
written for, the sentences it adds "from its own knowledge" judged not in the source. The
demo's declines and its `answers` checks are test_demo_declines.py's; the thresholds are the
demo's, chosen from measured runs (bench/RESULTS.md, "A target: the demo's two prompts").
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from ground_gate.commands.run import RunOptions, execute
from ground_gate.stages.report_files import ReportFiles
from tests.e2e.conftest import Lending

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "configs" / "demo-answers.yml"
ANSWERS = ROOT / "examples" / "answers"
# one row is enough, and the fastest to judge: there the loose prompt adds two sentences of
# its own, judged not in the source (groundedness 0.30, hallucination 0.69, 3 units, 8 s of
# judging; the strict prompt's one sentence 0.97), where the demo's `noise` row took 40 s
ROW_IDS = ("filter-replacement",)
SCORES = ("groundedness", "hallucination")  # the demo's gate on what the answers say


def config(root: Path, prompt: str) -> Path:
    """The demo config with `prompt`, on ROW_IDS, its groundedness checks alone."""
    demo = yaml.safe_load(CONFIG.read_text(encoding="utf-8"))
    (dataset,) = demo["datasets"]
    lines = (ANSWERS / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    rows = [line for line in lines if json.loads(line)["id"] in ROW_IDS]
    assert len(rows) == len(ROW_IDS), "the demo's questions changed; update this test"
    (root / "questions.jsonl").write_text("\n".join(rows) + "\n", encoding="utf-8")
    dataset["path"] = str(root / "questions.jsonl")
    assert dataset["target"]["prompt"] == "../examples/answers/prompt.md"
    dataset["target"]["prompt"] = str(ANSWERS / prompt)
    demo["judge"]["cache_dir"] = str(root.parent / "cache")  # both runs: one cache
    demo["metrics"] = {"groundedness": demo["metrics"]["groundedness"]}
    demo["thresholds"] = {score: demo["thresholds"][score] for score in SCORES}
    path = root / "demo-answers.yml"
    path.write_text(yaml.safe_dump(demo, sort_keys=False), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory, judge_server: Lending) -> Any:
    """(exit code, report, responses.jsonl's lines) for each prompt."""
    root = tmp_path_factory.mktemp("demo-answers")
    done = {}
    for prompt in ("prompt.md", "prompt-loose.md"):
        folder = root / prompt.removesuffix(".md")
        folder.mkdir()
        files = ReportFiles(json=folder / "out" / "report.json")
        with judge_server.lent():
            outcome = execute(
                RunOptions(config_path=config(folder, prompt), files=files), {}, lambda _: None
            )
        lines = (folder / "out" / "responses.jsonl").read_text(encoding="utf-8").splitlines()
        done[prompt] = (outcome.exit_code, outcome.report, [json.loads(line) for line in lines])
    return done


def _means(report: Any) -> dict[str, float]:
    return {entry["score"]: entry["mean"] for entry in report["scores"]}


def _units(report: Any) -> list[Any]:
    return [u for r in report["rows"] for u in r["metrics"]["groundedness"]["units"]]


def test_demo_answers__each_row_is_answered_by_one_call_of_the_prompt(runs: Any) -> None:
    """Property: the prompt target asks the model once a row (a retry aside) and what it
    answered is what is judged, in the rows' order."""
    for _, report, lines in runs.values():
        assert report["incomplete"] is None
        (target,) = report["targets"]
        rows = len(ROW_IDS)
        assert (target["rows"], target["answered"], target["errors"]) == (rows, rows, 0)
        usage = target["usage"]  # one call a row, and a retry where a slow machine timed out
        assert target["kind"] == "prompt" and usage["calls"] - usage["retries"] == rows
        assert [line["id"] for line in lines] == [row["id"] for row in report["rows"]]
        assert [line["response"] for line in lines] == [
            r["text"]["response"] for r in report["rows"]
        ]
        assert all(line["response"] and line["error"] is None for line in lines)


def test_demo_answers__the_strict_prompt_passes_and_the_loose_one_fails_on_added_sentences(
    runs: Any,
) -> None:
    """Property: the judge finds the sentences the loose prompt adds from the model's own
    knowledge not in the source, so the gate fails it (groundedness or hallucination), where
    the strict prompt's answers, from the documentation, pass."""
    strict_code, strict, _ = runs["prompt.md"]
    loose_code, loose, _ = runs["prompt-loose.md"]
    assert strict_code == 0, strict["scores"]
    assert loose_code == 1, loose["scores"]
    failed = {e["score"] for e in loose["scores"] if e["passed"] is False}
    assert failed & set(SCORES)
    assert _means(loose)["hallucination"] > _means(strict)["hallucination"]
    assert len(_units(loose)) > len(_units(strict))  # it says more than it was asked
    not_in_source = [u for u in _units(loose) if u["verdict"] == "not in source"]
    assert len(not_in_source) > len([u for u in _units(strict) if u["verdict"] == "not in source"])
