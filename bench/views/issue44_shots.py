"""Issue 44's screenshots: for each pull request of bench/views/scenarios.py (declining, mixed,
passing, empty), the comment as GitHub renders it and the page, at 1400 px and at 420 px (a
phone), and the terminal's summary at 80 columns, as PNG (each cut to its first 2,000 px);
and, at 420 px, whether anything scrolls sideways: the document's scrollWidth against the
window's width, and the widest table against the box that holds it.

The comment goes through cmarkgfm into reviewer_view.py's GitHub-like page; everything is
opened in headless Chromium (tests/integration/browser.py, network off). No judge is called.
`pip install cmarkgfm` into the venv first. After (this tree):

    .venv/bin/python -m bench.views.issue44_shots --out docs/images --prefix issue44-after

The before shots in docs/images (issue44-before-*) were taken with this script from a
worktree of 70a6d3a, the tree before issue 44; scenarios.py's adapter calls either tree's
renderers.
"""

from __future__ import annotations

import argparse
import html
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench.views import scenarios
from bench.views.github_look import PAGE_URL, github_html
from tests.integration import browser

WIDTHS = (1400, 420)
CROP = 2000  # px: each shot's height at most
TERMINAL_CSS = (
    "body{margin:0;background:#0d1117;color:#e6edf3}"
    "pre{margin:0;padding:12px;font:14px/1.35 'DejaVu Sans Mono',ui-monospace,monospace;"
    "width:max-content}"
)
# what scrolls sideways at this width: the document; the first table (the comment's scores,
# the page's scores), which scrolls inside its own box when it is wider than the box; and
# the widest table or box shown (a folded <details> holds none: it is not laid out)
MEASURE = """
const doc = document.documentElement;
const over = e => e ? e.scrollWidth - e.clientWidth : 0;
const shown = e => e.getClientRects().length > 0 && !e.closest('details:not([open])');
const boxes = Array.from(document.querySelectorAll('table, pre, .scroll')).filter(shown);
return {scrollWidth: doc.scrollWidth, innerWidth: window.innerWidth,
        scoresOverflow: over(document.querySelector('table')),
        widestOverflow: Math.max(0, ...boxes.map(over))};
"""


def terminal_html(text: str) -> str:
    return (
        f'<!DOCTYPE html><html><head><meta charset="utf-8"><style>{TERMINAL_CSS}</style>'
        f"</head><body><pre>{html.escape(text)}</pre></body></html>"
    )


def _layout(driver: Any, width: int, height: int) -> None:
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 500},
    )


def shot(driver: Any, uri: str, path: Path, width: int) -> dict[str, int]:
    """`uri` laid out at `width`, saved to `path` (its first CROP px); what scrolls sideways."""
    _layout(driver, width, 900)
    driver.get(uri)
    measured = dict(driver.execute_script(MEASURE))
    height = int(driver.execute_script("return document.documentElement.scrollHeight"))
    _layout(driver, width, min(height, CROP))
    driver.save_screenshot(str(path))
    return measured


def shoot(out: Path, prefix: str) -> dict[str, dict[str, Any]]:
    """Every shot of every scenario; returns what each measured at its width."""
    renderers = scenarios.Renderers()
    work = Path(tempfile.mkdtemp(prefix="issue44-shots-"))
    out.mkdir(parents=True, exist_ok=True)
    measured: dict[str, dict[str, Any]] = {}
    with browser.chromium(width=1400, height=900) as driver:
        for name in scenarios.NAMES:
            s = scenarios.scenario(name)
            files = {
                "comment": github_html(renderers.comment(s, PAGE_URL)),
                "page": renderers.page(s),
            }
            text = renderers.text(s, width=80)
            (work / f"{name}-terminal.txt").write_text(text, encoding="utf-8")
            (work / f"{name}-comment.md").write_text(renderers.comment(s, PAGE_URL), "utf-8")
            files["terminal"] = terminal_html(text)
            for surface, content in files.items():
                source = work / f"{name}-{surface}.html"
                source.write_text(content, encoding="utf-8")
                widths = (720,) if surface == "terminal" else WIDTHS
                for width in widths:
                    label = "80" if surface == "terminal" else str(width)
                    path = out / f"{prefix}-{name}-{surface}-{label}.png"
                    measured[path.name] = shot(driver, source.as_uri(), path, width)
                    print(path, json.dumps(measured[path.name]))
    print(f"markdown, pages and text in {work}", file=sys.stderr)
    return measured


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("build") / "issue44-shots")
    parser.add_argument("--prefix", default="issue44-after")
    args = parser.parse_args()
    shoot(args.out, args.prefix)


if __name__ == "__main__":
    main()
