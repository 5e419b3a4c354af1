"""YAML config file -> validated, frozen `Config`.

Every schema problem is reported at once, one line each: `file:line: key.path: what was expected`.
"""

from __future__ import annotations

import difflib
import functools
import hashlib
import json
import os
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any, NamedTuple

from jsonschema import Draft202012Validator, ValidationError

from ground_gate.config.model import (
    METRIC_OF_SCORE,
    SCORE_NAMES,
    Config,
    DatasetConfig,
    FaithfulnessConfig,
    GroundednessConfig,
    JudgeConfig,
    MetricsConfig,
    RatingConfig,
    SummaryAccuracyConfig,
    Threshold,
)
from ground_gate.config.yamltree import Document, KeyPath, format_key_path, read_yaml
from ground_gate.errors import ConfigError
from ground_gate.values import describe_value

_DEFAULT_MODEL = {"openai": "gpt-4o-mini", "local": "qwen2.5-coder-1.5b"}
_DEFAULT_KEY_ENV = {"openai": "OPENAI_API_KEY", "azure": "AZURE_OPENAI_API_KEY", "local": None}
_TYPE_NAMES = {
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "object": "a mapping",
    "array": "a list",
    "boolean": "true or false",
    "null": "null",
}
_BOUNDS = {"minimum": ">=", "maximum": "<=", "exclusiveMinimum": ">", "exclusiveMaximum": "<"}
_HIDDEN = "a value from the environment (not shown)"  # a secret may come from there


def schema_text() -> str:
    """The published JSON Schema of the config (what `ground-gate schema` prints)."""
    return resources.files("ground_gate.config").joinpath("schema.json").read_text("utf-8")


@functools.cache
def _validator() -> Draft202012Validator:
    return Draft202012Validator(json.loads(schema_text()))


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
    problems = _schema_problems(document) or _meaning_problems(document)
    if problems:
        lines = sorted(dict.fromkeys(problems), key=lambda p: (p.line, format_key_path(p.path)))
        raise ConfigError("\n".join(p.render(file) for p in lines))
    return _build(data, path, hashlib.sha256(raw).hexdigest(), document)


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise ConfigError(f"{path}: config file not found") from None
    except IsADirectoryError:
        raise ConfigError(f"{path}: is a directory, expected a YAML config file") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the config file: {exc.strerror}") from None


def _decode(raw: bytes, file: str) -> str:
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise ConfigError(
            f"{file}:{line}: not valid UTF-8 (byte 0x{raw[exc.start]:02x}); save the file as UTF-8"
        ) from None


class _Problem(NamedTuple):
    line: int
    path: KeyPath
    text: str

    def render(self, file: str) -> str:
        where = f"{file}:{self.line}"
        return (
            f"{where}: {format_key_path(self.path)}: {self.text}"
            if self.path
            else (f"{where}: {self.text}")
        )


def _schema_problems(document: Document) -> list[_Problem]:
    problems: list[_Problem] = []
    for error in _validator().iter_errors(document.data):
        problems.extend(_explain(error, document))
    return problems


def _explain(error: ValidationError, document: Document) -> list[_Problem]:
    path: KeyPath = tuple(error.absolute_path)
    schema = error.schema if isinstance(error.schema, dict) else {}
    instance: Any = error.instance
    expected: Any = error.validator_value
    line = document.line_of(path)
    kind = error.validator
    if kind == "additionalProperties":
        known = list(schema.get("properties", {}))
        return [
            _Problem(document.line_of((*path, key)), path, _unknown_key(key, known, path))
            for key in instance
            if key not in known
        ]
    if kind == "required":
        reason = f" ({schema['$comment']})" if "$comment" in schema else ""
        return [
            _Problem(line, path, f"missing required key '{key}'{reason}")
            for key in expected
            if key not in instance
        ]
    got = _HIDDEN if path in document.from_env else describe_value(instance)
    if kind == "type":
        names = [expected] if isinstance(expected, str) else list(expected)
        text = f"expected {' or '.join(_TYPE_NAMES[n] for n in names)}, got {got}"
    elif kind == "enum":
        options = [str(o) for o in expected]
        text = f"expected one of {', '.join(map(repr, options))}; got {got}"
        if isinstance(instance, str) and path not in document.from_env:
            text += _suggest(instance, options)
    elif kind == "const":
        text = f"expected {json.dumps(expected)}, got {got}"
    elif kind in _BOUNDS:
        number = "an integer" if "integer" in schema.get("type", ()) else "a number"
        text = f"expected {number} {_BOUNDS[kind]} {expected}, got {got}"
        hidden = path in document.from_env
        if path[-1:] in (("min",), ("max",)) and 2 <= instance <= 100 and not hidden:
            text += f" (scores run from 0 to 1: {instance / 100:g} means {instance:g}%)"
    elif "errorMessage" in schema:
        text = schema["errorMessage"]
    elif kind == "minLength":
        text = "expected a non-empty string"
    elif kind == "maxLength":
        text = f"expected at most {expected} characters"
    else:  # not reached by the shipped schema; jsonschema's wording, value hidden if secret
        text = "invalid value" if path in document.from_env else error.message
    return [_Problem(line, path, text)]


def _unknown_key(key: str, known: list[str], path: KeyPath) -> str:
    if path and path[-1] == "thresholds":
        return f"unknown score '{key}'{_suggest(key, known)}; scores: {', '.join(known)}"
    suggestion = _suggest(key, known)
    if suggestion:
        return f"unknown key '{key}'{suggestion}"
    return f"unknown key '{key}'; expected one of: {', '.join(known)}"


