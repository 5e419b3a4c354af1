"""The action's settings, read from the environment once.

A Docker action receives each input as `INPUT_<NAME>` with the name upper-cased and hyphens
kept (`INPUT_FAIL-ON-THRESHOLD`), plus the runner's `GITHUB_*` variables.
https://docs.github.com/en/actions/sharing-automations/creating-actions/metadata-syntax-for-github-actions#inputs

Every variable has one small cleaner; `Settings.from_env` runs them all and reports every
missing or invalid variable in one ConfigError, so a user fixes the workflow in one go.
Secret values never appear in messages or in `repr()`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeVar

from ground_gate.config.overrides import JudgeOverrides
from ground_gate.datasets.shards import Shard, parse_shard
from ground_gate.github.runner_files import append_problem, read_event_payload
from ground_gate.leaves.errors import ConfigError

CommentMode = Literal["auto", "always", "never"]

DEFAULT_CONFIG = "ground-gate.yml"
DEFAULT_API_URL = "https://api.github.com"
DEFAULT_SERVER_URL = "https://github.com"
DEFAULT_COMMENT_ID = "default"

_REPOSITORY = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")
# The comment id goes inside an HTML comment: no `-->`, no spaces, nothing a reader must escape.
_COMMENT_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
# GitHub's own boolean inputs accept the YAML 1.2 core-schema spellings only.
# https://github.com/actions/toolkit/blob/main/packages/core/src/core.ts (getBooleanInput)
_TRUE = ("true", "True", "TRUE")
_FALSE = ("false", "False", "FALSE")

T = TypeVar("T")


class _Invalid(ValueError):
    """Raised by a cleaner; the message says what was expected (never the secret value)."""


@dataclass(frozen=True)
class Settings:
    """Everything `ground-gate action` needs from its environment."""

    # Inputs (action.yml)
    config: Path
    working_directory: Path
    comment: CommentMode
    comment_id: str
    baseline: Path | None
    judge_all: bool  # with a baseline: judge every row, even once the decision is settled
    fail_on_threshold: bool
    shard: Shard | None  # score this shard only; never comment (the merge job does)
    merge: str | None  # a glob of shard reports to merge instead of evaluating
    openai_base_url: str | None
    azure_endpoint: str | None
    azure_api_version: str | None
    openai_api_key: str | None = field(repr=False)
    github_token: str | None = field(repr=False)
    # The runner
    repository: str
    event_name: str
    event_path: Path | None
    # the payload at event_path, read and checked once (empty without one)
    event: Mapping[str, Any] = field(repr=False, compare=False)
    api_url: str
    server_url: str
    output_path: Path | None
    step_summary_path: Path | None
    workspace: Path
    run_id: str | None

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Settings:
        errors: list[str] = []

        def take(name: str, cleaner: Callable[[str], T]) -> T:
            try:
                return cleaner(env.get(name, "").strip())
            except _Invalid as exc:
                errors.append(f"{name}: {exc}")
                return None  # type: ignore[return-value]  # discarded: we raise below

        workspace = take("GITHUB_WORKSPACE", _workspace)
        working_directory = take("INPUT_WORKING-DIRECTORY", _relative_dir(workspace))
        base = working_directory or workspace or Path.cwd()
        values: dict[str, Any] = {
            "config": take("INPUT_CONFIG", _config_path(base)),
            "working_directory": working_directory,
            "comment": take("INPUT_COMMENT", _comment_mode),
            "comment_id": take("INPUT_COMMENT-ID", _comment_id),
            "baseline": take("INPUT_BASELINE", _optional_path(base)),
            "judge_all": take("INPUT_JUDGE-ALL", _boolean(default=False)),
            "fail_on_threshold": take("INPUT_FAIL-ON-THRESHOLD", _boolean(default=True)),
            "shard": take("INPUT_SHARD", _optional_shard),
            "merge": take("INPUT_MERGE", _optional_glob),
            "openai_base_url": take("INPUT_OPENAI-BASE-URL", _optional_url),
            "azure_endpoint": take("INPUT_AZURE-ENDPOINT", _optional_url),
            "azure_api_version": take("INPUT_AZURE-API-VERSION", _optional_token),
            "openai_api_key": take("INPUT_OPENAI-API-KEY", _secret),
            "github_token": take("INPUT_GITHUB-TOKEN", _secret),
            "repository": take("GITHUB_REPOSITORY", _repository),
            "event_name": take("GITHUB_EVENT_NAME", _required),
            "event_path": take("GITHUB_EVENT_PATH", _optional_plain_path),
            "event": take("GITHUB_EVENT_PATH", _event_payload),
            "api_url": take("GITHUB_API_URL", _url(default=DEFAULT_API_URL)),
            "server_url": take("GITHUB_SERVER_URL", _url(default=DEFAULT_SERVER_URL)),
            "output_path": take("GITHUB_OUTPUT", _optional_file),
            "step_summary_path": take("GITHUB_STEP_SUMMARY", _optional_file),
            "workspace": workspace,
            "run_id": take("GITHUB_RUN_ID", _optional_digits),
        }
        errors += _judge_conflicts(values) + _mode_conflicts(values)
        if values["shard"] is not None and values["comment"] == "auto":
            values["comment"] = "never"
        if errors:
            raise ConfigError(
                "the action's environment is incomplete or invalid:\n"
                + "\n".join(f"  - {e}" for e in errors)
            )
        return cls(**values)

    @property
    def owner_and_repo(self) -> tuple[str, str]:
        owner, _, name = self.repository.partition("/")
        return owner, name

    @property
    def run_url(self) -> str | None:
        if self.run_id is None:
            return None
        return f"{self.server_url}/{self.repository}/actions/runs/{self.run_id}"

    @property
    def publish_only(self) -> bool:
        """A `workflow_run` run publishes the report a pull-request run left as an artifact.

        It runs with a write token and secrets, so it must never evaluate the PR's code or data:
        https://securitylab.github.com/resources/github-actions-preventing-pwn-requests/
        """
        return self.event_name == "workflow_run"


def _judge_conflicts(values: Mapping[str, Any]) -> list[str]:
    if values["openai_base_url"] and values["azure_endpoint"]:
        return ["INPUT_OPENAI-BASE-URL and INPUT_AZURE-ENDPOINT: set one of them, not both"]
    return []


def _mode_conflicts(values: Mapping[str, Any]) -> list[str]:
    """What `shard` cannot go with: one PR comment is written, by the merge job."""
    if values["shard"] is None:
        return []
    if values["merge"]:
        return ["INPUT_SHARD and INPUT_MERGE: a step runs a shard or merges them, not both"]
    if values["comment"] == "always":
        return ["INPUT_SHARD: a shard never comments (the merge job does); remove comment: always"]
    if values["event_name"] == "workflow_run":
        return ["INPUT_SHARD: a workflow_run run never evaluates; run the shards on pull_request"]
    return []


# The judge reads its key from the variable the runner already set for the input: the secret
# is never copied into another variable.
API_KEY_INPUT_ENV = "INPUT_OPENAI-API-KEY"


def judge_overrides(settings: Settings) -> JudgeOverrides:
    """The judge's keys set by the action's inputs (for commands/run.py's RunOptions).

    `openai-base-url` means an OpenAI-compatible server (provider openai, even over a local
    config); `azure-endpoint` means Azure OpenAI (Settings refuses the two together).
    """
    provider: Literal["openai", "azure"] | None = None
    base_url = None
    if settings.openai_base_url:
        provider, base_url = "openai", settings.openai_base_url
    if settings.azure_endpoint:
        provider, base_url = "azure", settings.azure_endpoint
    return JudgeOverrides(
        provider=provider,
        base_url=base_url,
        api_version=settings.azure_api_version or None,
        api_key_env=API_KEY_INPUT_ENV if settings.openai_api_key else None,
    )


# --- cleaners: one per kind of variable; each gets the stripped raw value ---------------------


def _required(raw: str) -> str:
    if not raw:
        raise _Invalid("missing (the runner sets it; are you running outside GitHub Actions?)")
    return raw


def _repository(raw: str) -> str:
    if not _REPOSITORY.fullmatch(_required(raw)):
        raise _Invalid(f"expected 'owner/name', got {raw!r}")
    return raw


def _workspace(raw: str) -> Path:
    return Path(raw) if raw else Path.cwd()


def _relative_dir(workspace: Path | None) -> Callable[[str], Path]:
    def clean(raw: str) -> Path:
        path = (workspace or Path.cwd()) / (raw or ".")
        if not path.is_dir():
            raise _Invalid(f"expected a directory relative to the workspace, got {raw!r}")
        return path

    return clean


def _config_path(base: Path) -> Callable[[str], Path]:
    def clean(raw: str) -> Path:
        return base / (raw or DEFAULT_CONFIG)

    return clean


def _optional_path(base: Path) -> Callable[[str], Path | None]:
    def clean(raw: str) -> Path | None:
        return base / raw if raw else None

    return clean


def _optional_plain_path(raw: str) -> Path | None:
    return Path(raw) if raw else None


def _optional_file(raw: str) -> Path | None:
    if not raw:
        return None
    problem = append_problem(Path(raw))
    if problem is not None:
        raise _Invalid(problem)
    return Path(raw)


def _event_payload(raw: str) -> Mapping[str, Any]:
    """The event payload, read now: a payload that cannot be read fails the step before any
    evaluation, with every other problem of the environment."""
    if not raw:
        return {}
    if not Path(raw).exists():
        raise _Invalid(f"expected the event payload file, {raw!r} does not exist")
    try:
        return read_event_payload(Path(raw))
    except ConfigError as exc:
        raise _Invalid(str(exc)) from None


def _optional_shard(raw: str) -> Shard | None:
    if not raw:
        return None
    try:
        return parse_shard(raw)
    except ValueError as exc:
        raise _Invalid(str(exc)) from None


def _optional_glob(raw: str) -> str | None:
    """A glob relative to working-directory, e.g. ground-gate-shards/*/report.json."""
    if not raw:
        return None
    if raw.startswith(("/", "\\")) or re.match(r"[A-Za-z]:", raw) or "\0" in raw:
        raise _Invalid(
            f"expected a glob relative to working-directory, e.g. "
            f"ground-gate-shards/*/report.json, got {raw!r}"
        )
    return raw


