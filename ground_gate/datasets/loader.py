"""A dataset of the config -> its `Sample`s, streamed, with unique ids and the row limit.

Text no UTF-8 file can hold (a JSON row's lone surrogates) becomes U+FFFD here, before the row
is keyed, judged or written, and the run says so once per dataset.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import replace

from ground_gate.config.model import DatasetConfig
from ground_gate.datasets.formats import read_rows
from ground_gate.datasets.identity import CONTENT_KEY, nth_copy
from ground_gate.datasets.limits import check_row
from ground_gate.datasets.sample import Sample
from ground_gate.datasets.validation import to_sample
from ground_gate.leaves.errors import DatasetError
from ground_gate.leaves.writable import Notice, writable_value

log = logging.getLogger(__name__)


def load_samples(dataset: DatasetConfig) -> list[Sample]:
    return list(iter_samples(dataset))


def iter_samples(dataset: DatasetConfig) -> Iterator[Sample]:
    """Stream the dataset's rows as Samples, stopping after `dataset.limit` of them."""
    first_line: dict[str, int] = {}
    copies: dict[str, int] = {}  # content key -> identical rows seen so far
    count = 0
    notice = Notice(log, f"dataset '{dataset.name}' ({dataset.path})")
    for row in read_rows(dataset.path, dataset.name, dataset.limits):
        check_row(row, dataset.limits)
        values, replaced = writable_value(row.values)  # nested at most MAX_NESTING deep
        notice.count(replaced)
        sample = to_sample(row._replace(values=values), dataset.fields, dataset.target)
        if sample.key.startswith(CONTENT_KEY):
            seen = copies.get(sample.key, 0)
            copies[sample.key] = seen + 1
            sample = replace(sample, key=nth_copy(sample.key, seen))
        if sample.id in first_line:
            raise DatasetError(
                f"{row.where}: duplicate id '{sample.id}' (first on line {first_line[sample.id]})"
            )
        first_line[sample.id] = row.line
        yield sample
        count += 1
        if dataset.limit is not None and count >= dataset.limit:
            return
    if count == 0:
        raise DatasetError(f"{dataset.path}: no rows (dataset '{dataset.name}')")
