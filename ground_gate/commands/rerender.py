"""`ground-gate report REPORT.json`: a saved report (a run's, a merge's or a calibration's)
rendered again, by the renderers `run`, `merge` and `calibrate` use."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ground_gate.errors import ConfigError
from ground_gate.exit_codes import EXIT_ERROR, EXIT_PASSED
from ground_gate.report import calibration as calibration_report
from ground_gate.report.html import render_html
from ground_gate.report.markdown import render_markdown
from ground_gate.report.schema import schema_mismatch
from ground_gate.report_files import WORST_ROWS, Echo, ReportFiles, read_json, write_files


@dataclass(frozen=True)
class RenderOptions:
    report: Path
    output_md: Path | None = None
    output_html: Path | None = None


def _is_calibration(document: Any) -> bool:
    return isinstance(document, dict) and "groups" in document and "rows_scored" in document


def render_saved(options: RenderOptions, echo: Echo) -> tuple[str, int]:
    """The markdown of a saved report, with the files asked for written; and the exit code
    (2 when a file could not be written)."""
    files = ReportFiles(markdown=options.output_md, html=options.output_html)
    files.check_apart([("the report read", options.report)])
    document = read_json(options.report, name=f"report {options.report}")
    if _is_calibration(document):
        try:
            markdown = calibration_report.render_saved(document)
            page = calibration_report.render_html(document) if options.output_html else ""
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
            raise ConfigError(
                f"report {options.report}: not a calibration report `calibrate --output-json` "
                f"writes ({type(exc).__name__}: {exc})"
            ) from None
    else:
        problem = schema_mismatch(document)
        if problem is not None:
            raise ConfigError(f"report {options.report}: {problem}")
        markdown = render_markdown(document, worst_rows=WORST_ROWS)
        page = render_html(document) if options.output_html else ""
    written = write_files(
        [(options.output_md, lambda: markdown), (options.output_html, lambda: page)], echo
    )
    return markdown, EXIT_PASSED if written else EXIT_ERROR
