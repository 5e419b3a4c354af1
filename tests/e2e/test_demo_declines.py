"""End to end: configs/demo-answers.yml's gate with a command target (tests/e2e/aero_app.py) in
place of its prompt, judged by the real local model, on six of the demo's questions: five
its documentation answers and one it cannot (`price`). The app says the documentation does
not say where it cannot in every mode; `declines` declines the five answerable questions (in
four phrasings, one of them twice) and `nothing` answers them with no word at all. Four runs
share one judge cache (`price` recurs) and the session's one server.
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
from tests.e2e.conftest import Lending
from tests.rendered import render_markdown

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "configs" / "demo-answers.yml"
QUESTIONS = ROOT / "examples" / "answers" / "questions.jsonl"
APP = Path(__file__).resolve().parent / "aero_app.py"
PROMPT_TARGET = """\
    target:
      prompt: ../examples/answers/prompt.md
      provider: local                           # the same embedded model answers
      model: qwen2.5-coder-1.5b
      max_tokens: 160
      timeout_s: 300
"""
ANSWERABLE = 5  # the demo's first five answerable questions; then `price`, which is not
DECLINING = ANSWERABLE  # what `declines` declines: each
SAID = [DECLINES[i % len(DECLINES)] for i in range(ANSWERABLE)]  # in row order
# the app's declines that only refuse ("Please contact our support team" also points somewhere)
REFUSALS = [d for d in DECLINES if "contact" not in d]


def rows_text() -> str:
    """The demo's questions file cut to ANSWERABLE answerable rows and `price`, in its order."""
    lines = QUESTIONS.read_text(encoding="utf-8").splitlines()
    answerable = [line for line in lines if json.loads(line)["answerable"]][:ANSWERABLE]
    price = [line for line in lines if json.loads(line)["id"] == "price"]
    assert len(answerable) == ANSWERABLE and len(price) == 1, "the demo's questions changed"
    return "\n".join(answerable + price) + "\n"


def config_text(mode: str, unit: str, rows: Path) -> str:
    """demo-answers.yml with the command target in `mode`, groundedness by `unit`, `rows`."""
    text = CONFIG.read_text(encoding="utf-8")
    assert PROMPT_TARGET in text, "the demo config's target block changed; update this test"
    command = json.dumps([sys.executable, str(APP), mode])
    text = text.replace(PROMPT_TARGET, f"    target:\n      command: {command}\n")
    assert "path: ../examples/answers/questions.jsonl" in text
    text = text.replace("path: ../examples/answers/questions.jsonl", f"path: {rows}")
    assert "groundedness: {evidence: none}" in text
    return text.replace(
        "groundedness: {evidence: none}", f"groundedness: {{evidence: none, unit: {unit}}}"
    )


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory, judge_server: Lending) -> Any:
    """Every (mode, unit) run, one judge cache for all (the honest answers recur)."""
    root = tmp_path_factory.mktemp("declines")
    rows = root / "questions.jsonl"
    rows.write_text(rows_text(), encoding="utf-8")
    done: dict[tuple[str, str], tuple[int, Any]] = {}

    def run(mode: str, unit: str = "sentence") -> tuple[int, Any]:
        if (mode, unit) not in done:
            folder = root / f"{mode}-{unit}"
            folder.mkdir()
            config = folder / "demo-answers.yml"
            config.write_text(config_text(mode, unit, rows), encoding="utf-8")
            files = ReportFiles(json=folder / "report.json")
            with pytest.MonkeyPatch.context() as patch, judge_server.lent():
                patch.chdir(root)  # the config's cache_dir is the working directory's
                outcome = execute(RunOptions(config_path=config, files=files), {}, lambda _: None)
            report = json.loads((folder / "report.json").read_text(encoding="utf-8"))
            assert report["incomplete"] is None
            done[(mode, unit)] = (outcome.exit_code, report)
        return done[(mode, unit)]

    return run


def _answers(report: Any) -> dict[str, str]:
    return {r["id"]: r["metrics"]["answers"]["units"][0]["verdict"] for r in report["rows"]}


def _failed(report: Any) -> set[str]:
    return {e["score"] for e in report["scores"] if e["passed"] is False}


def test_demo_declines__an_honest_app_passes(runs: Any) -> None:
    """Property: answers in the documentation's words read answered, and "The documentation
    does not say." where it cannot answer reads declined as it should, stating nothing (in
    no groundedness mean): the demo's gate passes."""
    code, report = runs("honest")
    assert code == 0, report["scores"]
    verdicts = _answers(report)
    assert verdicts["price"] == "declined, as it should"
    assert sum(v == "answered" for v in verdicts.values()) == ANSWERABLE
    said = {r["id"]: r["metrics"]["groundedness"] for r in report["rows"]}
    assert said["price"]["status"] == "no_claims"
    assert said["price"]["units"][0]["verdict"] == "declines"


