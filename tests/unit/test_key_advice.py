"""A judge key the config names but the environment lacks is said before the run asks
anything (config/advice.key_advice), and never its value."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from ground_gate.config.advice import key_advice
from ground_gate.config.loader import load_config
from ground_gate.config.model import Config

CONFIG = """\
version: 1
judge: {provider: openai, base_url: "http://127.0.0.1:9/v1", model: m, api_key_env: TEAM_JUDGE_KEY}
datasets: [{name: d, path: rows.jsonl}]
metrics: {groundedness: {}}
"""


def _config(tmp_path: Path) -> Config:
    (tmp_path / "rows.jsonl").write_text('{"id": "a", "context": "x", "response": "x"}\n')
    (tmp_path / "gg.yml").write_text(CONFIG)
    return load_config(tmp_path / "gg.yml", {})


def test_key_advice__a_named_variable_not_set_is_said(tmp_path: Path) -> None:
    config = _config(tmp_path)
    said = key_advice(config, {})
    assert said == (
        "judge.api_key_env: the environment variable TEAM_JUDGE_KEY is not set, so the judge "
        "is called with no key"
    )
    assert key_advice(config, {"TEAM_JUDGE_KEY": "sk-secret"}) is None


def test_key_advice__a_keyless_server_on_the_default_variable_and_the_local_judge_say_nothing(
    tmp_path: Path,
) -> None:
    config = _config(tmp_path)
    default = replace(config, judge=replace(config.judge, api_key_env="OPENAI_API_KEY"))
    assert key_advice(default, {}) is None
    local = replace(config, judge=replace(config.judge, provider="local"))
    assert key_advice(local, {}) is None
