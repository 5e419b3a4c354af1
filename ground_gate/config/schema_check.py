"""Schema problems of a config document, each one line: `file:line: key.path: what was expected`.

jsonschema's own wording is replaced by messages in the config's terms; a value that came from
the environment is never shown (it may be a secret).
"""

from __future__ import annotations

import difflib
import functools
import json
from importlib import resources
from typing import Any, NamedTuple

from jsonschema import Draft202012Validator, ValidationError

from ground_gate.config.yamltree import Document, KeyPath, format_key_path
from ground_gate.leaves.errors import describe_value

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
# keys whose value is a share, where 80 was probably meant as 80%
_SHARES: dict[KeyPath, str] = {
    ("min",): "scores run from 0 to 1",
    ("max",): "scores run from 0 to 1",
    ("max_drop",): "scores run from 0 to 1",
    ("confidence",): "a confidence level runs from 0.5 to 1",
}
HIDDEN = "a value from the environment (not shown)"  # a secret may come from there


def schema_text() -> str:
    """The published JSON Schema of the config (what `ground-gate schema` prints)."""
    return resources.files("ground_gate.config").joinpath("schema.json").read_text("utf-8")


@functools.cache
def _validator() -> Draft202012Validator:
    return Draft202012Validator(json.loads(schema_text()))


class Problem(NamedTuple):
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


def schema_problems(document: Document) -> list[Problem]:
    problems: list[Problem] = []
    for error in _validator().iter_errors(document.data):
        problems.extend(_explain(error, document))
    return problems


def _explain(error: ValidationError, document: Document) -> list[Problem]:
    path: KeyPath = tuple(error.absolute_path)
    schema = error.schema if isinstance(error.schema, dict) else {}
    instance: Any = error.instance
    expected: Any = error.validator_value
    line = document.line_of(path)
    kind = error.validator
    if kind == "additionalProperties":
        known = list(schema.get("properties", {}))
        return [
            Problem(document.line_of((*path, key)), path, _unknown_key(key, known, path))
            for key in instance
            if key not in known
        ]
    if kind == "required":
        reason = f" ({schema['$comment']})" if "$comment" in schema else ""
        return [
            Problem(line, path, f"missing required key '{key}'{reason}")
            for key in expected
            if key not in instance
        ]
    got = HIDDEN if path in document.from_env else describe_value(instance)
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
        if path[-1:] in _SHARES and 2 <= instance <= 100 and not hidden:
            text += f" ({_SHARES[path[-1:]]}: {instance / 100:g} means {instance:g}%)"
    elif "errorMessage" in schema:
        text = schema["errorMessage"]
    elif kind == "minLength":
        text = "expected a non-empty string"
    elif kind == "maxLength":
        text = f"expected at most {expected} characters"
    else:  # not reached by the shipped schema; jsonschema's wording, value hidden if secret
        text = "invalid value" if path in document.from_env else error.message
    return [Problem(line, path, text)]


def _unknown_key(key: str, known: list[str], path: KeyPath) -> str:
    if path and path[-1] == "thresholds":
        return f"unknown score '{key}'{_suggest(key, known)}; scores: {', '.join(known)}"
    # a column name where a role belongs (fields: {answer: text}) is nearer a wrong role
    # (answerable) than the right one (response): no guess there, the roles listed
    suggestion = _suggest(key, known) if path[-1:] != ("fields",) else ""
    if suggestion:
        return f"unknown key '{key}'{suggestion}"
    return f"unknown key '{key}'; expected one of: {', '.join(known)}"


def _suggest(word: str, options: list[str]) -> str:
    close = difflib.get_close_matches(word, options, n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""
