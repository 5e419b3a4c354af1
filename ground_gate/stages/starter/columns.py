"""Which of a user's columns is the id, question, context and response, for a starter config.

First the names the loader itself recognises, spelled as it spells them (datasets/fields.py),
then those and a few more common ones with case, spaces and hyphens ignored (`Question`,
`retrieved passages`, `model_answer`). A column named by a flag wins. Two columns that could
each be one field, or a required field with no column, are refused with the flag that settles
it: the command runs where no one can be asked (CI has no stdin).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from ground_gate.datasets.fields import CANDIDATES, REQUIRED
from ground_gate.leaves.errors import DatasetError

ROLES: tuple[str, ...] = ("id", "question", "context", "response")
ASKED_BY: Mapping[str, str] = {role: f"--{role}-column" for role in ROLES}
# Common names beyond the loader's own, compared with case, spaces and hyphens ignored. None
# of them is another role's: a reference answer or a ground truth is never the response.
MORE: Mapping[str, tuple[str, ...]] = {
    "id": ("_id", "uid", "uuid", "row_id", "example_id", "sample_id", "question_id", "qid"),
    "question": (
        "prompt", "user_question", "user_query", "user_message", "user_prompt", "instruction",
        "q",
    ),
    "context": (
        "passages", "passage", "chunks", "retrieved", "retrieved_documents", "retrieved_chunks",
        "retrieved_passages", "retrieved_context", "knowledge", "evidence", "article", "docs",
        "doc", "ctx",
    ),
    "response": (
        "prediction", "predicted_answer", "generated_answer", "generated", "generation",
        "completion", "model_answer", "model_output", "model_response", "llm_answer",
        "llm_output", "llm_response", "bot_answer", "reply", "summary",
    ),
}  # fmt: skip
_HINT = {
    "response": " (rows with no response yet: a dataset's target answers them, see the README's "
    "'Gate what your code answers')",
}


def guess_columns(
    columns: Sequence[str], given: Mapping[str, str], where: str
) -> dict[str, str | None]:
    """role -> its column, None where the rows have none (the id is then row-<n>, and a row
    without a question is judged against its source alone). `given`: role -> the column a
    flag names; `where`: the data file, first in every message."""
    for role, column in given.items():
        if column not in columns:
            raise DatasetError(
                f"{where}: no column '{column}' ({ASKED_BY[role]}); the rows have "
                f"{listing(columns)}"
            )
    roles_of: dict[str, str] = {}
    for role, column in given.items():
        if column in roles_of:
            raise DatasetError(
                f"{where}: column '{column}' is named by {ASKED_BY[roles_of[column]]} and "
                f"{ASKED_BY[role]}; a column can be only one field"
            )
        roles_of[column] = role
    chosen: dict[str, str | None] = {}
    taken = set(given.values())
    for role in ROLES:
        if role in given:
            chosen[role] = given[role]
            continue
        found = _found(role, [c for c in columns if c not in taken])
        if len(found) > 1:
            both = " and ".join(f"'{c}'" for c in found)
            raise DatasetError(
                f"{where}: {both} could each be the {role}; choose one with {ASKED_BY[role]} NAME"
            )
        if not found and role in REQUIRED:
            expected = ", ".join(f"'{c}'" for c in CANDIDATES[role])
            raise DatasetError(
                f"{where}: no {role} column: expected one named like {expected}, or name it "
                f"with {ASKED_BY[role]} NAME; the rows have {listing(columns)}"
                f"{_HINT.get(role, '')}"
            )
        chosen[role] = found[0] if found else None
        taken.update(found)
    return chosen


def _found(role: str, columns: Sequence[str]) -> list[str]:
    exact = [c for c in CANDIDATES[role] if c in columns]  # as the loader itself finds them
    if exact:
        return exact
    names = {_folded(name) for name in (*CANDIDATES[role], *MORE[role])}
    return [c for c in columns if _folded(c) in names]


def _folded(name: str) -> str:
    return re.sub(r"[\s\-]+", "_", name.strip().lower())


def listing(columns: Sequence[str]) -> str:
    if not columns:
        return "no columns"
    shown = ", ".join(f"'{c}'" for c in columns[:12])
    return shown + (f" and {len(columns) - 12} more" if len(columns) > 12 else "")
