"""How a bad value is named in messages, in the config's (YAML) and the datasets' (JSON) terms."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from ground_gate.leaves.errors import describe_json_value, describe_value


@pytest.mark.parametrize(
    ("value", "yaml", "json"),
    [
        (None, "null", "null"),
        (True, "true", "true"),
        (False, "false", "false"),
        (3, "3", "3"),
        (0.5, "0.5", "0.5"),
        ("gpt", "'gpt'", "a string"),
        ("x" * 61, repr("x" * 57 + "..."), "a string"),
        ("x" * 60, repr("x" * 60), "a string"),
        ([1], "a list", "a list"),
        ({"a": 1}, "a mapping", "an object"),
    ],
)
def test_describe_value__yaml_and_json_wording(value: Any, yaml: str, json: str) -> None:
    assert (describe_value(value), describe_json_value(value)) == (yaml, json)


def test_describe_value__other_types_by_name() -> None:
    assert describe_value(date(2026, 1, 2)) == "date"
