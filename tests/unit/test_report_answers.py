"""The answers metric in every rendering: declines counted in words beside the baseline's,
each newly declined row in "what this pull request broke" with its old and new answer."""

from __future__ import annotations

import copy
import json
import xml.etree.ElementTree as ET
from datetime import UTC, datetime
from typing import Any

from ground_gate.config.model import MetricsConfig, Threshold
from ground_gate.config.scores import SCORE_NAMES
from ground_gate.leaves.results import MetricResult, RowResult, UnitResult
from ground_gate.report.json_report import build_report
from ground_gate.report.schema import schema, schema_problems
from ground_gate.review.answers import Side, answer_counts, stated_nothing
from ground_gate.review.baseline_rows import compare_rows
from ground_gate.review.words import answer_words
from ground_gate.verdict.record import RowTexts, verdicts
from tests.records import answers_result, run_record
from tests.rendered import render_html, render_junit, render_markdown

SCORES = {"answers": ("answered", "answered_anyway", "context_relevance")}
THRESHOLDS = {"aero": {"answered": Threshold(min=0.7), "answered_anyway": Threshold(max=0.3)}}
QUESTIONS = {
    "battery": "How long does it run?",
    "dock": "Does the dock empty the bin?",
    "colour": "What colour is it?",
    "price": "How much does it cost?",
}


def report(responses: dict[str, tuple[str, float, float]], created: int = 2) -> dict[str, Any]:
    rows = [
        RowResult("aero", key, (answers_result(text, p, q, no_words=text == "[]"),), 1.0)
        for key, (text, p, q) in responses.items()
    ]
    texts = {
        ("aero", key): RowTexts("The documentation.", QUESTIONS[key], text)
        for key, (text, _, _) in responses.items()
    }
    record = run_record(
        rows,
        datasets=(("aero", len(rows)),),
        scores_by_metric=SCORES,
        thresholds=THRESHOLDS,
        texts=texts,
        created_at=datetime(2026, 11, created, tzinfo=UTC),
    )
    return dict(build_report(record, verdicts(record)))


BEFORE = {
    "battery": ("It runs for 120 minutes.", 0.9, 0.9),
    "dock": ("Only the Plus dock empties the bin.", 0.85, 0.8),
    "colour": ("The documentation does not say.", 0.1, 0.1),
    "price": ("The documentation does not say.", 0.15, 0.2),
}
NOW = {
    "battery": ("It runs for 120 minutes.", 0.9, 0.9),
    "dock": ("I'm sorry, I can't help with that.", 0.05, 0.8),
    "colour": ("It is red.", 0.8, 0.1),
    "price": ("[]", 0.0, 0.2),
}


def test_answer_counts__declines_of_answerable_rows_and_answers_of_the_others():
    (counts,) = answer_counts(compare_rows(report(NOW), report(BEFORE)))
    assert counts.asked == Side("answered", rows=2, turned=1, before=0)
    assert counts.unanswerable == Side("answered_anyway", rows=2, turned=1, before=0)
    assert counts.unasked.rows == 0 and counts.no_words == 1
    assert answer_words(counts) == (
        "declined 1 of 2 questions its sources answer (the baseline declined 0); answered 1 of "
        "2 questions its sources cannot answer (the baseline answered 0); 1 answer held no "
        "word at all"
    )
    (alone,) = answer_counts(report(NOW))  # no baseline: no baseline counts said
    assert answer_words(alone).startswith("declined 1 of 2 questions its sources answer; ")


def test_answer_counts__a_baseline_that_never_ran_the_answers_metric_counts_nothing():
    before = report(BEFORE)
    for row in before["rows"]:
        row["metrics"] = {}
    (counts,) = answer_counts(compare_rows(report(NOW), before))
    assert (counts.asked.before, counts.unanswerable.before) == (None, None)
    assert "baseline" not in answer_words(counts)


