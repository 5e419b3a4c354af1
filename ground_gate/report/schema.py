"""The JSON reports' published JSON Schemas, shipped beside this module: a run's
(report.schema.json) and a calibration's (calibration.schema.json); and the one check that a
document is a report of either.

The schema is the contract other tools read, and the check every report file passes where it
enters (report_files.read_report): its types, and the ranges of its numbers (a score in
[0, 1], counts and seconds >= 0), so nothing read back can hold a value no run writes.
"""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any

import jsonschema

from ground_gate.report.types import Report

SCHEMA_VERSION = 1
SCHEMA_FILE = "report.schema.json"  # beside this module, shipped in the package
CALIBRATION_SCHEMA_FILE = "calibration.schema.json"


def schema(name: str = SCHEMA_FILE) -> dict[str, Any]:
    """A published JSON Schema (draft 2020-12): the run report's, or the one named."""
    text = resources.files("ground_gate.report").joinpath(name).read_text("utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


@functools.cache
def _validator(name: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(schema(name))  # no format checker


def schema_problems(
    report: object, message_chars: int | None = None, name: str = SCHEMA_FILE
) -> list[str]:
    """One line per way `report` breaks the published schema (`name`: the run report's by
    default), each naming the field's path (`$.rows[1].status: ...`), in path order; empty
    for a valid report."""
    errors = sorted(_validator(name).iter_errors(report), key=lambda e: e.json_path)
    return [f"{e.json_path}: {e.message[:message_chars]}" for e in errors]


def _first(problems: list[str], schema_name: str) -> str | None:
    if not problems:
        return None
    more = f" and {len(problems) - 1} more" if len(problems) > 1 else ""
    return f"does not match the published {schema_name} ({problems[0]}{more})"


def is_calibration(document: object) -> bool:
    """Whether a saved document claims to be a calibration's report (`calibrate
    --output-json`): an object with its agreement groups and labelled rows; whether it is one
    is for `calibration_mismatch` to say."""
    return isinstance(document, dict) and "groups" in document and "rows_scored" in document


def calibration_mismatch(document: object) -> str | None:
    """Why `document` is not a calibration report `calibrate --output-json` writes, in one
    line; or None."""
    problems = schema_problems(document, message_chars=160, name=CALIBRATION_SCHEMA_FILE)
    problem = _first(problems, "calibration report schema")
    return None if problem is None else f"not a calibration report: it {problem}"


def schema_mismatch(report: Any) -> str | None:
    """Why `report` is not a valid report of this schema version, in one line; or None."""
    if not isinstance(report, dict) or report.get("schema_version") != SCHEMA_VERSION:
        return (
            "not a ground-gate JSON report (expected an object with schema_version "
            f"{SCHEMA_VERSION})"
        )
    return _first(schema_problems(report, message_chars=160), "report schema")


def inconsistency(report: Report) -> str | None:
    """What a schema-valid report says that cannot hold together, in one line; or None. The
    schema cannot say it: each dataset named once, each of its rows (and each score summary)
    of a dataset it names, each (dataset, id) row once (with two, a mean counts both and a
    pairing with the baseline takes one), each (dataset, score) summary once."""
    names = [d["name"] for d in report["datasets"]]
    if len(set(names)) != len(names):
        twice = next(n for n in names if names.count(n) > 1)
        return f"dataset {twice} is named twice in datasets: a report names each dataset once"
    rows: dict[tuple[str, str], int] = {}
    for index, row in enumerate(report["rows"]):
        key = (row["dataset"], row["id"])
        if row["dataset"] not in names:
            return f"rows[{index}] is of dataset {key[0]}, which datasets does not name"
        if key in rows:
            return (
                f"row {key[0]}/{key[1]} is given twice (rows[{rows[key]}] and rows[{index}]): "
                "a report holds each row once"
            )
        rows[key] = index
    scores: set[tuple[str, str]] = set()
    for index, entry in enumerate(report["scores"]):
        key = (entry["dataset"], entry["score"])
        if entry["dataset"] not in names:
            return f"scores[{index}] is of dataset {key[0]}, which datasets does not name"
        if key in scores:
            return f"scores[{index}]: {key[0]} {key[1]} is summed up twice"
        scores.add(key)
    return None
