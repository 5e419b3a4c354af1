"""The command line's shared options: the config, the report files and where each may go,
`--shard`, and user errors printed as one line with exit 2."""

from __future__ import annotations

import shutil
import sys
import textwrap
from collections.abc import Callable, Sequence
from functools import wraps
from pathlib import Path
from typing import Any, TypeVar

import click

from ground_gate.datasets.shards import Shard, parse_shard
from ground_gate.leaves.errors import GroundGateError
from ground_gate.leaves.exit_codes import EXIT_ERROR
from ground_gate.leaves.masking import mask

STDOUT = Path("-")
F = TypeVar("F", bound=Callable[..., Any])


def echo_err(message: str) -> None:
    """One message on stderr, every secret masked (masking.py); at a terminal wrapped to its
    width (never cut), each line after the first indented."""
    text = mask(message)
    if sys.stderr.isatty():
        width = shutil.get_terminal_size().columns
        lines = text.split("\n")
        text = "\n".join(
            textwrap.fill(line, width, subsequent_indent="  ", break_on_hyphens=False) or line
            for line in lines
        )
    click.echo(text, err=True)


def user_errors(func: F) -> F:
    """Print a GroundGateError as one line and exit 2, never a traceback."""

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except GroundGateError as exc:
            echo_err(f"ground-gate: error: {exc}")
            sys.exit(EXIT_ERROR)

    return wrapper  # type: ignore[return-value]


class ProjectGroup(click.Group):
    """A command group whose click errors print as every error of the project does."""

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        """click's own errors (an unknown option, a bad value) printed as the project's are,
        `ground-gate: error: ...` on one line and a pointer to the help, with click's exit
        code (2 for a usage error); Ctrl-C outside a command still says "Aborted!"."""
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        try:
            code = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.exceptions.Abort:
            echo_err("Aborted!")
            sys.exit(1)
        except click.ClickException as exc:
            echo_err(f"ground-gate: error: {exc.format_message()}")
            if isinstance(exc, click.UsageError) and exc.ctx is not None:
                echo_err(f"Try '{exc.ctx.command_path} -h' for help.")
            sys.exit(exc.exit_code)
        sys.exit(code if isinstance(code, int) else 0)


config_option = click.option(
    "-c",
    "--config",
    "config_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=Path("ground-gate.yml"),
    show_default=True,
    help="The YAML config.",
)


def shard_option(ctx: click.Context, param: click.Parameter, value: str | None) -> Shard | None:
    if value is None:
        return None
    try:
        return parse_shard(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


def junit_path(ctx: click.Context, param: click.Parameter, value: Path | None) -> Path | None:
    if value == STDOUT:
        raise click.BadParameter("write JUnit XML to a file; '-' is for --output-json/-md")
    return value


_WRITTEN = {"output_responses": "the targets' responses"}  # else: the HTML page


def file_only(ctx: click.Context, param: click.Parameter, value: Path | None) -> Path | None:
    if value == STDOUT:
        what = _WRITTEN.get(param.name or "", "the HTML page")
        raise click.BadParameter(f"write {what} to a file; '-' is for --output-json/-md")
    return value


output_html_option = click.option(
    "--output-html",
    type=click.Path(dir_okay=False, path_type=Path),
    callback=file_only,
    help="Write the HTML page here: one self-contained file (scores, distributions, every row "
    "with its units marked and its evidence highlighted in the source).",
)

output_junit_option = click.option(
    "--output-junit",
    type=click.Path(dir_okay=False, path_type=Path),
    callback=junit_path,
    help="Write JUnit XML here: a testsuite per dataset, a testcase per row and per threshold.",
)


force_option = click.option(
    "--force",
    is_flag=True,
    help="Overwrite a file at an output path even when ground-gate did not write it (without "
    "it, only an earlier ground-gate output of the same kind is replaced).",
)


def report_file_options(what: str) -> Callable[[F], F]:
    """--output-json, --output-md, --output-junit, --output-html and --force, for `what`
    report."""

    def apply(func: F) -> F:
        for option in reversed(
            (
                click.option(
                    "--output-json",
                    type=click.Path(dir_okay=False, path_type=Path),
                    help=f"Write the {what}JSON report here ('-': stdout).",
                ),
                click.option(
                    "--output-md",
                    type=click.Path(dir_okay=False, path_type=Path),
                    help="Write the markdown report here ('-': stdout).",
                ),
                output_junit_option,
                output_html_option,
                force_option,
            )
        ):
            func = option(func)
        return func

    return apply


def to_file(path: Path | None) -> Path | None:
    return None if path == STDOUT else path


def one_stdout(json_out: Path | None, md_out: Path | None) -> None:
    if json_out == md_out == STDOUT:
        raise click.UsageError(
            "--output-json - and --output-md -: only one report can go to stdout"
        )