def test_render_markdown__declines_in_words_and_each_new_decline_with_its_old_answer():
    markdown = render_markdown(compare_rows(report(NOW), report(BEFORE)))
    assert (
        "- **aero** ❌ declined 1 of 2 questions its sources answer (the baseline declined 0); "
        "❌ answered 1 of 2 questions its sources cannot answer (the baseline answered 0); 1 "
        "answer held no word at all\n"
    ) in markdown
    assert (
        "- **aero / dock**: answered 0.85 → 0.05 < 0.70\n"
        "  - said “Only the Plus dock empties the bin.” → now “I'm sorry, I can't help "
        "with that.”\n"
    ) in markdown
    assert (
        "- **aero / colour**: answered_anyway 0.10 → 0.80 > 0.30\n"
        "  - said “The documentation does not say.” → now “It is red.”\n"
    ) in markdown
    # said once: the rows this pull request broke are not listed again among the worst rows
    assert markdown.count("I'm sorry, I can't help with that.") == 1
    assert "Worst rows" not in markdown


def test_render_markdown__a_passing_run_says_its_declines_too():
    markdown = render_markdown(report(BEFORE))
    assert (
        "- **aero** ✅ declined 0 of 2 questions its sources answer; ✅ answered 0 of 2 "
        "questions its sources cannot answer\n"
    ) in markdown
    unverified = render_markdown(report(BEFORE), unverified=True)
    assert "- **aero** declined 0 of 2" in unverified and "✅" not in unverified


def test_render_markdown__each_part_marked_by_its_own_check():
    built = report(NOW)
    for entry in built["scores"]:  # answered_anyway not gated: its part carries no mark
        if entry["score"] == "answered_anyway":
            entry["passed"], entry["threshold"] = None, None
    markdown = render_markdown(built)
    assert "- **aero** ❌ declined 1 of 2 questions its sources answer; answered 1 of 2" in markdown


def test_render_markdown__a_row_whose_source_now_holds_the_answer_moved_sides():
    before = report(BEFORE)  # colour: declined rightly (unanswerable), failing nothing
    before["rows"][2]["failing"] = ["answered_anyway"]
    now = report({**BEFORE, "colour": ("It is red.", 0.8, 0.9)})  # now answerable, answered
    markdown = render_markdown(compare_rows(now, before))
    assert (
        "Fixed: 1 row passes what it failed in the baseline: **aero / colour** "
        "(answered_anyway 0.10 → now answered 0.80 (whether its source holds the answer "
        "changed))."
    ) in markdown
    assert "could not be scored" not in markdown


def test_render_markdown__rows_that_state_nothing_without_the_answers_metric_are_named():
    row = RowResult("aero", "r1", (MetricResult("groundedness", "no_claims"),), 1.0)
    record = run_record(
        [row], datasets=(("aero", 1),), scores_by_metric={"groundedness": ("groundedness",)}
    )
    built = build_report(record, verdicts(record))
    assert [r["id"] for r in stated_nothing(built)] == ["r1"]
    assert (
        "- ⚠️ 1 row(s) stated nothing to judge (a decline, a greeting, no word at all): in no "
        "other score's mean, counted in `substance` (gated against a baseline); `metrics: "
        "{answers: {}}` tells a decline its source justifies from one it does not\n"
    ) in render_markdown(built)


def test_render_junit__a_failing_answers_check_says_the_declines():
    root = ET.fromstring(render_junit(report(NOW)))
    case = root.find(".//testcase[@name='threshold answered_anyway']")
    assert case is not None
    failure = case.find("failure")
    assert failure is not None
    assert failure.get("message") == (
        "0.40 > max 0.30; declined 1 of 2 questions its sources answer; answered 1 of 2 "
        "questions its sources cannot answer; 1 answer held no word at all"
    )
    row = root.find(".//testcase[@name='dock']/failure")
    assert row is not None
    assert row.get("message") == (
        "answered 0.05 < 0.70; worst sentence (answers, declined): \"I'm sorry, I can't help with "
        'that." (P(answered) 0.05)'
    )


def test_render_html__declines_in_words_and_the_baseline_answer_of_a_row():
    page = render_html(compare_rows(report(NOW), report(BEFORE)))
    assert (
        '<p class="answers"><b>aero</b> declined 1 of 2 questions its sources answer (the '
        "baseline declined 0);"
    ) in page
    assert (
        "<h4>The baseline's response</h4>"
        '<div class="text was">Only the Plus dock empties the bin.</div>'
    ) in page


