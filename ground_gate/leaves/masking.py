"""Secrets kept out of everything the tool writes: the second line of defence.

The first line is the config loader, which refuses a value that interpolates a variable a
`*_env` key names (`model: ${OPENAI_API_KEY}`). Whatever still carries a secret (a dataset row
quoting it, a server echoing it in an error) is masked here: the values of those variables,
and the action's tokens, are registered when they are read, and every writer (the comment,
the job summary, outputs, annotations, log lines, report files) passes its text through
`mask`. As GitHub's own `add-mask`, the registry is process-wide: a secret read anywhere is
masked everywhere.

A reply quoting a secret need not quote it as it is: an app may put zero-width characters or
whitespace between its letters, percent-, HTML-, JSON- or markdown-escape some of them (the
report's own renderers escape characters, insert zero-width spaces and show an invisible
character as U+FFFD too), encode it in base64 (inside a longer string, so at any of the three
byte alignments; standard or URL-safe, padded or not, in lines or not) or in hex. So the text
is searched with what no reader sees taken out (whitespace, invisible characters, U+FFFD, and
whitespace as JSON or a URL escapes it), for each secret spelled in any letter case with each
character in any of its escapes, and for its base64 and hex; what is found is masked in the
text as written, the gaps inside it included. Matching is one regular expression whose
branches start with literal characters, so a long text is scanned at C speed.
"""

from __future__ import annotations

import base64
import bisect
import functools
import html
import json
import logging
import re
import threading
from collections.abc import Iterable
from urllib.parse import quote, quote_plus

from ground_gate.leaves.invisible_chars import invisible_ranges

MASK = "***"
# Shorter values are not masked: "abc" would garble every text and is no credential. Counted
# without what masking looks through (whitespace, invisible characters).
MIN_SECRET_CHARS = 6

_lock = threading.Lock()
_secrets: set[str] = set()
_pattern: re.Pattern[str] | None = None  # every registered form, longest first
# "Bearer abc", "Basic abc", "token abc": an echo of the header may quote the credential alone
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*\s+(\S+)$")
_TAGS = (0xE0020, 0xE007F)  # the tag characters: ASCII spelled unseen
_MARKDOWN_ESCAPED = frozenset("\\`*_[]|~#$")  # report/escape.py's cell() puts a \ before them

# One character of a form, as the alternatives it may be written in: (text, any letter case),
# the character itself first
Unit = tuple[tuple[str, bool], ...]
# A form: what may stand between two of its characters (a regular expression), its characters
Form = tuple[str, tuple[Unit, ...]]
# Whitespace is taken out of the text before matching; whitespace escaped in a JSON string
# (`\n`) is looked through between two characters of the secret spelled, as are a base64 or
# hex block's line breaks so escaped. Possessive, and never before a character that may be
# written with a backslash: no way to match is ever tried twice
_JSON_SPACE = r"(?:\\[ntr])*+"
_JSON_BREAK = r"(?:\\[nr])*+"


def register(value: str | None) -> None:
    """Mask `value` in every later `mask`, in every form it is likely to be written in: each of
    its lines, the credential after a scheme (`Bearer <token>`), in any letter case and escape,
    split by whitespace or invisible characters, in base64 and in hex."""
    if not value:
        return
    forms = {value, *value.splitlines()}
    forms |= {m.group(1) for form in list(forms) if (m := _SCHEME.match(form.strip()))}
    global _pattern
    with _lock:
        _secrets.update(form for form in forms if len(_compact(form)) >= MIN_SECRET_CHARS)
        _pattern = None  # compiled again by the next mask


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
    """`text` with every registered secret, in any of its forms, replaced by ***."""
    global _pattern
    with _lock:
        if _pattern is None and _secrets:
            _pattern = re.compile(_expression(_secrets))
        pattern = _pattern
    if pattern is None:
        return text
    compact = _Compacted(text)
    found = [m.span() for m in pattern.finditer(compact.text)]
    if not found:
        return text
    out, kept = [], 0
    for start, end in found:
        start, end = compact.place(start), compact.place(end - 1) + 1
        out += [text[kept:start], MASK]
        kept = end
    return "".join([*out, text[kept:]])


class MaskingFilter(logging.Filter):
    """Masks a log record's message (arguments included) before any handler writes it."""

    def filter(self, record: logging.LogRecord) -> bool:
        if registered():
            record.msg = mask(record.getMessage())
            record.args = None
        return True


@functools.cache
def _invisible() -> re.Pattern[str]:
    """Invisible characters and U+FFFD (a renderer's mark for a character it would not show);
    not the tag characters, which spell ASCII unseen (a secret so spelled is one of its forms)."""
    invisible = "".join(
        chr(first) if first == last else f"{chr(first)}-{chr(last)}"
        for first, last in invisible_ranges()
        if not _TAGS[0] <= first <= _TAGS[1]
    )
    return re.compile(f"[\ufffd{invisible}]+")


@functools.cache
def _gaps() -> re.Pattern[str]:
    """What masking looks through, a character at a time: whitespace and `_invisible()`."""
    return re.compile(f"(?:\\s|{_invisible().pattern})+")


def _compact(text: str) -> str:
    """`text` without whitespace and invisible characters (C speed: most texts hold none of
    the latter)."""
    joined = "".join(text.split())
    return _invisible().sub("", joined) if _invisible().search(joined) else joined


