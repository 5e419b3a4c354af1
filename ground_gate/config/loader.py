"""YAML config file -> validated, frozen `Config`.

Every problem is reported at once, one line each: `file:line: key.path: what was expected`
(`problems` for the schema's, `meaning` for what a schema cannot say).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from ground_gate.config.model import (
    DEFAULT_CONFIDENCE,
    SCORE_NAMES,
    AnswersConfig,
    Budget,
    Config,
    DatasetConfig,
    FaithfulnessConfig,
    GroundednessConfig,
    JudgeConfig,
    Limits,
    MetricsConfig,
    Prices,
    RatingConfig,
    SummaryAccuracyConfig,
    Threshold,
)
from ground_gate.config.paths import dataset_path, link_problem
from ground_gate.config.rules import DEFAULT_KEY_ENV, rule_problems, secret_names
from ground_gate.config.schema_check import schema_problems, schema_text
from ground_gate.config.target import build_target, target_problems
from ground_gate.config.yamltree import Document, format_key_path, read_yaml
from ground_gate.errors import ConfigError, describe_value
from ground_gate.file_reader import Unreadable, problem, read_capped
from ground_gate.masking import register

__all__ = ["load_config", "schema_text"]

_DEFAULT_MODEL = {"openai": "gpt-4o-mini", "local": "qwen2.5-coder-1.5b"}
MAX_CONFIG_BYTES = 1_000_000  # a config is a page of YAML; this bounds what parsing costs


def load_config(path: Path, env: Mapping[str, str]) -> Config:
    """Read, interpolate from `env`, validate and freeze the config at `path`."""
    file = str(path)
    raw = _read(path)
    document = read_yaml(_decode(raw, file), file, env)
    data = document.data
    if data is None:
        raise ConfigError(
            f"{file}: the config is empty: expected a mapping with version, judge, datasets "
            "and metrics"
        )
    if not isinstance(data, dict):
        raise ConfigError(
            f"{file}:{document.line_of(())}: expected a mapping (version, judge, datasets, "
            f"metrics) at the top level, got {describe_value(data)}"
        )
    problems = schema_problems(document) or [
        *rule_problems(document, env),
        *target_problems(document, env, path),
    ]
    if problems:
        lines = sorted(dict.fromkeys(problems), key=lambda p: (p.line, format_key_path(p.path)))
        raise ConfigError("\n".join(p.render(file) for p in lines))
    for name in secret_names(document):  # masked in everything written from now on
        register(env.get(name))
    config = _build(data, path, hashlib.sha256(raw).hexdigest(), document)
    return replace(
        config, resolved_digest=resolved_digest(data), scoring_digest=scoring_digest(data)
    )


# Settings that change how a run goes, never what it scores or decides: where the judge cache
# and the model files live, how many requests run at once, timeouts and retries, what the judge
# costs and may spend, which variable holds the key, how large a dataset may be, and the path
# a dataset is read from (its file's digest is compared apart). Shards may differ in them (one
# cache folder per shard, a checkout folder per job) and still merge. llama.cpp's `threads`
# stays in: another thread count may change a log-probability in its last digits.
NOT_SCORING: dict[str, frozenset[str]] = {
    "judge": frozenset(
        {"cache_dir", "max_concurrency", "timeout_s", "max_retries", "prices", "budget"}
        | {"api_key_env", "model_dir"}
    ),
    "datasets": frozenset({"path"}),
    "": frozenset({"limits"}),
}


def resolved_digest(data: Any) -> str:
    """The hex SHA-256 of the config as it applies, after `${VAR}` interpolation and YAML
    merge keys: canonical JSON (sorted keys), so comments and layout do not count and two
    runs with different environments say so."""
    canonical = json.dumps(data, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def scoring_digest(data: Mapping[str, Any]) -> str:
    """`resolved_digest` of the config without the settings in NOT_SCORING: what shards must
    share to merge (the judge, its model and endpoint, prompts, metrics, thresholds, data)."""
    kept = {k: v for k, v in data.items() if k not in NOT_SCORING[""]}
    judge = data.get("judge")
    if isinstance(judge, Mapping):
        kept["judge"] = {k: v for k, v in judge.items() if k not in NOT_SCORING["judge"]}
    datasets = data.get("datasets")
    if isinstance(datasets, list):
        kept["datasets"] = [
            {k: v for k, v in d.items() if k not in NOT_SCORING["datasets"]}
            if isinstance(d, Mapping)
            else d
            for d in datasets
        ]
    return resolved_digest(kept)


def _read(path: Path) -> bytes:
    """The file's bytes; a FIFO, a device or a file over MAX_CONFIG_BYTES is refused unread."""
    try:
        return read_capped(path, MAX_CONFIG_BYTES)
    except Unreadable as exc:
        too_large = (
            f"the config is larger than {MAX_CONFIG_BYTES // 1_000_000} MB; a config is a page "
            "of YAML (rows belong in dataset files)"
        )
        raise ConfigError(f"{path}: {problem(exc, 'a YAML config file', too_large)}") from None


def _decode(raw: bytes, file: str) -> str:
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise ConfigError(
            f"{file}:{line}: not valid UTF-8 (byte 0x{raw[exc.start]:02x}); save the file as UTF-8"
        ) from None


