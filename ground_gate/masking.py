"""Secrets kept out of everything the tool writes: the second line of defence.

The first line is the config loader, which refuses a value that interpolates a variable a
`*_env` key names (`model: ${OPENAI_API_KEY}`). Whatever still carries a secret (a dataset row
quoting it, a server echoing it in an error) is masked here: the values of those variables,
and the action's tokens, are registered when they are read, and every writer (the comment,
the job summary, outputs, annotations, log lines, report files) passes its text through
`mask`. As GitHub's own `add-mask`, the registry is process-wide: a secret read anywhere is
masked everywhere.
"""

from __future__ import annotations

import html
import json
import logging
import re
import threading

MASK = "***"
# Shorter values are not masked: "abc" would garble every text and is no credential.
MIN_SECRET_CHARS = 6

_lock = threading.Lock()
_secrets: set[str] = set()
_pattern: re.Pattern[str] | None = None  # every registered form, longest first, any case
# "Bearer abc", "Basic abc", "token abc": an echo of the header may quote the credential alone
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*\s+(\S+)$")


def register(value: str | None) -> None:
    """Mask `value` in every later `mask`, in every form it is likely to be written in: each of
    its lines, its JSON and HTML escapes, the credential after a scheme (`Bearer <token>`),
    in any letter case."""
    if not value:
        return
    forms = {value, *value.splitlines()}
    forms |= {m.group(1) for form in list(forms) if (m := _SCHEME.match(form.strip()))}
    forms |= {json.dumps(form)[1:-1] for form in forms} | {html.escape(form) for form in forms}
    global _pattern
    with _lock:
        _secrets.update(form for form in forms if len(form.strip()) >= MIN_SECRET_CHARS)
        ordered = sorted(_secrets, key=len, reverse=True)  # a secret may hold another
        if ordered:
            _pattern = re.compile("|".join(map(re.escape, ordered)), re.IGNORECASE)


def forget_all() -> None:
    """Clear the registry (a new process starts with none; tests start with none)."""
    global _pattern
    with _lock:
        _secrets.clear()
        _pattern = None


def registered() -> frozenset[str]:
    with _lock:
        return frozenset(_secrets)


def mask(text: str) -> str:
    """`text` with every registered secret replaced by ***, whatever its letter case."""
    with _lock:
        pattern = _pattern
    return text if pattern is None else pattern.sub(MASK, text)


class MaskingFilter(logging.Filter):
    """Masks a log record's message (arguments included) before any handler writes it."""

    def filter(self, record: logging.LogRecord) -> bool:
        if registered():
            record.msg = mask(record.getMessage())
            record.args = None
        return True
