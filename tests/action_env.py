"""The environment the runner gives the action's container, for every test that runs the
action: its inputs as action.yml declares them (each default as the runner passes it), and one
job's GITHUB_* variables with the file commands the runner creates empty for each step."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).parents[1]
ACTION: dict[str, Any] = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
FIXTURES = ROOT / "tests" / "fixtures" / "github"
REPO = "octo-org/octo-repo"
# what `${{ github.token }}` (github-token's default) gives a job
RUNNER_TOKEN = "ghs_token_from_the_expression"


def input_defaults() -> dict[str, str]:
    """Every input of action.yml with its default, as the runner passes it: a string, the
    token's expression already evaluated."""
    defaults = {name: str(spec.get("default", "")) for name, spec in ACTION["inputs"].items()}
    defaults["github-token"] = RUNNER_TOKEN
    return defaults


@dataclass(frozen=True)
class Commands:
    """The job's file commands: GITHUB_OUTPUT and GITHUB_STEP_SUMMARY."""

    output: Path
    summary: Path


def file_commands(folder: Path) -> Commands:
    folder.mkdir(parents=True, exist_ok=True)
    commands = Commands(folder / "set_output", folder / "step_summary")
    commands.output.write_text("")
    commands.summary.write_text("")
    return commands


def action_env(
    workspace: Path,
    commands: Commands,
    *,
    api_url: str,
    event: str = "pull_request",
    event_path: Path = FIXTURES / "pull_request.json",
    run_id: str = "9100000001",
    **inputs: str,
) -> dict[str, str]:
    """`ground-gate action`'s environment: action.yml's defaults, `inputs` over them (an
    input named with `_` or `-`), and the runner's variables for one job."""
    values = input_defaults()
    values.update({name.replace("_", "-"): value for name, value in inputs.items()})
    unknown = sorted(set(values) - set(ACTION["inputs"]))
    assert not unknown, f"not inputs of action.yml: {unknown}"
    env = {f"INPUT_{name.upper()}": value for name, value in values.items()}
    env.update(
        GITHUB_ACTIONS="true",
        GITHUB_REPOSITORY=REPO,
        GITHUB_EVENT_NAME=event,
        GITHUB_EVENT_PATH=str(event_path),
        GITHUB_WORKSPACE=str(workspace),
        GITHUB_API_URL=api_url,
        GITHUB_SERVER_URL="https://github.com",
        GITHUB_RUN_ID=run_id,
        GITHUB_OUTPUT=str(commands.output),
        GITHUB_STEP_SUMMARY=str(commands.summary),
    )
    return env