def _comment_mode(raw: str) -> CommentMode:
    modes: dict[str, CommentMode] = {"auto": "auto", "always": "always", "never": "never"}
    if (raw or "auto") in modes:
        return modes[raw or "auto"]
    raise _Invalid(f"expected one of auto, always, never, got {raw!r}")


def _comment_id(raw: str) -> str:
    value = raw or DEFAULT_COMMENT_ID
    if not _COMMENT_ID.fullmatch(value):
        raise _Invalid(
            f"expected letters, digits, '.', '_' or '-' (at most 64, starting with a letter or "
            f"digit), got {raw!r}"
        )
    return value


def _boolean(*, default: bool) -> Callable[[str], bool]:
    def clean(raw: str) -> bool:
        if not raw:
            return default
        if raw in _TRUE:
            return True
        if raw in _FALSE:
            return False
        raise _Invalid(f"expected true or false, got {raw!r}")

    return clean


def _url(*, default: str) -> Callable[[str], str]:
    def clean(raw: str) -> str:
        return _optional_url(raw) or default

    return clean


def _optional_url(raw: str) -> str | None:
    if not raw:
        return None
    if not re.fullmatch(r"https?://[^\s/$.?#][^\s]*", raw):
        raise _Invalid(f"expected an http(s) URL, got {raw!r}")
    return raw.rstrip("/")


def _optional_token(raw: str) -> str | None:
    if not raw:
        return None
    if re.search(r"\s", raw):
        raise _Invalid(f"expected a single word such as 2024-10-21, got {raw!r}")
    return raw


def _secret(raw: str) -> str | None:
    if not raw:
        return None
    if "\n" in raw or "\r" in raw:
        # Never echo the value: say what is wrong with it only.
        raise _Invalid("expected a single line (the value contains a line break)")
    return raw


def _optional_digits(raw: str) -> str | None:
    if not raw:
        return None
    if not raw.isdigit():
        raise _Invalid(f"expected digits, got {raw!r}")
    return raw
