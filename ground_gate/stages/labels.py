"""Human-labelled rows for `ground-gate calibrate`: the dataset rows plus their labels.

Records (JSONL): id, source, question (or null), response, and at least one label:
`label` (1 = fully grounded, 0 = not: the groundedness scores'), `answered` (1 = the response
answers its question, 0 = it declines, evades or says nothing: the answers metric's answered
and answered_anyway) or `answerable` (1 = the source holds the answer, 0 = not: its
context_relevance); optional `dataset` (a group name) and `hallucination_types` (e.g.
baseless, contradiction). The row text is read by the ordinary dataset reader, so every
dataset check applies; an `answerable` label is the judge's to find, so the samples do not
state it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from ground_gate.config.model import DatasetConfig
from ground_gate.datasets import Sample, iter_samples
from ground_gate.leaves.errors import DatasetError, long_integer
from ground_gate.leaves.writable import writable

LABELS = ("label", "answered", "answerable")  # the label columns, each 0 or 1 when present


@dataclass(frozen=True)
class LabelledSample:
    sample: Sample
    labels: Mapping[str, int]  # label column -> 0 or 1, the columns the row has
    types: tuple[str, ...]
    group: str

    @property
    def label(self) -> int | None:
        """The groundedness label (1 = fully grounded), if the row has one."""
        return self.labels.get("label")


def _labels(record: Mapping[str, object], where: str) -> dict[str, int]:
    labels: dict[str, int] = {}
    for name in LABELS:
        value = record.get(name)
        if value is None:
            continue
        # true and false as well as 1 and 0 where the dataset column reads them (answerable)
        boolean = isinstance(value, bool) and name != "label"
        if value not in (0, 1) or (isinstance(value, bool) and not boolean):
            what = {"label": "grounded", "answered": "answered", "answerable": "answerable"}
            raise DatasetError(
                f"{where}: {name}: expected 1 ({what[name]}) or 0 (not), got {value!r}"
            )
        labels[name] = int(value)
    if not labels:
        raise DatasetError(
            f"{where}: no label: expected at least one of {', '.join(LABELS)} (1 or 0)"
        )
    return labels


def _label_fields(path: Path) -> dict[str, tuple[dict[str, int], tuple[str, ...], str]]:
    found: dict[str, tuple[dict[str, int], tuple[str, ...], str]] = {}
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            where = f"{path}:{number}"
            try:
                record = json.loads(raw, parse_int=long_integer)
            except (ValueError, RecursionError) as exc:  # JSON, UTF-8, 5,000-digit integers
                raise DatasetError(f"{where}: not a JSON object ({type(exc).__name__})") from None
            if not isinstance(record, dict):
                raise DatasetError(f"{where}: not a JSON object")
            labels = _labels(record, where)
            types = record.get("hallucination_types") or []
            if not isinstance(types, list) or not all(isinstance(t, str) for t in types):
                raise DatasetError(f"{where}: hallucination_types: expected a list of strings")
            group = record.get("dataset") or path.stem
            found[_label_id(record.get("id"), number)] = (labels, tuple(types), str(group))
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
        found, types, group = labels[sample.id]
        if limit_per_group is not None and taken.get(group, 0) >= limit_per_group:
            continue
        taken[group] = taken.get(group, 0) + 1
        rows.append(LabelledSample(replace(sample, answerable=None), found, types, group))
    return rows
