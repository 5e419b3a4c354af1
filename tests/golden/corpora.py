"""The reports the golden files pin (tests/unit/test_golden_reports.py): each test corpus as
every renderer writes it, byte for byte. The markdown, JUnit and terminal texts are kept whole
(small, and a diff shows what changed); every output, JSON and HTML included, is pinned by its
SHA-256 in digests.json. After a change meant to change what a reader sees, regenerate and
read the diff before committing:

    .venv/bin/python -m tests.golden.corpora            # rewrites tests/golden/
    .venv/bin/python -m tests.golden.corpora --out DIR  # every output in full, to compare
"""

from __future__ import annotations

import argparse
import hashlib
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ground_gate.review.baseline_rows import compare_rows
from ground_gate.stages.report_files import report_text
from tests.rendered import render_html, render_junit, render_markdown, render_terminal
from tests.report_pages import synthetic_report
from tests.reviewer_scenario import every_score, scenario

HERE = Path(__file__).parent
DIGESTS = HERE / "digests.json"
WHOLE = (".md", ".xml", ".txt")  # kept as text; the others by digest only
Report = Mapping[str, Any]


def _pull_request() -> Report:
    baseline, report = scenario()
    return compare_rows(report, baseline)


CORPORA: dict[str, Callable[[], Report]] = {
    "reviewer-baseline": lambda: scenario()[0],
    "reviewer-pull-request": _pull_request,  # compared with its baseline, row by row
    "every-score": lambda: every_score(_pull_request()),  # the widest rows table
    "synthetic-12": lambda: synthetic_report(12),
    "hostile-6": lambda: synthetic_report(6, hostile=True),  # markup and injections in rows
}
RENDERERS: dict[str, Callable[[Report], str]] = {
    "json": report_text,
    "md": render_markdown,
    "html": render_html,
    "xml": render_junit,
    # the exit code `run` gives the report: 0 when it passed
    "txt": lambda report: render_terminal(
        report, width=100, exit_code=0 if report["passed"] else 1
    ),
}


def rendered() -> dict[str, str]:
    """File name -> text, for every corpus and renderer."""
    out: dict[str, str] = {}
    for name, build in CORPORA.items():
        report = build()
        for suffix, render in RENDERERS.items():
            out[f"{name}.{suffix}"] = render(report)
    return out


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, help="write every output in full here instead")
    args = parser.parse_args()
    texts = rendered()
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        for name, text in texts.items():
            (args.out / name).write_text(text, encoding="utf-8")
        return
    for name, text in texts.items():
        if name.endswith(WHOLE):
            (HERE / name).write_text(text, encoding="utf-8")
    digests = {name: digest(text) for name, text in sorted(texts.items())}
    DIGESTS.write_text(json.dumps(digests, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
