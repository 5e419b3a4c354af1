"""The command line: parses arguments, calls the pipeline, maps the outcome to an exit code.

Exit codes: 0 gate passed, 1 a threshold was missed, 2 usage/config/data error or a run that
could not be completed (judge unreachable, interrupted). User errors print one line, no
traceback.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import Any, TypeVar

import click

from ground_gate import __version__
from ground_gate.config.loader import load_config, schema_text
from ground_gate.datasets import iter_samples
from ground_gate.errors import GroundGateError
from ground_gate.local.commands import models
from ground_gate.pipeline import EXIT_ERROR, EXIT_PASSED, CalibrateOptions, RunOptions, execute
from ground_gate.pipeline import calibrate as calibrate_run

F = TypeVar("F", bound=Callable[..., Any])


def _echo_err(message: str) -> None:
    click.echo(message, err=True)


def user_errors(func: F) -> F:
    """Print a GroundGateError as one line and exit 2, never a traceback."""

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except GroundGateError as exc:
            _echo_err(f"ground-gate: error: {exc}")
            sys.exit(EXIT_ERROR)

    return wrapper  # type: ignore[return-value]


config_option = click.option(
    "-c",
    "--config",
    "config_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=Path("ground-gate.yml"),
    show_default=True,
    help="The YAML config.",
)


@click.group()
@click.version_option(__version__, prog_name="ground-gate")
def cli() -> None:
    """Gate pull requests on the groundedness of LLM outputs."""


@cli.command()
@config_option
@click.option(
    "--output-json",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the JSON report here.",
)
@click.option(
    "--output-md",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the markdown report here.",
)
@click.option("--dataset", "datasets", multiple=True, help="Only this dataset (repeatable).")
@click.option("--limit", type=click.IntRange(min=1), help="At most N rows per dataset.")
@click.option("--no-cache", is_flag=True, help="Ignore and do not write the judge cache.")
@click.option(
    "--baseline",
    type=click.Path(dir_okay=False, path_type=Path),
    help="An earlier JSON report to compare with.",
)
@click.option("--quiet", is_flag=True, help="Do not print the markdown report.")
@user_errors
def run(
    config_path: Path,
    output_json: Path | None,
    output_md: Path | None,
    datasets: tuple[str, ...],
    limit: int | None,
    no_cache: bool,
    baseline: Path | None,
    quiet: bool,
) -> None:
    """Score every dataset, print the report, exit 0 (passed), 1 (failed) or 2 (error)."""
    options = RunOptions(
        config_path=config_path,
        datasets=datasets,
        limit=limit,
        no_cache=no_cache,
        output_json=output_json,
        output_md=output_md,
        baseline=baseline,
    )
    outcome = execute(options, os.environ, _echo_err)
    if not quiet:
        click.echo(outcome.markdown, nl=False)
    if outcome.report["incomplete"]:
        _echo_err(f"ground-gate: error: {outcome.report['incomplete']}")
    sys.exit(outcome.exit_code)


@cli.command()
@config_option
@user_errors
def validate(config_path: Path) -> None:
    """Check the config and every dataset row, without calling the judge."""
    config = load_config(config_path, os.environ)
    for dataset in config.datasets:
        count = sum(1 for _ in iter_samples(dataset))
        click.echo(f"{dataset.name}: {count} row(s) OK ({dataset.path})")
    click.echo(f"{config_path}: valid; metrics: {', '.join(config.metrics.enabled())}")


@cli.command()
def schema() -> None:
    """Print the config's JSON Schema (for editors: yaml-language-server)."""
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
@click.option("--output-json", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--output-md", type=click.Path(dir_okay=False, path_type=Path))
@user_errors
def calibrate(
    config_path: Path,
    labels: Path,
    limit: int | None,
    no_cache: bool,
    output_json: Path | None,
    output_md: Path | None,
) -> None:
    """Measure agreement with human labels and suggest thresholds (resumes from the cache)."""
    options = CalibrateOptions(config_path, labels, limit, no_cache, output_json, output_md)
    outcome = calibrate_run(options, os.environ, _echo_err)
    click.echo(outcome.markdown, nl=False)
    if outcome.report["incomplete"]:
        _echo_err(f"ground-gate: error: {outcome.report['incomplete']}")
    sys.exit(outcome.exit_code)


@cli.command()
def action() -> None:
    """GitHub Action mode (the container's entry point): evaluate, then publish to GitHub."""
    from ground_gate.github.action import (
        gate_exit_code,
        mask_secrets,
        publish,
        publish_artifact,
        report_error,
        report_paths,
    )
    from ground_gate.github.client import GitHubClient
    from ground_gate.settings import Settings, judge_overrides

    try:
        settings = Settings.from_env(os.environ)
    except GroundGateError as exc:
        _echo_err(f"ground-gate: error: {exc}")
        sys.exit(EXIT_ERROR)
    mask_secrets(settings)  # before anything else is logged
    token = settings.github_token
    client = GitHubClient(settings.api_url, token) if token else None
    try:
        if settings.publish_only:  # workflow_run: publish the PR run's artifact, never evaluate
            published = publish_artifact(settings, client=client)
            sys.exit(gate_exit_code(settings, published.passed))
        paths = report_paths(settings)
        paths.directory.mkdir(parents=True, exist_ok=True)
        os.chdir(settings.working_directory)
        options = RunOptions(
            config_path=settings.config,
            output_json=paths.json,
            output_md=paths.markdown,
            baseline=settings.baseline,
            judge_overrides=judge_overrides(settings),
        )
        outcome = execute(options, os.environ, _echo_err)
    except GroundGateError as exc:
        report_error(settings, str(exc))
        _echo_err(f"ground-gate: error: {exc}")
        sys.exit(EXIT_ERROR)
    published = publish(
        settings,
        markdown=outcome.markdown,
        report=outcome.report,
        passed=outcome.exit_code == EXIT_PASSED,
        client=client,
    )
    if outcome.exit_code == EXIT_ERROR:  # the run did not finish; publish() annotated it
        sys.exit(EXIT_ERROR)
    sys.exit(gate_exit_code(settings, published.passed))


cli.add_command(models)


def _stop(signum: int, frame: object) -> None:
    """SIGTERM (a cancelled CI job) stops like Ctrl-C: the local server is stopped and the
    rows already scored are written."""
    raise KeyboardInterrupt


def main() -> None:
    signal.signal(signal.SIGTERM, _stop)
    cli(prog_name="ground-gate")
