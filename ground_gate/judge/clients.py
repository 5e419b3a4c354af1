"""The transport: SDK clients for OpenAI, any OpenAI-compatible server, and Azure OpenAI.

The SDK's own retries are off (max_retries=0): the judge retries by one policy of its own
(`failures.py`) that covers every server, counts retries in Usage, honours Retry-After, and
stops the whole run at once when the endpoint is down. Every body they read is bounded
(`transport.py`).
"""

from __future__ import annotations

import openai

from ground_gate.judge.transport import bounded_http_client
from ground_gate.leaves.errors import ConfigError, JudgeUnavailableError

DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1"
# Local and self-hosted servers ignore the key, but the SDK insists on having one.
PLACEHOLDER_API_KEY = "not-needed"


def build_openai_client(
    api_key: str | None, base_url: str | None, timeout_s: float
) -> openai.AsyncOpenAI:
    """A client for OpenAI or any compatible server; a server of our own needs no key."""
    if not api_key:
        if base_url is None:
            raise JudgeUnavailableError(
                "no API key for the OpenAI judge: set the environment variable named by "
                "judge.api_key_env"
            )
        api_key = PLACEHOLDER_API_KEY
    return openai.AsyncOpenAI(
        api_key=api_key,
        base_url=base_url or DEFAULT_OPENAI_BASE_URL,
        timeout=timeout_s,
        max_retries=0,
        http_client=bounded_http_client(),
    )


def build_azure_client(
    api_key: str | None, endpoint: str | None, api_version: str | None, timeout_s: float
) -> openai.AsyncAzureOpenAI:
    """An Azure OpenAI client; `model` in the judge is then the deployment name."""
    if not endpoint:
        raise ConfigError("judge.base_url: the Azure OpenAI endpoint is required for azure")
    if not api_version:
        raise ConfigError("judge.api_version: an API version is required for azure")
    if not api_key:
        raise JudgeUnavailableError(
            "no API key for the Azure OpenAI judge: set the environment variable named by "
            "judge.api_key_env"
        )
    return openai.AsyncAzureOpenAI(
        api_key=api_key,
        azure_endpoint=endpoint,
        api_version=api_version,
        timeout=timeout_s,
        max_retries=0,
        http_client=bounded_http_client(),
    )
