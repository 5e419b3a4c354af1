"""What a judge's provider changes of JudgeConfig's defaults (which are openai's): the model,
the variable holding the key and the requests at once, and the local judge's one request at
a time whatever the config says."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ground_gate.config.keys import written
from ground_gate.config.model import JudgeConfig, Provider

# llama.cpp's server answers one request at a time (one slot, its prefix cache kept warm).
LOCAL_REQUESTS_AT_ONCE = 1


def judge_defaults(provider: Provider) -> JudgeConfig:
    """The judge of a config naming only `provider` (the loader applies the written keys)."""
    if provider == "local":
        return JudgeConfig(
            provider,
            model="qwen2.5-coder-1.5b",
            api_key_env=None,
            max_concurrency=LOCAL_REQUESTS_AT_ONCE,
        )
    if provider == "azure":  # its model, the deployment's name, is required
        return JudgeConfig(provider, api_key_env="AZURE_OPENAI_API_KEY")
    return JudgeConfig(provider)


def requests_at_once(judge: JudgeConfig) -> int:
    """Judge requests (and rows) in flight at once: the local judge's one, whatever
    max_concurrency says (a llama.cpp server queues more until they time out)."""
    return LOCAL_REQUESTS_AT_ONCE if judge.provider == "local" else judge.max_concurrency


def judge_config(block: Mapping[str, Any]) -> JudgeConfig:
    """A checked `judge` block (or a prompt target's model keys): its provider's defaults,
    then the keys it writes."""
    return replace(judge_defaults(block["provider"]), **written(JudgeConfig, block))
