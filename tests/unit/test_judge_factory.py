"""open_judge for remote providers: the key, the client and the report's judge info."""

from __future__ import annotations

from typing import Any

import pytest

from ground_gate.config.model import JudgeConfig
from ground_gate.judge.factory import local_throughput, open_judge, reuses_prefix
from ground_gate.judge.openai_judge import OpenAIJudge
from ground_gate.leaves.errors import ConfigError
from ground_gate.local.registry import QWEN_CODER_0_5B, QWEN_CODER_1_5B

KEY = "sk-secret-abcdef0123456789"
ENV = {"OPENAI_API_KEY": KEY}


def opened(config: JudgeConfig, env: dict[str, str]) -> tuple[OpenAIJudge, dict[str, Any]]:
    lines: list[str] = []
    with open_judge(config, env, prompt_version="v7", no_cache=False, echo=lines.append) as (
        judge,
        info,
    ):
        assert isinstance(judge, OpenAIJudge)
    assert lines == []  # a remote judge has nothing to say
    return judge, info


async def test_open_judge__openai_by_default() -> None:
    judge, info = opened(JudgeConfig(), ENV)
    try:
        assert info == {
            "provider": "openai",
            "model": "gpt-4o-mini",
            "prompt_version": "v7",
            "endpoint": "api.openai.com",
        }
        assert (judge.host, judge.model, judge.context_tokens) == (
            "api.openai.com",
            "gpt-4o-mini",
            None,
        )
        assert judge.structured_format == "json_schema"  # "auto" starts with json_schema
    finally:
        await judge.aclose()


async def test_open_judge__a_base_url_is_named_in_the_info_and_needs_no_key() -> None:
    judge, info = opened(JudgeConfig(base_url="http://vllm.internal:8000/v1", model="qwen"), {})
    try:
        assert info["endpoint"] == "vllm.internal:8000"  # two servers of one host differ
        assert judge.host == "vllm.internal"
    finally:
        await judge.aclose()


async def test_open_judge__azure_takes_the_endpoint_from_the_environment() -> None:
    config = JudgeConfig(
        provider="azure", model="deploy", api_key_env="AZ", api_version="2024-10-21"
    )
    env = {"AZ": KEY, "AZURE_OPENAI_ENDPOINT": "https://r.openai.azure.com"}
    judge, info = opened(config, env)
    try:
        assert judge.host == "r.openai.azure.com"
        assert info["endpoint"] == "r.openai.azure.com"  # wherever the endpoint was given
    finally:
        await judge.aclose()


@pytest.mark.parametrize(
    ("config", "env", "message"),
    [
        (
            JudgeConfig(),
            {},
            "judge.api_key_env: the environment variable OPENAI_API_KEY holding the openai API "
            "key is not set",
        ),
        (
            JudgeConfig(api_key_env=None),
            ENV,
            "judge.api_key_env: the environment variable (none) holding the openai API key is "
            "not set",
        ),
        (
            JudgeConfig(provider="azure", base_url="https://r.openai.azure.com"),
            {},
            "judge.api_key_env: the environment variable OPENAI_API_KEY holding the azure API "
            "key is not set",
        ),
        (
            JudgeConfig(provider="azure", api_version="2024-10-21"),
            ENV,
            "judge.base_url: provider azure needs the endpoint, in judge.base_url or in the "
            "environment variable AZURE_OPENAI_ENDPOINT",
        ),
        (
            JudgeConfig(provider="azure", base_url="https://r.openai.azure.com"),
            ENV,
            "judge.api_version: an API version is required for azure",
        ),
    ],
)
def test_open_judge__says_what_is_missing(
    config: JudgeConfig, env: dict[str, str], message: str
) -> None:
    with (
        pytest.raises(ConfigError) as caught,
        open_judge(config, env, prompt_version="v7", no_cache=False, echo=print),
    ):
        pass
    assert str(caught.value) == message


@pytest.mark.parametrize("key", [f"{KEY}\u00a0", f" {KEY}", f"{KEY}\n", f"sk-\u00e9{KEY}"])
def test_open_judge__a_key_a_header_cannot_carry_is_refused_without_showing_it(key: str) -> None:
    with pytest.raises(ConfigError) as caught:
        opened(JudgeConfig(), {"OPENAI_API_KEY": key})
    assert "OPENAI_API_KEY" in str(caught.value)
    assert KEY not in str(caught.value) and key not in str(caught.value)


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        (JudgeConfig(provider="local", model="qwen2.5-coder-1.5b"), QWEN_CODER_1_5B.throughput),
        (
            JudgeConfig(provider="local", model="models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"),
            QWEN_CODER_0_5B.throughput,
        ),
        (JudgeConfig(provider="local", model="models/other.gguf"), None),  # not measured
        (JudgeConfig(model="qwen2.5-coder-1.5b", base_url="http://127.0.0.1:8080/v1"), None),
    ],
)
def test_local_throughput__the_known_local_models_only(config, expected) -> None:
    assert expected is None or expected.read_tokens_per_s > 0
    assert local_throughput(config) == expected


@pytest.mark.parametrize(("provider", "reuses"), [("local", True), ("openai", False)])
def test_reuses_prefix__the_local_server_only(provider, reuses) -> None:
    assert reuses_prefix(JudgeConfig(provider=provider, model="qwen2.5-coder-1.5b")) is reuses
