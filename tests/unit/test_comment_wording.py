"""Each wording rule of the comment (issue 35), pinned: a drop past max_drop never reads as a
plain pass, the baseline is named, a number is spelt one way, an interval says its true
level."""

import re
from typing import Any

from ground_gate.review.baseline_rows import compare_rows
from tests.rendered import render_markdown
from tests.reviewer_scenario import scenario
from tests.unit.test_report import against_baseline


def _noise_passed() -> dict[str, Any]:
    """support's summary_hallucination: 0.083 worse than the baseline, past max_drop 0.05,
    and passing: the interval does not show it beyond noise."""
    now, baseline = against_baseline()
    return compare_rows(now, baseline)


def test_wording__no_check_mark_beside_a_drop_past_max_drop():
    markdown = render_markdown(_noise_passed())
    row = next(x for x in markdown.splitlines() if x.startswith("| summary_hallucination"))
    assert "\U0001f7e1 0.000 \u2192 0.083" in row and "\u2705" not in row
    assert (
        "\U0001f7e1 passes: dropped more than max_drop, but not surely (its interval reaches within it)."
        in markdown
    )
    assert "within noise" not in row


def test_wording__the_baseline_named():
    baseline, report = scenario()
    markdown = render_markdown(compare_rows(report, baseline))
    assert "Compared with the baseline from `main` @ [`4f2c9e1`](" in markdown
    assert "made 1 hour before this run: 200 rows, passed." in markdown


def test_wording__one_spelling_per_number():
    """Each score's mean is spelt alike in the summary table and the detail table: the
    same decimals wherever it appears, enough to read true at its bound."""
    baseline, report = scenario()
    markdown = render_markdown(compare_rows(report, baseline))
    lines = markdown.splitlines()
    start = next(i for i, x in enumerate(lines) if x.startswith("| score "))
    table = lines[start : start + 2 + len({e["score"] for e in report["scores"]})]
    details = markdown.split("<summary>Scores in detail</summary>")[1].split("</details>")[0]
    columns = [c.strip() for c in table[0].split("|")]
    for entry in report["scores"]:
        line = next(
            x
            for x in details.splitlines()
            if re.match(rf"\| {entry['dataset']} +\| {entry['score']} ", x)
        )
        mean = line.split("|")[4].strip()
        cells = next(x for x in table if x.startswith(f"| {entry['score']} ")).split("|")
        column = next(i for i, c in enumerate(columns) if c.startswith(entry["dataset"]))
        assert re.search(rf"(\u2192 |^\S+ ){re.escape(mean)}( |$)", cells[column].strip()), (
            mean,
            cells[column],
        )
    assert "0.1008" not in markdown and "0.101 > 0.10" in "\n".join(table)  # true at 0.10


def test_wording__an_interval_says_its_true_level():
    markdown = render_markdown(_noise_passed())
    details = markdown.split("<summary>Scores in detail</summary>")[1]
    assert "(90%)" in details and "(95%)" not in details.split("| support ")[1]
    assert "95% interval" in details  # the mean's own, a two-sided 95% bootstrap interval
    assert "so together they hold it at 90%" in details
