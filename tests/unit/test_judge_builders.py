from __future__ import annotations

import pytest

from ground_gate.judge.clients import PLACEHOLDER_API_KEY, build_azure_client, build_openai_client
from ground_gate.judge.openai_judge import OpenAIJudge
from ground_gate.leaves.errors import ConfigError, JudgeUnavailableError

KEY = "sk-secret-abcdef0123456789"


async def test_build_openai_client__turns_off_the_sdks_own_retries() -> None:
    client = build_openai_client(KEY, "http://127.0.0.1:9/v1", 12.5)
    try:
        assert client.max_retries == 0
        assert client.timeout == 12.5
        assert str(client.base_url) == "http://127.0.0.1:9/v1/"
    finally:
        await client.close()


async def test_build_openai_client__defaults_to_openai() -> None:
    client = build_openai_client(KEY, None, 60)
    try:
        assert client.base_url.host == "api.openai.com"
    finally:
        await client.close()


async def test_build_openai_client__a_server_of_our_own_needs_no_key() -> None:
    client = build_openai_client(None, "http://127.0.0.1:9/v1", 5)
    try:
        assert client.api_key == PLACEHOLDER_API_KEY
    finally:
        await client.close()


def test_build_openai_client__openai_without_a_key_is_refused() -> None:
    with pytest.raises(JudgeUnavailableError) as caught:
        build_openai_client("", None, 5)
    assert str(caught.value) == (
        "no API key for the OpenAI judge: set the environment variable named by judge.api_key_env"
    )


async def test_build_azure_client__targets_the_endpoint() -> None:
    client = build_azure_client(KEY, "https://example-resource.openai.azure.com", "2024-10-21", 30)
    try:
        assert client.max_retries == 0
        assert client.base_url.host == "example-resource.openai.azure.com"
    finally:
        await client.close()


@pytest.mark.parametrize(
    ("key", "endpoint", "version", "error", "message"),
    [
        (
            KEY,
            None,
            "2024-10-21",
            ConfigError,
            "judge.base_url: the Azure OpenAI endpoint is required for azure",
        ),
        (
            KEY,
            "https://r.openai.azure.com",
            None,
            ConfigError,
            "judge.api_version: an API version is required for azure",
        ),
        (
            None,
            "https://r.openai.azure.com",
            "2024-10-21",
            JudgeUnavailableError,
            "no API key for the Azure OpenAI judge: set the environment variable named by "
            "judge.api_key_env",
        ),
    ],
)
def test_build_azure_client__says_what_is_missing(
    key: str | None,
    endpoint: str | None,
    version: str | None,
    error: type[Exception],
    message: str,
) -> None:
    with pytest.raises(error) as caught:
        build_azure_client(key, endpoint, version, 30)
    assert str(caught.value) == message


async def test_openai_judge__repr_and_properties_hide_the_key() -> None:
    client = build_openai_client(KEY, "http://127.0.0.1:9/v1", 5)
    judge = OpenAIJudge(
        client,
        model="qwen",
        prompt_version="1",
        max_concurrency=2,
        max_retries=1,
        timeout_s=5,
        cache=None,
        context_tokens=4096,
    )
    try:
        assert repr(judge) == "OpenAIJudge(model='qwen', host='127.0.0.1')"
        assert (judge.model, judge.context_tokens, judge.host) == ("qwen", 4096, "127.0.0.1")
        assert judge.structured_format == "json_schema"
        assert judge.usage_by_purpose() == {}
        assert KEY not in repr(judge) + repr(vars(judge))
    finally:
        await judge.aclose()


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("max_concurrency", 0, "max_concurrency must be at least 1"),
        ("max_retries", -1, "max_retries must not be negative"),
        ("timeout_s", 0, "timeout_s must be positive"),
    ],
)
async def test_openai_judge__rejects_impossible_settings(
    option: str, value: float, message: str
) -> None:
    client = build_openai_client(KEY, "http://127.0.0.1:9/v1", 5)
    options = {"max_concurrency": 1, "max_retries": 0, "timeout_s": 1.0, option: value}
    try:
        with pytest.raises(ValueError, match=message):
            OpenAIJudge(client, model="m", prompt_version="1", cache=None, **options)  # type: ignore[arg-type]
    finally:
        await client.close()
