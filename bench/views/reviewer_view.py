"""What a reviewer sees: the comment rendered as GitHub renders markdown, and the HTML page,
as screenshots, for the pull request of tests/reviewer_scenario.py (a baseline of 200 rows,
a pull request that broke about a fifth of them).

The comment's markdown goes through cmarkgfm (GitHub's own fork of cmark, with its table,
autolink, strikethrough and tag-filter extensions, raw HTML kept as GitHub keeps
<details>) into a page styled like a pull request's comment; the page is the report's
`report.html`. Both are opened in headless Chromium (tests/integration/browser.py, network
off) and saved as PNG. No judge is called. Usage (cmarkgfm is not a dependency of the
project: `pip install cmarkgfm` into the venv first):

    .venv/bin/python -m bench.views.reviewer_view --out docs/images --prefix reviewer-after
"""

from __future__ import annotations

import argparse
import inspect
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench.views.github_look import PAGE_URL, github_html
from ground_gate.render.html import render_html
from ground_gate.render.markdown import render_markdown
from tests.integration import browser
from tests.reviewer_scenario import scenario

ROOT = Path(__file__).resolve().parents[2]


def _compared(report: dict[str, Any], baseline: dict[str, Any], renderer: Any) -> Any:
    """The report as `run --baseline` finishes it: its rows compared with the baseline's
    (renderers from issue 34 on never compare; older ones took the baseline themselves)."""
    if "baseline" in inspect.signature(renderer).parameters:
        return {"baseline": baseline}
    try:
        from ground_gate.review.baseline_rows import compare_rows
    except ImportError:  # before issue 24: no row was compared
        return {}
    return {"report": compare_rows(report, baseline)}


def comment_markdown(report: dict[str, Any], baseline: dict[str, Any]) -> str:
    """The comment as the action posts it once the page is uploaded (where the renderer
    knows of a page to link; the renderer before issue 24 did not)."""
    args: dict[str, Any] = {"report": report, **_compared(report, baseline, render_markdown)}
    if "page_url" in inspect.signature(render_markdown).parameters:
        args["page_url"] = PAGE_URL
    return render_markdown(**args)


def page_html(report: dict[str, Any], baseline: dict[str, Any]) -> str:
    """The page as `run --baseline` writes it (its rows compared with the baseline's, where
    the renderer can; the renderer before issue 24 could not)."""
    return render_html(**{"report": report, **_compared(report, baseline, render_html)})


def full_page(driver: Any, path: Path, width: int) -> None:
    """The whole page at `width`, however tall (up to 16,000 px)."""
    _narrow(driver, width, 900)
    height = min(int(driver.execute_script("return document.documentElement.scrollHeight")), 16000)
    driver.set_window_size(max(width, 500), height + 140)
    _narrow(driver, width, height)
    driver.save_screenshot(str(path))


def newly_failing(report: dict[str, Any], baseline: dict[str, Any]) -> str:
    """The anchor of the first row that fails now and passed in the baseline: the row a
    reviewer opens from the comment's "what this pull request broke"."""
    passed = {(r["dataset"], r["id"]) for r in baseline["rows"] if not r["failing"]}
    row = next(r for r in report["rows"] if r["failing"] and (r["dataset"], r["id"]) in passed)
    return f"#{row['dataset']}/{row['id']}"


def _narrow(driver: Any, width: int, height: int) -> None:
    """Lay the page out at `width` (a window is at least 500 px wide)."""
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 500},
    )


def shoot(out: Path, prefix: str) -> list[Path]:
    baseline, report = scenario()
    markdown = comment_markdown(report, baseline)
    work = Path(tempfile.mkdtemp(prefix="reviewer-view-"))
    (work / "comment.md").write_text(markdown, encoding="utf-8")
    (work / "comment.html").write_text(github_html(markdown), encoding="utf-8")
    (work / "report.html").write_text(page_html(report, baseline), encoding="utf-8")
    out.mkdir(parents=True, exist_ok=True)
    shots = []
    for width in (1400, 420):  # the comment on a desktop and on a phone, folded and opened
        with browser.chromium(width=max(width, 500), height=900) as driver:
            _narrow(driver, width, 900)
            driver.get((work / "comment.html").as_uri())
            shots.append(out / f"{prefix}-comment-{width}.png")
            full_page(driver, shots[-1], width)
            driver.execute_script(
                "document.querySelectorAll('details').forEach(d => d.open = true)"
            )
            shots.append(out / f"{prefix}-comment-{width}-open.png")
            full_page(driver, shots[-1], width)
    page = (work / "report.html").as_uri()
    anchor = newly_failing(report, baseline)
    for width, fragment, name in (
        (1400, "", "page-1400"),
        (420, "", "page-420"),
        (1400, anchor, "page-row-1400"),  # the row the comment links to
        (420, anchor, "page-row-420"),
    ):
        with browser.chromium(width=max(width, 500), height=1100) as driver:
            _narrow(driver, width, 1100)
            driver.get(page + fragment)
            shots.append(out / f"{prefix}-{name}.png")
            driver.save_screenshot(str(shots[-1]))
    print(f"markdown and pages in {work}", file=sys.stderr)
    return shots


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "reviewer-view")
    parser.add_argument("--prefix", default="reviewer")
    args = parser.parse_args()
    for path in shoot(args.out, args.prefix):
        print(path)


if __name__ == "__main__":
    main()
