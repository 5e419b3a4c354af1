"""The one door a target's reply comes through, whatever the kind of target: the text the pull
request's code produced is checked as a dataset row's text is, before the cache, the judge or
any report sees it.

- JSON read strictly (`reply_json`): an object with a key given twice is refused, as in a
  dataset file; which of the two would count is anyone's guess.
- `checked`: code points UTF-8 cannot hold (a lone surrogate) become U+FFFD (writable.py, as
  for a dataset row); then the reply is checked as a row of two columns, `response` and
  `contexts`, by the dataset rows' own check (datasets/limits.py: a NUL character, a column
  over `limits.max_field_chars`, the two over `limits.max_row_chars`), and more than
  MAX_CONTEXTS contexts are refused too: the row's error naming the limit, never a traceback
  and never a judge call on megabytes.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from ground_gate.config.model import Limits
from ground_gate.datasets.formats import Row
from ground_gate.datasets.limits import check_row
from ground_gate.leaves.errors import DatasetError
from ground_gate.leaves.json_keys import unique_keys
from ground_gate.leaves.writable import writable
from ground_gate.targets.answers import Answer

MAX_CONTEXTS = 1_000  # retrieved passages of one reply; a RAG app sends a handful


def reply_json(text: str) -> Any:
    """`text` as JSON; ValueError for what is not JSON and for an object giving a key twice."""
    return json.loads(text, object_pairs_hook=unique_keys)


def checked(answer: Answer, limits: Limits) -> Answer:
    """`answer` with its text made writable, or the row's error when it cannot be judged."""
    if answer.response is None:
        return answer
    response, _ = writable(answer.response)
    contexts = None
    if answer.contexts is not None:
        contexts = tuple(writable(context)[0] for context in answer.contexts)
    where = f"the target's reply to row '{answer.id}'"
    problem = _problem(where, response, contexts or (), limits)
    if problem is not None:
        return Answer(answer.id, None, seconds=answer.seconds, error=problem)
    return replace(answer, response=response, contexts=contexts)


def _problem(where: str, response: str, contexts: tuple[str, ...], limits: Limits) -> str | None:
    """The dataset rows' own check (datasets/limits.py: NUL, max_field_chars, max_row_chars)
    over the reply as a row of two columns, and the count of contexts."""
    if len(contexts) > MAX_CONTEXTS:
        return f"{where} has {len(contexts):,} contexts, over the limit of {MAX_CONTEXTS:,}"
    values: dict[str, Any] = {"response": response}
    if contexts:
        values["contexts"] = list(contexts)
    try:
        check_row(Row(0, 0, where, values, from_csv=False), limits)
    except DatasetError as exc:
        return str(exc)
    return None
