from __future__ import annotations

from typing import Any

import pytest

from ground_gate.judge.structured import (
    StructuredOutputError,
    extract_json,
    json_object_format,
    json_schema_format,
    mentions_response_format,
    parse_and_validate,
    repair_message,
    schema_name,
    validation_error,
)

VERDICT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "verdict": {"type": "integer", "enum": [0, 1]},
        "reason": {"type": "string"},
    },
    "required": ["verdict"],
}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"verdict": 1}', {"verdict": 1}),
        ('  \n{"verdict": 1}\n', {"verdict": 1}),
        ("[1, 2, 3]", [1, 2, 3]),
        ('"yes"', "yes"),
        ('```json\n{"verdict": 0}\n```', {"verdict": 0}),
        ('```\n{"verdict": 0}\n```', {"verdict": 0}),
        ('```JSON {"verdict": 0}```', {"verdict": 0}),
        ('Here is my answer:\n```json\n{"verdict": 1}\n```\nHope it helps.', {"verdict": 1}),
        ('Sure! The result is {"verdict": 1} as requested.', {"verdict": 1}),
        ('{"verdict": 1}\nThe statement is supported.', {"verdict": 1}),
        ('{"verdict": 1} {"verdict": 0}', {"verdict": 1}),
        (
            '{"reason": "uses {braces} and \\"quotes\\" }", "verdict": 0}',
            {"reason": 'uses {braces} and "quotes" }', "verdict": 0},
        ),
        ('{"a": {"b": [1, {"c": "]"}]}} trailing }', {"a": {"b": [1, {"c": "]"}]}}),
        ('Answer { not json } then {"verdict": 1}', {"verdict": 1}),
        ('```json\n{"verdict": 1}', {"verdict": 1}),
        ('\ufeff{"verdict": 1}', {"verdict": 1}),
    ],
)
def test_extract_json__finds_the_first_complete_value(text: str, expected: Any) -> None:
    assert extract_json(text) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "the reply was empty"),
        ("   \n", "the reply was empty"),
        (
            "I cannot answer that.",
            "the reply holds no complete JSON value (it may have been cut off by max_tokens)",
        ),
        (
            '{"verdict": 1, "reason": "the source sa',
            "the reply holds no complete JSON value (it may have been cut off by max_tokens)",
        ),
        (
            '{"verdict": NaN}',
            "the reply holds no complete JSON value (it may have been cut off by max_tokens)",
        ),
    ],
)
def test_extract_json__says_why_nothing_was_found(text: str, message: str) -> None:
    with pytest.raises(StructuredOutputError) as caught:
        extract_json(text)
    assert str(caught.value) == message


def test_extract_json__never_evaluates_python() -> None:
    with pytest.raises(StructuredOutputError):
        extract_json("__import__('os').system('false')")
    with pytest.raises(StructuredOutputError):
        extract_json("{'verdict': 1}")  # a Python literal, not JSON


def test_parse_and_validate__skips_a_citation_before_the_answer() -> None:
    text = 'According to [1], the claim holds: {"verdict": 1, "reason": "stated in [1]"}'
    assert parse_and_validate(text, VERDICT_SCHEMA) == {"verdict": 1, "reason": "stated in [1]"}


def test_parse_and_validate__reports_the_first_values_problem() -> None:
    with pytest.raises(StructuredOutputError) as caught:
        parse_and_validate('{"verdict": "yes"}', VERDICT_SCHEMA)
    assert str(caught.value) == (
        "the JSON does not match the schema at verdict: 'yes' is not one of [0, 1]"
    )


def test_parse_and_validate__reports_no_json_when_there_is_none() -> None:
    with pytest.raises(StructuredOutputError) as caught:
        parse_and_validate("Yes.", VERDICT_SCHEMA)
    assert str(caught.value) == (
        "the reply holds no complete JSON value (it may have been cut off by max_tokens)"
    )


def test_validation_error__names_the_path_and_problem() -> None:
    schema = {
        "type": "object",
        "properties": {"items": {"type": "array", "items": {"type": "integer"}}},
        "required": ["items"],
    }
    assert validation_error({"items": [1, "two"]}, schema) == (
        "at items/1: 'two' is not of type 'integer'"
    )
    assert validation_error({}, schema) == "at (root): 'items' is a required property"
    assert validation_error({"items": [1]}, schema) is None


def test_validation_error__shortens_long_values() -> None:
    problem = validation_error({"verdict": "x" * 1000}, VERDICT_SCHEMA)
    assert problem is not None
    assert len(problem) == 300
    assert problem.endswith("...")


def test_json_schema_format__is_openais_non_strict_form() -> None:
    assert json_schema_format(VERDICT_SCHEMA, "faithfulness.verdict") == {
        "type": "json_schema",
        "json_schema": {"name": "faithfulness_verdict", "schema": VERDICT_SCHEMA, "strict": False},
    }


def test_json_object_format__carries_the_schema_for_llama_cpp() -> None:
    assert json_object_format(VERDICT_SCHEMA) == {"type": "json_object", "schema": VERDICT_SCHEMA}


@pytest.mark.parametrize(
    ("purpose", "name"),
    [
        ("groundedness", "groundedness"),
        ("summary_accuracy/questions", "summary_accuracy_questions"),
        ("  ", "output"),
        ("x" * 100, "x" * 64),
    ],
)
def test_schema_name__fits_openais_pattern(purpose: str, name: str) -> None:
    assert schema_name(purpose) == name


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("body -> response_format -> type: Input should be 'text' or 'json_object'", True),
        ('response_format type must be one of "text" or "json_object", but got: json_schema', True),
        ("Unsupported JSON_SCHEMA", True),
        ("Internal server error", False),
    ],
)
def test_mentions_response_format__recognises_rejections(message: str, expected: bool) -> None:
    assert mentions_response_format(message) is expected


def test_repair_message__states_the_problem_and_the_schema() -> None:
    schema = {"type": "object", "required": ["verdict"]}
    assert repair_message("the reply was empty", schema) == (
        "Your previous reply could not be used: the reply was empty. Reply again with only a "
        "JSON value that matches this JSON schema, with no code fences and no other text:\n"
        '{"required":["verdict"],"type":"object"}'
    )
