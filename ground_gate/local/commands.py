"""`ground-gate models list|pull`: see and fetch the known local judge models."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

import click
from tabulate import tabulate

from ground_gate.errors import ModelError
from ground_gate.local.model_cache import cached_status, default_model_dir
from ground_gate.local.registry import DEFAULT_MODEL, KNOWN_MODELS
from ground_gate.local.resolve import resolve_model

MB = 1_000_000


class ModelCommandError(click.ClickException):
    """A ModelError shown as one `Error: ...` line, exit code 2 (usage/config/data error)."""

    exit_code = 2


class ProgressRenderer:
    """Renders (what, done, total) progress: a rewritten bar on a terminal, sparse lines in logs."""

    def __init__(
        self,
        stream: TextIO | None = None,
        *,
        tty: bool | None = None,
        width: int = 30,
        line_every_s: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty() if tty is None else tty
        self.width = width
        self.line_every_s = line_every_s
        self._clock = clock
        self._what: str | None = None
        self._last_line_at = 0.0
        self._last_percent = -1
        self._open_bar = False

    def __call__(self, what: str, done: int, total: int) -> None:
        if what != self._what:
            self._end_bar()
            self._what = what
            self._last_percent = -1
            self._last_line_at = self._clock()
            if total <= 0 or not self.tty:
                self._write(f"{what}\n")
                if total <= 0:
                    return
        if total <= 0:
            return
        percent = min(100, done * 100 // total)
        if self.tty:
            if percent != self._last_percent:
                self._bar(what, done, total, percent)
        elif self._line_due(percent):
            self._write(f"  {percent}% ({done / MB:.1f} of {total / MB:.1f} MB)\n")
        self._last_percent = percent
        if done >= total:
            self._end_bar()
            self._what = None

    def close(self) -> None:
        self._end_bar()

    def _line_due(self, percent: int) -> bool:
        """A line at every tenth crossed, and at least every `line_every_s` while it moves."""
        if percent == self._last_percent:
            return False
        now = self._clock()
        crossed_tenth = percent // 10 > max(self._last_percent, 0) // 10
        if crossed_tenth or now - self._last_line_at >= self.line_every_s:
            self._last_line_at = now
            return True
        return False

    def _bar(self, what: str, done: int, total: int, percent: int) -> None:
        filled = self.width * percent // 100
        bar = "#" * filled + "-" * (self.width - filled)
        sizes = f"{done / MB:.1f}/{total / MB:.1f} MB"
        self._write(f"\r{what} [{bar}] {percent:3d}% {sizes}")
        self._open_bar = True

    def _end_bar(self) -> None:
        if self._open_bar:
            self._write("\n")
            self._open_bar = False

    def _write(self, text: str) -> None:
        self.stream.write(text)
        self.stream.flush()


model_dir_option = click.option(
    "--model-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Where model files are kept (default: $GROUND_GATE_MODEL_DIR or the user cache dir).",
)


@click.group("models")
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
    """Download NAME into the cache and verify its sha256; prints the file's path."""
    if name not in KNOWN_MODELS:
        known = ", ".join(KNOWN_MODELS)
        raise click.UsageError(f"unknown model {name!r}: expected one of {known}")
    renderer = ProgressRenderer()
    try:
        path = resolve_model(name, default_model_dir(model_dir), progress=renderer)
    except ModelError as exc:
        raise ModelCommandError(str(exc)) from exc
    finally:
        renderer.close()
    click.echo(str(path))
