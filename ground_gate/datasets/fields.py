"""Which column of a row is its id, question, context, response and (optional) answerability.

A column named under the dataset's `fields` wins; otherwise the usual names of RAGAS, Athina and
similar tools are recognised (CANDIDATES), and two of them in one row is an error.
"""

from __future__ import annotations

from collections.abc import Mapping

from ground_gate.datasets.formats import Row
from ground_gate.leaves.errors import DatasetError

ROLES: tuple[str, ...] = ("id", "question", "context", "response", "answerable")
# Column names recognised when `fields` does not name one; two present at once is an error.
CANDIDATES: Mapping[str, tuple[str, ...]] = {
    "id": ("id",),
    "question": ("question", "query", "input", "user_input"),
    "context": (
        "contexts",
        "context",
        "retrieved_contexts",
        "documents",
        "document",
        "sources",
        "source",
    ),
    "response": ("answer", "response", "output"),
    # whether the row's source holds what its question asks (the answers metric then makes
    # no call to find out)
    "answerable": ("answerable",),
}
REQUIRED = frozenset({"context", "response"})


def columns(
    row: Row, fields: Mapping[str, str], required: frozenset[str] = REQUIRED
) -> dict[str, str | None]:
    """role -> the row's column for it (None for an optional role the row does not have).
    required: the roles a row must have (a dataset with a target needs no response)."""
    keys = list(row.values)
    chosen: dict[str, str | None] = {}
    taken = set(fields.values())
    for role in ROLES:
        column = fields.get(role)
        if column is not None:
            if column not in row.values:
                raise DatasetError(
                    f"{row.where}: no column '{column}' (set by fields.{role}); "
                    f"the row has {_listing(keys)}"
                )
            chosen[role] = column
            continue
        present = [c for c in CANDIDATES[role] if c in row.values and c not in taken]
        if role == "response" and role not in required:  # a target answers: not read
            chosen[role] = present[0] if present else None
            continue
        if len(present) > 1:
            both = " and ".join(f"'{c}'" for c in present)
            raise DatasetError(
                f"{row.where}: {both} could each be the {role}; choose one with fields.{role}"
            )
        if not present and role in required:
            expected = ", ".join(f"'{c}'" for c in CANDIDATES[role])
            raise DatasetError(
                f"{row.where}: no {role} column: expected one of {expected}, or set "
                f"fields.{role}; the row has {_listing(keys)}"
            )
        chosen[role] = present[0] if present else None
    return chosen


def _listing(keys: list[str]) -> str:
    if not keys:
        return "no columns"
    shown = ", ".join(f"'{k}'" for k in keys[:12])
    return shown + (f" and {len(keys) - 12} more" if len(keys) > 12 else "")
