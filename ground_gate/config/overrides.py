"""What the action's inputs change of the config's judge, as a typed value (mypy checks each
field against JudgeConfig's), applied once the config is loaded."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TypeVar

from ground_gate.config.model import Config, Provider

T = TypeVar("T")


@dataclass(frozen=True)
class JudgeOverrides:
    """The judge's keys set by the action's inputs; None: as the config has it."""

    provider: Provider | None = None
    base_url: str | None = None
    api_version: str | None = None
    api_key_env: str | None = None  # the variable the runner set for the key's input


def with_overrides(config: Config, overrides: JudgeOverrides) -> Config:
    """`config` with its judge's keys replaced by those `overrides` sets (the same `config`
    when it sets none). Only the judge changes: a prompt target's model keeps its own keys."""
    if overrides == JudgeOverrides():
        return config
    judge = config.judge
    changed = replace(
        judge,
        provider=_or(overrides.provider, judge.provider),
        base_url=_or(overrides.base_url, judge.base_url),
        api_version=_or(overrides.api_version, judge.api_version),
        api_key_env=_or(overrides.api_key_env, judge.api_key_env),
    )
    return replace(config, judge=changed)


def _or(override: T | None, value: T) -> T:
    return value if override is None else override