def _build(data: dict[str, Any], path: Path, digest: str, document: Document) -> Config:
    limits = _limits(data.get("limits") or {})
    judge = _judge(data["judge"])
    datasets = []
    for index, item in enumerate(data["datasets"]):
        dataset = _dataset(item, path, document.line_of(("datasets", index)), limits)
        if item.get("target") is not None:
            lines = functools.partial(_line_under, document, ("datasets", index, "target"))
            target = build_target(item["target"], path, judge, lines, _judge)
            dataset = replace(dataset, target=target)
        problem = link_problem(dataset.path, path)
        if problem is not None:
            where = f"{path}:{document.line_of(('datasets', index, 'path'))}"
            raise ConfigError(f"{where}: datasets[{index}].path: {problem}")
        datasets.append(dataset)
    return Config(
        judge=judge,
        datasets=tuple(datasets),
        metrics=_metrics(data["metrics"]),
        thresholds=_thresholds(data.get("thresholds")),
        on_error=data.get("on_error", "fail"),
        limits=limits,
        version=data["version"],
        path=path,
        digest=digest,
    )


def _line_under(document: Document, where: tuple[str | int, ...], *path: str) -> int:
    return document.line_of((*where, *path))


def _judge(judge: dict[str, Any]) -> JudgeConfig:
    provider = judge["provider"]
    options: dict[str, Any] = {
        "provider": provider,
        "model": judge.get("model", _DEFAULT_MODEL.get(provider)),
        "base_url": judge.get("base_url"),
        "api_key_env": judge.get("api_key_env", DEFAULT_KEY_ENV[provider]),
        "api_version": judge.get("api_version"),
        "max_concurrency": int(judge.get("max_concurrency", 1 if provider == "local" else 8)),
        "model_dir": _optional_path(judge.get("model_dir")),
        "addressed_text": judge.get("addressed_text", "cut"),
        "hidden_text": judge.get("hidden_text", "cut"),
    }
    for key in ("temperature", "timeout_s"):
        if key in judge:
            options[key] = float(judge[key])
    for key in ("max_retries", "context_tokens", "threads"):
        if judge.get(key) is not None:
            options[key] = int(judge[key])
    if "cache_dir" in judge:
        options["cache_dir"] = _optional_path(judge["cache_dir"])
    prices, budget = judge.get("prices"), judge.get("budget")
    if prices is not None:
        options["prices"] = Prices(
            float(prices["prompt_per_1m"]), float(prices["completion_per_1m"])
        )
    if budget is not None:
        options["budget"] = Budget(
            max_calls=_optional_int(budget.get("max_calls")),
            max_tokens=_optional_int(budget.get("max_tokens")),
            max_usd=_optional_float(budget.get("max_usd")),
        )
    return JudgeConfig(**options)


def _optional_int(value: int | None) -> int | None:
    return None if value is None else int(value)


def _optional_path(text: str | None) -> Path | None:
    return None if text is None else Path(os.path.expanduser(text))


def _limits(block: dict[str, Any]) -> Limits:
    defaults = Limits()
    return Limits(
        max_file_mb=float(block.get("max_file_mb", defaults.max_file_mb)),
        max_row_chars=int(block.get("max_row_chars", defaults.max_row_chars)),
        max_field_chars=int(block.get("max_field_chars", defaults.max_field_chars)),
    )


def _dataset(item: dict[str, Any], config_path: Path, line: int, limits: Limits) -> DatasetConfig:
    limit = item.get("limit")
    return DatasetConfig(
        name=item["name"],
        path=dataset_path(item["path"], config_path),
        fields=dict(item.get("fields") or {}),
        limit=None if limit is None else int(limit),
        thresholds=_thresholds(item.get("thresholds")),
        line=line,
        limits=limits,
    )


def _metrics(metrics: dict[str, Any]) -> MetricsConfig:
    def options(name: str) -> dict[str, Any] | None:
        return (metrics[name] or {}) if name in metrics else None

    groundedness = options("groundedness")
    faithfulness = options("faithfulness")
    summary = options("summary_accuracy")
    rating = options("rating")
    answers = options("answers")
    return MetricsConfig(
        groundedness=None if groundedness is None else GroundednessConfig(**groundedness),
        faithfulness=None if faithfulness is None else FaithfulnessConfig(**faithfulness),
        summary_accuracy=None
        if summary is None
        else SummaryAccuracyConfig(**_counts(summary, ("n_questions", "questions_per_sentence"))),
        rating=None if rating is None else RatingConfig(**rating),
        answers=None if answers is None else _answers(answers),
    )


def _counts(options: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    """`options` with the counts among `keys` as int (the schema lets 5.0 through as an
    integer); a key not written keeps the config class's default."""
    return {k: int(v) if k in keys else v for k, v in options.items()}


def _answers(options: dict[str, Any]) -> AnswersConfig:
    merged: dict[str, Any] = dict(options)
    for key in ("answered_at", "answerable_at"):  # an integer written (1) is a number
        if key in merged:
            merged[key] = float(merged[key])
    return AnswersConfig(**merged)


def _thresholds(block: dict[str, Any] | None) -> dict[str, Threshold]:
    result: dict[str, Threshold] = {}
    for score in SCORE_NAMES:  # report order, whatever order the file used
        if block and score in block:
            bounds = block[score]
            result[score] = Threshold(
                min=_optional_float(bounds.get("min")),
                max=_optional_float(bounds.get("max")),
                max_drop=_optional_float(bounds.get("max_drop")),
                confidence=float(bounds.get("confidence", DEFAULT_CONFIDENCE)),
            )
    return result


def _optional_float(value: float | None) -> float | None:
    return None if value is None else float(value)