def test_demo_declines__an_app_that_declines_each_answerable_question_fails(
    runs: Any,
) -> None:
    """Property: the judge reads each of four phrasings of a refusal as a decline, so the
    `answered` check fails, and the comment counts the declines."""
    code, report = runs("declines")
    assert code == 1
    assert "answered" in _failed(report)
    verdicts = _answers(report)
    assert sum(v == "declined" for v in verdicts.values()) == DECLINING
    declined = {r["id"] for r in report["rows"] if "answered" in r["failing"]}
    assert len(declined) == DECLINING
    markdown = render_markdown(report)
    assert f"declined {DECLINING} of {ANSWERABLE} questions its sources answer" in markdown


def test_demo_declines__both_unit_modes_give_each_decline_the_same_verdict(runs: Any) -> None:
    """Property: a decline states nothing whether groundedness reads sentences or extracts
    claims: every row the same status in both modes, each refusal `no_claims` (in neither
    mean, not a 0 and not "not in source"), and the gate fails in both."""
    _, by_sentence = runs("declines", "sentence")
    code, by_claim = runs("declines", "claim")

    def statuses(report: Any) -> dict[str, str]:
        return {r["id"]: r["metrics"]["groundedness"]["status"] for r in report["rows"]}

    assert statuses(by_sentence) == statuses(by_claim)
    refusals = [r for r in by_sentence["rows"] if r["text"]["response"] in REFUSALS]
    assert len(refusals) == sum(d in REFUSALS for d in SAID) == 4
    assert {r["metrics"]["groundedness"]["status"] for r in refusals} == {"no_claims"}
    assert code == 1 and "answered" in _failed(by_claim)


def test_demo_declines__the_baseline_beside_the_declines_names_each_with_its_old_answer(
    runs: Any,
) -> None:
    """Property: against the honest run as its baseline, the declines are what the pull
    request broke, rows that decline alike one cause (each row named once, each cause with
    its first row's answer, the baseline's then now)."""
    _, honest = runs("honest")
    _, declining = runs("declines")
    markdown = render_markdown(compare_rows(declining, honest))
    said = f"declined {DECLINING} of {ANSWERABLE} questions its sources answer"
    assert f"{said} (the baseline declined 0)" in markdown
    assert f"### What this pull request broke: {DECLINING} rows newly fail" in markdown
    section = markdown[markdown.index("### What this pull request broke") :]
    section = section[: section.index("\n\n", section.index("\n\n") + 2)]
    declined = [r["id"] for r in declining["rows"] if r["text"]["response"] in DECLINES]
    assert len(declined) == DECLINING
    assert all(f" / {row_id}" in section for row_id in declined)
    # the phrasing said twice is one cause
    twice = {
        d for d in DECLINES if [r["text"]["response"] for r in declining["rows"]].count(d) == 2
    }
    assert twice == {d for d in SAID if SAID.count(d) == 2} and len(twice) == 1
    for decline in twice:
        assert f"**2 rows** now decline: \u201c{decline}\u201d" in section, section
    assert " said \u201c" in section and "\u201d \u2192 now \u201c" in section


def test_demo_declines__answers_with_no_word_are_declines_and_fail_the_gate(runs: Any) -> None:
    """Property: text with no letter or digit (emoji, `[]`, `...`) is a decline with no judge
    call, so an app answering with it fails `answered`."""
    code, report = runs("nothing")
    assert code == 1
    assert "answered" in _failed(report)
    silent = [r for r in report["rows"] if r["text"]["response"] not in ("", None)
              and not any(c.isalnum() for c in r["text"]["response"])]  # fmt: skip
    assert len(silent) == len(report["rows"]) - 1 == ANSWERABLE  # all but `price`
    for row in silent:
        answers = row["metrics"]["answers"]
        assert answers["units"][0]["detail"] == {"p_answered": 0.0, "no_words": True}
        assert answers["units"][0]["verdict"] == "declined: no words"
        assert row["metrics"]["groundedness"]["status"] == "no_claims"
        assert answers["usage"]["calls"] == row["metrics"]["groundedness"]["usage"]["calls"] == 0
    assert f"{ANSWERABLE} answers held no word at all" in render_markdown(report)
