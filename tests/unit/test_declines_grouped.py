"""A pull request that makes the app decline (issue 44): rows that newly decline alike are one
cause, said once with its count, its first rows and its first row's answer, old and new, on
the comment, the page and the terminal alike; the comment lists the causes the page shows
first and counts the rest, so it stays short however many rows declined."""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from ground_gate.config.model import Threshold
from ground_gate.leaves.results import RowResult
from ground_gate.report.json_report import build_report
from ground_gate.report.readback import baseline_scores
from ground_gate.review.baseline_rows import compare_rows
from ground_gate.review.causes import CAUSES_SHOWN
from ground_gate.review.review import review_of
from ground_gate.verdict.record import RowTexts, verdicts
from tests.examples import examples
from tests.records import answers_result, run_record
from tests.rendered import render_html, render_markdown, render_terminal

SCORES = {"answers": ("answered", "answered_anyway", "context_relevance")}
DECLINE = "The documentation does not say."
PAGE = "https://example.org/runs/7/report.html"
DATASETS = ("aero", "home", "garden")
THRESHOLD = {  # substance as every config has it (config/model.py's default)
    "answered": Threshold(min=0.7),
    "substance": Threshold(max_drop=0.0),
}
Said = tuple[str, float, float]  # (response, P(answered), P(answerable))


def report(
    said: Mapping[tuple[str, str], Said], created: int, baseline: dict[str, Any] | None = None
) -> dict[str, Any]:
    """A run of the answers metric over `said`'s rows ((dataset, id) -> what it said), gated
    against `baseline` and compared with it row by row, as `run --baseline` does."""
    rows = [RowResult(d, i, (answers_result(*s),), 1.0) for (d, i), s in said.items()]
    datasets = list(dict.fromkeys(d for d, _ in said))
    texts = {
        k: RowTexts(f"The {k[0]} manual.", f"How long does model {k[1]} run?", s[0])
        for k, s in said.items()
    }
    record = run_record(
        rows,
        datasets=[(d, sum(1 for k in said if k[0] == d)) for d in datasets],
        scores_by_metric=SCORES,
        thresholds=dict.fromkeys(datasets, THRESHOLD),
        texts=texts,
        created_at=datetime(2026, 11, created, tzinfo=UTC),
    )
    scores = None if baseline is None else baseline_scores(baseline)
    built = dict(build_report(record, verdicts(record, scores)))
    return built if baseline is None else compare_rows(built, baseline)


def declining_pull_request(rows: int = 100, share: float = 0.8) -> dict[str, Any]:
    """Three datasets of `rows` rows, every one answered in the baseline; the first `share` of
    each dataset's rows decline now (the app's new prompt declines what its sources answer)."""
    before = {
        (d, f"q{i:03d}"): (f"Model {d}-{i} runs for {60 + i} minutes on a charge.", 0.9, 0.9)
        for d in DATASETS
        for i in range(rows)
    }
    now = dict(before)
    for d in DATASETS:
        for i in range(int(rows * share)):
            now[(d, f"q{i:03d}")] = (DECLINE, 0.05, 0.9)
    return report(now, 3, report(before, 2))


def _broke_section(markdown: str) -> str:
    """The heading and its list of causes (up to the paragraph after it)."""
    start = markdown.index("### What this pull request broke")
    items = markdown.index("\n\n", start) + 2
    end = markdown.find("\n\n", items)
    return markdown[start : end if end != -1 else None]


