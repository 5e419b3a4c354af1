"""What the schema cannot say about a config: unique dataset names, min <= max, thresholds on
enabled metrics, confidence only beside max_drop, a column mapped to one field only, a usable
judge URL, a sendable API key, prices beside a dollar budget, and no secret copied into a
value that is printed."""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from ground_gate.config.model import GroundednessConfig
from ground_gate.config.providers import judge_defaults
from ground_gate.config.schema_check import Problem
from ground_gate.config.scores import METRIC_OF_SCORE, VERDICT_SCORES
from ground_gate.config.yamltree import Document, KeyPath, format_key_path
from ground_gate.leaves.errors import ConfigError


def rule_problems(document: Document, env: Mapping[str, str]) -> list[Problem]:
    data = document.data
    return [
        *_duplicate_names(document),
        *_threshold_problems(document),
        *_field_problems(document),
        *_judge_problems(document, data["judge"], env),
        *_secret_problems(document),
    ]


def secret_names(document: Document) -> dict[str, str]:
    """Environment variables that hold secrets -> the key that names them: every `*_env` key
    of the config (judge.api_key_env, a target's key or token), each variable a `*_env`
    mapping names (an http target's headers_env), and judge.api_key_env's default when it is
    not written."""
    names: dict[str, str] = {}
    judge = document.data["judge"]
    default = judge_defaults(judge["provider"]).api_key_env
    if default and "api_key_env" not in judge:
        names[default] = "judge.api_key_env"
    stack: list[tuple[KeyPath, Any]] = [((), document.data)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, dict):
            for key, item in value.items():
                if key.endswith("_env") and isinstance(item, str) and item:
                    names.setdefault(item, format_key_path((*path, key)))
                elif key.endswith("_env") and isinstance(item, dict):  # headers_env: {H: VAR}
                    for header, name in item.items():
                        if isinstance(name, str) and name:
                            names.setdefault(name, format_key_path((*path, key, header)))
                stack.append(((*path, key), item))
        elif isinstance(value, list):
            stack.extend(((*path, index), item) for index, item in enumerate(value))
    return names


def _secret_problems(document: Document) -> list[Problem]:
    """`model: ${OPENAI_API_KEY}` would put the key in the comment and every report: a value
    may not interpolate a variable that a `*_env` key names, set or not."""
    secrets = secret_names(document)
    problems = []
    for path, names in document.references.items():
        for name in names:
            if name in secrets:
                text = (
                    f"${{{name}}} holds a secret (the variable {secrets[name]} names): the key "
                    f"cannot be used in `{format_key_path(path)}`"
                )
                problems.append(Problem(document.line_of(path), path, text))
                break
    return problems


def _duplicate_names(document: Document) -> list[Problem]:
    problems: list[Problem] = []
    seen: dict[str, int] = {}
    for index, dataset in enumerate(document.data["datasets"]):
        name = dataset["name"]
        path: KeyPath = ("datasets", index, "name")
        if name in seen:
            first = format_key_path(("datasets", seen[name]))
            line = document.line_of(("datasets", seen[name]))
            text = f"duplicate dataset name '{name}' (also {first}, line {line})"
            problems.append(Problem(document.line_of(path), path, text))
        else:
            seen[name] = index
    return problems


def _method(data: Mapping[str, Any]) -> str:
    """groundedness's method (the schema has already checked the shape)."""
    block = data["metrics"].get("groundedness") or {}
    return str(block.get("method", GroundednessConfig.method))


