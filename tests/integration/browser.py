"""Headless Chromium through chromedriver (Selenium), with the network off and every request
and CSP violation recorded, for the tests of the HTML page and its benchmark.

scripts/setup.sh installs what is missing (the `dev` extra has Selenium; Debian's `chromium`
and `chromium-driver` with apt-get where it runs as root); where they cannot be had,
`chromium()` says so and the tests skip with that message.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

# Screenshots of the page under test: outside the checkout (tests leave the working tree as
# they found it), where GROUND_GATE_TEST_ARTIFACTS says, else in the system's temp folder.
ARTIFACTS = Path(
    os.environ.get("GROUND_GATE_TEST_ARTIFACTS")
    or Path(tempfile.gettempdir()) / "ground-gate-test-artifacts"
)
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome")
DRIVER_NAMES = ("chromedriver",)

# Runs before any script of the page: records CSP violations, so a test can tell that the
# policy refused something, and whether anything in the data set the canary.
WATCH = """
window.__violations = [];
document.addEventListener('securitypolicyviolation', function (e) {
  window.__violations.push(e.violatedDirective + ' ' + e.blockedURI);
});
"""


def missing() -> str | None:
    """Why a headless Chromium cannot be driven here, or None when it can."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "Selenium is not installed (scripts/setup.sh local,dev installs it)"
    if not any(shutil.which(n) for n in CHROMIUM_NAMES):
        return "no Chromium (scripts/setup.sh installs Debian's chromium as root; else install it)"
    if not any(shutil.which(n) for n in DRIVER_NAMES):
        return "no chromedriver (Debian: chromium-driver; scripts/setup.sh installs it as root)"
    return None


@contextmanager
def chromium(javascript: bool = True, width: int = 1280, height: int = 1000) -> Iterator[Any]:
    """A headless Chromium with the network off (DevTools: offline, and every host resolved
    to nothing), recording the requests it makes (`requests(driver)`)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    binary = next(p for p in map(shutil.which, CHROMIUM_NAMES) if p)
    options.binary_location = binary
    for flag in (
        "--headless=new",
        "--no-sandbox",  # the test machines run as root
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--host-resolver-rules=MAP * ~NOTFOUND",
        "--no-proxy-server",
        f"--window-size={width},{height}",
    ):
        options.add_argument(flag)
    if not javascript:
        options.add_experimental_option(
            "prefs", {"profile.managed_default_content_settings.javascript": 2}
        )
    options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    driver_path = next(p for p in map(shutil.which, DRIVER_NAMES) if p)
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    try:
        driver.execute_cdp_cmd("Network.enable", {})
        driver.execute_cdp_cmd(
            "Network.emulateNetworkConditions",
            {"offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1},
        )
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": WATCH})
        yield driver
    finally:
        driver.quit()


def viewport(driver: Any, width: int, height: int = 1000) -> None:
    """Lay the page out at `width` CSS pixels: a window cannot be as narrow as a phone, the
    emulated device metrics can."""
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
    )


def requests(driver: Any) -> list[str]:
    """The URLs the browser asked for since the last call (DevTools' performance log)."""
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
    return urls


def load_seconds(driver: Any) -> float:
    """From the navigation's start to the end of its load event, by the page's own clock."""
    timing = driver.execute_script(
        "const n = performance.getEntriesByType('navigation')[0];"
        "return [n.startTime, n.loadEventEnd];"
    )
    return float(timing[1] - timing[0]) / 1000
