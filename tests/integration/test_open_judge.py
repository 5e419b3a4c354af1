"""open_judge against the scripted OpenAI server: the local judge's lazy start, cache and version.

The llama.cpp server and the model download are replaced by stand-ins at the modules the
factory imports them from; the requests are real HTTP to 127.0.0.1.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from ground_gate.config.model import JudgeConfig
from ground_gate.judge.base import ChatMessage, JudgeRequest
from ground_gate.judge.factory import open_judge
from ground_gate.judge.openai_judge import OpenAIJudge
from ground_gate.leaves.errors import JudgeUnavailableError, ModelError
from tests.integration.fake_openai import FakeOpenAI, completion

KEY = "sk-test-0123456789abcdef"


def ask(text: str = "Is the sky blue?") -> JudgeRequest:
    return JudgeRequest((ChatMessage("user", text),), purpose="t")


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        fake.set_handler(lambda body: completion("Yes"))
        yield fake


@dataclass
class Servers:
    """The stand-in LocalServer class and everything done with it."""

    url: str
    fail_with: Exception | None = None
    made: list[dict[str, Any]] = field(default_factory=list)
    stopped: int = 0

    def __call__(self, path: Path, **options: Any) -> Servers.Server:
        self.made.append({"path": path, **options})
        return Servers.Server(self, path)

    @dataclass
    class Server:
        owner: Servers
        model_path: Path
        startup_seconds: float = 0.0

        @property
        def base_url(self) -> str:
            return self.owner.url

        def start(self) -> None:
            if self.owner.fail_with is not None:
                raise self.owner.fail_with
            self.startup_seconds = 1.25

        def stop(self) -> None:
            self.owner.stopped += 1


@pytest.fixture
def servers(server: FakeOpenAI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Servers:
    fake = Servers(server.url)
    resolved: list[tuple[str, Path | None]] = []

    def resolve_model(spec: str, model_dir: Path | None, **_: Any) -> Path:
        resolved.append((spec, model_dir))
        return tmp_path / "qwen-1.5b.gguf"

    monkeypatch.setattr("ground_gate.local.server.LocalServer", fake)
    monkeypatch.setattr("ground_gate.local.resolve.resolve_model", resolve_model)
    return fake


def local(tmp_path: Path, **options: Any) -> JudgeConfig:
    return JudgeConfig(provider="local", model="qwen", cache_dir=tmp_path / "cache", **options)


async def test_open_judge__a_local_server_starts_on_the_first_miss_and_stops_on_exit(
    servers: Servers, server: FakeOpenAI, tmp_path: Path
) -> None:
    lines: list[str] = []
    config = local(tmp_path, threads=2)
    with open_judge(config, {}, prompt_version="v1", no_cache=False, echo=lines.append) as (
        judge,
        info,
    ):
        assert isinstance(judge, OpenAIJudge)
        assert (judge.context_tokens, judge.structured_format) == (4096, "prompt")
        assert (servers.made, lines) == ([], [])  # nothing started before a request
        assert (await judge.complete(ask())).text == "Yes"
        assert (await judge.complete(ask("again"))).text == "Yes"
        await judge.aclose()
        assert servers.stopped == 0
    assert servers.made == [
        {
            "path": tmp_path / "qwen-1.5b.gguf",
            "context_tokens": 4096,
            "threads": 2,
            "stop_timeout_s": 3.0,
        }
    ]
    assert servers.stopped == 1
    assert lines == [
        "ground-gate: starting the local judge (qwen-1.5b.gguf) on 127.0.0.1",
        "ground-gate: the local judge is ready (1.2 s)",
    ]
    assert info == {
        "provider": "local",
        "model": "qwen",
        "prompt_version": "v1",
        "model_file": "qwen-1.5b.gguf",
    }
    assert server.request_count == 2


async def test_open_judge__a_local_run_served_from_the_cache_starts_nothing(
    servers: Servers, server: FakeOpenAI, tmp_path: Path
) -> None:
    for _ in range(2):
        with open_judge(local(tmp_path), {}, prompt_version="v1", no_cache=False, echo=print) as (
            judge,
            _,
        ):
            await judge.complete(ask())
            await judge.aclose()  # type: ignore[attr-defined]
    assert (len(servers.made), servers.stopped, server.request_count) == (1, 1, 1)


async def test_open_judge__a_local_server_that_fails_to_start_makes_the_judge_unavailable(
    servers: Servers, tmp_path: Path
) -> None:
    servers.fail_with = ModelError("the llama.cpp server exited with code 1")
    with open_judge(local(tmp_path), {}, prompt_version="v1", no_cache=False, echo=print) as (
        judge,
        _,
    ):
        with pytest.raises(JudgeUnavailableError) as caught:
            await judge.complete(ask())
        assert str(caught.value) == (
            "the judge could not be started: the llama.cpp server exited with code 1"
        )
        await judge.aclose()  # type: ignore[attr-defined]
    assert servers.stopped == 1  # the server made is stopped all the same


@pytest.mark.parametrize(
    ("prompt_version", "no_cache", "requests"),
    [("v1", False, 1), ("v2", False, 2), ("v1", True, 2)],
    ids=["same-version-hits", "new-version-misses", "no-cache-misses"],
)
async def test_open_judge__the_prompt_version_is_part_of_every_cache_key(
    server: FakeOpenAI, tmp_path: Path, prompt_version: str, no_cache: bool, requests: int
) -> None:
    config = JudgeConfig(base_url=server.url, model="m", cache_dir=tmp_path)
    for version, skip_cache in (("v1", False), (prompt_version, no_cache)):
        with open_judge(
            config, {"OPENAI_API_KEY": KEY}, prompt_version=version, no_cache=skip_cache, echo=print
        ) as (judge, info):
            assert (await judge.complete(ask())).text == "Yes"
            await judge.aclose()  # type: ignore[attr-defined]
        assert info["prompt_version"] == version
    assert server.request_count == requests
    assert server.requests[0].headers["authorization"] == f"Bearer {KEY}"
