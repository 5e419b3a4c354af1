"""Named errors raised by the inner layers, and how a bad value is described in their
messages (`expected X, got <this>`). Only the entry points (cli.py, action.py) turn errors into
exit codes (exit_codes.py). Stdlib only: any layer may use it.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

_SHOWN_TEXT = 60  # a longer string is cut to this many characters, "..." included
_SHOWN_DIGITS = 20  # a longer integer is named by its number of digits


class GroundGateError(Exception):
    """Base class: a problem the user can act on; printed as one line, no traceback."""


class ConfigError(GroundGateError):
    """The YAML config is unreadable or does not match the schema."""


class DatasetError(GroundGateError):
    """A dataset file or one of its rows is unusable."""


class JudgeError(GroundGateError):
    """The judge could not be reached or kept answering with unusable output."""


class JudgeUnavailableError(JudgeError):
    """The judge endpoint is down or refuses us (connection, auth, exhausted retries)."""


class ModelError(GroundGateError):
    """A local model file could not be obtained, verified or served."""


class GitHubError(GroundGateError):
    """A GitHub API call failed."""


class ArtifactRefused(GroundGateError):
    """A pull request run's report (the fork-safe workflow_run half) is not a report
    ground-gate writes: nothing is posted. (Exit 2, as every GroundGateError.)"""


class MergeError(GroundGateError):
    """Shard reports that cannot be merged: missing or repeated shards, different configs,
    datasets or prompts, or a file that is not a valid report."""


def digit_count(number: int) -> int:
    """The decimal digits of `number`, without printing it: Python refuses to turn an integer
    of more than 4,300 digits into text."""
    number = abs(number)
    digits = max(1, int(number.bit_length() * math.log10(2)))
    while 10**digits <= number:
        digits += 1
    while digits > 1 and 10 ** (digits - 1) > number:
        digits -= 1
    return digits


class LongInteger(NamedTuple):
    """An integer of more digits than a reader keeps (JSON's `parse_int` hook gives it): Python
    refuses to read one of more than 4,300 digits, so it is named by its length instead."""

    digits: int


def long_integer(text: str, max_digits: int = 1000) -> int | LongInteger:
    """A JSON integer: the int, or a LongInteger past `max_digits` digits."""
    digits = len(text.lstrip("-"))
    return int(text) if digits <= max_digits else LongInteger(digits)


def describe_value(value: Any, *, show_text: bool = True, mapping: str = "a mapping") -> str:
    """`null`, `true`, `3`, `'text'`, `a list`, `a mapping`...

    show_text: quote a string itself (cut to 60 characters), or just say "a string" (dataset
    text is long, and the message already names the row and column).
    mapping: what a dict is called in the file's own terms ("a mapping" in YAML, "an object" in
    JSON).
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int) and abs(value) >= 10**_SHOWN_DIGITS:
        return f"an integer of {digit_count(value):,} digits"
    if isinstance(value, LongInteger):
        return f"an integer of {value.digits:,} digits"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        if not show_text:
            return "a string"
        cut = _SHOWN_TEXT - 3
        return repr(value if len(value) <= _SHOWN_TEXT else value[:cut] + "...")
    if isinstance(value, dict):
        return mapping
    if isinstance(value, list):
        return "a list"
    return type(value).__name__


def describe_json_value(value: Any) -> str:
    """`describe_value` in a dataset's terms: a dict is "an object", text is not quoted."""
    return describe_value(value, show_text=False, mapping="an object")


class TargetError(GroundGateError):
    """The system under test could not answer: its rows that were answered are kept, the rest
    are not run (a command that died, a line that is not JSON, an app that is down)."""
