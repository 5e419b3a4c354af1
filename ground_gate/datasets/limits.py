"""Each row checked against the config's `limits` before anything else reads its values.

A value bigger than `limits.max_field_chars`, a row bigger than `limits.max_row_chars`, a value
nested deeper than MAX_NESTING, a NUL character and a NaN or Infinity (not JSON, though Python's
reader takes them) are refused with the row, the column and the limit named. The walk is
iterative, so no shape of row can exhaust the stack.
"""

from __future__ import annotations

from typing import Any

from ground_gate.config.model import Limits
from ground_gate.datasets.formats import NonFinite, Row
from ground_gate.leaves.errors import DatasetError

MAX_NESTING = 32  # a context is a list of strings: 2 deep


def check_row(row: Row, limits: Limits) -> None:
    total = 0
    for column, value in row.values.items():
        chars = _chars(row, column, value)
        if chars > limits.max_field_chars:
            raise DatasetError(
                f"{row.where}: '{column}' has {chars:,} characters, over the limit of "
                f"{limits.max_field_chars:,} (limits.max_field_chars; raise it in the config's "
                "limits to allow this)"
            )
        total += chars + len(column)
    if total > limits.max_row_chars:
        raise DatasetError(
            f"{row.where}: the row has {total:,} characters, over the limit of "
            f"{limits.max_row_chars:,} (limits.max_row_chars; raise it in the config's limits "
            "to allow this)"
        )


def _chars(row: Row, column: str, value: Any) -> int:
    """Characters of text in `value` (keys included), walking lists and objects."""
    chars = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            chars += len(item)
            if "\x00" in item:  # text never holds NUL; a binary file does
                raise DatasetError(
                    f"{row.where}: '{column}' holds a NUL character (a binary file?)"
                )
        elif isinstance(item, NonFinite):
            raise DatasetError(
                f"{row.where}: '{column}' holds {item.name}, which is not valid JSON "
                "(JSON numbers are finite)"
            )
        elif isinstance(item, list | dict):
            if depth > MAX_NESTING:
                raise DatasetError(
                    f"{row.where}: '{column}' is nested more than {MAX_NESTING} deep"
                )
            if isinstance(item, dict):
                chars += sum(len(key) for key in item)
                item = list(item.values())
            stack.extend((child, depth + 1) for child in item)
    return chars
