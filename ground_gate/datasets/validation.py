"""A row's values checked and turned into a `Sample`: types, empty and null values, chunk lists.

Every message names the row (`file:line`, and `row N` for JSON and CSV), the column and its role.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ground_gate.config.model import TargetConfig
from ground_gate.datasets.fields import REQUIRED, columns
from ground_gate.datasets.formats import Row
from ground_gate.datasets.identity import content_key, id_key
from ground_gate.datasets.sample import Sample
from ground_gate.leaves.errors import DatasetError, LongInteger, describe_json_value, long_integer

MAX_ID_CHARS = 256  # ids name rows in reports and comments


def to_sample(row: Row, fields: Mapping[str, str], target: TargetConfig | None = None) -> Sample:
    """The row as a Sample. A row without an id is shown as `row-N` (its place in the file,
    where a reader finds it), but keyed by its content (datasets/identity.py): the key, not
    the place, decides its shard.

    With a target, the response is the target's to give (empty until it answers; a response
    column is not read) and the row's columns are kept for its placeholders; a target that
    answers with the contexts it used makes the context column optional."""
    required = REQUIRED if target is None else frozenset({"context"} - _given_by(target))
    chosen = columns(row, fields, required)
    given = _id(row, chosen["id"])
    context = chosen["context"]
    sources = _sources(row, context) if context is not None else ()
    response = _text(row, chosen["response"], "response") if target is None else ""
    question = _question(row, chosen["question"])
    return Sample(
        id=f"row-{row.number}" if given is None else given,
        sources=sources,
        response=response,
        question=question,
        answerable=_answerable(row, chosen["answerable"]),
        line=row.line,
        key=content_key(sources, question, response) if given is None else id_key(given),
        row=row.values if target is not None else {},
    )


def _given_by(target: TargetConfig) -> set[str]:
    return {"context"} if target.gives_contexts else set()


def _id(row: Row, column: str | None) -> str | None:
    """The row's own id; None when it has none."""
    value = None if column is None else row.values[column]
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, bool) or not isinstance(value, str | int | LongInteger):
        raise DatasetError(
            f"{row.where}: '{column}' (the id): expected a string or an integer, got "
            f"{describe_json_value(value)}"
        )
    chars = value.digits if isinstance(value, LongInteger) else len(str(value))
    if chars > MAX_ID_CHARS:
        raise DatasetError(
            f"{row.where}: '{column}' (the id) has {chars:,} characters; an id is at most "
            f"{MAX_ID_CHARS}"
        )
    return str(value)


def _question(row: Row, column: str | None) -> str | None:
    if column is None:
        return None
    value = row.values[column]
    if value is None:
        return None
    if not isinstance(value, str):
        raise DatasetError(
            f"{row.where}: '{column}' (the question): expected a string, got "
            f"{describe_json_value(value)}"
        )
    return value if value.strip() else None


# how a CSV cell (or a JSON string) states answerability; an empty cell states nothing
_STATED = {"true": True, "yes": True, "1": True, "false": False, "no": False, "0": False}


def _answerable(row: Row, column: str | None) -> bool | None:
    """Whether the row's source holds what its question asks, as the row states it: true or
    false (JSON), 0 or 1, or in a CSV cell true/false, yes/no, 1/0; null or empty: not stated."""
    value = None if column is None else row.values[column]
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in _STATED:
        return _STATED[value.strip().lower()]
    raise DatasetError(
        f"{row.where}: '{column}' (whether the source answers the question): expected true or "
        f"false, got {describe_json_value(value)}"
    )


def _text(row: Row, column: str | None, role: str) -> str:
    assert column is not None  # columns() guarantees required roles
    value = row.values[column]
    if value is None:
        raise DatasetError(f"{row.where}: '{column}' (the {role}) is null")
    if not isinstance(value, str):
        raise DatasetError(
            f"{row.where}: '{column}' (the {role}): expected a string, got "
            f"{describe_json_value(value)}"
        )
    if not value.strip():
        raise DatasetError(f"{row.where}: '{column}' (the {role}) is empty")
    return value


def _sources(row: Row, column: str | None) -> tuple[str, ...]:
    assert column is not None
    value = row.values[column]
    if row.from_csv and isinstance(value, str):
        value = _chunks_in_cell(value)
    if not isinstance(value, list):
        return (_text(row, column, "context"),)
    chunks: list[str] = []
    for index, item in enumerate(value):
        if not isinstance(item, str):
            raise DatasetError(
                f"{row.where}: '{column}'[{index}] (the context): expected a string, got "
                f"{describe_json_value(item)}"
            )
        if item.strip():
            chunks.append(item)
    if not chunks:
        raise DatasetError(f"{row.where}: '{column}' (the context) is empty")
    return tuple(chunks)


def _chunks_in_cell(cell: str) -> str | list[Any]:
    """A CSV cell holding a JSON list of strings is a list of chunks; anything else is text."""
    if not cell.lstrip().startswith("["):
        return cell
    try:
        value = json.loads(cell, parse_int=long_integer)
    except (ValueError, RecursionError):  # not JSON, or JSON no reader can hold
        return cell
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return value
    return cell