def _suggest(word: str, options: list[str]) -> str:
    close = difflib.get_close_matches(word, options, n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


def _meaning_problems(document: Document) -> list[_Problem]:
    """What the schema cannot say: unique dataset names, min <= max, enabled threshold scores."""
    data = document.data
    problems: list[_Problem] = []
    seen: dict[str, int] = {}
    for index, dataset in enumerate(data["datasets"]):
        name = dataset["name"]
        path: KeyPath = ("datasets", index, "name")
        if name in seen:
            first = format_key_path(("datasets", seen[name]))
            problems.append(
                _Problem(
                    document.line_of(path),
                    path,
                    f"duplicate dataset name '{name}' (also {first}, line "
                    f"{document.line_of(('datasets', seen[name]))})",
                )
            )
        else:
            seen[name] = index
    enabled = set(data["metrics"])
    blocks: list[KeyPath] = [("thresholds",)]
    blocks += [("datasets", i, "thresholds") for i in range(len(data["datasets"]))]
    for block in blocks:
        for score, bounds in _get(data, block).items():
            path = (*block, score)
            metric = METRIC_OF_SCORE[score]
            if metric not in enabled:
                text = f"metric '{metric}' is not enabled under metrics"
                if metric != score:
                    text = (
                        f"score '{score}' comes from metric '{metric}', not enabled under metrics"
                    )
                problems.append(_Problem(document.line_of(path), path, text))
            if "min" in bounds and "max" in bounds and bounds["min"] > bounds["max"]:
                text = f"min {bounds['min']} is above max {bounds['max']}"
                problems.append(_Problem(document.line_of(path), path, text))
    return problems


def _get(data: Any, path: KeyPath) -> dict[str, Any]:
    for part in path:
        if isinstance(data, dict):
            data = data.get(part) if isinstance(part, str) else None
        elif isinstance(data, list) and isinstance(part, int):
            data = data[part]
        if data is None:
            return {}
    return data if isinstance(data, dict) else {}


def _build(data: dict[str, Any], path: Path, digest: str, document: Document) -> Config:
    return Config(
        judge=_judge(data["judge"]),
        datasets=tuple(
            _dataset(item, path, document.line_of(("datasets", i)))
            for i, item in enumerate(data["datasets"])
        ),
        metrics=_metrics(data["metrics"]),
        thresholds=_thresholds(data.get("thresholds")),
        on_error=data.get("on_error", "fail"),
        version=data["version"],
        path=path,
        digest=digest,
    )


def _judge(judge: dict[str, Any]) -> JudgeConfig:
    provider = judge["provider"]
    options: dict[str, Any] = {
        "provider": provider,
        "model": judge.get("model", _DEFAULT_MODEL.get(provider)),
        "base_url": judge.get("base_url"),
        "api_key_env": judge.get("api_key_env", _DEFAULT_KEY_ENV[provider]),
        "api_version": judge.get("api_version"),
        "max_concurrency": int(judge.get("max_concurrency", 1 if provider == "local" else 8)),
        "model_dir": _optional_path(judge.get("model_dir")),
    }
    for key in ("temperature", "timeout_s"):
        if key in judge:
            options[key] = float(judge[key])
    for key in ("max_retries", "context_tokens", "threads"):
        if judge.get(key) is not None:
            options[key] = int(judge[key])
    if "cache_dir" in judge:
        options["cache_dir"] = _optional_path(judge["cache_dir"])
    return JudgeConfig(**options)


def _optional_path(text: str | None) -> Path | None:
    return None if text is None else Path(os.path.expanduser(text))


def _dataset(item: dict[str, Any], config_path: Path, line: int) -> DatasetConfig:
    path = Path(os.path.expanduser(item["path"]))
    if not path.is_absolute():  # relative to the config file, not to the working directory
        path = Path(os.path.normpath(config_path.parent / path))
    limit = item.get("limit")
    return DatasetConfig(
        name=item["name"],
        path=path,
        fields=dict(item.get("fields") or {}),
        limit=None if limit is None else int(limit),
        thresholds=_thresholds(item.get("thresholds")),
        line=line,
    )


def _metrics(metrics: dict[str, Any]) -> MetricsConfig:
    def options(name: str) -> dict[str, Any] | None:
        return (metrics[name] or {}) if name in metrics else None

    groundedness = options("groundedness")
    faithfulness = options("faithfulness")
    summary = options("summary_accuracy")
    rating = options("rating")
    return MetricsConfig(
        groundedness=None if groundedness is None else GroundednessConfig(**groundedness),
        faithfulness=None if faithfulness is None else FaithfulnessConfig(**faithfulness),
        summary_accuracy=None
        if summary is None
        else SummaryAccuracyConfig(
            **{**summary, "n_questions": int(summary.get("n_questions", 10))}
        ),
        rating=None if rating is None else RatingConfig(),
    )


def _thresholds(block: dict[str, Any] | None) -> dict[str, Threshold]:
    result: dict[str, Threshold] = {}
    for score in SCORE_NAMES:  # report order, whatever order the file used
        if block and score in block:
            bounds = block[score]
            result[score] = Threshold(
                min=None if bounds.get("min") is None else float(bounds["min"]),
                max=None if bounds.get("max") is None else float(bounds["max"]),
            )
    return result
