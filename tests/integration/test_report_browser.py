"""The HTML page in a real browser: headless Chromium driven by chromedriver, network off.

The page is written by `ground-gate report --html` from a saved JSON report with a hostile
corpus in every field; the tests assert on the rendered page and save a screenshot under
build/test-artifacts/.
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
    status.select_by_value("")
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