def _threshold_problems(document: Document) -> list[Problem]:
    data = document.data
    problems: list[Problem] = []
    enabled = set(data["metrics"])
    blocks: list[KeyPath] = [("thresholds",)]
    blocks += [("datasets", i, "thresholds") for i in range(len(data["datasets"]))]
    for block in blocks:
        for score, bounds in _get(data, block).items():
            path = (*block, score)
            metric = METRIC_OF_SCORE.get(score)  # None: substance, every config's
            if metric is None:
                continue
            if metric not in enabled:
                text = f"metric '{metric}' is not enabled under metrics"
                if metric != score:
                    text = (
                        f"score '{score}' comes from metric '{metric}', not enabled under metrics"
                    )
                problems.append(Problem(document.line_of(path), path, text))
            elif score in VERDICT_SCORES and score != metric and _method(data) == "rating":
                text = (
                    f"score '{score}' comes from groundedness with method: verdict, and "
                    "groundedness has method: rating (it gives groundedness only)"
                )
                problems.append(Problem(document.line_of(path), path, text))
            if "min" in bounds and "max" in bounds and bounds["min"] > bounds["max"]:
                text = f"min {bounds['min']} is above max {bounds['max']}"
                problems.append(Problem(document.line_of(path), path, text))
            if "confidence" in bounds and "max_drop" not in bounds:
                where = (*path, "confidence")
                text = "confidence applies to max_drop: add max_drop, or remove confidence"
                problems.append(Problem(document.line_of(where), where, text))
    return problems


def _field_problems(document: Document) -> list[Problem]:
    """One column is one field: `fields: {question: text, response: text}` would judge the
    question as its own answer."""
    problems: list[Problem] = []
    for index, dataset in enumerate(document.data["datasets"]):
        first_role: dict[str, str] = {}
        for role, column in (dataset.get("fields") or {}).items():
            if column in first_role:
                path: KeyPath = ("datasets", index, "fields", role)
                text = (
                    f"column '{column}' is already fields.{first_role[column]}; "
                    "a column can be only one field"
                )
                problems.append(Problem(document.line_of(path), path, text))
            else:
                first_role[column] = role
    return problems


def _judge_problems(
    document: Document, judge: dict[str, Any], env: Mapping[str, str]
) -> list[Problem]:
    problems: list[Problem] = []
    url = judge.get("base_url")
    if isinstance(url, str):
        problem = url_problem(url)
        if problem is not None:
            path: KeyPath = ("judge", "base_url")
            problems.append(Problem(document.line_of(path), path, problem))
    name = judge.get("api_key_env", judge_defaults(judge["provider"]).api_key_env)
    key = env.get(name) if name else None
    problem = api_key_problem(key) if key else None
    if problem is not None:
        path = ("judge", "api_key_env")
        text = f"the API key in the environment variable {name} {problem}"
        problems.append(Problem(document.line_of(path), path, text))
    budget = judge.get("budget") or {}
    if "max_usd" in budget and judge["provider"] != "local" and not judge.get("prices"):
        path = ("judge", "budget", "max_usd")
        text = "a dollar budget needs the model's prices: add judge.prices"
        problems.append(Problem(document.line_of(path), path, text))
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


def url_problem(url: str) -> str | None:
    """Why `url` cannot be a judge endpoint (None if it can): http(s), a host, a port 1-65535."""
    if any(ch.isspace() or unicodedata.category(ch) == "Cc" for ch in url):
        return "the URL holds a space or a control character"
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:  # "Port out of range 0-65535", "Port could not be cast..."
        if "out of range" in str(exc):
            return "the port is out of range: expected 1 to 65535"
        return "the port is not a number: expected 1 to 65535"
    if parts.scheme.lower() not in ("http", "https"):
        return "expected an http:// or https:// URL"
    if not parts.hostname:
        return "the URL has no host"
    if port == 0:
        return "the port is out of range: expected 1 to 65535"
    return None


def api_key_problem(key: str) -> str | None:
    """Why `key` cannot be sent in an Authorization header (None if it can). Never quotes it."""
    if key != key.strip():
        return "starts or ends with a space or a line break; remove it"
    for index, ch in enumerate(key, 1):
        if not (" " < ch < "\x7f"):
            name = unicodedata.name(ch, "a control character")
            return (
                f"holds U+{ord(ch):04X} ({name.lower()}) at character {index}; an API key is "
                "printable ASCII: copy it again"
            )
    return None


def check_api_key(name: str | None, key: str, keys: str = "judge") -> None:
    """Raise ConfigError naming the variable `name` if `key` cannot be sent; the key is never
    shown. For the judge factory, where the key is read. keys: the config block that names
    the variable."""
    problem = api_key_problem(key)
    if problem is not None:
        raise ConfigError(
            f"{keys}.api_key_env: the API key in the environment variable {name or '(none)'} "
            f"{problem}"
        )
