"""The page as a reviewer reads it (issue 35): each check in the words of the rule that decided
it, intervals labelled with their true level, one spelling per mean, what the pull request
broke first and the rows filter starting at it, each row's values named, and no closest
source sentence called evidence. (The page in Chromium: tests/integration/
test_report_browser.py.)"""

from __future__ import annotations

import copy
import html
import re
from typing import Any

import pytest

from ground_gate.leaves.stats import bootstrap_bounds, bootstrap_ci
from ground_gate.render.anchors import row_key
from ground_gate.render.html_evidence import source_marks
from ground_gate.render.html_scores import change_words
from ground_gate.review.baseline_rows import compare_rows
from ground_gate.review.causes import causes
from ground_gate.review.changes import broke
from ground_gate.review.check_status import check_status, checks_said, past_max_drop
from ground_gate.review.evidence_words import CLOSEST, EVIDENCE
from ground_gate.review.figures import interval_level, mean_text
from tests.rendered import render_html
from tests.report_pages import SOURCE, synthetic_report
from tests.reviewer_scenario import scenario
from tests.unit.test_report import against_baseline

CELL = re.compile(r'<td(?: class="([^"]*)")? data-label="([^"]*)">(.*?)</td>', re.S)


@pytest.fixture(scope="module")
def reviewer() -> tuple[dict[str, Any], str]:
    baseline, report = scenario()
    compared = compare_rows(report, baseline)
    return compared, render_html(compared)


