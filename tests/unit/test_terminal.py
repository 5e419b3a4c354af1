"""The terminal summary (report/terminal.py), each rule of issue 35's item 5 pinned: lines
wrapped at the width, never cut, so a quoted sentence and a failing check's threshold read
whole; the verdict last, with an unfinished run's cause whole, under one line for the checks
that share a reason; every check's score shown, passing or not, with its status's mark and
words (check_status) and its number spelled as figures.score_cell spells it; each
dataset's "N of M checks failed" (or passed), and the verdict's count as the comment says it
(check_status.checks_said: the failures of a failed run, never "0 of M failed"); data
inert."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from ground_gate.render.terminal_text import columns, wrap
from ground_gate.review.baseline_rows import compare_rows
from ground_gate.review.check_status import check_status, checks_said
from ground_gate.review.figures import score_cell
from tests.rendered import render_terminal, verdict_line
from tests.reviewer_scenario import scenario
from tests.unit.test_report import against_baseline
from tests.unit.test_report_baseline_rows import pair

CAUSE = (
    "the judge is unavailable: the judge at 127.0.0.1 is unavailable: HTTP 500: upstream "
    "connect error or disconnect/reset before headers, reset reason: connection termination "
    "(after 3 attempts)"
)


def pull_request() -> dict[str, Any]:
    baseline, report = scenario()
    return dict(compare_rows(report, baseline))


def fits(text: str, width: int) -> bool:
    return all(columns(line) <= width for line in text.splitlines())


def joined(text: str) -> str:
    """The text as one line, every run of spaces one space (a wrapped line's indentation, a
    column's padding)."""
    return " ".join(text.split())


def test_terminal__the_changed_rows_wrapped_at_80_with_the_verdict_last():
    _, now = pair()
    assert render_terminal(now, width=80, exit_code=1, written=[("page", "out/report.html")]) == (
        "ground-gate: 5 rows in 1 dataset, judged by m, against the baseline made within\n"
        "  a minute of this run (5 rows, failed)\n"
        "\n"
        "support (5 rows): 1 of 2 checks failed\n"
        "  \u274c groundedness   fail: 0.59 \u2192 0.61 < 0.70\n"
        "  \u2705 contradiction  pass: 0.02 \u2192 0.12 (\u2264 0.20)\n"
        "\n"
        "What this pull request broke: 2 rows newly fail\n"
        "  support/r1: contradiction 0.02 \u2192 0.32 > 0.20, groundedness 0.95 \u2192 0.35 < 0.70\n"
        "  support/r4: contradiction 0.02 \u2192 0.22 > 0.20\n"
        "Fixed: 1 row passes what it failed in the baseline\n"
        "\n"
        "Rows that failed in the baseline too:\n"
        "  \u274c support/r3: fails groundedness\n"
        "      groundedness: not in source: \u201cEvery order includes a gift.\u201d\n"
        "\n"
        "Reports: page out/report.html\n"
        "\n"
        "FAILED (exit 1): 1 of 2 checks failed\n"
    )


def test_terminal__the_baseline_named_as_the_comment_names_it_and_another_judge_warned():
    _, now = pair()
    now["baseline"]["source"] = {
        "commit": "0123456789abcdef0123",
        "branch": "main",
        "run_url": "https://github.com/octo/app/actions/runs/7",
    }
    now["baseline"]["judge"] = {"provider": "openai", "model": "gpt-4o"}
    lines = render_terminal(now, width=80, exit_code=1).splitlines()
    assert lines[:5] == [
        "ground-gate: 5 rows in 1 dataset, judged by m, against the baseline from",
        "  main @ 0123456 made within a minute of this run (5 rows, failed)",
        "  its run: https://github.com/octo/app/actions/runs/7",
        "\u26a0\ufe0f The baseline was judged by gpt-4o, this run by m: a change against it may be",
        "   the judge's, not the pull request's.",
    ]


@pytest.mark.parametrize("width", [40, 72, 80, 120])
def test_terminal__nothing_cut_every_line_within_the_width(width):
    text = render_terminal(pull_request(), width=width, exit_code=1)
    assert fits(text, width), text
    assert "\u2026" not in text
    whole = joined(text)
    # the invented sentence and the failing checks' figures, whole
    assert "\u201cEvery order includes a free gift card.\u201d" in whole
    assert "hallucination fail: 0.062 \u2192 0.101 > 0.10" in whole
    assert "more than max_drop 0.02, and at least 0.039 worse at 95% confidence" in whole


def test_terminal__a_failing_check_reads_whole_at_80_its_drop_reason_beneath():
    lines = render_terminal(pull_request(), width=80, exit_code=1).splitlines()
    at = lines.index("news (160 rows): 2 of 3 checks failed")
    assert lines[at + 1 : at + 7] == [
        "  \u274c groundedness   fail: 0.9082 \u2192 0.8535 (\u2265 0.75, drop \u2264 0.02)",
        "                    0.055 worse than the baseline over the 160 rows in both",
        "                    runs: more than max_drop 0.02, and at least 0.039 worse at",
        "                    95% confidence",
        "  \u274c hallucination  fail: 0.062 \u2192 0.101 > 0.10",
        "  \u2705 contradiction  pass: 0.03 \u2192 0.05 (\u2264 0.20)",
    ]


def test_terminal__a_passing_run_shows_every_score_against_its_threshold():
    baseline, _ = scenario()
    text = render_terminal(baseline, width=80, exit_code=0)
    lines = text.splitlines()
    at = lines.index("news (160 rows): 3 of 3 checks passed")
    assert lines[at + 1 : at + 4] == [
        "  \u2705 groundedness   pass: 0.91 (\u2265 0.75, drop \u2264 0.02)",
        "  \u2705 hallucination  pass: 0.06 (\u2264 0.10)",
        "  \u2705 contradiction  pass: 0.03 (\u2264 0.20)",
    ]
    assert "support (40 rows): 3 of 3 checks passed" in lines
    assert lines[-1] == "PASSED (exit 0): 6 of 6 checks passed"


def test_terminal__each_number_as_the_reports_renderers_spell_it():
    """One spelling per number: every check's score is figures.score_cell's, whole."""
    for report in (pull_request(), scenario()[0], against_baseline()[0]):
        whole = joined(render_terminal(report, width=80, exit_code=1))
        for entry in report["scores"]:
            status = check_status(entry)
            if status.kind != "shown":
                assert f"{entry['score']} {status.mark}" not in whole
                assert f"{status.mark} {entry['score']}" in whole
                assert f"{status.word}: {score_cell(entry)}" in whole, entry["score"]


def test_terminal__a_drop_past_max_drop_within_noise_is_its_own_status_with_its_reason():
    now, baseline = against_baseline()
    text = render_terminal(compare_rows(now, baseline), width=100, exit_code=1)
    (line,) = [x for x in text.splitlines() if "summary_hallucination  " in x]
    assert line.startswith("  \U0001f7e1 summary_hallucination  passes: dropped more than max_drop")
    assert "\u2705 summary_hallucination" not in text
    assert "0.083 worse than the baseline over the 6 rows in both runs" in joined(text)
    # a threshold the run could not check (one row in both runs): neither pass nor shown only
    assert "  \u26a0\ufe0f groundedness  not checked: 0.60 (drop \u2264 0.05)" in text
    assert "max_drop 0.05 is not checked" in joined(text)


def incomplete(report: dict[str, Any]) -> dict[str, Any]:
    """The report of a run stopped before any row of news was scored: four checks with no
    score, and a long cause."""
    stopped = copy.deepcopy(report)
    stopped["status"], stopped["passed"], stopped["incomplete"] = "incomplete", False, CAUSE
    stopped.pop("baseline", None)
    for row in stopped["rows"]:
        row.pop("baseline", None)
    news = [e for e in stopped["scores"] if e["dataset"] == "news"]
    news.append({**news[0], "score": "faithfulness", "threshold": {"min": 0.5}})
    stopped["scores"] = [e for e in stopped["scores"] if e["dataset"] != "news"] + news
    for entry in news:
        entry.pop("baseline", None)
        entry.update(mean=None, n=0, ci95=None, passed=False)
        entry["reason"] = "not checked: no row gave this score; a check that measured nothing fails"
    return stopped


def test_terminal__an_unfinished_run_ends_on_its_cause_whole_under_one_line_for_four_checks():
    stopped = incomplete(scenario()[0])
    text = render_terminal(stopped, width=80, exit_code=2)
    assert text.count("no row gave") == 1
    assert (
        "  \u274c 4 scores fail: not checked: no row gave them; a check that measured nothing\n"
        "     fails (groundedness, hallucination, contradiction, faithfulness)\n"
    ) in text
    verdict = text.rstrip("\n").split("\n\n")[-1]  # the verdict, last, after a blank line
    assert joined(verdict) == verdict_line(stopped, 2)
    assert verdict_line(stopped, 2) == (
        "INCOMPLETE (exit 2): 4 of 7 checks failed (4 of them with no row to measure); the run "
        f"did not finish: {CAUSE}"
    )
    assert joined(text).endswith(CAUSE)  # the cause whole, on the last lines
    assert (
        text.splitlines()[-1]
        == "  headers, reset reason: connection termination (after 3 attempts)"
    )
    assert fits(text, 80)


@pytest.mark.parametrize("report", [pull_request, lambda: scenario()[0]])
def test_terminal__the_verdict_counts_as_the_comment_does_never_0_failed(report):
    built = report()
    text = render_terminal(built, width=80, exit_code=0 if built["passed"] else 1)
    assert "check(s)" not in text and "row(s)" not in text
    assert text.splitlines()[-1].endswith(": " + checks_said(built["scores"]))
    assert " 0 of " not in text.splitlines()[-1]


def test_terminal__data_cannot_send_escape_sequences_and_lines_fit():
    _, now = pair()
    now["rows"][0]["id"] = "r1\x1b[2J\x1b]0;pwned\x07"
    text = render_terminal(now, width=40, exit_code=1)
    assert "\x1b" not in text and "\x07" not in text and "\x00" not in text
    # the id as every renderer shows it (escape.shown_id), wrapped where the line ends
    assert 'support/"r1\\u001b[2J\\u001b]0;pwned\\u0007":' in "".join(text.split())
    assert fits(text, 40)


def test_wrap__hanging_indent_words_kept_whole_figures_kept_together():
    words = "one two three four five six seven"
    assert wrap("  x ", words, 30, 4) == ["  x one two three four five", "    six seven"]
    # a word longer than a line is broken where it must be, never dropped
    assert wrap("", "a" * 70, 30, 0) == ["a" * 30, "a" * 30, "a" * 10]
    # the report's figures keep their signs: glued spaces are printed as spaces
    figures = "x" * 20 + " 0.04\x00\u2192\x000.47"
    assert wrap("", figures, 30, 2) == ["x" * 20, "  0.04 \u2192 0.47"]
    # a hanging indent that would leave the text narrower than MIN_TEXT is given up
    assert wrap("", words, 26, 8) == ["one two three four five", "  six seven"]


def test_columns__as_a_terminal_draws_them():
    assert columns("\u2705 \u274c \U0001f7e1") == 8  # each mark two columns
    assert columns("\u26a0\ufe0f") == 2  # the warning mark in emoji presentation
    assert columns("e\u0301") == 1  # a combining accent takes none
    assert columns("\u6f22\u5b57") == 4


def test_terminal__declines_a_line_each_after_the_run_line():
    from tests.unit.test_report_answers import BEFORE, NOW
    from tests.unit.test_report_answers import report as answers_report

    report = compare_rows(answers_report(NOW), answers_report(BEFORE))
    lines = render_terminal(report, width=120, exit_code=1).splitlines()
    assert lines[0].startswith("ground-gate: 4 rows in 1 dataset, judged by ")
    at = next(i for i, line in enumerate(lines) if line.startswith("aero: "))
    assert lines[at : at + 3] == [
        "aero: declined 1 of 2 questions its sources answer (the baseline declined 0)",
        "aero: answered 1 of 2 questions its sources cannot answer (the baseline answered 0)",
        "aero: 1 answer held no word at all",
    ]
    assert lines[at + 3] == ""  # then the checks
