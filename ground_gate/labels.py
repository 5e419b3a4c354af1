"""Human-labelled rows for `ground-gate calibrate`: the dataset rows plus label and types.

Records (JSONL): id, source, question (or null), response, label (1 = fully grounded, 0 = not),
optional `dataset` (a group name) and `hallucination_types` (e.g. baseless, contradiction).
The row text is read by the ordinary dataset reader, so every dataset check applies.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ground_gate.config.model import DatasetConfig
from ground_gate.datasets import Sample, iter_samples
from ground_gate.errors import DatasetError, long_integer
from ground_gate.writable import writable


@dataclass(frozen=True)
class LabelledSample:
    sample: Sample
    label: int
    types: tuple[str, ...]
    group: str


def _label_fields(path: Path) -> dict[str, tuple[int, tuple[str, ...], str]]:
    found: dict[str, tuple[int, tuple[str, ...], str]] = {}
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            where = f"{path}:{number}"
            try:
                record = json.loads(raw, parse_int=long_integer)
            except (ValueError, RecursionError) as exc:  # JSON, UTF-8, 5,000-digit integers
                raise DatasetError(f"{where}: not a JSON object ({type(exc).__name__})") from None
            label = record.get("label") if isinstance(record, dict) else None
            if label not in (0, 1) or isinstance(label, bool):
                raise DatasetError(
                    f"{where}: label: expected 1 (grounded) or 0 (not), got {label!r}"
                )
            types = record.get("hallucination_types") or []
            if not isinstance(types, list) or not all(isinstance(t, str) for t in types):
                raise DatasetError(f"{where}: hallucination_types: expected a list of strings")
            group = record.get("dataset") or path.stem
            found[_label_id(record.get("id"), number)] = (label, tuple(types), str(group))
    return found


def _label_id(value: object, number: int) -> str:
    """The id a labelled row's sample gets (datasets/validation.py): text made writable as
    there, an integer as its digits."""
    if isinstance(value, str):
        return writable(value)[0]
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return f"row-{number}"


def read_labelled(path: Path, limit_per_group: int | None = None) -> list[LabelledSample]:
    if path.suffix.lower() not in (".jsonl", ".ndjson"):
        raise DatasetError(f"{path}: labels must be a .jsonl file")
    if not path.is_file():
        raise DatasetError(f"{path}: no such labels file")
    # the rows first: their reader checks the file (regular, size, rows, ids) before it is read
    # again for the labels
    samples = list(iter_samples(DatasetConfig(name=path.stem, path=path)))
    labels = _label_fields(path)
    taken: dict[str, int] = {}
    rows = []
    for sample in samples:
        label, types, group = labels[sample.id]
        if limit_per_group is not None and taken.get(group, 0) >= limit_per_group:
            continue
        taken[group] = taken.get(group, 0) + 1
        rows.append(LabelledSample(sample, label, types, group))
    return rows
