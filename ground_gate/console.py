"""What the commands print: the report asked for on stdout; else, for a person at a
terminal, the run's summary (report/terminal.py, its verdict on the last line), and the
markdown through a pipe; the reason a run did not finish on stderr (at a terminal, the
summary's verdict says it, whole, on its last lines)."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

import click

from ground_gate.cli_options import STDOUT, echo_err
from ground_gate.leaves.masking import mask

if TYPE_CHECKING:
    from ground_gate.report.types import Report
    from ground_gate.review.review import Review
    from ground_gate.stages.report_files import CalibrationOutcome, Outcome


def is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def summary(
    report: Report, review: Review, exit_code: int, written: Sequence[tuple[str, Path | None]]
) -> str:
    """The run for a person at a terminal (render/terminal.py), sized to it."""
    from ground_gate.render.terminal import render_terminal

    paths = [(kind, str(path)) for kind, path in written if path is not None and path != STDOUT]
    width = shutil.get_terminal_size((100, 24)).columns
    return render_terminal(report, review, width=width, exit_code=exit_code, written=paths)


def print_outcome(
    outcome: Outcome | CalibrationOutcome,
    json_out: Path | None,
    md_out: Path | None,
    quiet: bool,
    written: Sequence[tuple[str, Path | None]] | None = None,
) -> None:
    """The report asked for on stdout, else the summary (on stderr when stdout carries the
    JSON report): for a person at a terminal the terminal summary, its verdict last (when
    `written` names the run's reports), else the markdown; then the reason a run did not
    finish."""
    from ground_gate.stages.report_files import Outcome, report_text

    if json_out == STDOUT:
        click.echo(mask(report_text(outcome.report)), nl=False)
    to_err = json_out == STDOUT
    run = outcome.report if isinstance(outcome, Outcome) else None  # calibrate's: markdown
    wanted = md_out != STDOUT and not quiet and written is not None and run is not None
    if wanted and written and run and is_terminal(sys.stderr if to_err else sys.stdout):
        # the summary's verdict, last, says why the run did not finish, whole; stderr says it
        # too only when it goes elsewhere (a log), before the summary
        if run["incomplete"] and not to_err and not is_terminal(sys.stderr):
            echo_err(f"ground-gate: error: {run['incomplete']}")
        assert isinstance(outcome, Outcome)
        said = summary(run, outcome.review, outcome.exit_code, written)
        click.echo(mask(said), nl=False, err=to_err)
        return
    if md_out == STDOUT or (not quiet and json_out != STDOUT):
        click.echo(mask(outcome.markdown), nl=False)
    elif not quiet:
        click.echo(mask(outcome.markdown), nl=False, err=True)
    if incomplete := outcome.report.get("incomplete"):
        echo_err(f"ground-gate: error: {incomplete}")


def written_reports(
    json_out: Path | None, md_out: Path | None, junit: Path | None, html: Path | None
) -> list[tuple[str, Path | None]]:
    return [("JSON", json_out), ("markdown", md_out), ("JUnit", junit), ("page", html)]


def saved_summary(path: Path) -> str | None:
    """A saved run's terminal summary, its verdict's exit code as `run` gave it; None for a
    calibration's report (it has only its markdown)."""
    from ground_gate.leaves.errors import GroundGateError
    from ground_gate.leaves.exit_codes import exit_code
    from ground_gate.review.review import review_of
    from ground_gate.stages.report_files import read_report

    try:
        report = read_report(path)
    except GroundGateError:
        return None
    code = exit_code(
        passed=report["passed"],
        incomplete=bool(report["incomplete"]),
        fail_on_threshold="shard" not in report,
    )
    return summary(report, review_of(report), code, [])
