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
import threading

MASK = "***"
# Shorter values are not masked: "abc" would garble every text and is no credential.
MIN_SECRET_CHARS = 6

_lock = threading.Lock()
_secrets: set[str] = set()


def register(value: str | None) -> None:
    """Mask `value` (and each of its lines, and the forms JSON and HTML escaping give it) in
    every later `mask`."""
    if not value:
        return
    forms = {value, *value.splitlines(), json.dumps(value)[1:-1], html.escape(value)}
    with _lock:
        _secrets.update(form for form in forms if len(form.strip()) >= MIN_SECRET_CHARS)


def forget_all() -> None:
    """Clear the registry (a new process starts with none; tests start with none)."""
    with _lock:
        _secrets.clear()


def registered() -> frozenset[str]:
    with _lock:
        return frozenset(_secrets)


def mask(text: str) -> str:
    """`text` with every registered secret replaced by ***, longest first (a secret may hold
    another)."""
    secrets = registered()
    if not secrets:
        return text
    for secret in sorted(secrets, key=len, reverse=True):
        if secret in text:
            text = text.replace(secret, MASK)
    return text


class MaskingFilter(logging.Filter):
    """Masks a log record's message (arguments included) before any handler writes it."""

    def filter(self, record: logging.LogRecord) -> bool:
        if registered():
            record.msg = mask(record.getMessage())
            record.args = None
        return True