def test_a_pull_request_that_declines_80_percent_of_300_rows_is_one_short_cause():
    pull_request = declining_pull_request()
    review = review_of(pull_request)
    assert len(review.broke) == 240 and len(review.causes) == 1
    markdown = render_markdown(pull_request, page_url=PAGE)
    # before: one two-line item a row, 62,183 characters (GitHub's limit is 65,536); now what
    # broke is one cause, the same size however many rows declined
    assert len(markdown) < 10_000
    assert len(_broke_section(markdown)) < 1_500
    fewer = render_markdown(declining_pull_request(rows=20), page_url=PAGE)
    assert abs(len(_broke_section(fewer)) - len(_broke_section(markdown))) <= 6  # digits
    # the first screen (the first 25 lines) names the change: the cause of all 240 rows, right
    # after the checks' table
    screen = "\n".join(markdown.splitlines()[:25])
    assert "- **240 rows** now decline: \u201cThe documentation does not say.\u201d" in screen
    for dataset in DATASETS:
        assert (
            f"- **{dataset}** \u274c declined 80 of 100 questions its sources answer (the "
            "baseline declined 0)\n"
        ) in markdown
    broke = _broke_section(markdown)
    assert "where the baseline answered; answered and substance fail: [aero / q000](" in broke
    assert "and 230 more\n" in broke  # ROWS_NAMED rows named, the rest counted
    # the first row's whole answer, old and new, once
    assert (
        f"  - **[aero / q000]({PAGE}#aero/q000)** said \u201cModel aero-0 runs for 60 minutes "
        "on a charge.\u201d \u2192 now \u201cThe documentation does not say.\u201d"
    ) in broke
    assert broke.count("Model aero-0 runs") == 1 and "Model aero-1 runs" not in broke


def test_the_page_and_the_terminal_say_the_same_cause():
    pull_request = declining_pull_request()
    page = render_html(pull_request)
    assert (
        "<li><b>240 rows</b> now decline: \u201cThe documentation does not say.\u201d, where the "
        'baseline answered; answered and substance fail:<br><span class="said"><a '
        'href="#aero/q000">aero / q000</a> said \u201cModel aero-0 runs for 60 minutes on a '
        "charge.\u201d \u2192 now \u201cThe documentation does not say.\u201d</span>"
    ) in page
    text = render_terminal(pull_request, width=80, exit_code=1)
    assert (
        "What this pull request broke: 240 rows newly fail\n"
        "  240 rows now decline: \u201cThe documentation does not say.\u201d, where the baseline\n"
        "    answered; answered and substance fail: aero/q000, aero/q001, aero/q002,\n"
        "    aero/q003, aero/q004 and 235 more\n"
        "    aero/q000 said \u201cModel aero-0 runs for 60 minutes on a charge.\u201d \u2192 now \u201cThe\n"
        "      documentation does not say.\u201d\n"
    ) in text


def test_declines_alike_group_by_their_answer_numbers_aside_and_one_row_stands_as_today():
    before = {("aero", f"q{i}"): (f"It runs {i} minutes.", 0.9, 0.9) for i in range(4)}
    now = {
        ("aero", "q0"): ("Not in the manual (section 3).", 0.05, 0.9),
        ("aero", "q1"): ("not in the  manual (section 12).", 0.05, 0.9),  # alike, numbers aside
        ("aero", "q2"): ("I'm sorry, I can't help with that.", 0.05, 0.9),
        ("aero", "q3"): ("It runs 3 minutes.", 0.9, 0.9),
    }
    pull_request = report(now, 3, report(before, 2))
    review = review_of(pull_request)
    assert [len(c.rows) for c in review.causes] == [2, 1]
    grouped = review.causes[0]
    assert grouped.numbers_vary and grouped.answer == "Not in the manual (section 3)."
    assert grouped.answer_before == "It runs 0 minutes."
    markdown = render_markdown(pull_request)
    assert (
        "- **2 rows** now decline: \u201cNot in the manual (section 3).\u201d (with other numbers "
        "from row to row), where the baseline answered; answered and substance fail: aero / q0, "
        "aero / q1\n"
        "  - **aero / q0** said \u201cIt runs 0 minutes.\u201d \u2192 now \u201cNot in the manual "
        "(section 3).\u201d\n"
    ) in markdown
    # a row alone: its scores, then its answer old and new, as before
    assert (
        "- **aero / q2**: answered 0.90 \u2192 0.05 < 0.70, substance 1.00 \u2192 0.00\n"
        "  - said \u201cIt runs 2 minutes.\u201d \u2192 now \u201cI'm sorry, I can't help with "
        "that.\u201d\n"
    ) in markdown


