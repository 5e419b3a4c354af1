"""responses.jsonl: what each target answered, one JSON object per row, beside the reports.

The artifact then holds exactly what was scored: a row's response and the contexts it was
judged against (when the target gave them), how long the answer took, whether it came from
the cache, and the error of a row the target could not answer.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from ground_gate.targets.answers import Answered

RESPONSES_FILE = "responses.jsonl"


def responses_text(answered: Sequence[Answered]) -> str:
    """Every answer of every dataset, in the datasets' row order."""
    lines = []
    for outcome in answered:
        for row_id in outcome.order:
            answer = outcome.answers.get(row_id)
            if answer is None:
                continue  # not asked: the target stopped before it
            entry = {
                "dataset": outcome.dataset,
                "id": answer.id,
                "response": answer.response,
                "contexts": None if answer.contexts is None else list(answer.contexts),
                "seconds": round(answer.seconds, 3),
                "cached": answer.cached,
                "error": answer.error,
            }
            lines.append(json.dumps(entry, ensure_ascii=False) + "\n")
    return "".join(lines)
