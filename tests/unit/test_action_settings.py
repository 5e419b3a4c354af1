from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from ground_gate.action_settings import Settings, judge_overrides
from ground_gate.config.model import Config, JudgeConfig, MetricsConfig
from ground_gate.config.overrides import JudgeOverrides, with_overrides
from ground_gate.datasets.shards import Shard
from ground_gate.leaves.errors import ConfigError
from tests.action_env import FIXTURES, input_defaults


def runner_env(workspace: Path, **inputs: str) -> dict[str, str]:
    """What the runner gives a Docker action, with action.yml's defaults applied."""
    values = {**input_defaults(), "github-token": "ghs_secret_token_value"}
    values.update({k.replace("_", "-"): v for k, v in inputs.items()})
    env = {f"INPUT_{name.upper()}": value for name, value in values.items()}
    env.update(
        GITHUB_REPOSITORY="octo-org/octo-repo",
        GITHUB_EVENT_NAME="pull_request",
        GITHUB_EVENT_PATH=str(FIXTURES / "pull_request.json"),
        GITHUB_WORKSPACE=str(workspace),
        GITHUB_RUN_ID="9100000001",
        GITHUB_API_URL="https://api.github.com",
        GITHUB_SERVER_URL="https://github.com",
    )
    return env


def test_settings__defaults_from_a_pull_request_run(tmp_path: Path) -> None:
    settings = Settings.from_env(runner_env(tmp_path))
    assert settings.config == tmp_path / "ground-gate.yml"
    assert settings.working_directory == tmp_path / "."
    assert settings.comment == "auto"
    assert settings.comment_id == "default"
    assert settings.baseline is None
    assert settings.judge_all is False  # against a baseline, judging stops once settled
    assert settings.fail_on_threshold is True
    assert settings.github_token == "ghs_secret_token_value"
    assert settings.openai_api_key is None
    assert settings.repository == "octo-org/octo-repo"
    assert settings.owner_and_repo == ("octo-org", "octo-repo")
    assert settings.api_url == "https://api.github.com"
    assert settings.run_url == "https://github.com/octo-org/octo-repo/actions/runs/9100000001"
    assert settings.publish_only is False
    assert settings.output_path is None and settings.step_summary_path is None


def test_settings__inputs_keep_their_hyphens(tmp_path: Path) -> None:
    (tmp_path / "evals").mkdir()
    settings = Settings.from_env(
        runner_env(
            tmp_path,
            working_directory="evals",
            config="gate.yml",
            baseline="main-report.json",
            fail_on_threshold="False",
            judge_all="true",
            comment="never",
            comment_id="support-bot.v2",
            openai_api_key="sk-live-123",
            openai_base_url="https://llm.example.com/v1/",
            azure_api_version="2024-10-21",
        )
    )
    assert settings.working_directory == tmp_path / "evals"
    assert settings.config == tmp_path / "evals" / "gate.yml"
    assert settings.baseline == tmp_path / "evals" / "main-report.json"
    assert settings.fail_on_threshold is False
    assert settings.judge_all is True
    assert settings.comment == "never"
    assert settings.comment_id == "support-bot.v2"
    assert settings.openai_api_key == "sk-live-123"
    assert settings.openai_base_url == "https://llm.example.com/v1"
    assert settings.azure_api_version == "2024-10-21"


def test_settings__repr_hides_secrets(tmp_path: Path) -> None:
    settings = Settings.from_env(runner_env(tmp_path, openai_api_key="sk-live-123"))
    text = repr(settings)
    assert "sk-live-123" not in text
    assert "ghs_secret_token_value" not in text
    assert "openai_api_key" not in text and "github_token" not in text
    assert "comment_id='default'" in text


def test_settings__every_problem_reported_at_once(tmp_path: Path) -> None:
    env = runner_env(
        tmp_path,
        comment="sometimes",
        comment_id="bad id -->",
        fail_on_threshold="yes",
        working_directory="missing-dir",
        openai_base_url="ftp://llm",
        github_token="ghs_line1\nline2",
    )
    del env["GITHUB_REPOSITORY"]
    env["GITHUB_EVENT_NAME"] = ""
    env["GITHUB_EVENT_PATH"] = str(tmp_path / "event.json")
    env["GITHUB_RUN_ID"] = "abc"
    with pytest.raises(ConfigError) as caught:
        Settings.from_env(env)
    assert str(caught.value) == (
        "the action's environment is incomplete or invalid:\n"
        "  - INPUT_WORKING-DIRECTORY: expected a directory relative to the workspace, "
        "got 'missing-dir'\n"
        "  - INPUT_COMMENT: expected one of auto, always, never, got 'sometimes'\n"
        "  - INPUT_COMMENT-ID: expected letters, digits, '.', '_' or '-' (at most 64, starting "
        "with a letter or digit), got 'bad id -->'\n"
        "  - INPUT_FAIL-ON-THRESHOLD: expected true or false, got 'yes'\n"
        "  - INPUT_OPENAI-BASE-URL: expected an http(s) URL, got 'ftp://llm'\n"
        "  - INPUT_GITHUB-TOKEN: expected a single line (the value contains a line break)\n"
        "  - GITHUB_REPOSITORY: missing (the runner sets it; are you running outside GitHub "
        "Actions?)\n"
        "  - GITHUB_EVENT_NAME: missing (the runner sets it; are you running outside GitHub "
        "Actions?)\n"
        f"  - GITHUB_EVENT_PATH: expected the event payload file, "
        f"{str(tmp_path / 'event.json')!r} does not exist\n"
        "  - GITHUB_RUN_ID: expected digits, got 'abc'"
    )
    assert "ghs_line1" not in str(caught.value)


