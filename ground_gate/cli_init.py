"""`ground-gate init`'s command line: a starter config and pull request workflow for one's
own rows (commands/init.py does the work, imported when the command runs)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Literal

import click

from ground_gate.cli_options import F, user_errors


def _column_option(role: str, names: str) -> Callable[[F], F]:
    return click.option(
        f"--{role}-column", metavar="NAME", help=f"The column holding the {role} {names}."
    )


@click.command()
@click.option(
    "--data",
    type=click.Path(path_type=Path),
    required=True,
    help="Your rows: a .jsonl, .json or .csv file, committed to the repository.",
)
@click.option(
    "-c",
    "--config",
    "config_path",
    type=click.Path(path_type=Path),
    default=Path("ground-gate.yml"),
    show_default=True,
    help="Where to write the config.",
)
@click.option(
    "--workflow",
    type=click.Path(path_type=Path),
    default=Path(".github/workflows/ground-gate.yml"),
    show_default=True,
    help="Where to write the pull request workflow (from the repository's root).",
)
@click.option("--no-workflow", is_flag=True, help="Write the config only.")
@_column_option("id", "(default: guessed; none: row-1, row-2, ...)")
@_column_option("question", "(default: guessed; none: judged against the source alone)")
@_column_option("context", "(the source; default: guessed)")
@_column_option("response", "(the answer or summary to judge; default: guessed)")
@click.option(
    "--judge",
    "judge_kind",
    type=click.Choice(["local", "openai"]),
    help="local: the embedded model, no key (the default with no --base-url); openai: "
    "OpenAI's API, or any OpenAI-compatible server with --base-url.",
)
@click.option("--model", help="The judge's model (default: gpt-4o-mini, or the local 1.5B).")
@click.option("--base-url", help="An OpenAI-compatible server, e.g. http://HOST:PORT/v1.")
@click.option(
    "--api-key-env",
    metavar="VAR",
    help="The NAME of the variable holding the judge's key (default: OPENAI_API_KEY).",
)
@click.option("--no-api-key", is_flag=True, help="The server needs no key.")
@click.option("--name", help="The dataset's name in reports (default: the data file's name).")
@click.option(
    "--action",
    "action_ref",
    help="The workflow's `uses:` of ground-gate's action (default: the GitHub repository "
    "ground-gate was installed from, else a placeholder, OWNER/ground-gate@v1, to replace).",
)
@click.option("--force", is_flag=True, help="Overwrite the config and workflow if they exist.")
@user_errors
def init(
    data: Path,
    config_path: Path,
    workflow: Path,
    no_workflow: bool,
    id_column: str | None,
    question_column: str | None,
    context_column: str | None,
    response_column: str | None,
    judge_kind: Literal["local", "openai"] | None,
    model: str | None,
    base_url: str | None,
    api_key_env: str | None,
    no_api_key: bool,
    name: str | None,
    action_ref: str | None,
    force: bool,
) -> None:
    """Write a starter config and pull request workflow for your own rows: their columns
    guessed (or named with --*-column), every row checked, no file overwritten without
    --force. Run it from the repository's root."""
    from ground_gate.commands.init import InitOptions, initialise

    given = {
        "id": id_column,
        "question": question_column,
        "context": context_column,
        "response": response_column,
    }
    options = InitOptions(
        data=data,
        config=config_path,
        workflow=None if no_workflow else workflow,
        columns={role: column for role, column in given.items() if column is not None},
        judge=judge_kind,
        model=model,
        base_url=base_url,
        api_key_env=api_key_env,
        no_api_key=no_api_key,
        name=name,
        action=action_ref,
        force=force,
    )
    initialise(options, click.echo)
