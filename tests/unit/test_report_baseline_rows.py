"""Each row against itself in the baseline: what it newly fails, worst first, and the
sentences the pull request changed, old and new with their verdicts, in the comment, on the
page, compared as full strings (the terminal's: test_terminal.py)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from ground_gate.config.model import Threshold
from ground_gate.leaves.results import MetricResult, RowResult, UnitResult
from ground_gate.leaves.usage import Usage
from ground_gate.render.html_rows import rows_section
from ground_gate.render.markdown_rows import carrier_lines
from ground_gate.report.json_report import build_report, row_text
from ground_gate.report.readback import baseline_scores
from ground_gate.review.baseline_rows import compare_rows, sentence_changes
from ground_gate.review.changes import broke, fixed, standing
from ground_gate.review.review import review_of
from ground_gate.verdict.dataset_scores import summarise
from ground_gate.verdict.gate import evaluate
from tests.records import run_record
from tests.rendered import render_markdown

THRESHOLDS = {"support": {"groundedness": Threshold(min=0.7), "contradiction": Threshold(max=0.2)}}
SOURCE = "Refunds take 5 days. Shipping is free within the EU. Returns are accepted for 30 days."
P = {
    "s": (0.95, 0.02, 0.03),  # supported
    "c": (0.05, 0.9, 0.05),  # contradicted
    "n": (0.06, 0.03, 0.91),  # not in source
    "w": (0.55, 0.42, 0.03),  # supported, yet most of a row's contradiction
}
VERDICT = {"s": "supported", "c": "contradicted", "n": "not in source", "w": "supported"}


def _row(row_id: str, sentences: list[tuple[str, str]]) -> tuple[RowResult, Any]:
    units = tuple(
        UnitResult(
            text,
            P[kind][0],
            VERDICT[kind],
            detail={
                "p_supported": P[kind][0],
                "p_contradicted": P[kind][1],
                "p_absent": P[kind][2],
            },
        )
        for text, kind in sentences
    )

    def mean(i: int) -> float:
        return round(sum(P[kind][i] for _, kind in sentences) / len(sentences), 4)

    scores = {"groundedness": mean(0), "contradiction": mean(1), "hallucination": mean(2)}
    metric = MetricResult("groundedness", "ok", scores, units, usage=Usage(calls=len(units)))
    response = " ".join(text for text, _ in sentences)
    return RowResult("support", row_id, (metric,), 1.0), row_text(SOURCE, None, response)


def _report(rows: list[tuple[RowResult, Any]], baseline: dict | None = None) -> dict[str, Any]:
    results = [r for r, _ in rows]
    gate = evaluate(
        summarise(results, ["support"], {"groundedness": ("groundedness", "contradiction")}),
        THRESHOLDS,
        "fail",
        rows=results,
        baseline=None if baseline is None else baseline_scores(baseline),
    )
    record = run_record(
        results,
        datasets=[("support", len(results))],
        thresholds=THRESHOLDS,
        judge={"provider": "openai", "model": "m", "prompt_version": "1"},
        created_at=datetime(2026, 11, 24, tzinfo=UTC),
        texts={("support", r.sample_id): t for r, t in rows},
    )
    return dict(build_report(record, gate))


REFUNDS, SHIPPING = "Refunds take 5 days.", "Shipping is free within the EU."
PAID = "Shipping costs 9 euros everywhere."
GIFT = "Every order includes a gift."


def pair() -> tuple[dict[str, Any], dict[str, Any]]:
    """(baseline, now): r1's shipping sentence contradicted now; r2 unchanged; r3 failing in
    both; r4 failing on contradiction alone; r5 fixed."""
    before = [
        _row("r1", [(REFUNDS, "s"), (SHIPPING, "s")]),
        _row("r2", [(REFUNDS, "s")]),
        _row("r3", [(GIFT, "n")]),
        _row("r4", [(REFUNDS, "s"), (SHIPPING, "s")]),
        _row("r5", [(GIFT, "n")]),
    ]
    now = [
        _row("r1", [(REFUNDS, "s"), (PAID, "c"), (GIFT, "n")]),
        _row("r2", [(REFUNDS, "s")]),
        _row("r3", [(GIFT, "n")]),
        _row("r4", [(REFUNDS, "s"), (SHIPPING, "w")]),
        _row("r5", [(REFUNDS, "s")]),
    ]
    baseline = _report(before)
    return baseline, compare_rows(_report(now, baseline), baseline)


def test_sentence_changes__replaced_and_added_units_beside_what_they_replaced():
    baseline, now = pair()
    assert sentence_changes(now["rows"][0], baseline["rows"][0]) == [
        {
            "metric": "groundedness",
            "before": [{"text": SHIPPING, "verdict": "supported", "score": 0.95}],
            "after": [
                {"text": PAID, "verdict": "contradicted", "score": 0.05},
                {"text": GIFT, "verdict": "not in source", "score": 0.06},
            ],
        }
    ]
    assert sentence_changes(now["rows"][1], baseline["rows"][1]) == []  # the same response
    assert now["rows"][0]["baseline"]["failing"] == []
    assert now["rows"][2]["baseline"]["failing"] == ["groundedness"]
    assert now["baseline"] == {
        "created_at": "2026-11-24T00:00:00+00:00",
        "status": "failed",
        "rows": 5,
        "judge": {"provider": "openai", "model": "m"},
    }


def test_changes__newly_failing_worst_first_fixed_and_the_standing_of_each_row():
    _, now = pair()
    assert [(c.row["id"], [s.score for s in c.scores]) for c in broke(now)] == [
        ("r1", ["contradiction", "groundedness"]),  # 0.95 -> 0.35: 0.60 worse
        ("r4", ["contradiction"]),  # 0.02 -> 0.22: contradiction alone, every unit supported
    ]
    assert [c.row["id"] for c in fixed(now)] == ["r5"]
    assert [standing(r, True) for r in now["rows"]] == ["new", None, "before", "new", None]


EXPECTED_BROKE = """### What this pull request broke: 2 rows newly fail