def test_settings__empty_inputs_take_the_documented_defaults(tmp_path: Path) -> None:
    env = {k: ("" if k.startswith("INPUT_") else v) for k, v in runner_env(tmp_path).items()}
    env.pop("GITHUB_API_URL")
    settings = Settings.from_env(env)
    assert settings.config == tmp_path / "ground-gate.yml"
    assert (settings.comment, settings.comment_id) == ("auto", "default")
    assert settings.fail_on_threshold is True
    assert settings.github_token is None
    assert settings.api_url == "https://api.github.com"


def test_settings__workflow_run_publishes_only(tmp_path: Path) -> None:
    env = runner_env(tmp_path)
    env["GITHUB_EVENT_NAME"] = "workflow_run"
    env["GITHUB_EVENT_PATH"] = str(FIXTURES / "workflow_run_fork.json")
    assert Settings.from_env(env).publish_only is True


def test_settings__base_url_and_azure_endpoint_conflict(tmp_path: Path) -> None:
    env = runner_env(
        tmp_path,
        openai_base_url="https://llm.example.com/v1",
        azure_endpoint="https://my-resource.openai.azure.com",
    )
    with pytest.raises(ConfigError) as caught:
        Settings.from_env(env)
    assert str(caught.value) == (
        "the action's environment is incomplete or invalid:\n"
        "  - INPUT_OPENAI-BASE-URL and INPUT_AZURE-ENDPOINT: set one of them, not both"
    )


def test_settings__shard_parsed_as_run_shard_parses_it_and_never_comments(
    tmp_path: Path,
) -> None:
    settings = Settings.from_env(runner_env(tmp_path, shard=" 2 / 4 "))
    assert settings.shard == Shard(2, 4)
    assert settings.merge is None
    assert settings.comment == "never"  # auto: one comment per pull request, the merge job's
    assert Settings.from_env(runner_env(tmp_path)).shard is None


def test_settings__merge_is_a_glob_relative_to_the_working_directory(tmp_path: Path) -> None:
    settings = Settings.from_env(runner_env(tmp_path, merge="ground-gate-shards/*/report.json"))
    assert settings.merge == "ground-gate-shards/*/report.json"
    assert settings.shard is None
    assert settings.comment == "auto"


def shard_problems(tmp_path: Path, event: str = "pull_request", **inputs: str) -> list[str]:
    env = runner_env(tmp_path, **inputs)
    env["GITHUB_EVENT_NAME"] = event
    with pytest.raises(ConfigError) as caught:
        Settings.from_env(env)
    return str(caught.value).splitlines()[1:]


@pytest.mark.parametrize(
    ("inputs", "event", "problem"),
    [
        ({"shard": "5/4"}, "pull_request", "INPUT_SHARD: '5/4': K must be between 1 and N (4)"),
        ({"shard": "two"}, "pull_request", "INPUT_SHARD: 'two': expected K/N, e.g. 1/4"),
        ({"merge": "/shards/*.json"}, "pull_request", "INPUT_MERGE: expected a glob relative to"),
        (
            {"shard": "1/4", "merge": "s/*.json"},
            "pull_request",
            "INPUT_SHARD and INPUT_MERGE: a step runs a shard or merges them, not both",
        ),
        (
            {"shard": "1/4", "comment": "always"},
            "pull_request",
            "INPUT_SHARD: a shard never comments (the merge job does); remove comment: always",
        ),
        (
            {"shard": "1/4"},
            "workflow_run",
            "INPUT_SHARD: a workflow_run run never evaluates; run the shards on pull_request",
        ),
    ],
)
def test_settings__shard_and_merge_problems(
    tmp_path: Path, inputs: dict[str, str], event: str, problem: str
) -> None:
    (found,) = shard_problems(tmp_path, event, **inputs)
    assert found.startswith(f"  - {problem}"), found


def test_judge_overrides__key_read_from_the_input_variable(tmp_path: Path) -> None:
    env = runner_env(
        tmp_path, openai_api_key="sk-live-123", openai_base_url="https://llm.example.com/v1"
    )
    overrides = judge_overrides(Settings.from_env(env))
    assert overrides == JudgeOverrides(
        provider="openai",
        base_url="https://llm.example.com/v1",
        api_key_env="INPUT_OPENAI-API-KEY",
    )
    local = Config(JudgeConfig(provider="local", api_key_env=None), (), MetricsConfig())
    judge = with_overrides(local, overrides).judge
    assert judge == replace(
        local.judge,
        provider="openai",
        base_url="https://llm.example.com/v1",
        api_key_env="INPUT_OPENAI-API-KEY",
    )
    assert env[judge.api_key_env or ""] == "sk-live-123"


def test_judge_overrides__azure(tmp_path: Path) -> None:
    settings = Settings.from_env(
        runner_env(
            tmp_path,
            openai_api_key="azure-key",
            azure_endpoint="https://my-resource.openai.azure.com",
            azure_api_version="2024-10-21",
        )
    )
    assert judge_overrides(settings) == JudgeOverrides(
        provider="azure",
        base_url="https://my-resource.openai.azure.com",
        api_version="2024-10-21",
        api_key_env="INPUT_OPENAI-API-KEY",
    )


def test_judge_overrides__no_inputs_no_change(tmp_path: Path) -> None:
    overrides = judge_overrides(Settings.from_env(runner_env(tmp_path)))
    assert overrides == JudgeOverrides()
    config = Config(JudgeConfig(), (), MetricsConfig())
    assert with_overrides(config, overrides) is config
