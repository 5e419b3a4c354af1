"""`ground-gate report REPORT.json`: a saved report (a run's, a merge's or a calibration's)
rendered again, by the renderers `run`, `merge` and `calibrate` use."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ground_gate.leaves.exit_codes import EXIT_ERROR, EXIT_PASSED
from ground_gate.render import calibration as calibration_report
from ground_gate.render.html import render_html
from ground_gate.render.markdown import render_markdown
from ground_gate.report.schema import is_calibration
from ground_gate.review.review import review_of
from ground_gate.stages.report_files import (
    Echo,
    ReportFiles,
    checked_calibration,
    checked_report,
    read_json,
)


@dataclass(frozen=True)
class RenderOptions:
    report: Path
    output_md: Path | None = None
    output_html: Path | None = None
    force: bool = False  # replace a file ground-gate did not write


def render_saved(options: RenderOptions, echo: Echo) -> tuple[str, int]:
    """The markdown of a saved report, with the files asked for written; and the exit code
    (2 when a file could not be written)."""
    flags = ("--output-json", "--md", "--output-junit", "--html")
    files = ReportFiles(
        markdown=options.output_md, html=options.output_html, force=options.force, flags=flags
    )
    files.check_apart([("the report read", options.report)])
    document = read_json(options.report, name=f"report {options.report}")
    name = f"report {options.report}"
    if is_calibration(document):
        calibration = checked_calibration(document, name)
        markdown = calibration_report.render_saved(calibration)
        page = calibration_report.render_html(calibration) if options.output_html else ""
    else:
        report = checked_report(document, name)
        review = review_of(report)
        markdown = render_markdown(report, review)
        page = render_html(report, review) if options.output_html else ""
    outputs = files.outputs()
    written = files.write(
        [(outputs.get("markdown"), lambda: markdown), (outputs.get("html"), lambda: page)], echo
    )
    return markdown, EXIT_PASSED if written else EXIT_ERROR
