"""The HTML page in a real browser: headless Chromium driven by chromedriver, network off.

The page is written by `ground-gate report --html` from a saved JSON report with a hostile
corpus in every field; the tests assert on the rendered page and save a screenshot under
browser.ARTIFACTS (the system's temp folder, or GROUND_GATE_TEST_ARTIFACTS).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from ground_gate.cli import cli
from tests.integration import browser
from tests.report_pages import CONTRADICTED, EVIDENCE, INVENTED, synthetic_report

pytestmark = pytest.mark.skipif(
    browser.missing() is not None, reason=f"no headless browser: {browser.missing()}"
)
ROWS = 24


@pytest.fixture(scope="module")
def page_file(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    folder = tmp_path_factory.mktemp("page")
    report = synthetic_report(ROWS, hostile=True)
    (folder / "report.json").write_text(json.dumps(report), encoding="utf-8")
    page = folder / "report.html"
    result = CliRunner().invoke(cli, ["report", str(folder / "report.json"), "--html", str(page)])
    assert result.exit_code == 0, result.output
    return page, report


@pytest.fixture(scope="module")
def driver(page_file: tuple[Path, dict[str, Any]]) -> Any:
    with browser.chromium() as opened:
        opened.get(page_file[0].as_uri())
        yield opened


def _texts(driver: Any, selector: str) -> list[str]:
    return driver.execute_script(
        "return Array.from(document.querySelectorAll(arguments[0]), e => e.textContent);",
        selector,
    )


def _visible_rows(driver: Any) -> int:
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('tbody.row')).filter(t => !t.hidden).length;"
    )


def test_page__every_row_failing_first(driver, page_file):
    report = page_file[1]
    states = driver.execute_script(
        "return Array.from(document.querySelectorAll('tbody.row'), t => t.dataset.status);"
    )
    assert len(states) == ROWS == len(report["rows"])
    failing = sum(1 for r in report["rows"] if r["failing"])
    assert states == ["fail"] * failing + ["pass"] * (ROWS - failing)
    assert _visible_rows(driver) == ROWS
    assert _texts(driver, "#f-count") == [f"{ROWS} of {ROWS} rows shown"]


def test_page__the_unsupported_sentences_are_marked_and_the_evidence_highlighted(driver):
    assert CONTRADICTED in _texts(driver, ".response mark.u-contra")
    assert INVENTED in _texts(driver, ".response mark.u-bad")
    assert EVIDENCE in _texts(driver, ".source mark.ev")  # inside the source, in place
    driver.save_screenshot(str(_artifact("report-top.png")))


def test_page__filters_by_status_dataset_score_and_search(driver, page_file):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select

    report = page_file[1]
    passing = sum(1 for r in report["rows"] if not r["failing"])
    status = Select(driver.find_element(By.ID, "f-status"))
    status.select_by_value("pass")
    assert _visible_rows(driver) == passing
    status.select_by_value("fail")
    laptops = report["datasets"][1]["name"]  # with a javascript: link in it
    Select(driver.find_element(By.ID, "f-dataset")).select_by_value(laptops)
    assert _visible_rows(driver) == sum(
        1 for r in report["rows"] if r["failing"] and r["dataset"] == laptops
    )
    Select(driver.find_element(By.ID, "f-dataset")).select_by_value("")
    score = Select(driver.find_element(By.ID, "f-score"))
    score.select_by_value("faithfulness")  # with "failing": the rows failing that score
    faithless = sum(1 for r in report["rows"] if "faithfulness" in r["failing"])
    assert 0 < faithless < sum(1 for r in report["rows"] if r["failing"])
    assert _visible_rows(driver) == faithless
    score.select_by_value("")
    status.select_by_value("all")
    search = driver.find_element(By.ID, "f-search")
    search.send_keys("row-0005")
    assert _visible_rows(driver) == 1
    search.send_keys(Keys.BACKSPACE * len("row-0005"))
    assert _visible_rows(driver) == ROWS


def test_page__the_hostile_corpus_ran_nothing_and_loaded_nothing(driver, page_file):
    assert driver.execute_script("return window.__pwned === undefined;")
    assert driver.execute_script("return document.querySelectorAll('img, iframe, a').length") == 0
    assert driver.execute_script("return document.querySelectorAll('script').length") == 1
    assert driver.execute_script("return getComputedStyle(document.body).backgroundImage") == "none"
    assert driver.title == "ground-gate: failed"
    assert driver.execute_script("return window.__violations") == []
    assert [u for u in browser.requests(driver) if u != page_file[0].as_uri()] == []


def test_page__readable_without_javascript(page_file):
    with browser.chromium(javascript=False) as driver:
        from selenium.webdriver.common.by import By

        driver.get(page_file[0].as_uri())

        rows = driver.find_elements(By.CSS_SELECTOR, "tbody.row")
        assert len(rows) == ROWS and all(r.is_displayed() for r in rows)
        assert not driver.find_element(By.ID, "filters").is_displayed()
        driver.save_screenshot(str(_artifact("report-no-javascript.png")))


def _artifact(name: str) -> Path:
    browser.ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return browser.ARTIFACTS / name


def test_page__follows_the_dark_colour_scheme(page_file):
    with browser.chromium() as driver:
        driver.execute_cdp_cmd(
            "Emulation.setEmulatedMedia",
            {"features": [{"name": "prefers-color-scheme", "value": "dark"}]},
        )
        driver.get(page_file[0].as_uri())
        background = driver.execute_script("return getComputedStyle(document.body).backgroundColor")
        assert background == "rgb(13, 17, 23)"
        driver.save_screenshot(str(_artifact("report-dark.png")))
    with browser.chromium() as driver:
        driver.execute_cdp_cmd(
            "Emulation.setEmulatedMedia",
            {"features": [{"name": "prefers-color-scheme", "value": "light"}]},
        )
        driver.get(page_file[0].as_uri())
        background = driver.execute_script("return getComputedStyle(document.body).backgroundColor")
        assert background == "rgb(255, 255, 255)"


# --- a pull request's page, compared with its baseline (tests/reviewer_scenario.py) ----------


@pytest.fixture(scope="module")
def reviewer_page(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """The page `run --baseline` writes: 200 rows, a fifth broken by the pull request."""
    from ground_gate.review.baseline_rows import compare_rows
    from tests.rendered import render_html
    from tests.reviewer_scenario import scenario

    baseline, report = scenario()
    compared = compare_rows(report, baseline)
    page = tmp_path_factory.mktemp("reviewer") / "report.html"
    page.write_text(render_html(compared), encoding="utf-8")
    return page, compared


def _shown_keys(driver: Any) -> list[str]:
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('tbody.row')).filter(t => !t.hidden)"
        ".map(t => t.id);"
    )


def _opened(driver: Any, key: str) -> bool:
    return driver.execute_script(
        "const t = document.getElementById(arguments[0]);"
        "return !t.hidden && t.querySelector('details').open"
        " && t.getBoundingClientRect().top < window.innerHeight;",
        key,
    )


def test_page__starts_at_exactly_the_new_failures_since_the_baseline(reviewer_page):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    from ground_gate.render.anchors import row_key
    from ground_gate.review.changes import broke

    page, report = reviewer_page
    new = {row_key(c.row) for c in broke(report)}
    assert 30 < len(new) < 50
    with browser.chromium() as driver:
        driver.get(page.as_uri())
        status = Select(driver.find_element(By.ID, "f-status"))
        assert status.first_selected_option.get_attribute("value") == "new"  # where it starts
        assert set(_shown_keys(driver)) == new
        assert _texts(driver, "#f-count") == [
            f"{len(new)} of {len(report['rows'])} rows shown (newly failing since the baseline)"
        ]
        assert driver.execute_script("return location.hash") == ""  # the start: no state
        Select(driver.find_element(By.ID, "f-sort")).select_by_value("groundedness-asc")
        shown = _shown_keys(driver)
        values = {row_key(r): r["metrics"]["groundedness"]["scores"]["groundedness"]
                  for r in report["rows"]}  # fmt: skip
        assert [values[k] for k in shown] == sorted(values[k] for k in new)
        state = driver.execute_script("return location.hash")
        assert state == "#!sort=groundedness-asc"
        driver.get(page.as_uri() + state)  # the same view from the address alone
        assert [k for k in _shown_keys(driver)] == shown
        driver.save_screenshot(str(_artifact("reviewer-new-since-baseline.png")))
        Select(driver.find_element(By.ID, "f-status")).select_by_value("all")
        assert len(_shown_keys(driver)) == len(report["rows"])
        state = driver.execute_script("return location.hash")
        assert state == "#!status=all&sort=groundedness-asc"  # kept, as it differs from the start
        driver.get(page.as_uri() + state)
        assert len(_shown_keys(driver)) == len(report["rows"])


@pytest.mark.parametrize("fragment", ["news/news-0007", "news-0007", "news%2Fnews-0007"])
def test_page__an_anchor_opens_its_row(reviewer_page, fragment):
    page, _ = reviewer_page
    with browser.chromium() as driver:
        driver.get(page.as_uri() + "#" + fragment)
        assert _opened(driver, "news/news-0007")
        # the row failing contradiction alone names the sentence that carries it
        row = driver.find_element("id", "news/news-0007")
        assert "(why the row fails contradiction)" in row.text
        assert not driver.find_element("id", "notice").is_displayed()
        driver.save_screenshot(str(_artifact("reviewer-anchor.png")))


@pytest.mark.parametrize(
    ("fragment", "said"),
    [
        ("news/news-9999", "No row news/news-9999 in this report"),
        ("nothing-like-a-row", "No row nothing-like-a-row in this report"),
        ("news%2Fnews-00%E0%A4", "No row news%2Fnews-00%E0%A4 in this report (the address"),
    ],
)
def test_page__an_unknown_or_malformed_anchor_says_so(reviewer_page, fragment, said):
    page, _ = reviewer_page
    with browser.chromium() as driver:
        driver.get(page.as_uri() + "#" + fragment)
        notice = driver.find_element("id", "notice")
        assert notice.is_displayed() and notice.text.startswith(said)
        assert notice.text.endswith("the page is shown from the top.")
        assert driver.execute_script("return window.scrollY") == 0
        assert driver.execute_script("return document.querySelectorAll('.target').length") == 0
        driver.save_screenshot(str(_artifact("reviewer-unknown-anchor.png")))
        driver.get(page.as_uri() + "#news/news-0001")  # a row's anchor after it: gone
        assert not driver.find_element("id", "notice").is_displayed()
        driver.execute_script("location.hash = 'scores'")  # the page's own sections: no notice
        assert not driver.find_element("id", "notice").is_displayed()


NAMES = """
const row = document.getElementById(arguments[0]);
return Array.from(row.querySelectorAll(':scope > tr:first-child > td.num'), td => {
  const name = td.querySelector('.sn');
  return [getComputedStyle(name).display === 'none' ? '' : name.textContent,
          getComputedStyle(td, '::before').content, td.textContent.slice(name.textContent.length)];
});
"""


def test_page__a_row_at_its_anchor_names_each_value(reviewer_page):
    page, _ = reviewer_page
    named = [
        ["groundedness \u2265 0.75", "\u2718 0.92 \u2192 0.63"],
        ["hallucination \u2264 0.10", "\u2718 0.05 \u2192 0.34"],
        ["contradiction \u2264 0.20", "0.03"],
    ]
    with browser.chromium(width=1400) as driver:
        driver.get(page.as_uri() + "#news/news-0001")
        cells = driver.execute_script(NAMES, "news/news-0001")
        assert [[c[0], c[2]] for c in cells] == named  # above each value, in the row itself
        closed = driver.execute_script(NAMES, "news/news-0080")  # a closed row: the header's
        assert [c[0] for c in closed] == ["", "", ""]
        driver.save_screenshot(str(_artifact("reviewer-row-named-1400.png")))
    with browser.chromium() as driver:
        browser.viewport(driver, 420)
        driver.get(page.as_uri() + "#news/news-0001")
        cells = driver.execute_script(NAMES, "news/news-0001")
        # a card: each value labelled before it (the name above it would say it twice)
        assert [[c[0], c[1]] for c in cells] == [["", f'"{n}: "'] for n, _ in named]
        driver.save_screenshot(str(_artifact("reviewer-row-named-420.png")))


def test_page__what_broke_comes_first_and_each_row_link_opens_its_row(reviewer_page):
    from selenium.webdriver.common.by import By

    page, _ = reviewer_page
    with browser.chromium() as driver:
        driver.get(page.as_uri())
        sections = driver.execute_script(
            "return Array.from(document.querySelectorAll('section'), s => s.id);"
        )
        assert sections == ["broke", "scores", "distributions", "rows"]
        links = [a for a in driver.find_elements(By.CSS_SELECTOR, "#broke a") if a.is_displayed()]
        assert len(links) > 5
        link = links[3]
        key = (link.get_attribute("href") or "").split("#", 1)[1]
        assert key.startswith("news/news-")
        link.click()
        assert _opened(driver, key)
        assert key in _shown_keys(driver)


def test_page__search_opens_what_it_finds(reviewer_page):
    from selenium.webdriver.common.by import By

    page, _ = reviewer_page
    with browser.chromium() as driver:
        driver.get(page.as_uri())
        assert not _opened(driver, "news/news-0150")  # a fixed row: passing, closed
        driver.find_element(By.ID, "f-search").send_keys("news-0150")
        # the filter started at the new failures: a search looks through every row, and the
        # verdict filter says so
        assert _shown_keys(driver) == ["news/news-0150"]
        assert driver.find_element(By.ID, "f-status").get_attribute("value") == "all"
        assert driver.execute_script(
            "return document.getElementById('news/news-0150').querySelector('details').open"
        )


def test_page__nothing_found_is_said_as_such_never_as_a_misquote(reviewer_page):
    from tests.reviewer_scenario import NOTHING_FOUND_ROW

    page, _ = reviewer_page
    with browser.chromium() as driver:
        driver.get(f"{page.as_uri()}#news/{NOTHING_FOUND_ROW}")
        row = driver.find_element("id", f"news/{NOTHING_FOUND_ROW}")
        assert "the source says nothing about this (the judge found no passage)" in row.text
        assert "NOTHING FOUND" not in driver.page_source
        assert "not in the source as quoted" not in driver.page_source
        # the supported sentence's quote is its own, green, tagged with it
        marks = driver.execute_script(
            "return Array.from(arguments[0].querySelectorAll('.source mark'),"
            " m => [m.className, m.title]);",
            row,
        )
        assert marks == [["ev-good", "G1: the judge's evidence"]]


# Every word of every header on one line: a header broken mid-word has a word whose text
# spans two line boxes.
BROKEN_HEADERS = """
const broken = [];
for (const th of document.querySelectorAll('th')) {
  if (!th.offsetParent) continue;
  for (const node of th.childNodes) {
    if (node.nodeType !== Node.TEXT_NODE) continue;
    for (const m of node.textContent.matchAll(/\\S+/g)) {
      const r = document.createRange();
      r.setStart(node, m.index); r.setEnd(node, m.index + m[0].length);
      if (r.getClientRects().length > 1) broken.push(m[0]);
    }
  }
}
return broken;
"""


def test_page__reads_at_1400_and_at_420_pixels(reviewer_page, tmp_path):
    from tests.rendered import render_html
    from tests.reviewer_scenario import every_score

    page, report = reviewer_page
    wide = tmp_path / "wide.html"  # every score a column: the page broke its headers there
    wide.write_text(render_html(every_score(report)), encoding="utf-8")
    with browser.chromium(width=1400, height=1000) as driver:
        for shown in (page, wide):
            driver.get(shown.as_uri())
            assert driver.execute_script(BROKEN_HEADERS) == [], shown.name
        assert driver.execute_script("return document.querySelectorAll('th').length") > 30
        driver.save_screenshot(str(_artifact("reviewer-1400.png")))
    with browser.chromium() as driver:
        browser.viewport(driver, 420)
        driver.get(page.as_uri())
        driver.execute_script("document.querySelectorAll('details').forEach(d => d.open = true)")
        width = driver.execute_script(
            "return [document.documentElement.scrollWidth, window.innerWidth]"
        )
        assert width[0] <= width[1] == 420  # no sideways scroll of the page itself
        card = driver.execute_script(
            "const td = document.querySelector('tbody.row td.id');"
            "return [getComputedStyle(td).display, td.getBoundingClientRect().width];"
        )
        assert card[0] == "block" and card[1] > 300  # a card: the id reads on one line
        driver.save_screenshot(str(_artifact("reviewer-420.png")))
