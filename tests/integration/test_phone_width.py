"""The phone (issue 44, item 7): at 420 px, with three datasets, the page and the comment (as
GitHub renders its markdown) scroll nowhere sideways: the document is no wider than the
window, and the comment's table of checks no wider than its box. Headless Chromium, network
off; skipped without chromedriver (or without cmarkgfm, for the comment)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bench.views.scenarios import DATASETS, Renderers, scenario
from tests.integration import browser

pytestmark = pytest.mark.skipif(
    browser.missing() is not None, reason=f"no headless browser: {browser.missing()}"
)
PHONE = 420
WIDTHS = """
return {scroll: document.documentElement.scrollWidth, window: window.innerWidth,
        table: (t => t ? t.scrollWidth - t.clientWidth : 0)(document.querySelector('table'))};
"""


def _at(driver: Any, path: Path, width: int) -> dict[str, int]:
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": True},
    )
    driver.get(path.as_uri())
    measured = dict(driver.execute_script(WIDTHS))
    driver.save_screenshot(str(_artifact(f"phone-{path.stem}-{width}.png")))
    return measured


def _artifact(name: str) -> Path:
    browser.ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return browser.ARTIFACTS / name


@pytest.fixture(scope="module")
def declining() -> Any:
    s = scenario("declining")
    assert len(s.report["datasets"]) == len(DATASETS) == 3
    return s


def test_page__three_datasets_at_420_px_no_sideways_scroll(declining, tmp_path):
    page = tmp_path / "page.html"
    page.write_text(Renderers().page(declining), encoding="utf-8")
    with browser.chromium(width=500, height=900) as driver:
        measured = _at(driver, page, PHONE)
    assert measured["window"] == PHONE
    assert measured["scroll"] <= measured["window"], measured


def test_comment__three_datasets_at_420_px_its_table_whole(declining, tmp_path):
    pytest.importorskip("cmarkgfm")
    from bench.views.github_look import PAGE_URL, github_html

    comment = tmp_path / "comment.html"
    comment.write_text(github_html(Renderers().comment(declining, PAGE_URL)), encoding="utf-8")
    with browser.chromium(width=500, height=900) as driver:
        measured = _at(driver, comment, PHONE)
    assert measured["scroll"] <= measured["window"], measured
    assert measured["table"] == 0, measured  # the table of checks: nothing past its box
