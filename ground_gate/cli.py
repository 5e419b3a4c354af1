"""The command line: parses arguments, calls the pipeline, exits with exit_codes.py's code.

User errors print one line, no traceback. `--output-json -` / `--output-md -` write that
report to stdout; the markdown summary then goes to stderr, so stdout holds one document.
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ground_gate import __version__
from ground_gate.cli_init import init
from ground_gate.cli_options import (
    STDOUT,
    ProjectGroup,
    config_option,
    echo_err,
    file_only,
    force_option,
    one_stdout,
    report_file_options,
    shard_option,
    to_file,
    user_errors,
)
from ground_gate.console import is_terminal, print_outcome, saved_summary, written_reports
from ground_gate.leaves.exit_codes import install_signal_policy
from ground_gate.leaves.masking import MaskingFilter, mask

if TYPE_CHECKING:  # each command imports what it runs when it runs: --version and --help
    # answer without the judge's client (openai), jsonschema or the metrics
    from ground_gate.datasets.shards import Shard


class Commands(ProjectGroup):
    """The commands, `models` loaded when it is named (or listed by --help): --version
    reads nothing but the version."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), "models"})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name == "models" and "models" not in self.commands:
            from ground_gate.local.commands import models

            for command in models.commands.values():  # errors printed as every command's
                if command.callback is not None:
                    command.callback = user_errors(command.callback)
            self.add_command(models)
        return super().get_command(ctx, cmd_name)


@click.group(cls=Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="ground-gate")
@click.option(
    "-v",
    "--verbose",
    count=True,
    help="Say more on stderr: -v retries, waits and the judge's progress; -vv debug.",
)
def cli(verbose: int) -> None:
    """Gate pull requests on the groundedness of LLM outputs."""
    _configure_logging(verbose)


