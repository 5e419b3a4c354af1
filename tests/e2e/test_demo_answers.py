"""End to end: configs/demo-answers.yml with the real local model as the target and as the
judge. The strict prompt's answers pass the gate, answering the ten questions its documentation
answers and declining at least two of the three it cannot; the same config with the loose
prompt (the pull request that should fail) fails it, for the right reason: sentences it added from "its own
knowledge" are judged not in the source. The thresholds were chosen from measured runs
(bench/RESULTS.md, "A target: the demo's two prompts").
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ground_gate.commands.run import RunOptions, execute
from ground_gate.stages.report_files import ReportFiles

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "configs" / "demo-answers.yml"
ANSWERS = ROOT / "examples" / "answers"


def run(tmp_path: Path, prompt: str, monkeypatch: pytest.MonkeyPatch) -> tuple[int, Any, list[Any]]:
    """The demo config with `prompt`, its cache in tmp_path (a cold run)."""
    text = CONFIG.read_text(encoding="utf-8").replace("../examples/answers/", f"{ANSWERS}/")
    text = text.replace(f"{ANSWERS}/prompt.md", f"{ANSWERS}/{prompt}")
    tmp_path.mkdir(parents=True)
    config = tmp_path / "demo-answers.yml"
    config.write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)  # cache_dir .ground-gate/cache is the working directory's
    files = ReportFiles(json=tmp_path / "out" / "report.json")
    outcome = execute(RunOptions(config_path=config, files=files), {}, lambda _: None)
    report = json.loads((tmp_path / "out" / "report.json").read_text(encoding="utf-8"))
    lines = (tmp_path / "out" / "responses.jsonl").read_text(encoding="utf-8").splitlines()
    return outcome.exit_code, report, [json.loads(line) for line in lines]


def _means(report: Any) -> dict[str, float]:
    return {entry["score"]: entry["mean"] for entry in report["scores"]}


def _units(report: Any) -> list[Any]:
    return [u for r in report["rows"] for u in r["metrics"]["groundedness"]["units"]]


def test_demo_answers__the_strict_prompt_passes_and_the_loose_one_fails_on_added_sentences(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    strict_code, strict, strict_lines = run(tmp_path / "strict", "prompt.md", monkeypatch)
    loose_code, loose, loose_lines = run(tmp_path / "loose", "prompt-loose.md", monkeypatch)

    assert strict_code == 0, strict["scores"]
    assert loose_code == 1, loose["scores"]
    for report, lines in ((strict, strict_lines), (loose, loose_lines)):
        assert report["incomplete"] is None
        (target,) = report["targets"]
        assert (target["rows"], target["answered"], target["errors"]) == (13, 13, 0)
        usage = target["usage"]  # one call a row, and a retry where a slow machine timed out
        assert target["kind"] == "prompt" and usage["calls"] - usage["retries"] == 13
        assert [line["id"] for line in lines] == [row["id"] for row in report["rows"]]
        assert all(line["response"] and line["error"] is None for line in lines)
    # the loose prompt fails for the reason it was written for: sentences not in the source
    assert _means(loose)["hallucination"] > _means(strict)["hallucination"]
    failed = {e["score"] for e in loose["scores"] if e["passed"] is False}
    assert failed & {"groundedness", "hallucination"}
    not_in_source = [u for u in _units(loose) if u["verdict"] == "not in source"]
    assert len(not_in_source) > len([u for u in _units(strict) if u["verdict"] == "not in source"])
    assert len(_units(loose)) > len(_units(strict))  # it says more: four or five sentences
    # the strict prompt declines in the words it was given, and those words are a decline in
    # every score: no sentence of "The documentation does not say." is judged
    unanswerable = ("price", "colours", "wifi-band")
    said = {r["id"]: r["metrics"]["answers"]["units"][0]["verdict"] for r in strict["rows"]}
    assert [said[i] for i in unanswerable].count("declined, as it should") >= 2, said
    declined = [
        r for r in strict["rows"] if r["text"]["response"] == "The documentation does not say."
    ]
    assert len(declined) >= 2
    for row in declined:
        assert [u["verdict"] for u in row["metrics"]["groundedness"]["units"]] == ["declines"]
    assert _means(strict)["answered"] >= 0.8
    assert _means(loose)["answered_anyway"] > _means(strict)["answered_anyway"]
