"""Dataset text is untrusted: make it inert inside a markdown table cell."""

from __future__ import annotations

import html
import re

_MENTION = re.compile(r"@(?=[A-Za-z0-9_-])")
_MD_SPECIAL = re.compile(r"([\\`*_\[\]|~#])")


def cell(text: str, limit: int = 160) -> str:
    """One line, no HTML, no table breaks, no mentions, no links or emphasis, at most `limit`."""
    flat = " ".join(text.split())
    if len(flat) > limit:
        flat = flat[: limit - 1].rstrip() + "\u2026"
    flat = html.escape(flat, quote=False)
    flat = _MD_SPECIAL.sub(r"\\\1", flat)
    return _MENTION.sub("@\u200b", flat)
