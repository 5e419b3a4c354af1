"""Text from outside shown inert wherever it reaches a terminal or a log: a target's stderr, a
reply or an app's error body quoted in a message, an id a reply names. Every control character
(C0, DEL and C1: ESC and CSI, so no escape sequence, OSC title or cursor move survives; a
carriage return, which would let a line overwrite the one before) and every invisible format
or separator character (bidi overrides, zero-width, U+2028) is written as its escape, so a
reader sees that it was there: ESC as `\\x1b`, a carriage return as `\\r`, U+202E as
`\\u202e`. The one function that does it; `keep` names what a caller lets through (a log's
line breaks)."""

from __future__ import annotations

import unicodedata

_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}
_HIDDEN = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})


def _escape(char: str) -> str:
    named = _NAMED.get(char)
    if named is not None:
        return named
    point = ord(char)
    if point < 0x100:
        return f"\\x{point:02x}"
    return f"\\u{point:04x}" if point < 0x10000 else f"\\U{point:08x}"


def inert(text: str, keep: str = "") -> str:
    """`text` with every control, format and line-separator character but those in `keep`
    written as its escape."""
    if text.isprintable() and not keep:
        return text
    return "".join(
        _escape(char)
        if char not in keep and (char in _NAMED or unicodedata.category(char) in _HIDDEN)
        else char
        for char in text
    )