def _text(markup: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", markup))


def score_rows(page: str) -> list[dict[str, str]]:
    """The scores table, a dict of label -> text per row (the cell's class as `class:<label>`)."""
    section = page[page.index('<section id="scores">') : page.index('<section id="distrib')]
    rows = []
    for tr in re.findall(r"<tr>(.*?)</tr>", section, re.S):
        cells = {}
        for cls, label, text in CELL.findall(tr):
            cells[html.unescape(label)] = _text(text)
            cells[f"class:{html.unescape(label)}"] = cls
        if cells:
            rows.append(cells)
    return rows


def by_check(rows: list[dict[str, str]]) -> dict[tuple[str, str], dict[str, str]]:
    """The scores table's rows by (dataset, score): the page lists failed checks first."""
    return {(r["dataset"], r["score"]): r for r in rows}


def _issue_example() -> dict[str, Any]:
    """Issue 35's case: groundedness fell 0.097 with max_drop 0.03, its interval 0.024 to
    0.170 worse: past max_drop, not shown beyond it, so it passes."""
    report, _ = against_baseline()
    entry = copy.deepcopy(report["scores"][0])
    entry.update(mean=0.8724, passed=True, reason="0.87 \u2265 min 0.74")
    entry["threshold"] = {"min": 0.74, "max_drop": 0.03, "confidence": 0.95}
    entry["baseline"].update(
        before=0.9694,
        delta=-0.097,
        interval=[-0.170, -0.024],
        max_drop=0.03,
        direction="worse",
        passed=True,
        reason="0.097 worse than the baseline: more than max_drop 0.03, but not shown beyond "
        "noise: at 95% confidence it may be only 0.024 worse, so it passes",
    )
    report["scores"] = [entry]
    return report


def test_scores__no_check_mark_beside_a_drop_past_max_drop():
    for report in (against_baseline()[0], _issue_example()):
        page = render_html(report)
        entries = report["scores"]
        rows = score_rows(page)
        assert len(rows) == len(entries)
        noisy = 0
        for entry in entries:
            row = by_check(rows)[entry["dataset"], entry["score"]]
            if not (entry["passed"] and past_max_drop(entry)):
                continue
            noisy += 1
            check = row["check"]
            assert "\u2714" not in check and "\u2705" not in check and check != "pass"
            assert check == "\u25cf " + check_status(entry).word
            assert row["class:check"] == "warn noise"
            assert entry["baseline"]["reason"] in row["why"]  # the gate's own reason
        assert noisy == 1
    rows = score_rows(render_html(_issue_example()))
    assert rows[0]["change against the baseline"] == (
        "0.097 worse (90% interval: 0.024 worse to 0.170 worse) over 6 rows in both runs"
    )  # every bound worse than 0: never "within noise"
    assert "within noise" not in rows[0]["change against the baseline"]


def test_scores__a_pass_and_a_fail_say_so_with_their_reason():
    listed = score_rows(render_html(against_baseline()[0]))
    assert listed[0]["check"] == "\u2718 fail"  # what failed comes first
    rows = [
        by_check(listed)[key] for key in (("support", "groundedness"), ("support", "agreement"))
    ]
    rows += [{}, {}, by_check(listed)["billing", "groundedness"]]
    assert (rows[0]["check"], rows[0]["class:check"]) == ("\u2718 fail", "failed")
    assert rows[0]["why"].startswith(
        "0.900 \u2192 0.700, 0.200 worse than the baseline"
    )  # as the comment
    assert rows[1]["check"] == "no threshold: shown only" and rows[1]["why"] == ""
    # billing: max_drop with one row in both runs: a threshold not checked, and why
    assert rows[4]["check"] == "not checked" and "not checked" in rows[4]["why"]


def test_scores__intervals_are_labelled_with_their_true_level():
    assert (interval_level(0.95), interval_level(0.975)) == ("90%", "95%")
    report = against_baseline()[0]
    page = render_html(report)
    rows = score_rows(page)
    assert "95% interval of the mean" in rows[0]  # dataset_scores' bootstrap: 2.5 to 97.5
    values = [0.1, 0.5, 0.9, 0.7, 0.3]
    assert bootstrap_ci(values) == bootstrap_bounds(values, tail=0.025)
    changes = [r["change against the baseline"] for r in rows]
    assert all("90% interval" in c for c in changes if not c.startswith("not compared"))
    assert not any("95%" in c for c in changes)  # one-sided 95% bounds: a 90% interval
    assert "Its interval is a 90% interval: with 95% confidence the change is no better" in page
    # computed from the confidence, not written in
    entry = copy.deepcopy(report["scores"][0])
    entry["baseline"]["confidence"] = 0.975
    assert "(95% interval: " in change_words(entry["score"], entry["baseline"])


def test_headline__checks_counted_in_plain_words():
    report = against_baseline()[0]
    assert (
        checks_said(report["scores"])
        == "1 of 2 checks failed, 1 passed with a drop past max_drop that its interval does not confirm"
    )
    passing = [e for e in report["scores"] if e["passed"] is not False]
    assert checks_said(passing).startswith("1 of 1 check passed")


def test_page__each_mean_has_one_spelling(reviewer):
    report, page = reviewer
    spelled = {(e["dataset"], e["score"]): mean_text(e) for e in report["scores"]}
    assert spelled["news", "groundedness"] == "0.8535"  # beside a drop of 0.055 from 0.9082
    rows = score_rows(page)
    for entry in report["scores"]:  # '0.062 → 0.101 > 0.10'
        row = by_check(rows)[entry["dataset"], entry["score"]]
        now = row["baseline \u2192 now"].split(" \u2192 ")[-1].split(" ")[0]
        assert now == spelled[entry["dataset"], entry["score"]]
    # the charts' captions and lines say the mean as the table does, and nothing else does
    said = set(re.findall(r"mean (\d+\.\d+)", page))
    assert said == set(spelled.values())
    assert "mean 0.8535 (dotted)" in page and "0.854" not in page


def test_broke__first_with_its_rows_grouped_by_cause_as_the_comment_groups_them(reviewer):
    report, page = reviewer
    assert page.index('<section id="broke">') < page.index('<section id="scores">')
    assert "<h2>What this pull request broke</h2>" in page
    found = causes(broke(report))
    grouped = [row_key(c.row) for cause in found for c in cause.rows]
    assert sorted(grouped) == sorted(row_key(c.row) for c in broke(report))  # each row once
    award = next(c for c in found if len(c.rows) == 24)
    said = (
        "<b>24 rows</b> now say \u201cIt won a European design award in 1998.\u201d "
        '<span class="v-bad">not in source</span> (with other numbers from row to row), '
        "in place of sentences that differ (the first: \u201cIt cost 70 million euros to "
        "build.\u201d); groundedness and hallucination fail:"
    )
    section = page[page.index('<section id="broke">') : page.index('<section id="scores">')]
    assert said in section and section.count("European design award") == 1  # said once
    assert len(award.rows) == 24
    assert "<summary>19 more rows</summary>" in page  # five listed, the rest folded
    for key in grouped:  # every row that newly fails links to its row
        assert f'<a href="#{key}">' in page
    assert "Fixed: 3 rows pass what they failed in the baseline" in page


def test_broke__absent_without_a_baseline_and_said_when_nothing_broke():
    assert 'id="broke"' not in render_html(synthetic_report(8))
    baseline, _ = scenario()
    same = compare_rows(baseline, baseline)
    assert "No row newly fails since the baseline." in render_html(same)


def test_filters__start_at_the_rows_newly_failing_when_there_is_a_baseline(reviewer):
    _, page = reviewer
    assert '<option value="new" selected>newly failing since the baseline</option>' in page
    assert '<option value="all">all</option>' in page
    plain = render_html(synthetic_report(8))
    assert '<option value="all" selected>all</option>' in plain
    # the rows that start open are rows the filter starts at
    rows = page.split('<tbody class="row" ')[1:]
    opened = [r for r in rows if "<details open>" in r]
    assert len(opened) == 5 and all('data-standing="new"' in r for r in opened)
    assert all("<details open>" not in r for r in plain.split('<tbody class="row" ')[1:][3:])


def test_rows__each_value_names_its_score_and_bounds(reviewer):
    _, page = reviewer
    row = page[page.index('id="news/news-0001"') :]
    row = row[: row.index("</tr>")]
    for name in ("groundedness \u2265 0.75", "hallucination \u2264 0.10", "contradiction"):
        assert f'data-label="{name}' in row and f'<span class="sn">{name}' in row
    assert "\u2718 0.92 \u2192 0.63" in row


def _invented_quoted(verdict: str) -> dict[str, Any]:
    """A report whose row-0001 has a sentence judged `verdict` for which the judge quoted a
    source sentence that has nothing to do with it."""
    report = synthetic_report(2)
    units = report["rows"][1]["metrics"]["groundedness"]["units"]
    assert units[2]["evidence"] == "NOTHING FOUND"
    units[2]["verdict"] = verdict
    units[2]["evidence"] = "The X200 has two USB-C ports and one HDMI port."
    return report


@pytest.mark.parametrize("verdict", ["not in source", "unsupported"])
def test_evidence__a_closest_source_sentence_is_never_called_evidence(verdict):
    report = _invented_quoted(verdict)
    row = report["rows"][1]
    spans = source_marks(row, SOURCE).spans
    near = [s for s in spans if s.tag == "G3"]
    assert [s.kind for s in near] == ["near"]
    assert near[0].title == f"G3: {CLOSEST}, quoted by the judge"
    assert "evidence" not in near[0].title
    page = render_html(report)
    cells = [_text(t) for _, label, t in CELL.findall(page) if label == "in the source"]
    quoted = [c for c in cells if "two USB-C ports" in c]
    assert quoted == [
        f"{CLOSEST}, quoted by the judge, highlighted in the source (G3): \u201cThe X200 has "
        "two USB-C ports and one HDMI port.\u201d"
    ]
    # the contradicted sentence's quote is the judge's evidence, and says so
    assert any(c.startswith(f"{EVIDENCE}, highlighted in the source (G2)") for c in cells)
    del row["text"]  # no source to find it in: the quote is still said for what it is
    cells = [
        _text(t) for _, label, t in CELL.findall(render_html(report)) if label == "in the source"
    ]
    assert (
        f"{CLOSEST}, quoted by the judge: \u201cThe X200 has two USB-C ports and one HDMI port.\u201d"
        in cells
    )


def test_broke__a_hostile_row_links_to_its_anchor_and_adds_nothing():
    from tests.unit.test_report_html import elements

    report = synthetic_report(9, hostile=True)
    baseline = copy.deepcopy(report)
    for row in baseline["rows"]:
        row["failing"] = []  # every failing row newly fails: its id in a link
    page = render_html(compare_rows(report, baseline))
    tags = elements(page)
    links = [a["href"] or "" for t, a in tags if t == "a"]
    assert len(links) == sum(1 for r in report["rows"] if r["failing"])
    assert all(re.fullmatch(r"#[A-Za-z0-9._~/%-]+", href) for href in links)
    assert not any(name.startswith("on") for _, attrs in tags for name in attrs)
    assert [t for t, _ in tags].count("script") == 1