def test_compare_rows__the_baseline_response_is_kept_only_when_it_differs():
    compared = compare_rows(report(NOW), report(BEFORE))
    by_id = {r["id"]: r["baseline"] for r in compared["rows"]}
    assert "response" not in by_id["battery"]
    assert by_id["dock"]["response"] == "Only the Plus dock empties the bin."
    assert schema_problems(json.loads(json.dumps(compared))) == []
    old = copy.deepcopy(compared)  # a report from before the field is valid too
    for row in old["rows"]:
        row["baseline"].pop("response", None)
    assert schema_problems(old) == []


def test_report_schema__names_every_score_and_metric():
    text = json.dumps(schema())
    assert json.dumps(list(SCORE_NAMES)) in text
    metrics = list(MetricsConfig().__dataclass_fields__)
    assert sorted(json.loads(text.split('"propertyNames": {"enum": ')[1].split("}")[0])) == sorted(
        metrics
    )


def test_answer_words__rows_with_no_question_are_not_counted_as_questions():
    rows = [
        RowResult(
            "aero",
            f"s{i}",
            (
                MetricResult(
                    "answers",
                    "ok",
                    {"answered": p},
                    (
                        UnitResult("A summary.", p, "answered" if p >= 0.5 else "declined"),
                        UnitResult("", 1.0, "nothing asked", detail={"p_answerable": 1.0}),
                    ),
                ),
            ),
        )
        for i, p in enumerate([0.9, 0.2, 0.8])
    ]
    record = run_record(rows, datasets=(("aero", 3),), scores_by_metric=SCORES)
    (counts,) = answer_counts(build_report(record, verdicts(record)))
    assert answer_words(counts) == "said nothing of substance in 1 of 3 responses to no question"


def test_answer_counts__no_words_where_the_source_cannot_answer_is_no_answer_anyway():
    (counts,) = answer_counts(report(NOW))  # price: unanswerable, answered "[]"
    assert counts.unanswerable.turned == 1  # colour's "It is red." alone
    assert counts.no_words == 1


def test_units_table__an_answers_verdict_beside_judged_sentences_shows_its_probability():
    from ground_gate.render.html_rows import _units_table

    sentence = {"p_supported": 0.9, "p_contradicted": 0.05, "p_absent": 0.05}
    row = {
        "failing": [],
        "metrics": {
            "groundedness": {"status": "ok", "units": [
                {"text": "It runs 2 h.", "verdict": "supported", "score": 0.9, "evidence": None,
                 "detail": sentence},
                {"text": "Sorry.", "verdict": "declines", "score": None, "evidence": None,
                 "detail": {"p_informs": 0.38}},
            ]},
            "answers": {"status": "ok", "units": [
                {"text": "It runs 2 h. Sorry.", "verdict": "answered", "score": 0.81,
                 "evidence": None, "detail": {"p_answered": 0.81}},
            ]},
        },
    }  # fmt: skip
    table = "".join(_units_table(row, {}))
    assert '<span class="muted">P(holds information) 0.38</span>' in table
    assert '<span class="muted">P(answered) 0.81</span>' in table
    assert table.count('class="muted">P(') == 2  # the sentence's own are in its columns
    row["metrics"]["groundedness"]["units"].pop(0)  # no sentence judged: a score column
    table = "".join(_units_table(row, {}))
    assert '<span class="muted">P(holds information) 0.38</span>' in table  # it has no score
    assert '<td class="num" data-label="score">0.81</td>' in table
    assert "P(answered) 0.81" not in table  # its score is in the column


def test_what_broke__rows_declining_alike_are_one_cause_with_the_first_rows_old_answer():
    """Rows that newly decline with the same answer are one cause (review/causes.py): said
    once, with the answer the first of them replaced."""
    before = dict(BEFORE, battery=("It runs for 120 minutes.", 0.9, 0.9))
    now = dict(NOW, battery=("I'm sorry, I can't help with that.", 0.05, 0.9))
    markdown = render_markdown(compare_rows(report(now), report(before)))
    assert (
        "- **2 rows** now decline: \u201cI'm sorry, I can't help with that.\u201d, where the "
        "baseline answered; answered fails: aero / battery, aero / dock\n"
        "  - **aero / battery** said \u201cIt runs for 120 minutes.\u201d \u2192 now \u201cI'm "
        "sorry, I can't help with that.\u201d\n"
    ) in markdown
    assert "Only the Plus dock" not in markdown.split("### What this pull request broke")[1]
