"""Verdicts recorded in the repository and replayed: a replayed assertion makes no judge call
and needs no model.

One file a verdict, `<store>/<hex>.json`, named by the row's verdict key (stages/reuse.py: the
answer, source and question as the judge reads them, the judge, its model file's checksum,
the prompts' version, the metrics' settings and ground-gate's version), so a change to any of
them finds no verdict and is judged again, and two tests asserting the same answer share one.
A file holds the row as the JSON report writes it (checked against the report's published
schema when read back), the test that recorded it and the judge; no time and no cost, so
recording again what did not change leaves the file as it was. Written whole (a temporary file
renamed), with every secret masked: xdist's workers may record at once.

A file read back enters from outside: a regular file under a size cap, strict JSON, the
schema's row; anything else is a StoreError naming the file, never a verdict.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any, cast

import jsonschema

from ground_gate.leaves.errors import GroundGateError
from ground_gate.leaves.file_reader import Unreadable, problem, read_capped
from ground_gate.leaves.json_keys import unique_keys
from ground_gate.leaves.masking import mask
from ground_gate.leaves.results import RowResult
from ground_gate.report.json_report import row_entry
from ground_gate.report.readback import row_result
from ground_gate.report.schema import schema
from ground_gate.report.types import RowEntry
from ground_gate.stages.reuse import spent_nothing

KIND = "ground-gate verdict"
VERSION = 1
MAX_BYTES = 16 * 1024 * 1024
RERECORD = "record it again: pytest --gg-mode=record"


class StoreError(GroundGateError):
    """A recorded verdict that cannot be read back."""


class VerdictStore:
    """The verdicts under `directory`, by key ("sha256:<hex>")."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def path(self, key: str) -> Path:
        return self.directory / f"{key.removeprefix('sha256:')}.json"

    def get(self, key: str, dataset: str, row_id: str) -> RowResult | None:
        """The verdict recorded for `key`, as row `row_id` of `dataset`; None: none is."""
        path = self.path(key)
        if not path.exists() and not path.is_symlink():
            return None
        entry = _read(path)
        if entry.get("key") != key:
            raise StoreError(f"{path}: holds the verdict of another key; {RERECORD}")
        row = cast(RowEntry, {**entry["row"], "dataset": dataset, "id": row_id})
        return row_result(row)

    def put(self, key: str, row: RowResult, test: str, judge: Mapping[str, Any]) -> Path:
        """Record `row`'s verdicts for `key` (replacing what was there): its verdicts only,
        not what judging them took (the run's, not the verdict's), so that recording again a
        verdict that did not change leaves the file as it was."""
        row = spent_nothing(row)
        entry = {
            "kind": KIND,
            "version": VERSION,
            "key": key,
            "test": test,
            "judge": {k: judge[k] for k in ("provider", "model", "prompt_version") if k in judge},
            "row": row_entry(row),
        }
        path = self.path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f".{path.name}.{os.getpid()}")
        text = json.dumps(entry, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
        partial.write_text(mask(text), encoding="utf-8")
        partial.replace(path)
        return path

    def keys(self) -> set[str]:
        """The keys recorded, by their files' names."""
        if not self.directory.is_dir():
            return set()
        return {f"sha256:{p.stem}" for p in self.directory.glob("*.json")}


def _read(path: Path) -> dict[str, Any]:
    try:
        raw = read_capped(path, MAX_BYTES)
    except Unreadable as exc:
        expected = "a recorded verdict (a JSON file)"
        too_large = f"over the {MAX_BYTES} bytes a verdict may hold"
        raise StoreError(f"{path}: {problem(exc, expected, too_large)}") from None
    try:
        data = json.loads(raw.decode("utf-8"), object_pairs_hook=unique_keys, parse_constant=_nan)
    except ValueError as exc:
        raise StoreError(f"{path}: not a recorded verdict ({exc}); {RERECORD}") from None
    if not isinstance(data, dict) or data.get("kind") != KIND or data.get("version") != VERSION:
        raise StoreError(
            f"{path}: not a recorded verdict of this version (expected kind {KIND!r}, version "
            f"{VERSION}); {RERECORD}"
        )
    errors = sorted(_row_schema().iter_errors(data.get("row")), key=_where)
    if errors:
        where = "/".join(str(p) for p in errors[0].absolute_path)
        raise StoreError(f"{path}: row/{where}: {errors[0].message[:200]}; {RERECORD}")
    return data


def _where(error: jsonschema.ValidationError) -> list[str]:
    return [str(p) for p in error.absolute_path]


def _nan(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


@cache
def _row_schema() -> jsonschema.Draft202012Validator:
    report = schema()
    return jsonschema.Draft202012Validator({"$defs": report["$defs"], "$ref": "#/$defs/row"})