def _configure_logging(verbose: int) -> None:
    """ground-gate's own messages on stderr: warnings always, -v info, -vv debug. Libraries
    (the SDK, httpx) stay at warnings: their request lines would drown ours."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("ground-gate: %(levelname)s: %(message)s"))
    handler.addFilter(MaskingFilter())  # a secret never reaches the log
    logger = logging.getLogger("ground_gate")
    logger.handlers[:] = [handler]
    logger.propagate = False
    logger.setLevel(logging.DEBUG if verbose > 1 else logging.INFO if verbose else logging.WARNING)


@cli.command()
@config_option
@report_file_options("")
@click.option("--dataset", "datasets", multiple=True, help="Only this dataset (repeatable).")
@click.option("--limit", type=click.IntRange(min=1), help="At most N rows per dataset.")
@click.option("--no-cache", is_flag=True, help="Ignore and do not write the judge cache.")
@click.option(
    "--baseline",
    type=click.Path(dir_okay=False, path_type=Path),
    help="An earlier JSON report to compare with: the verdicts of every row whose key is "
    "unchanged are taken from it, and judging stops once no row left can change a check.",
)
@click.option(
    "--judge-all",
    is_flag=True,
    help="With --baseline, judge every row not reused, even once the decision is settled.",
)
@click.option(
    "--shard",
    callback=shard_option,
    metavar="K/N",
    help="Score only shard K of N (rows placed by a hash of dataset and row key); "
    "join the N JSON reports with `ground-gate merge`. A complete shard exits 0.",
)
@click.option(
    "--output-responses",
    type=click.Path(dir_okay=False, path_type=Path),
    callback=file_only,
    help="Write what the datasets' targets answered here, one JSON object per row "
    "(default: responses.jsonl beside --output-json).",
)
@click.option("--quiet", is_flag=True, help="Do not print the markdown report.")
@user_errors
def run(
    config_path: Path,
    output_json: Path | None,
    output_md: Path | None,
    output_junit: Path | None,
    output_html: Path | None,
    force: bool,
    datasets: tuple[str, ...],
    limit: int | None,
    no_cache: bool,
    baseline: Path | None,
    judge_all: bool,
    shard: Shard | None,
    output_responses: Path | None,
    quiet: bool,
) -> None:
    """Score every dataset, print the report, exit 0 (passed), 1 (failed) or 2 (error).
    At a terminal the summary is for people (its verdict last); `--output-md -` prints the
    markdown."""
    from ground_gate.commands.run import RunOptions, execute
    from ground_gate.stages.report_files import ReportFiles

    options = RunOptions(
        config_path=config_path,
        datasets=datasets,
        limit=limit,
        no_cache=no_cache,
        files=ReportFiles(
            to_file(output_json), to_file(output_md), output_junit, output_html, force
        ),
        baseline=baseline,
        judge_all=judge_all,
        shard=shard,
        responses=output_responses,
    )
    one_stdout(output_json, output_md)
    outcome = execute(options, os.environ, echo_err)
    written = written_reports(output_json, output_md, output_junit, output_html)
    print_outcome(outcome, output_json, output_md, quiet, written)
    sys.exit(outcome.exit_code)


@cli.command()
@click.argument("reports", nargs=-1, required=True, type=click.Path(dir_okay=False, path_type=Path))
@report_file_options("merged ")
@click.option(
    "--baseline",
    type=click.Path(dir_okay=False, path_type=Path),
    help="The earlier JSON report the shards were compared with (or to compare with now).",
)
@click.option("--quiet", is_flag=True, help="Do not print the markdown report.")
@user_errors
def merge(
    reports: tuple[Path, ...],
    output_json: Path | None,
    output_md: Path | None,
    output_junit: Path | None,
    output_html: Path | None,
    force: bool,
    baseline: Path | None,
    quiet: bool,
) -> None:
    """Join the JSON reports of `run --shard K/N` (all N of them) into the unsharded run's
    report; exit 0 (passed), 1 (failed) or 2 (a shard missing, repeated or from another
    config, datasets or prompts; a report that is not valid)."""
    from ground_gate.commands.merge import MergeOptions
    from ground_gate.commands.merge import merge as merge_shards
    from ground_gate.stages.report_files import ReportFiles

    one_stdout(output_json, output_md)
    files = ReportFiles(to_file(output_json), to_file(output_md), output_junit, output_html, force)
    options = MergeOptions(reports, baseline, files)
    outcome = merge_shards(options, echo_err)
    written = written_reports(output_json, output_md, output_junit, output_html)
    print_outcome(outcome, output_json, output_md, quiet, written)
    sys.exit(outcome.exit_code)


@cli.command(name="report")
@click.argument(
    "report_path", metavar="REPORT.json", type=click.Path(dir_okay=False, path_type=Path)
)
@click.option(
    "--md",
    "output_md",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the markdown here ('-': stdout, the default when neither is given).",
)
@click.option(
    "--html",
    "output_html",
    type=click.Path(dir_okay=False, path_type=Path),
    callback=file_only,
    help="Write the self-contained HTML page here.",
)
@force_option
@user_errors
def report_command(
    report_path: Path, output_md: Path | None, output_html: Path | None, force: bool
) -> None:
    """Render a saved JSON report (a run's, a merge's or a calibration's) again, with the
    renderers `run`, `merge` and `calibrate` use; exit 0, or 2 when it cannot be read. With
    neither option it prints the markdown, or at a terminal a run's summary for people."""
    from ground_gate.commands.rerender import RenderOptions, render_saved

    people = output_md is None and output_html is None and is_terminal(sys.stdout)
    if output_md is None and output_html is None:
        output_md = STDOUT
    options = RenderOptions(report_path, to_file(output_md), output_html, force)
    markdown, code = render_saved(options, echo_err)
    if output_md == STDOUT:
        click.echo(mask((saved_summary(report_path) if people else None) or markdown), nl=False)
    sys.exit(code)


@cli.command()
@config_option
@user_errors
def validate(config_path: Path) -> None:
    """Check the config, every dataset row and every target's placeholders, without calling
    the judge or a target."""
    from ground_gate.config.advice import advice
    from ground_gate.config.loader import load_config
    from ground_gate.datasets import iter_samples
    from ground_gate.targets import prepare_target

    config = load_config(config_path, os.environ)
    asked: dict[str, bool] = {}  # dataset -> whether a row asks a question
    for index, dataset in enumerate(config.datasets):
        if dataset.target is None:
            count = 0
            for sample in iter_samples(dataset):
                count += 1
                asked[dataset.name] = asked.get(dataset.name, False) or bool(sample.question)
            click.echo(f"{dataset.name}: {count} row(s) OK ({dataset.path})")
            continue
        samples = list(iter_samples(dataset))
        asked[dataset.name] = any(s.question for s in samples)
        prepare_target(dataset, index, samples, str(config_path), os.environ)
        kind = dataset.target.kind
        click.echo(f"{dataset.name}: {len(samples)} row(s) OK ({dataset.path}); {kind} target OK")
    click.echo(f"{config_path}: valid; metrics: {', '.join(config.metrics.enabled())}")
    for line in advice(config, asked):
        click.echo(f"warning: {config_path}: {line}", err=True)


@cli.command()
@config_option
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="A table for people, or JSON for tools.",
)
@click.option("--dataset", "datasets", multiple=True, help="Only this dataset (repeatable).")
@click.option("--limit", type=click.IntRange(min=1), help="At most N rows per dataset.")
@click.option("--no-cache", is_flag=True, help="Plan as if the judge cache were empty.")
@click.option(
    "--baseline",
    type=click.Path(dir_okay=False, path_type=Path),
    help="The baseline `run --baseline` will be given: the rows whose verdicts it holds are "
    "reused, and the plan says what that saves.",
)
@user_errors
def plan(
    config_path: Path,
    output_format: str,
    datasets: tuple[str, ...],
    limit: int | None,
    no_cache: bool,
    baseline: Path | None,
) -> None:
    """Estimate a run's judge calls, tokens and cost, and what the cache holds; calls no judge."""
    from ground_gate.commands.plan import PlanOptions, plan_document

    options = PlanOptions(config_path, datasets, limit, no_cache, baseline)
    click.echo(mask(plan_document(options, os.environ, output_format)), nl=False)


