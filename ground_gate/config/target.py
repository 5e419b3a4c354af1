"""A dataset's `target` (the system under test): built into a frozen `TargetConfig`, and what
the schema cannot say about it: one kind, keys that belong to another kind, a usable URL and
key, JMESPath that parses, a prompt file and depends_on globs that exist.

Placeholders in the prompt file and the http body are checked against the dataset's columns
where the rows are read (targets/templates.py), still before any call.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import jmespath
from jmespath.exceptions import JMESPathError

from ground_gate.config.keys import written
from ground_gate.config.model import HttpTarget, JudgeConfig, PromptTarget, TargetConfig
from ground_gate.config.paths import dataset_path, link_problem
from ground_gate.config.program import program_problem
from ground_gate.config.providers import judge_config
from ground_gate.config.rules import api_key_problem, url_problem
from ground_gate.config.schema_check import Problem
from ground_gate.config.yamltree import Document, KeyPath
from ground_gate.leaves.file_reader import Unreadable, open_regular, problem

KINDS = ("prompt", "http", "command")
# The keys of a prompt target that say who answers it (as the judge's keys say who judges).
MODEL_KEYS = (
    "provider",
    "model",
    "base_url",
    "api_key_env",
    "api_version",
    "temperature",
    "max_tokens",
    "prices",
    "model_dir",
    "context_tokens",
    "threads",
)
NOT_COMMAND = ("max_concurrency", "max_retries")  # a command is one process, asked once
RUN_KEYS = ("timeout_s", *NOT_COMMAND)  # a prompt target's are its model's
TOKEN_LIMITS = ("max_tokens", "max_usd")  # only a prompt target reports tokens
MAX_PROMPT_BYTES = 1_000_000
PROMPT_FILE = "a prompt file (.md, .txt, or chat messages in .yml or .json)"

Lines = Callable[..., int]  # the config line of a key path under the target block


def build_target(
    block: Mapping[str, Any], config_path: Path, judge: JudgeConfig, lines: Lines
) -> TargetConfig:
    """The TargetConfig of a checked `target` block; a prompt target's model is built as the
    judge is (its cache is the judge's)."""
    prompt = http = command = None
    settings = written(TargetConfig, block, (*RUN_KEYS, "depends_on", "budget"))
    if "prompt" in block:
        keys = (*MODEL_KEYS, *RUN_KEYS)
        model = judge_config({k: block[k] for k in keys if k in block and k != "max_tokens"})
        prompt = PromptTarget(
            path=dataset_path(block["prompt"], config_path),
            written=block["prompt"],
            model=replace(model, cache_dir=judge.cache_dir, budget=None),
            **written(PromptTarget, block, ("max_tokens",)),
        )
        settings.update({key: getattr(model, key) for key in RUN_KEYS})  # by its provider
    elif "http" in block:
        spec = block["http"]
        body_line = lines("http", "body") if "body" in spec else None
        http = HttpTarget(**written(HttpTarget, spec), body_line=body_line)
    else:
        command = tuple(block["command"])
    return TargetConfig(
        prompt=prompt,
        http=http,
        command=command,
        base_dir=config_path.parent,
        cache_dir=judge.cache_dir,
        line=lines(),
        **settings,
    )


def target_problems(document: Document, env: Mapping[str, str], config_path: Path) -> list[Problem]:
    """Every problem of every dataset's target (the schema has checked the shapes)."""
    problems: list[Problem] = []
    for index, dataset in enumerate(document.data["datasets"]):
        block = dataset.get("target")
        if block is not None:
            where: KeyPath = ("datasets", index, "target")
            problems += _problems(_Checker(document, where), block, env, config_path)
    return problems


class _Checker:
    """Problems at paths under one target block."""

    def __init__(self, document: Document, where: KeyPath) -> None:
        self.document = document
        self.where = where

    def at(self, *path: str | int, text: str) -> Problem:
        full = (*self.where, *path)
        return Problem(self.document.line_of(full), full, text)


def _problems(
    check: _Checker, block: Mapping[str, Any], env: Mapping[str, str], config_path: Path
) -> list[Problem]:
    kinds = [k for k in KINDS if k in block]
    if not kinds:
        return [check.at(text="expected one of prompt, http or command (the system under test)")]
    if len(kinds) > 1:
        both = " and ".join(kinds)
        return [check.at(kinds[1], text=f"a target is one kind: this one has {both}")]
    kind = kinds[0]
    problems = _misplaced(check, block, kind)
    if kind == "prompt":
        problems += _prompt_problems(check, block, env, config_path)
    elif kind == "http":
        problems += _http_problems(check, block["http"])
    elif (found := _command_problem(block["command"], env)) is not None:
        problems.append(check.at("command", text=found))
    problems += _depends_on_problems(check, block.get("depends_on") or [], config_path)
    return problems


def _command_problem(argv: Any, env: Mapping[str, str]) -> str | None:
    if not isinstance(argv, list) or not argv:  # the schema's problem, already said
        return None
    return program_problem([str(a) for a in argv], env)


def _misplaced(check: _Checker, block: Mapping[str, Any], kind: str) -> list[Problem]:
    problems = []
    for key in MODEL_KEYS:
        if key in block and kind != "prompt":
            problems.append(check.at(key, text=f"applies to a prompt target, not to {kind}"))
    for key in NOT_COMMAND:
        if key in block and kind == "command":
            problems.append(
                check.at(key, text="applies to prompt and http targets, not to command")
            )
    if "depends_on" in block and kind == "prompt":
        text = "a prompt target is cached by its messages; depends_on applies to http and command"
        problems.append(check.at("depends_on", text=text))
    for key in TOKEN_LIMITS:
        if key in (block.get("budget") or {}) and kind != "prompt":
            text = f"only a prompt target reports tokens; a {kind} target has max_calls"
            problems.append(check.at("budget", key, text=text))
    return problems


def _prompt_problems(
    check: _Checker, block: Mapping[str, Any], env: Mapping[str, str], config_path: Path
) -> list[Problem]:
    problems = []
    provider = block.get("provider")
    if provider is None:
        text = "missing required key 'provider' (the model that answers: openai, azure or local)"
        problems.append(check.at(text=text))
    if provider == "azure":
        for key in ("api_version", "model"):
            if key not in block:
                problems.append(check.at(text=f"missing required key '{key}' (provider azure)"))
    url = block.get("base_url")
    if isinstance(url, str) and (problem := url_problem(url)) is not None:
        problems.append(check.at("base_url", text=problem))
    name = block.get("api_key_env")
    if isinstance(name, str) and env.get(name) and (problem := api_key_problem(env[name])):
        text = f"the API key in the environment variable {name} {problem}"
        problems.append(check.at("api_key_env", text=text))
    budget = block.get("budget") or {}
    if "max_usd" in budget and provider != "local" and not block.get("prices"):
        text = "a dollar budget needs the model's prices: add prices to the target"
        problems.append(check.at("budget", "max_usd", text=text))
    found = _prompt_file_problem(dataset_path(block["prompt"], config_path), config_path)
    if found is not None:
        problems.append(check.at("prompt", text=found))
    return problems


def _prompt_file_problem(path: Path, config_path: Path) -> str | None:
    linked = link_problem(path, config_path)
    if linked is not None:
        return linked
    try:
        open_regular(path, MAX_PROMPT_BYTES).close()
    except Unreadable as exc:
        return f"{path}: {problem(exc, PROMPT_FILE, 'a prompt file is at most 1 MB')}"
    if path.suffix.lower() not in (".md", ".txt", ".yml", ".yaml", ".json"):
        return (
            f"{path}: expected a .md or .txt file (one user message) or a .yml, .yaml or "
            ".json list of chat messages"
        )
    return None


def _http_problems(check: _Checker, http: Mapping[str, Any]) -> list[Problem]:
    problems = []
    problem = url_problem(http["url"])
    if problem is not None:
        problems.append(check.at("http", "url", text=problem))
    for key in ("response", "contexts"):
        expression = http.get(key)
        if expression is None:
            continue
        try:
            jmespath.compile(expression)
        except JMESPathError as exc:
            where = getattr(exc, "lex_position", None)
            reason = getattr(exc, "msg", None) or str(exc).split("\n")[0]
            at = f" at character {where + 1}" if isinstance(where, int) else ""
            text = f"not a JMESPath expression ({reason}{at})"
            problems.append(check.at("http", key, text=text))
    return problems


def _depends_on_problems(check: _Checker, patterns: list[str], config_path: Path) -> list[Problem]:
    problems = []
    for index, pattern in enumerate(patterns):
        if not depends_on_files(pattern, config_path.parent):
            text = f"'{pattern}' matches no file (relative to the config's directory)"
            problems.append(check.at("depends_on", index, text=text))
    return problems


def depends_on_files(pattern: str, base_dir: Path) -> list[Path]:
    """The regular files one depends_on glob names (`**` crosses directories), sorted; dotfiles
    and dot-folders included, since an app's `.mode` or `.env` changes its answers too."""
    root = os.path.normpath(base_dir / os.path.expanduser(pattern))
    found = sorted(glob.glob(root, recursive=True, include_hidden=True))
    return [Path(p) for p in found if os.path.isfile(p)]
