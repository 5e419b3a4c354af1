"""How a judge is made from the `judge:` config: the client, the cache, a local server.

Only the entry points (cli.py and pipeline.py) call `open_judge`; everything below them
receives the judge it yields. The local judge's modules (`ground_gate.local.*`) are imported
when a local judge is asked for, never at import time: they may import the judge package.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import openai

from ground_gate.config.model import JudgeConfig
from ground_gate.config.providers import requests_at_once
from ground_gate.config.rules import check_api_key
from ground_gate.judge.base import JUDGE, Judge, Speaker
from ground_gate.judge.budget import SpendingLimit
from ground_gate.judge.cache import JudgeCache
from ground_gate.judge.clients import PLACEHOLDER_API_KEY, build_azure_client, build_openai_client
from ground_gate.judge.openai_judge import OpenAIJudge
from ground_gate.leaves.errors import ConfigError

if TYPE_CHECKING:
    from ground_gate.local.registry import Throughput
    from ground_gate.local.server import LocalServer

LOCAL_CONTEXT_TOKENS = 4096
# the local server several processes share: given the server this one would start, (its URL,
# its model file's name)
Share = Callable[[Callable[[], "LocalServer"]], tuple[str, str]]


@contextmanager
def open_judge(
    config: JudgeConfig,
    env: Mapping[str, str],
    *,
    prompt_version: str,
    no_cache: bool,
    echo: Callable[[str], None],
    limit: SpendingLimit | None = None,
    speaker: Speaker = JUDGE,
    share: Share | None = None,
) -> Iterator[tuple[Judge, dict[str, Any]]]:
    """A ready judge and what the report says of it; a local server is stopped on exit.

    prompt_version: the prompts' version; the report shows it and every cache key holds it,
    so a workflow can key its actions/cache on it.
    limit: judge.budget for this run (the caller keeps it to read what was spent).
    speaker: who the model answers as (a prompt target's model is opened here too).
    share: for the local judge, the server several processes share (local/shared.py), given
        the server this process would start: (its URL, its model file's name); it outlives
        this judge. None: this judge starts its own and stops it.
    """
    cache = judge_cache(config, no_cache)
    info = describe(config, prompt_version)
    if config.provider == "local":
        with _local_judge(
            config, cache, prompt_version, info, echo, limit, speaker, share
        ) as judge:
            yield judge, info
        return
    client = _remote_client(config, env, speaker)
    info["endpoint"] = endpoint_name(str(client.base_url))
    yield _judge(config, client, cache, prompt_version, limit, speaker=speaker), info


def endpoint_name(url: str) -> str:
    """Which server judges, for the report: the URL's host, and its port when one is given
    (never the path or query, which may hold a deployment's secrets)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    try:
        port = parts.port
    except ValueError:  # not a number: nothing to add
        port = None
    return f"{host}:{port}" if port else host


def judge_cache(config: JudgeConfig, no_cache: bool) -> JudgeCache | None:
    """The on-disk judge cache the config names, unless --no-cache or `cache_dir: null`."""
    return None if no_cache or config.cache_dir is None else JudgeCache(config.cache_dir)


def describe(config: JudgeConfig, prompt_version: str) -> dict[str, Any]:
    """What the reports say of the judge before it runs."""
    return {"provider": config.provider, "model": config.model, "prompt_version": prompt_version}


def context_tokens(config: JudgeConfig) -> int | None:
    """The judge's context in tokens: the local model's n_ctx, or judge.context_tokens (None:
    unlimited for our prompts)."""
    if config.provider == "local":
        return config.context_tokens or LOCAL_CONTEXT_TOKENS
    return config.context_tokens


def local_throughput(config: JudgeConfig) -> Throughput | None:
    """The local model's measured throughput; None for a remote judge or a file not measured."""
    if config.provider != "local":
        return None
    from ground_gate.local.registry import KNOWN_MODELS

    name = config.model.replace("\\", "/").rsplit("/", 1)[-1]
    found = [m for m in KNOWN_MODELS.values() if name in (m.name, m.filename)]
    return found[0].throughput if found else None


def reuses_prefix(config: JudgeConfig) -> bool:
    """The local server takes one request at a time on one llama.cpp slot, which keeps the
    previous prompt in its key-value cache and reads only what differs."""
    return config.provider == "local"


def _judge(
    config: JudgeConfig,
    client: openai.AsyncOpenAI | openai.AsyncAzureOpenAI,
    cache: JudgeCache | None,
    prompt_version: str,
    limit: SpendingLimit | None,
    connect: Callable[[], Awaitable[None]] | None = None,
    speaker: Speaker = JUDGE,
) -> OpenAIJudge:
    local = config.provider == "local"
    judge = OpenAIJudge(
        client,
        model=config.model,
        prompt_version=prompt_version,
        temperature=config.temperature,
        max_concurrency=requests_at_once(config),  # the local judge's one at a time
        max_retries=config.max_retries,
        timeout_s=config.timeout_s,
        cache=cache,
        context_tokens=context_tokens(config),
        # llama.cpp's JSON grammar is ~30x slower than plain text on a CPU: ask in words
        structured="prompt" if local else "auto",
        connect=connect,
        limit=limit,
        speaker=speaker,
    )
    judge.reuses_prefix = reuses_prefix(config)
    return judge


@contextmanager
def _local_judge(
    config: JudgeConfig,
    cache: JudgeCache | None,
    prompt_version: str,
    info: dict[str, Any],
    echo: Callable[[str], None],
    limit: SpendingLimit | None,
    speaker: Speaker = JUDGE,
    share: Share | None = None,
) -> Iterator[OpenAIJudge]:
    """A judge over a llama.cpp server started on the first cache miss, stopped on exit (or
    one several processes share, found or started then: `share`)."""
    from ground_gate.local.server import HOST

    servers: list[LocalServer] = []
    # The port is known once the server runs; connect() points the client at it.
    client = build_openai_client(PLACEHOLDER_API_KEY, f"http://{HOST}/v1", config.timeout_s)

    def start() -> str:
        if share is not None:
            url, model_file = share(lambda: _local_server(config, echo, speaker))
            info["model_file"] = model_file
            return url
        server = _local_server(config, echo, speaker)
        servers.append(server)
        server.start()
        echo(f"ground-gate: the local {speaker.name} is ready ({server.startup_seconds:.1f} s)")
        info["model_file"] = server.model_path.name
        return server.base_url

    async def connect() -> None:
        # Only on the first cache miss: a run served from the cache needs no model file
        # and no server.
        client.base_url = await asyncio.to_thread(start)

    try:
        yield _judge(config, client, cache, prompt_version, limit, connect, speaker)
    finally:
        for server in servers:
            server.stop()


def _local_server(
    config: JudgeConfig, echo: Callable[[str], None], speaker: Speaker = JUDGE
) -> LocalServer:
    """A server, not started yet, on the model file (found, or downloaded and verified)."""
    from ground_gate.leaves.progress import ByteProgress
    from ground_gate.local.resolve import resolve_model
    from ground_gate.local.server import HOST, LocalServer

    renderer = ByteProgress()
    try:
        path = resolve_model(config.model, config.model_dir, progress=renderer)
    finally:
        renderer.close()
    echo(f"ground-gate: starting the local {speaker.name} ({path.name}) on {HOST}")
    return LocalServer(
        path,
        context_tokens=context_tokens(config) or LOCAL_CONTEXT_TOKENS,
        threads=config.threads,
        stop_timeout_s=3.0,
    )


def api_key(config: JudgeConfig, env: Mapping[str, str], speaker: Speaker = JUDGE) -> str:
    """The key from the environment variable judge.api_key_env names.

    A self-hosted OpenAI-compatible server (a base_url) may need none.
    """
    name = config.api_key_env
    key = env.get(name, "") if name else ""
    if key:
        check_api_key(name, key, speaker.keys)  # a header cannot carry it: one message, no key
        return key
    if config.base_url and config.provider == "openai":
        return PLACEHOLDER_API_KEY
    raise ConfigError(
        f"{speaker.keys}.api_key_env: the environment variable {name or '(none)'} holding the "
        f"{config.provider} API key is not set"
    )


def _remote_client(
    config: JudgeConfig, env: Mapping[str, str], speaker: Speaker = JUDGE
) -> openai.AsyncOpenAI | openai.AsyncAzureOpenAI:
    key = api_key(config, env, speaker)
    if config.provider == "azure":
        endpoint = config.base_url or env.get("AZURE_OPENAI_ENDPOINT")
        if not endpoint:
            raise ConfigError(
                f"{speaker.keys}.base_url: provider azure needs the endpoint, in "
                f"{speaker.keys}.base_url or in the environment variable AZURE_OPENAI_ENDPOINT"
            )
        return build_azure_client(key, endpoint, config.api_version, config.timeout_s)
    return build_openai_client(key, config.base_url, config.timeout_s)