class _Compacted:
    """A text without what masking looks through, made a chunk at a time, and where each of
    its characters is in the text; a place is found by walking the gaps of its chunk only."""

    CHUNK = 1 << 16

    def __init__(self, text: str) -> None:
        self.original = text
        self.starts: list[int] = []  # of each chunk in the text
        self.compact_starts: list[int] = []  # of each chunk without its gaps
        parts: list[str] = []
        at, done = 0, 0
        while at < len(text):
            end = min(at + self.CHUNK, len(text))
            parts.append(_compact(text[at:end]))
            self.starts.append(at)
            self.compact_starts.append(done)
            at, done = end, done + len(parts[-1])
        self.text = "".join(parts)

    def place(self, index: int) -> int:
        """Where the character at `index` of the compacted text is in the text."""
        chunk = bisect.bisect_right(self.compact_starts, index) - 1
        at, left = self.starts[chunk], index - self.compact_starts[chunk]
        end = self.starts[chunk + 1] if chunk + 1 < len(self.starts) else len(self.original)
        for run in _gaps().finditer(self.original, at, end):
            if left < run.start() - at:
                break
            left -= run.start() - at
            at = run.end()
        return at + left


def _expression(secrets: Iterable[str]) -> str:
    """One alternation of every form of every secret, longest first, grouped by first character
    (top-level literals: the regular expression engine skips every other position fast)."""
    forms = {form for secret in secrets for form in _forms(secret)}
    grouped: dict[str, list[str]] = {}
    for joiner, units in sorted(forms, key=lambda form: len(form[1]), reverse=True):
        rest = "".join(
            ("" if any(text[0] == "\\" for text, _ in unit) else joiner) + _alternatives(unit)
            for unit in units[1:]
        )
        for text, any_case in units[0]:
            for first in _cases(text[0]) if any_case else (text[0],):
                grouped.setdefault(first, []).append(_literal(text[1:], any_case) + rest)
    return "|".join(f"{re.escape(first)}(?:{'|'.join(tails)})" for first, tails in grouped.items())


def _forms(secret: str) -> list[Form]:
    """The secret spelled character by character (each in any case and escape; and the whole
    escaped as JSON, HTML and a URL do, for the characters whose escape starts with the
    character itself: \\, &, %), and its UTF-8 bytes in base64 at each alignment (standard
    and URL-safe) and in hex."""
    escaped = {
        secret,
        json.dumps(secret)[1:-1],
        json.dumps(secret, ensure_ascii=False)[1:-1],
        html.escape(secret),
        html.escape(secret, quote=False),  # the comment's cells escape & < > and not quotes
        quote(secret, safe=""),
        quote_plus(secret, safe=""),
    }
    forms = [(_JSON_SPACE, tuple(_char_unit(char) for char in _compact(way))) for way in escaped]
    raw = secret.encode("utf-8", "surrogatepass")
    forms += [
        (_JSON_BREAK, tuple(_base64_unit(char) for char in core)) for core in _base64_cores(raw)
    ]
    forms.append((_JSON_BREAK, tuple(((digit, True),) for digit in raw.hex())))
    return forms


def _base64_cores(raw: bytes) -> set[str]:
    """The base64 characters that only `raw`'s bits decide, wherever it starts in a longer
    string (byte offset 0, 1 or 2 in a group of three), in both alphabets."""
    cores: set[str] = set()
    for offset in range(3):
        encoded = base64.b64encode(bytes(offset) + raw).decode("ascii")
        start = -(-offset * 8 // 6)  # the first character holding no bit of what precedes
        core = encoded[start : (offset + len(raw)) * 8 // 6]  # none of what follows
        cores |= {core, core.replace("+", "-").replace("/", "_")}
    return cores


def _char_unit(char: str) -> Unit:
    """A character of the secret and the escapes a writer gives it: percent-encoded (its UTF-8
    bytes), HTML, JSON, markdown's backslash, a tag character's spelling of it."""
    ways = {"".join(f"%{byte:02X}" for byte in char.encode("utf-8", "surrogatepass"))}
    ways |= {html.escape(char), json.dumps(char)[1:-1], json.dumps(char, ensure_ascii=False)[1:-1]}
    if char in _MARKDOWN_ESCAPED:
        ways.add("\\" + char)
    if char == "/":
        ways.add("\\/")  # JSON may escape a slash
    if " " < char < "\x7f":
        ways |= {chr(_TAGS[0] - 0x20 + ord(case)) for case in _cases(char)}
    ways.discard(char)
    return ((char, True), *((way, True) for way in sorted(ways, key=len, reverse=True)))


def _base64_unit(char: str) -> Unit:
    """A base64 character, in its own case; `+` and `/` also percent-encoded (in a URL)."""
    escaped = {"+": "%2B", "/": "%2F"}.get(char)
    return ((char, False),) + (((escaped, True),) if escaped else ())


def _alternatives(unit: Unit) -> str:
    """A character's ways, tried in order, the first that fits kept (an atomic group): runs of
    a character whose escape starts with itself (%% and %25) cannot make matching slow."""
    if len(unit) == 1:
        return _literal(*unit[0])
    return "(?>" + "|".join(_literal(text, any_case) for text, any_case in unit) + ")"


def _literal(text: str, any_case: bool) -> str:
    if not text:
        return ""
    escaped = re.escape(text)
    return f"(?i:{escaped})" if any_case and text.lower() != text.upper() else escaped


def _cases(char: str) -> tuple[str, ...]:
    """`char` and its other letter cases that are one character each."""
    return tuple(dict.fromkeys(c for c in (char, char.lower(), char.upper()) if len(c) == 1))
