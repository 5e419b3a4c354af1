"""A prompt target: a prompt file of the repository, filled in per row and sent to a model.

`.md` and `.txt` files are one user message; `.yml`, `.yaml` and `.json` files are a list of
chat messages (`role`: system, user or assistant; `content`). The model is asked through the
judge's own client (judge/openai_judge.py), so its answers are cached by (model, parameters,
the rendered messages) like verdicts, and retries, Retry-After, budgets and usage work alike.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml

from ground_gate.config.model import PromptTarget
from ground_gate.config.target import MAX_PROMPT_BYTES, PROMPT_FILE
from ground_gate.datasets import Sample
from ground_gate.judge.base import ChatMessage, Judge, JudgeRequest, Role, Speaker
from ground_gate.leaves.errors import ConfigError, JudgeError, JudgeUnavailableError, TargetError
from ground_gate.leaves.file_reader import Unreadable, problem, read_capped
from ground_gate.targets.answers import Answer
from ground_gate.targets.templates import Template, parse, render, row_values

MESSAGE_FILES = (".yml", ".yaml", ".json")
ROLES: tuple[Role, ...] = ("system", "user", "assistant")
PURPOSE = "target.answer"
# Part of every cache key of a target's model: bump it when what is sent for a row changes.
PROMPT_VERSION = "target-1"


def answers_version(target: PromptTarget) -> str:
    """The prompt version a target's answers are cached under: with the base_url the config
    names, so that answers another endpoint gave (another server behind the same model name)
    are asked again and the report's endpoint is the one that answered. The local model's
    port changes each run and is no part of it."""
    url = target.model.base_url
    return f"{PROMPT_VERSION} {url}" if url else PROMPT_VERSION


def speaker(keys: str) -> Speaker:
    return Speaker(name="target's model", keys=keys)


@dataclass(frozen=True)
class PromptFile:
    """A prompt file, read and parsed: its messages' roles and templates, and its digest."""

    shown: str  # the path as messages show it
    digest: str  # "sha256:<hex>" of the file's bytes, for the report
    messages: tuple[tuple[Role, Template], ...]


def read_prompt_file(path: Path) -> PromptFile:
    """The prompt file at `path` (checked by the config loader to be a small regular file);
    ConfigError naming the file and line for anything it cannot be."""
    shown = str(path)
    try:
        raw = read_capped(path, MAX_PROMPT_BYTES)
    except Unreadable as exc:
        too_large = "a prompt file is at most 1 MB"
        raise ConfigError(f"{shown}: {problem(exc, PROMPT_FILE, too_large)}") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise ConfigError(f"{shown}:{line}: not valid UTF-8; save the prompt as UTF-8") from None
    digest = "sha256:" + hashlib.sha256(raw).hexdigest()
    if path.suffix.lower() in MESSAGE_FILES:
        return PromptFile(shown, digest, _messages(text, shown))
    if not text.strip():
        raise ConfigError(f"{shown}: the prompt file is empty")
    return PromptFile(shown, digest, (("user", parse(text, shown)),))


def _messages(text: str, shown: str) -> tuple[tuple[Role, Template], ...]:
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        where = f"{shown}:{mark.line + 1}" if mark else shown
        raise ConfigError(f"{where}: not a list of chat messages ({exc.problem})") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"{shown}: not a list of chat messages ({exc})") from None
    if not isinstance(root, yaml.SequenceNode) or not root.value:
        raise ConfigError(
            f"{shown}:1: expected a list of chat messages, each with role (system, user or "
            "assistant) and content"
        )
    return tuple(_message(node, index, shown) for index, node in enumerate(root.value))


def _message(node: yaml.Node, index: int, shown: str) -> tuple[Role, Template]:
    line = node.start_mark.line + 1
    where = f"{shown}:{line}: messages[{index}]"
    if not isinstance(node, yaml.MappingNode):
        raise ConfigError(f"{where}: expected a mapping with role and content")
    fields = {
        key.value: value
        for key, value in node.value
        if isinstance(key, yaml.ScalarNode) and isinstance(value, yaml.ScalarNode)
    }
    unknown = [k.value for k, _ in node.value if getattr(k, "value", None) not in fields]
    unknown += [k for k in fields if k not in ("role", "content")]
    if unknown or "role" not in fields or "content" not in fields:
        raise ConfigError(f"{where}: expected role and content (text), and nothing else")
    role = fields["role"].value
    if role not in ROLES:
        raise ConfigError(f"{where}.role: expected system, user or assistant, got {role!r}")
    content = fields["content"]
    if not str(content.value).strip():
        raise ConfigError(f"{where}.content: empty")
    quoted = content.style in ("'", '"')
    first = content.start_mark.line + (2 if content.style in ("|", ">") else 1)
    return role, parse(str(content.value), shown, first, fixed_line=quoted)


def templates(prompt: PromptFile) -> list[Template]:
    return [template for _, template in prompt.messages]


def messages_for(prompt: PromptFile, sample: Sample, where: str) -> tuple[ChatMessage, ...]:
    """The row's chat messages: every template filled in with its values."""
    values = row_values(sample)
    return tuple(
        ChatMessage(role, render(template, values, where)) for role, template in prompt.messages
    )


async def ask_model(
    judge: Judge, target: PromptTarget, sample: Sample, messages: Sequence[ChatMessage]
) -> Answer:
    """One row's answer from the target's model. A failure of this request is the row's;
    an unusable model (down, key refused, budget spent) stops the target (TargetError)."""
    request = JudgeRequest(messages=tuple(messages), purpose=PURPOSE, max_tokens=target.max_tokens)
    try:
        completion = await judge.complete(request)
    except JudgeUnavailableError as exc:
        raise TargetError(str(exc)) from None
    except JudgeError as exc:
        return Answer(sample.id, None, error=str(exc))
    seconds = completion.usage.seconds
    if not completion.text.strip():
        error = f"the target's model {target.model.model} answered nothing for row '{sample.id}'"
        return Answer(sample.id, None, seconds=seconds, error=error, cached=completion.cached)
    return Answer(sample.id, completion.text.strip(), seconds=seconds, cached=completion.cached)