def test_the_comment_lists_the_causes_the_page_shows_first_and_counts_the_rest():
    before = {("aero", f"q{i}"): (f"It runs {i} minutes.", 0.9, 0.9) for i in range(9)}
    now = {k: (f"Refusal number {'abcdefghi'[int(k[1][1:])]}.", 0.05, 0.9) for k in before}
    now[("aero", "q8")] = now[("aero", "q7")]  # one cause of two rows: 8 causes, 9 rows
    pull_request = report(now, 3, report(before, 2))
    assert len(review_of(pull_request).causes) == CAUSES_SHOWN + 2
    broke = _broke_section(render_markdown(pull_request, page_url=PAGE))
    assert broke.endswith(f"- and 2 more rows in 2 other causes: [on the page]({PAGE}#broke)")
    assert broke.count("\n- ") == CAUSES_SHOWN + 1
    assert _broke_section(render_markdown(pull_request)).endswith(
        "- and 2 more rows in 2 other causes: on the page"
    )
    text = render_terminal(pull_request, width=100, exit_code=1)
    assert "  ... and 3 more rows in 3 other causes\n" in text  # the terminal shows 5


def test_the_terminal_cuts_a_long_answer_to_about_a_line():
    long = "word " * 200
    pull_request = report(
        {("aero", "q0"): (DECLINE, 0.05, 0.9)}, 3, report({("aero", "q0"): (long, 0.9, 0.9)}, 2)
    )
    text = render_terminal(pull_request, width=60, exit_code=1)
    said = text[text.index("  - said") if "  - said" in text else text.index("    said") :]
    said = said[: said.index("\n\n")]
    assert "\u2026\u201d \u2192 now \u201cThe documentation does not say.\u201d" in " ".join(
        said.split()
    )
    assert len(said.splitlines()) <= 3


# what a row may say in either run: an answer, a decline of an answerable question (two ways),
# an answer its source cannot give, a decline its source justifies
SAYINGS: tuple[Said, ...] = (
    ("It runs 60 minutes.", 0.9, 0.9),
    ("It runs 75 minutes.", 0.9, 0.9),
    (DECLINE, 0.05, 0.9),
    ("I can't help with that.", 0.1, 0.9),
    ("It costs 20 euros.", 0.8, 0.1),
    (DECLINE, 0.1, 0.1),
)
runs = st.lists(
    st.tuples(st.sampled_from(DATASETS), st.sampled_from(SAYINGS), st.sampled_from(SAYINGS)),
    min_size=1,
    max_size=24,
)


def _counted_in_comment(markdown: str) -> int:
    total = 0
    for line in _broke_section(markdown).splitlines():
        group = re.match(r"- \*\*(\d+) rows\*\*", line)
        rest = re.match(r"- and (\d+) more rows? in", line)
        if group or rest:
            total += int((group or rest).group(1))  # type: ignore[union-attr]
        elif line.startswith("- **"):
            total += 1  # a row alone
    return total


def _counted_on_page(page: str) -> int:
    section = page[page.index('<section id="broke">') : page.index("</section>")]
    section = re.sub(r'<ul class="members">.*?</ul>', "", section)
    section = re.sub(r"<details><summary>\d+ more rows?</summary></details>", "", section)
    groups = [int(n) for n in re.findall(r"<li><b>(\d+) rows</b>", section)]
    alone = len(re.findall(r"<li><a href", section))
    return sum(groups) + alone


@settings(max_examples=examples(60))
@given(runs)
def test_every_newly_failing_row_is_counted_once_on_the_comment_and_the_page(rows):
    before = {(d, f"r{i}"): was for i, (d, was, _) in enumerate(rows)}
    now = {(d, f"r{i}"): now for i, (d, _, now) in enumerate(rows)}
    pull_request = report(now, 3, report(before, 2))
    review = review_of(pull_request)
    listed = [(c.row["dataset"], c.row["id"]) for cause in review.causes for c in cause.rows]
    assert sorted(listed) == sorted((c.row["dataset"], c.row["id"]) for c in review.broke)
    if not review.broke:
        return
    assert _counted_in_comment(render_markdown(pull_request, page_url=PAGE)) == len(review.broke)
    assert _counted_on_page(render_html(pull_request)) == len(review.broke)
