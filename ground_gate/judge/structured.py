"""Structured output: the response_format to ask for, and tolerant reading of what came back.

Small local models wrap JSON in code fences or prose even when asked not to, and servers differ
in how they constrain output, so the reply is searched for the first complete JSON value and
then validated against the schema. Nothing here ever evaluates model output as code.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

import jsonschema
import jsonschema.exceptions
import jsonschema.validators

_FENCE = re.compile(r"```[ \t]*[A-Za-z0-9_-]*[ \t]*\r?\n?(.*?)```", re.DOTALL)
_SCHEMA_NAME_CHARS = re.compile(r"[^A-Za-z0-9_-]+")
_MAX_ERROR_CHARS = 300
_MAX_CANDIDATES = 20


class StructuredOutputError(ValueError):
    """The reply holds no usable JSON value, or one that does not match the schema."""


def json_schema_format(schema: Mapping[str, Any], purpose: str) -> dict[str, Any]:
    """OpenAI's structured-output request (non-strict: our schemas need not list every key)."""
    return {
        "type": "json_schema",
        "json_schema": {"name": schema_name(purpose), "schema": dict(schema), "strict": False},
    }


def json_object_format(schema: Mapping[str, Any]) -> dict[str, Any]:
    """The form llama-cpp-python's server turns into a grammar (it rejects json_schema)."""
    return {"type": "json_object", "schema": dict(schema)}


def schema_name(purpose: str) -> str:
    """OpenAI requires ^[a-zA-Z0-9_-]{1,64}$ for the schema name."""
    name = _SCHEMA_NAME_CHARS.sub("_", purpose).strip("_")[:64]
    return name or "output"


def mentions_response_format(message: str) -> bool:
    lowered = message.lower()
    return "response_format" in lowered or "json_schema" in lowered


def extract_json(text: str) -> Any:
    """The first complete JSON value in `text`: whole text, then fenced blocks, then a scan."""
    for value in iter_json_values(text):
        return value
    if not text.strip():
        raise StructuredOutputError("the reply was empty")
    raise StructuredOutputError(
        "the reply holds no complete JSON value (it may have been cut off by max_tokens)"
    )


def iter_json_values(text: str) -> Iterator[Any]:
    """Every top-level JSON value found in `text`, most likely first."""
    stripped = text.strip().lstrip("\ufeff")
    if not stripped:
        return
    candidates = [stripped, *(m.group(1).strip() for m in _FENCE.finditer(stripped))]
    for candidate in candidates:
        try:
            yield _DECODER.decode(candidate)
        except ValueError:
            continue
    for candidate in candidates:
        yield from _scan(candidate)


def validation_error(value: Any, schema: Mapping[str, Any]) -> str | None:
    """A short description of the most relevant schema violation, or None when valid."""
    validator = _validator(json.dumps(schema, sort_keys=True))
    error = jsonschema.exceptions.best_match(validator.iter_errors(value))
    if error is None:
        return None
    where = "/".join(str(part) for part in error.absolute_path) or "(root)"
    return _shorten(f"at {where}: {error.message}")


def parse_and_validate(text: str, schema: Mapping[str, Any]) -> Any:
    """The first schema-valid JSON value in `text`, or StructuredOutputError saying what is wrong.

    When no value is valid, the error describes the first one found (the likeliest answer).
    """
    first_problem: str | None = None
    for index, value in enumerate(iter_json_values(text)):
        if index >= _MAX_CANDIDATES:
            break
        problem = validation_error(value, schema)
        if problem is None:
            return value
        if first_problem is None:
            first_problem = problem
    if first_problem is None:
        extract_json(text)  # raises with the reason no value was found
    raise StructuredOutputError(f"the JSON does not match the schema {first_problem}")


def repair_message(problem: str, schema: Mapping[str, Any]) -> str:
    return (
        f"Your previous reply could not be used: {problem}. "
        "Reply again with only a JSON value that matches this JSON schema, "
        "with no code fences and no other text:\n"
        f"{json.dumps(schema, separators=(',', ':'), sort_keys=True)}"
    )


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


_DECODER = json.JSONDecoder(parse_constant=_reject_constant)


def _scan(text: str) -> Iterator[Any]:
    """Values starting at each `{` or `[`; raw_decode stops at the end of a balanced value."""
    index = 0
    while index < len(text):
        if text[index] not in "{[":
            index += 1
            continue
        try:
            value, end = _DECODER.raw_decode(text, index)
        except ValueError:
            index += 1
            continue
        yield value
        index = end


@functools.lru_cache(maxsize=64)
def _validator(schema_json: str) -> Any:
    schema = json.loads(schema_json)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def _shorten(text: str) -> str:
    if len(text) <= _MAX_ERROR_CHARS:
        return text
    return text[: _MAX_ERROR_CHARS - 3] + "..."
