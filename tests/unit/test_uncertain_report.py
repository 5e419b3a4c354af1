"""Styled text of uncertain visibility in the report: the row's `hidden_text` entry of that
kind, each metric's `uncertain_text`, read back, and said in the comment and on the page."""

from ground_gate.leaves.results import HIDDEN_TEXT, MetricResult, RowResult, UnitResult
from ground_gate.metrics.styles import UNCERTAIN
from ground_gate.report.json_report import build_report
from ground_gate.report.readback import row_result
from ground_gate.report.schema import schema_problems
from ground_gate.review.words import UNCERTAIN_ALONE, uncertain_readings, unit_verdict
from ground_gate.verdict.gate import evaluate
from tests.records import run_record
from tests.rendered import render_html, render_markdown

PADDING = "The pump runs at 40 W."


def row() -> RowResult:
    grounded = MetricResult(
        "groundedness", "ok", {"groundedness": 0.1},
        (UnitResult("It was designed in Oslo.", 0.1, "not in source"),),
        uncertain_text="removed",
    )  # fmt: skip
    rating = MetricResult(
        "rating", "ok", {"rating": 0.0}, (UnitResult("It was designed in Oslo.", 0.0, "1/5"),),
        uncertain_text="kept",
    )  # fmt: skip
    hidden = (("response", UNCERTAIN, PADDING),)
    return RowResult("support", "r1", (grounded, rating), 1.0, (), hidden)


def report():
    built = build_report(
        run_record([row()], scores_by_metric={"groundedness": ("groundedness",),
                                              "rating": ("rating",)}),
        evaluate({}, {}, "fail"),
    )  # fmt: skip
    assert schema_problems(built) == []
    return built


def test_report__each_metric_says_which_reading_it_kept_and_it_reads_back():
    entry = report()["rows"][0]
    assert entry["hidden_text"] == [{"field": "response", "kind": UNCERTAIN, "text": PADDING}]
    assert entry["metrics"]["groundedness"]["uncertain_text"] == "removed"
    assert entry["metrics"]["rating"]["uncertain_text"] == "kept"
    assert row_result(entry) == row()


def test_words__how_the_row_was_judged():
    assert uncertain_readings(report()["rows"][0]) == (
        "judged with it and without it, each metric keeping the worse: without it for "
        "groundedness; with it for rating"
    )
    plain = build_report(run_record([RowResult("support", "r2", ())]), evaluate({}, {}, "fail"))
    assert uncertain_readings(plain["rows"][0]) == ""


def test_comment__a_line_for_the_rows_with_styled_text_never_says_no_reader_sees_it():
    text = render_markdown(report())
    line = next(x for x in text.splitlines() if "styled text" in x)
    assert "1 row(s) held styled text a reader may not see" in line
    assert PADDING in line and "without it for groundedness; with it for rating" in line
    assert "no reader sees" not in text


def test_page__the_passage_and_how_it_was_judged():
    page = render_html(report())
    assert f"Styled so that a reader may not see it (response): {PADDING} (judged with it" in page
    assert "No reader sees it" not in page


def test_unit_verdict__uncertain_text_counted_when_nothing_else_showed():
    unit = {"text": PADDING, "score": 0.0, "verdict": "unsupported", "evidence": None,
            "detail": {HIDDEN_TEXT: UNCERTAIN}}  # fmt: skip
    assert unit_verdict(unit) == f"unsupported: {UNCERTAIN_ALONE}"  # type: ignore[arg-type]
