"""Dataset text is untrusted: make it inert wherever it reaches markdown.

What a string from the data (or from a fork's forged report) must never do in a PR comment:
break the table or the page (pipes, newlines, HTML, code fences), format (emphasis, headings,
math), ping (`@user`, `@org/team`), link (`[x](u)`, `![x](u)`, bare `https://...`, `www.`,
e-mail addresses, `#123`, `GH-123`, commit SHAs) or hide what it says (bidi overrides such as
U+202E, zero-width and other invisible characters).

GitHub turns mentions and references into links after the markdown is rendered, on the text
itself, so a backslash escape does not stop them: a zero-width space (U+200B) inserted by us,
after every invisible character of the input was replaced, does. Invisible characters of the
input (Unicode categories Cc and Cf: bidi controls, zero-width ones, tag characters...) become
U+FFFD, which shows that something was there.
"""

from __future__ import annotations

import hashlib
import html
import re
import unicodedata

from ground_gate.leaves.invisible_chars import is_invisible

ZWSP = "\u200b"
REPLACEMENT = "\ufffd"
_INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn"})

_MD_SPECIAL = re.compile(r"([\\`*_\[\]|~#$])")
# Each breaks what GitHub would turn into a link or a ping by inserting ZWSP.
_INERT = (
    (re.compile(r"@(?=[A-Za-z0-9_-])"), "@" + ZWSP),  # @user, @org/team, user@host
    (re.compile(r"#(?=\d)"), "#" + ZWSP),  # #123, owner/repo#123
    (re.compile(r"(?i)\b(gh)-(?=\d)"), r"\1" + ZWSP + "-"),  # GH-123
    (re.compile(r"://"), ZWSP + "://"),  # https://..., ftp://... (the scheme no longer counts)
    (re.compile(r"(?i)\b(www)\."), r"\1" + ZWSP + "."),  # www.example.com
    (re.compile(r"(?i)\b(mailto|xmpp):"), r"\1" + ZWSP + ":"),
    (re.compile(r"\b([0-9a-f]{6})(?=[0-9a-f]{1,34}\b)"), r"\1" + ZWSP),  # a commit SHA
)
_IDENT = re.compile(r"[a-z][a-z0-9_]{0,39}")
SPACE_SHOWN = "\u23b5"  # ⎵, a space in an id shown where a reader could not count it
# In a quoted id: the quote, the backslash and ⎵ escaped, so the quoted form reads back to one id
_ID_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    SPACE_SHOWN: "\\u23b5",
    "\t": "\\t",
    "\n": "\\n",
    "\r": "\\r",
}
_BLANK = frozenset("\u2800")  # printable (braille), but renders nothing


def visible(text: str, keep: str = "") -> str:
    """Every invisible or control character (bidi overrides, zero-width...) as U+FFFD, but
    those in `keep` (a page keeps a document's line breaks: "\n")."""
    return "".join(
        REPLACEMENT if unicodedata.category(ch) in _INVISIBLE_CATEGORIES and ch not in keep else ch
        for ch in text
    )


def _inert(text: str) -> str:
    for pattern, replacement in _INERT:
        text = pattern.sub(replacement, text)
    return text


def _flat(text: str, limit: int) -> str:
    flat = visible(" ".join(text.split()))
    if len(flat) > limit:
        flat = flat[: limit - 1].rstrip() + "\u2026"
    return flat


def cell(text: str, limit: int = 160) -> str:
    """One line, no HTML, no table breaks, no mentions, no links or emphasis, at most `limit`."""
    flat = html.escape(_flat(text, limit), quote=False)
    return _inert(_MD_SPECIAL.sub(r"\\\1", flat))


def code(text: str, limit: int = 80) -> str:
    """Text for inside a code span (`...`), outside a table. Nothing in a code span renders:
    backticks (which would end it) and invisible characters are replaced, and links and
    mentions broken all the same, in case the span is ever not one."""
    return _inert(_flat(text, limit).replace("`", "'"))


def ident(text: str) -> str:
    """A metric or score name (`summary_accuracy`) as it is when it is one, else as a cell."""
    if _IDENT.fullmatch(text) and _inert(text) == text:
        return text
    return cell(text, 40)


def shown_id(text: str, limit: int | None = None) -> str:
    """A row's id as every renderer shows it, so that two ids are never shown alike: as it is
    when every character shows and no space is at an end or beside another; else in double
    quotes, a space a reader could not count shown as ⎵ and any other whitespace, invisible or
    control character as its escape (`"7⎵"`, `"7\\u00a0"`, `"a\\tb"`). Cut to `limit` (a
    table's column), the end is 6 hex digits of the whole id's digest, so ids alike up to the
    cut are still shown apart."""
    shown = (
        text if _plain(text) else '"' + "".join(_id_char(text, i) for i in range(len(text))) + '"'
    )
    if limit is None or len(shown) <= limit:
        return shown
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:6]
    return f"{shown[: limit - len(digest) - 1]}\u2026{digest}"


def id_cell(text: str, limit: int = 80) -> str:
    """A row's id in a markdown table or line: shown apart from every other id, as a cell."""
    return cell(shown_id(text, limit), limit)


def _plain(text: str) -> bool:
    return (
        text != ""
        and text[0] != '"'
        and text.strip(" ") == text
        and "  " not in text
        and all(_shows(ch) for ch in text)
    )


def _shows(char: str) -> bool:
    """A character that shows as itself: printable (Python's sense: no whitespace but the
    space, no control or format character), not one of those that render blank."""
    return char.isprintable() and not is_invisible(char) and char not in _BLANK


def _id_char(text: str, index: int) -> str:
    char = text[index]
    if char == " ":
        lone = 0 < index < len(text) - 1 and text[index - 1] != " " and text[index + 1] != " "
        return " " if lone else SPACE_SHOWN
    if char in _ID_ESCAPES:
        return _ID_ESCAPES[char]
    if _shows(char):
        return char
    code = ord(char)
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"
