"""A dataset's target made ready before any call: its prompt file or body read and checked
against every row (a placeholder with no column is an error here, naming the file and line),
each row's request rendered, and what defines the target recorded for the report."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ground_gate.config.model import DatasetConfig, Limits, TargetConfig
from ground_gate.datasets import CANDIDATES, Sample
from ground_gate.targets.cache import depends_on_digest
from ground_gate.targets.command import stdin_line
from ground_gate.targets.http import body_for, body_templates, check_headers, shown_url
from ground_gate.targets.prompt import PromptFile, messages_for, read_prompt_file, templates
from ground_gate.targets.templates import check_names


@dataclass(frozen=True)
class Prepared:
    """One dataset's target, ready to ask: the rows, what each sends, and its definition."""

    dataset: str
    target: TargetConfig
    samples: tuple[Sample, ...]
    requests: Mapping[str, Any]  # row id -> chat messages, JSON body or stdin line
    definition: Mapping[str, Any]  # for the report: kind and what defines it
    keys: str  # where the config sets it up, for messages: "datasets[0].target"
    notice: str | None = None  # the dataset's response column, which the target replaces
    limits: Limits = field(default_factory=Limits)  # how big a reply may be (reply.py)


def prepare_target(
    dataset: DatasetConfig,
    index: int,
    samples: Sequence[Sample],
    config_file: str,
    env: Mapping[str, str],
    limits: Limits | None = None,
) -> Prepared:
    """ConfigError for anything that would fail every row: a placeholder no row fills, a
    template a row cannot fill, a header variable that is not set."""
    target = dataset.target
    if target is None:
        raise ValueError(f"dataset {dataset.name!r} has no target")
    keys = f"datasets[{index}].target"
    requests: dict[str, Any] = {}
    for sample in samples:
        if not sample.row:
            raise ValueError("rows of a dataset with a target keep their columns")
    if target.prompt is not None:
        prompt = read_prompt_file(target.prompt.path)
        for sample in samples:
            where = _where(dataset, sample)
            check_names(templates(prompt), sample, dataset.fields, where)
            requests[sample.id] = messages_for(prompt, sample, where)
        definition = _prompt_definition(target, prompt)
    elif target.http is not None:
        found = body_templates(target.http, config_file)
        check_headers(target.http, env, keys)
        for sample in samples:
            where = _where(dataset, sample)
            check_names(list(found.values()), sample, dataset.fields, where)
            requests[sample.id] = body_for(target.http, found, sample, where)
        definition = {"kind": "http", "url": shown_url(target.http.url)}
    else:
        requests = {sample.id: stdin_line(sample) for sample in samples}
        definition = {"kind": "command", "argv": list(target.command or ())}
    if target.depends_on:
        definition["depends_on"] = list(target.depends_on)
        definition["depends_on_digest"] = "sha256:" + depends_on_digest(
            target.depends_on, target.base_dir
        )
    notice = _ignored_response(dataset, samples)
    return Prepared(
        dataset.name, target, tuple(samples), requests, definition, keys, notice,
        limits or Limits(),
    )  # fmt: skip


def _where(dataset: DatasetConfig, sample: Sample) -> str:
    return f"{dataset.path}:{sample.line}" if sample.line else f"{dataset.path} ({sample.id})"


def _prompt_definition(target: TargetConfig, prompt: PromptFile) -> dict[str, Any]:
    assert target.prompt is not None
    model = target.prompt.model
    return {
        "kind": "prompt",
        "prompt": prompt.shown,
        "digest": prompt.digest,
        "provider": model.provider,
        "model": model.model,
        "temperature": model.temperature,
        "max_tokens": target.prompt.max_tokens,
    }


def _ignored_response(dataset: DatasetConfig, samples: Sequence[Sample]) -> str | None:
    """One notice when the rows have a response column: the target's answers replace it."""
    column = dataset.fields.get("response")
    names = (column,) if column else CANDIDATES["response"]
    found = next((name for s in samples for name in names if name in s.row), None)
    if found is None:
        return None
    return (
        f"dataset '{dataset.name}' has a response column ('{found}'): its target answers "
        "every row, and the column is ignored"
    )
