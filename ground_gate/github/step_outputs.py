"""Workflow commands and environment files: outputs, job summary, masks, annotations.

https://docs.github.com/en/actions/writing-workflows/choosing-what-your-workflow-does/workflow-commands-for-github-actions
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import TextIO

from ground_gate.github.body_limit import fit_body
from ground_gate.leaves.errors import GitHubError
from ground_gate.leaves.masking import mask

# The runner refuses to upload a step summary over 1 MiB ("upload aborted").
# https://docs.github.com/en/actions/writing-workflows/choosing-what-your-workflow-does/workflow-commands-for-github-actions#step-isolation-and-limits
STEP_SUMMARY_LIMIT_BYTES = 1024 * 1024


def escape_data(value: str) -> str:
    """Escape a command's message, as actions/toolkit's escapeData does."""
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(value: str) -> str:
    """Escape a command property (`title=...`): also `:` and `,`, which end a property."""
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")


def command(name: str, message: str, properties: Mapping[str, str] | None = None) -> str:
    """One workflow command line, e.g. `::error title=x::message`."""
    props = ",".join(f"{k}={escape_property(v)}" for k, v in (properties or {}).items() if v)
    head = f"::{name} {props}" if props else f"::{name}"
    return f"{head}::{escape_data(message)}"


def add_mask(secret: str, out: TextIO) -> None:
    """Ask the runner to replace the secret with *** in every later log line."""
    # A multi-line value is masked line by line by the runner only if each line is registered.
    for line in secret.splitlines() or [secret]:
        if line.strip():
            print(command("add-mask", line), file=out)


def say(line: str, out: TextIO) -> None:
    """One line of the step's log (secrets masked)."""
    print(mask(line), file=out)


def annotate(level: str, message: str, out: TextIO, *, title: str | None = None) -> None:
    """An `::error::` / `::warning::` / `::notice::` annotation shown on the run's summary page
    (secrets masked: ground_gate/leaves/masking.py)."""
    props = {"title": mask(title)} if title else None
    print(command(level, mask(message), props), file=out)


def write_outputs(path: Path | None, outputs: Mapping[str, str]) -> None:
    """Append step outputs to the GITHUB_OUTPUT file, each as a `name<<DELIMITER` block.

    The block form is safe for any value, multi-line included, as long as the delimiter
    appears nowhere in it; a random one per value makes that certain.
    """
    if path is None:
        return
    blocks = []
    for name, value in outputs.items():
        value = mask(value)
        delimiter = _delimiter(name, value)
        blocks.append(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")
    _append(path, "".join(blocks), "GITHUB_OUTPUT")


def append_step_summary(path: Path | None, markdown: str, *, note: str) -> bool:
    """Append markdown to the job summary, trimmed to what is left of the 1 MiB limit.

    Returns whether the markdown had to be trimmed.
    """
    if path is None:
        return False
    try:
        used = path.stat().st_size if path.exists() else 0
    except OSError as exc:
        raise GitHubError(f"cannot write the job summary {path}: {exc.strerror}") from None
    budget = STEP_SUMMARY_LIMIT_BYTES - used
    separator = "\n" if used else ""
    text = separator + mask(markdown).rstrip("\n") + "\n"
    fitted = fit_body(text, budget, note=note, measure=_utf8_len)
    _append(path, fitted, "the job summary")
    return fitted != text


def _append(path: Path, text: str, what: str) -> None:
    """Append to a file the runner reads after the step; GitHubError when it cannot be."""
    try:
        with path.open("a", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
    except OSError as exc:
        raise GitHubError(f"cannot write {what} {path}: {exc.strerror or exc}") from None


def _utf8_len(text: str) -> int:
    return len(text.encode("utf-8"))


def _delimiter(name: str, value: str) -> str:
    while True:
        candidate = f"ghadelimiter_{uuid.uuid4()}"
        if candidate not in name and candidate not in value:
            return candidate