- **support / r1**: contradiction 0.02 → 0.32 > 0.20, groundedness 0.95 → 0.35 < 0.70
  - was “Shipping is free within the EU.” *supported* → now “Shipping costs 9 euros everywhere.” *contradicted*; “Every order includes a gift.” *not in source*
- **support / r4**: contradiction 0.02 → 0.22 > 0.20
  - the sentence behind contradiction: “Shipping is free within the EU.” *supported*, P(supported) 0.55, P(contradicted) 0.42, P(not in source) 0.03

Fixed: 1 row passes what it failed in the baseline: **support / r5** (groundedness 0.06 → 0.95).
"""


def test_render_markdown__what_the_pull_request_broke_with_the_changed_sentences():
    _, now = pair()
    markdown = render_markdown(now)
    section = markdown.split("### What this")[1].split("<details><summary>")[0]
    assert "### What this" + section == EXPECTED_BROKE + "\n"


EXPECTED_PAGE_CHANGES = (
    "<h4>Changed since the baseline</h4>"
    '<div class="scroll"><table class="diff"><thead><tr><th>the baseline said</th>'
    "<th>this run says</th></tr></thead><tbody>"
    '<tr><td class="was">\u201cShipping is free within the EU.\u201d '
    '<span class="v-good">supported</span></td>'
    '<td>\u201cShipping costs 9 euros everywhere.\u201d <span class="v-contra">contradicted</span>'
    '<br>\u201cEvery order includes a gift.\u201d <span class="v-bad">not in source</span></td></tr>'
    "</tbody></table></div>"
)


def test_page__the_changed_sentences_old_and_new_with_their_verdicts():
    _, now = pair()
    page = "".join(rows_section(now, review_of(now)))
    assert EXPECTED_PAGE_CHANGES in page
    assert page.count("<h4>Changed since the baseline</h4>") == 2  # r1 and r5


def test_render_markdown__the_reviewers_pull_request_reads_true():
    """tests/reviewer_scenario.py: news hallucination 0.1008 against max 0.10, groundedness
    failing its drop and not its level, a support row at 0.084 against 0.08."""
    from tests.reviewer_scenario import AT_0084, scenario

    baseline, report = scenario()
    markdown = render_markdown(compare_rows(report, baseline))
    table = markdown.split("\n\n")[3].split("\n")
    assert table == [
        "| score         | news (160 rows)        | support (40 rows)      |",
        "|---------------|------------------------|------------------------|",
        "| groundedness  | \u274c 0.9082 \u2192 0.8535      | \u2705 0.90 \u2192 0.89          |",
        "| hallucination | \u274c 0.062 \u2192 0.101 > 0.10 | \u274c 0.070 \u2192 0.083 > 0.08 |",
        "| contradiction | \u2705 0.03 \u2192 0.05          | \u2705 0.03 \u2192 0.03          |",
    ]
    # the drop, which the cell cannot say, said once below it; the bound the cell says, not
    assert (
        "- \u274c **news** groundedness: 0.9082 \u2192 0.8535, 0.055 worse than the baseline "
        "over the 160 rows in both runs: more than max\\_drop 0.02, and at least 0.039 worse at "
        "95% confidence\n"
    ) in markdown
    assert "hallucination: 0.101" not in markdown and "**news** hallucination" not in markdown
    assert f"- **support / {AT_0084}**: hallucination 0.040 \u2192 0.084 > 0.08\n" in markdown


def test_carrier_lines__one_line_a_unit_and_shown_changes_left_out_only_when_shown():
    _, now = pair()
    r1 = now["rows"][0]
    assert carrier_lines(r1, ["contradiction", "groundedness"]) == []  # its changes say it
    assert carrier_lines(r1, ["contradiction", "groundedness"], changes_shown=False) == [
        "  - the sentence behind contradiction and groundedness: “Shipping costs 9 euros everywhere.” "
        "*contradicted*, P(supported) 0.05, P(contradicted) 0.90, P(not in source) 0.05"
    ]


def test_render_markdown__the_baseline_named_by_branch_commit_run_and_age():
    from tests.reviewer_scenario import scenario

    baseline, report = scenario()
    markdown = render_markdown(compare_rows(report, baseline))
    assert (
        "Compared with the baseline from `main` @ [`4f2c9e1`](https://github.com/octo-org/"
        "octo-repo/commit/4f2c9e1d7a3b5c6e8f90a1b2c3d4e5f6a7b8c9d0) ([its run](https://github."
        "com/octo-org/octo-repo/actions/runs/812)), made 1 hour before this run: 200 rows, "
        "passed.\n"
    ) in markdown
    assert "judged by" not in markdown.split("| score")[0].split("Compared with")[1]
    baseline["judge"] = {**baseline["judge"], "model": "gpt-4o"}
    other = render_markdown(compare_rows(report, baseline))
    assert (
        "\u26a0\ufe0f The baseline was judged by `gpt-4o`, this run by `gpt-4o-mini`: a change "
        "against it may be the judge's, not the pull request's.\n"
    ) in other


def test_review_shown__the_worst_rows_and_the_worst_of_those_not_broken():
    """Evidence is quoted for every row a renderer shows (Review.shown): the worst rows (r3,
    then r1 and r4, which the pull request broke: the page shows them) and the worst of the
    rows it did not break (r3: the comment's rows failing in the baseline too), each once."""
    _, now = pair()
    assert [s.row["id"] for s in review_of(now, 2).shown] == ["r3", "r1"]
    broken_first = {**now, "rows": [r for r in now["rows"] if r["id"] != "r3"]}
    assert [s.row["id"] for s in review_of(broken_first, 1).shown] == ["r1"]
