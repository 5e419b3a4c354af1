"""A scripted judge for unit tests: answers by looking at the request, records every call."""

from __future__ import annotations

import math
import sys
import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest

from ground_gate.judge.base import Completion, JudgeRequest
from ground_gate.leaves.usage import Usage

Script = Callable[[JudgeRequest], Completion]


def said(text: str, **probabilities: float) -> Completion:
    """A one-token answer `text` with first-token probabilities (token -> p)."""
    top = {t: math.log(p) for t, p in probabilities.items() if p > 0}
    return Completion(text=text, top_logprobs=(top,) if top else (), usage=Usage(calls=1))


def json_reply(data: object) -> Completion:
    return Completion(text="{}", data=data, usage=Usage(calls=1, completion_tokens=10))


def unit_of(request: JudgeRequest, tag: str) -> str:
    """The text inside <tag>...</tag> of the request's user message."""
    content = request.messages[-1].content
    start = content.rindex(f"<{tag}>") + len(tag) + 2
    return content[start : content.index(f"</{tag}>", start)].strip()


@dataclass
class FakeJudge:
    script: Script
    model: str = "fake-judge"
    context_tokens: int | None = None
    reuses_prefix: bool = False
    requests: list[JudgeRequest] = field(default_factory=list)

    async def complete(self, request: JudgeRequest) -> Completion:
        self.requests.append(request)
        return self.script(request)

    def purposes(self) -> list[str]:
        return [r.purpose for r in self.requests]


def fake_modules(
    monkeypatch: pytest.MonkeyPatch, modules: Mapping[str, Mapping[str, Any]]
) -> dict[str, types.ModuleType]:
    """Stand-in modules (name -> attributes) in sys.modules for the test, e.g. llama_cpp's."""
    made = {name: types.ModuleType(name) for name in modules}
    for name, attributes in modules.items():
        for attribute, value in attributes.items():
            setattr(made[name], attribute, value)
        monkeypatch.setitem(sys.modules, name, made[name])
    return made
