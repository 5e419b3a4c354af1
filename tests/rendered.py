"""The renderers as tests call them: a report in, its review made once beside it (as
`report_files.finish` does for a run), the rendering out. Tests import these names in place of
the renderers' own, so a test reads `render_markdown(report)`."""

from __future__ import annotations

from typing import Any

from ground_gate.render import html, junit, markdown, terminal
from ground_gate.report.types import Report
from ground_gate.review.review import review_of


def render_markdown(report: Report, **options: Any) -> str:
    return markdown.render_markdown(report, review_of(report), **options)


def render_html(report: Report) -> str:
    return html.render_html(report, review_of(report))


def render_junit(report: Report) -> str:
    return junit.render_junit(report, review_of(report))


def render_terminal(report: Report, **options: Any) -> str:
    return terminal.render_terminal(report, review_of(report), **options)


def verdict_line(report: Report, exit_code: int) -> str:
    return terminal.verdict_line(report, review_of(report), exit_code)
