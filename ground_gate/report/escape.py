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

import html
import re
import unicodedata

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