@cli.command()
def schema() -> None:
    """Print the config's JSON Schema (for editors: yaml-language-server)."""
    from ground_gate.config.loader import schema_text

    click.echo(schema_text())


@cli.command()
@config_option
@click.option(
    "--labels",
    type=click.Path(dir_okay=False, path_type=Path),
    required=True,
    help="Labelled JSONL: id, source, question, response, label (1 grounded, 0 not).",
)
@click.option("--limit", type=click.IntRange(min=1), help="At most N rows per label group.")
@click.option("--no-cache", is_flag=True, help="Ignore and do not write the judge cache.")
@click.option("--output-json", type=click.Path(dir_okay=False, path_type=Path), help="'-': stdout.")
@click.option("--output-md", type=click.Path(dir_okay=False, path_type=Path), help="'-': stdout.")
@click.option(
    "--output-html",
    type=click.Path(dir_okay=False, path_type=Path),
    callback=file_only,
    help="Write the HTML page here: per group and score, the labelled rows' distributions and "
    "the ROC curve, with the suggested threshold and its interval.",
)
@force_option
@user_errors
def calibrate(
    config_path: Path,
    labels: Path,
    limit: int | None,
    no_cache: bool,
    output_json: Path | None,
    output_md: Path | None,
    output_html: Path | None,
    force: bool,
) -> None:
    """Measure agreement with human labels and suggest thresholds (resumes from the cache)."""
    from ground_gate.commands.calibrate import CalibrateOptions
    from ground_gate.commands.calibrate import calibrate as calibrate_run
    from ground_gate.stages.report_files import ReportFiles

    one_stdout(output_json, output_md)
    files = ReportFiles(
        json=to_file(output_json), markdown=to_file(output_md), html=output_html, force=force
    )
    options = CalibrateOptions(config_path, labels, limit, no_cache, files)
    outcome = calibrate_run(options, os.environ, echo_err)
    print_outcome(outcome, output_json, output_md, quiet=False)
    sys.exit(outcome.exit_code)


@cli.command()
def action() -> None:
    """GitHub Action mode (the container's entry point): evaluate, then publish to GitHub."""
    from ground_gate.action import run_action

    sys.exit(run_action(os.environ, echo_err))


cli.add_command(init)


def main() -> None:
    install_signal_policy()
    cli(prog_name="ground-gate")
