"""Which pull request this run is about, from the event payload or the PR run's artifact.

https://docs.github.com/en/webhooks/webhook-events-and-payloads
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ground_gate.github.runner_files import read_event_payload
from ground_gate.leaves.errors import ConfigError

# Events whose payload carries the PR itself under `pull_request`.
PULL_REQUEST_EVENTS = frozenset(
    {
        "pull_request",
        "pull_request_target",
        "pull_request_review",
        "pull_request_review_comment",
    }
)
# Written beside the JSON report by the pull-request run, read back by the workflow_run run:
# a workflow_run payload lists no pull requests when the PR comes from a fork.
PR_NUMBER_FILE = "pr-number.txt"


def load_event(path: Path | None) -> dict[str, Any]:
    """The event payload (action_settings reads it the same way, once, before any work)."""
    return {} if path is None else read_event_payload(path)


def pr_number(event_name: str, payload: Mapping[str, Any]) -> int | None:
    """The PR number for PR events and comments on a PR; None for anything else, whatever
    shape the payload has."""
    if event_name in PULL_REQUEST_EVENTS:
        return _positive_int(_object(payload.get("pull_request")).get("number"))
    if event_name == "issue_comment":
        issue = _object(payload.get("issue"))
        # An issue_comment on a plain issue has no `pull_request` key.
        if issue.get("pull_request"):
            return _positive_int(issue.get("number"))
    return None


def workflow_run_head_sha(payload: Mapping[str, Any]) -> str | None:
    sha = _object(payload.get("workflow_run")).get("head_sha")
    return sha if isinstance(sha, str) and sha else None


def _object(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def read_pr_number_file(path: Path) -> int:
    """The PR number the pull-request run wrote. It comes from untrusted code: digits only."""
    try:
        text = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read the pull request number: {exc}") from exc
    number = _positive_int(int(text)) if text.isdigit() and len(text) <= 10 else None
    if number is None:
        raise ConfigError(
            f"{path}: expected a pull request number (digits only), got {text[:40]!r}"
        )
    return number


def write_pr_number_file(path: Path, number: int) -> None:
    path.write_text(f"{number}\n", encoding="ascii")


def _positive_int(value: Any) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    return None
