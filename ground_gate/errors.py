"""Named errors raised by the inner layers; only the entry points (cli.py, action.py) turn them
into exit codes (outcome.py)."""

from __future__ import annotations


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


class MergeError(GroundGateError):
    """Shard reports that cannot be merged: missing or repeated shards, different configs,
    datasets or prompts, or a file that is not a valid report."""


class TargetError(GroundGateError):
    """The system under test could not answer: its rows that were answered are kept, the rest
    are not run (a command that died, a line that is not JSON, an app that is down)."""
