"""One `assert_grounded` call's values, checked where they enter (a test's own values: its
type, its size against the config's limits, text UTF-8 can hold), then made a row as the judge
reads it (hidden text and text addressed to the judge taken out, as `ground-gate run` does),
its metrics and thresholds read. A wrong value is a TypeError or ValueError naming the
argument and what was expected: the test's own mistake, never a verdict."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import jsonschema

from ground_gate.config.model import Config, MetricsConfig, Threshold
from ground_gate.config.schema_check import schema_text
from ground_gate.config.scores import METRIC_OF_SCORE
from ground_gate.datasets import Sample
from ground_gate.leaves.writable import writable
from ground_gate.stages.workload import as_judged


@dataclass(frozen=True)
class Asked:
    """What a call asks: its row (as the judge reads it), the metrics' config it is judged
    with, and the thresholds it is held to (score -> threshold)."""

    sample: Sample
    metrics: MetricsConfig
    thresholds: Mapping[str, Threshold]


def asked(
    config: Config,
    row_id: str,
    answer: object,
    source: object,
    question: object = None,
    *,
    metrics: object = None,
    thresholds: object = None,
) -> Asked:
    """The call's values checked and made its row; `thresholds` (score -> {min, max,
    allow_empty}) over the config's top-level thresholds, score by score."""
    limit = config.limits.max_field_chars
    response = _text("answer", answer, limit)
    sources = _sources(source, limit)
    asked_question = None if question is None else _text("question", question, limit)
    total = len(response) + sum(map(len, sources)) + len(asked_question or "")
    if total > config.limits.max_row_chars:
        raise ValueError(
            f"assert_grounded: answer, source and question hold {total} characters together, "
            f"over limits.max_row_chars ({config.limits.max_row_chars}) in {config.path}"
        )
    sample = Sample(id=row_id, sources=sources, response=response, question=asked_question)
    chosen = _metrics(config.metrics, metrics)
    return Asked(as_judged(config.judge, [sample])[0], chosen, held_to(config, chosen, thresholds))


def held_to(config: Config, metrics: MetricsConfig, thresholds: object) -> dict[str, Threshold]:
    """The config's thresholds of the scores `metrics` give, each replaced by `thresholds`'."""
    given = _thresholds(thresholds) if thresholds is not None else {}
    enabled = set(metrics.enabled())
    off = [score for score in given if METRIC_OF_SCORE.get(score) not in enabled]
    if off:
        raise ValueError(
            f"assert_grounded: thresholds for {', '.join(sorted(off))}: no metric asked for "
            f"gives {'it' if len(off) == 1 else 'them'} (metrics: {', '.join(sorted(enabled))})"
        )
    merged = {
        score: threshold
        for score, threshold in config.thresholds.items()
        if METRIC_OF_SCORE.get(score) in enabled
    }
    return {**merged, **given}


def _text(name: str, value: object, limit: int) -> str:
    if not isinstance(value, str):
        raise TypeError(f"assert_grounded: {name} must be a str, got {type(value).__name__}")
    if len(value) > limit:
        raise ValueError(
            f"assert_grounded: {name} holds {len(value)} characters, over "
            f"limits.max_field_chars ({limit})"
        )
    if "\x00" in value:
        raise ValueError(f"assert_grounded: {name} holds a NUL character")
    return writable(value)[0]


def _sources(value: object, limit: int) -> tuple[str, ...]:
    """A source: one text, or its passages (a list or tuple of texts, at least one)."""
    if isinstance(value, str):
        return (_text("source", value, limit),)
    if not isinstance(value, (list, tuple)) or not value:
        raise TypeError(
            "assert_grounded: source must be a str or a non-empty list of str, got "
            + (
                f"an empty {type(value).__name__}"
                if isinstance(value, (list, tuple))
                else type(value).__name__
            )
        )
    return tuple(_text(f"source[{i}]", passage, limit) for i, passage in enumerate(value))


def _metrics(config: MetricsConfig, value: object) -> MetricsConfig:
    """The config's metrics, or only those named (each must be on in the config)."""
    if value is None:
        return config
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, (list, tuple)) or not all(isinstance(n, str) for n in names):
        raise TypeError("assert_grounded: metrics must be a metric's name or a list of them")
    enabled = config.enabled()
    unknown = [n for n in names if n not in enabled]
    if unknown or not names:
        raise ValueError(
            f"assert_grounded: metrics {', '.join(map(repr, unknown)) or '(none)'}: expected "
            f"one or more of the config's metrics: {', '.join(enabled)}"
        )
    return replace(config, **{n: None for n in enabled if n not in names})


def _thresholds(value: object) -> dict[str, Threshold]:
    """score -> threshold, as the config writes them (`groundedness: {min: 0.8}`), checked
    against the config's published schema; a bare number is a min (a max for the scores where
    lower is better is written {max: ...})."""
    if not isinstance(value, Mapping):
        raise TypeError(
            "assert_grounded: thresholds must be a mapping of score -> {min, max, allow_empty}, "
            f"got {type(value).__name__}"
        )
    document = {
        score: {"min": bound} if _number(bound) else bound for score, bound in value.items()
    }
    schema = json.loads(schema_text())
    validator = jsonschema.Draft202012Validator(
        {"$defs": schema["$defs"], "$ref": "#/$defs/thresholds"}
    )
    problems = sorted(validator.iter_errors(document), key=lambda e: str(list(e.absolute_path)))
    if problems:
        first = problems[0]
        where = ".".join(str(p) for p in first.absolute_path) or "thresholds"
        raise ValueError(f"assert_grounded: thresholds.{where}: {first.message}")
    baseline_only = sorted(s for s, t in document.items() if set(t) - {"min", "max", "allow_empty"})
    if baseline_only:
        raise ValueError(
            f"assert_grounded: thresholds.{baseline_only[0]}: max_drop and confidence compare a "
            "run with a baseline; one assertion has none (use min, max or allow_empty)"
        )
    return {score: Threshold(**bounds) for score, bounds in document.items()}


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
