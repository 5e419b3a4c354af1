"""The one door a target's reply comes through, whatever the kind of target: the text the pull
request's code produced is checked as a dataset row's text is, before the cache, the judge or
any report sees it.

- JSON read strictly (`reply_json`): an object with a key given twice is refused, as in a
  dataset file; which of the two would count is anyone's guess.
- `checked`: code points UTF-8 cannot hold (a lone surrogate) become U+FFFD (writable.py, as
  for a dataset row); a NUL character, a response or a context over `limits.max_field_chars`,
  contexts over `limits.max_row_chars` together or more than MAX_CONTEXTS of them make the
  row's error, naming the limit, never a traceback and never a judge call on megabytes.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from ground_gate.config.model import Limits
from ground_gate.json_keys import unique_keys
from ground_gate.targets.answers import Answer
from ground_gate.writable import writable

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
    problem = _problem(response, contexts or (), limits)
    if problem is not None:
        error = f"the target's reply to row '{answer.id}' {problem}"
        return Answer(answer.id, None, seconds=answer.seconds, error=error)
    return replace(answer, response=response, contexts=contexts)


def _problem(response: str, contexts: tuple[str, ...], limits: Limits) -> str | None:
    for what, text in (("its response", response), *(("a context", c) for c in contexts)):
        if "\x00" in text:
            return f"holds a NUL character in {what} (binary output?)"
        if len(text) > limits.max_field_chars:
            return (
                f"has {len(text):,} characters in {what}, over the limit of "
                f"{limits.max_field_chars:,} (limits.max_field_chars)"
            )
    if len(contexts) > MAX_CONTEXTS:
        return f"has {len(contexts):,} contexts, over the limit of {MAX_CONTEXTS:,}"
    total = len(response) + sum(len(c) for c in contexts)
    if total > limits.max_row_chars:
        return (
            f"has {total:,} characters in its response and contexts, over the limit of "
            f"{limits.max_row_chars:,} (limits.max_row_chars)"
        )
    return None
