"""End to end: configs/demo-answers.yml's gate with a command target in place of its prompt,
judged by the real local model. An app that declines 8 of the 10 questions its documentation
answers fails it, in either groundedness unit mode, and the comment counts the declines; one
that answers what its documentation answers and says "the documentation does not say" for the
rest passes; one that answers most rows with no word at all (emoji, punctuation, `[]`) fails,
each such row a decline with its reason.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from ground_gate.commands.run import RunOptions, execute
from ground_gate.review.baseline_rows import compare_rows
from ground_gate.stages.report_files import ReportFiles
from tests.e2e.aero_app import DECLINES
from tests.rendered import render_markdown

# the app's declines that only refuse ("Please contact our support team" also points somewhere)
REFUSALS = [d for d in DECLINES if "contact" not in d]

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "configs" / "demo-answers.yml"
APP = Path(__file__).resolve().parent / "aero_app.py"
PROMPT_TARGET = """\
    target:
      prompt: ../examples/answers/prompt.md
      provider: local                           # the same embedded model answers
      model: qwen2.5-coder-1.5b
      max_tokens: 160
      timeout_s: 300
"""


def config_text(mode: str, unit: str) -> str:
    """demo-answers.yml with the command target in `mode`, groundedness by `unit`."""
    text = CONFIG.read_text(encoding="utf-8")
    assert PROMPT_TARGET in text, "the demo config's target block changed; update this test"
    command = json.dumps([sys.executable, str(APP), mode])
    text = text.replace(PROMPT_TARGET, f"    target:\n      command: {command}\n")
    text = text.replace("../examples/answers/", f"{ROOT / 'examples' / 'answers'}/")
    assert "groundedness: {evidence: none}" in text
    return text.replace(
        "groundedness: {evidence: none}", f"groundedness: {{evidence: none, unit: {unit}}}"
    )


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """Every (mode, unit) run, one judge cache for all (the honest answers recur)."""
    root = tmp_path_factory.mktemp("declines")
    done: dict[tuple[str, str], tuple[int, Any]] = {}

    def run(mode: str, unit: str = "sentence") -> tuple[int, Any]:
        if (mode, unit) not in done:
            folder = root / f"{mode}-{unit}"
            folder.mkdir()
            config = folder / "demo-answers.yml"
            config.write_text(config_text(mode, unit), encoding="utf-8")
            files = ReportFiles(json=folder / "report.json")
            with pytest.MonkeyPatch.context() as patch:
                patch.chdir(root)  # the config's cache_dir is the working directory's
                outcome = execute(RunOptions(config_path=config, files=files), {}, lambda _: None)
            report = json.loads((folder / "report.json").read_text(encoding="utf-8"))
            done[(mode, unit)] = (outcome.exit_code, report)
        return done[(mode, unit)]

    return run


def _answers(report: Any) -> dict[str, str]:
    return {r["id"]: r["metrics"]["answers"]["units"][0]["verdict"] for r in report["rows"]}


def _failed(report: Any) -> set[str]:
    return {e["score"] for e in report["scores"] if e["passed"] is False}


def test_demo_declines__an_honest_app_passes(runs: Any) -> None:
    code, report = runs("honest")
    assert code == 0, report["scores"]
    verdicts = _answers(report)
    assert {verdicts[i] for i in ("price", "colours", "wifi-band")} == {"declined, as it should"}
    assert sum(v == "answered" for v in verdicts.values()) == 10
    # "The documentation does not say." states nothing: not in any groundedness mean
    said = {r["id"]: r["metrics"]["groundedness"] for r in report["rows"]}
    assert said["price"]["status"] == "no_claims"
    assert said["price"]["units"][0]["verdict"] == "declines"


@pytest.mark.parametrize("unit", ["sentence", "claim"])
def test_demo_declines__an_app_that_declines_8_of_10_answerable_questions_fails(
    runs: Any, unit: str
) -> None:
    code, report = runs("declines", unit)
    assert code == 1
    assert "answered" in _failed(report)
    verdicts = _answers(report)
    assert sum(v == "declined" for v in verdicts.values()) == 8
    declined = {r["id"] for r in report["rows"] if "answered" in r["failing"]}
    assert len(declined) == 8
    markdown = render_markdown(report)
    assert "declined 8 of 10 questions its sources answer" in markdown


def test_demo_declines__both_unit_modes_give_each_decline_the_same_verdict(runs: Any) -> None:
    _, by_sentence = runs("declines", "sentence")
    _, by_claim = runs("declines", "claim")

    def statuses(report: Any) -> dict[str, str]:
        return {r["id"]: r["metrics"]["groundedness"]["status"] for r in report["rows"]}

    assert statuses(by_sentence) == statuses(by_claim)
    # a refusal states nothing: no claims, in neither mean, not a 0 and not "not in source"
    refusals = [r for r in by_sentence["rows"] if r["text"]["response"] in REFUSALS]
    assert len(refusals) >= 5
    assert {r["metrics"]["groundedness"]["status"] for r in refusals} == {"no_claims"}


def test_demo_declines__the_baseline_beside_the_declines_names_each_with_its_old_answer(
    runs: Any,
) -> None:
    _, honest = runs("honest")
    _, declining = runs("declines")
    markdown = render_markdown(compare_rows(declining, honest))
    assert "declined 8 of 10 questions its sources answer (the baseline declined 0)" in markdown
    assert "### What this pull request broke: 8 rows newly fail" in markdown
    # rows that decline alike are one cause (review/causes.py): each row named once, and each
    # cause with its first row's answer, the baseline's then now
    section = markdown[markdown.index("### What this pull request broke") :]
    section = section[: section.index("\n\n", section.index("\n\n") + 2)]
    declined = [r["id"] for r in declining["rows"] if r["text"]["response"] in DECLINES]
    assert len(declined) == 8
    assert all(f" / {row_id}" in section for row_id in declined)
    assert " said \u201c" in section and "\u201d \u2192 now \u201c" in section


def test_demo_declines__answers_with_no_word_are_declines_and_fail_the_gate(runs: Any) -> None:
    code, report = runs("nothing")
    assert code == 1
    assert "answered" in _failed(report)
    rows = {r["id"]: r for r in report["rows"]}
    silent = [r for r in rows.values() if r["text"]["response"] not in ("", None)
              and not any(c.isalnum() for c in r["text"]["response"])]  # fmt: skip
    assert len(silent) == 11
    for row in silent:
        answers = row["metrics"]["answers"]
        assert answers["units"][0]["detail"] == {"p_answered": 0.0, "no_words": True}
        assert answers["units"][0]["verdict"] == "declined: no words"
        assert row["metrics"]["groundedness"]["status"] == "no_claims"
    assert "11 answers held no word at all" in render_markdown(report)
