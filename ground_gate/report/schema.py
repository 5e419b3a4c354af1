"""The JSON report's published JSON Schema (report.schema.json, shipped beside this module)
and the one check that a document is a report of this schema version.

The schema is the contract other tools read, and the check every report file passes where it
enters (report_files.read_report): its types, and the ranges of its numbers (a score in
[0, 1], counts and seconds >= 0), so nothing read back can hold a value no run writes.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from importlib import resources
from typing import Any

import jsonschema

SCHEMA_VERSION = 1
SCHEMA_FILE = "report.schema.json"  # beside this module, shipped in the package


def schema() -> dict[str, Any]:
    """The report's published JSON Schema (draft 2020-12)."""
    text = resources.files("ground_gate.report").joinpath(SCHEMA_FILE).read_text("utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


@functools.cache
def _validator() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(schema())  # no format checker


def schema_problems(report: Mapping[str, Any], message_chars: int | None = None) -> list[str]:
    """One line per way `report` breaks the published schema, each naming the field's path
    (`$.rows[1].status: ...`), in path order; empty for a valid report."""
    errors = sorted(_validator().iter_errors(report), key=lambda e: e.json_path)
    return [f"{e.json_path}: {e.message[:message_chars]}" for e in errors]


def schema_mismatch(report: Any) -> str | None:
    """Why `report` is not a valid report of this schema version, in one line; or None."""
    if not isinstance(report, dict) or report.get("schema_version") != SCHEMA_VERSION:
        return (
            "not a ground-gate JSON report (expected an object with schema_version "
            f"{SCHEMA_VERSION})"
        )
    problems = schema_problems(report, message_chars=160)
    if not problems:
        return None
    more = f" and {len(problems) - 1} more" if len(problems) > 1 else ""
    return f"does not match the published report schema ({problems[0]}{more})"
