"""`ground-gate models list|pull`: see and fetch the known local judge models."""

from __future__ import annotations

from pathlib import Path

import click
from tabulate import tabulate

from ground_gate.leaves.errors import ModelError
from ground_gate.leaves.progress import MB, ByteProgress
from ground_gate.local.model_cache import cached_status, default_model_dir
from ground_gate.local.registry import DEFAULT_MODEL, KNOWN_MODELS
from ground_gate.local.resolve import resolve_model

model_dir_option = click.option(
    "--model-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Where model files are kept (default: $GROUND_GATE_MODEL_DIR or the user cache dir).",
)


@click.group("models", context_settings={"help_option_names": ["-h", "--help"]})
def models() -> None:
    """List and download the local judge's model files."""


@models.command("list")
@model_dir_option
def list_models(model_dir: Path | None) -> None:
    """Show the known models and whether each is in the cache, verified."""
    rows = []
    for model in KNOWN_MODELS.values():
        path, status = cached_status(model, model_dir)
        name = model.name + (" (default)" if model.name == DEFAULT_MODEL else "")
        rows.append([name, f"{model.size / MB:.0f} MB", model.license, status, str(path)])
    headers = ["model", "size", "license", "cache", "path"]
    click.echo(tabulate(rows, headers=headers, tablefmt="simple"))


@models.command("pull")
@click.argument("name")
@model_dir_option
def pull(name: str, model_dir: Path | None) -> None:
    """Download NAME into the cache and verify its sha256; prints the file's path. A model
    that cannot be obtained raises ModelError, which the command line prints as every user
    error is printed (cli.py)."""
    if name not in KNOWN_MODELS:
        known = ", ".join(KNOWN_MODELS)
        raise ModelError(f"unknown model {name!r}: expected one of {known}")
    renderer = ByteProgress()
    try:
        path = resolve_model(name, default_model_dir(model_dir), progress=renderer)
    finally:
        renderer.close()
    click.echo(str(path))
