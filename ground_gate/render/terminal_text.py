"""Text at a terminal's width: a string's columns as a terminal draws it (wide and combining
characters), wrapping at spaces with a hanging indent, a figure kept beside its sign, a long
quote clipped. Pure; the terminal's summary (render/terminal.py) uses it."""

from __future__ import annotations

import re
import unicodedata

MIN_TEXT = 24  # the narrowest a wrapped text may get: a deeper hanging indent is given up
GLUE = "\x00"  # a space no line breaks at: a figure beside its sign ("0.91 → 0.85", "≥ 0.80")
_SIGNED = re.compile(r" (?=[\u2192<>\u2264\u2265] )|(?<=[\u2192<>\u2264\u2265]) ")


def columns(text: str) -> int:
    """The columns a terminal gives `text`: two for a wide character (an emoji mark, CJK),
    none for a combining mark or a variation selector (but emoji presentation, U+FE0F, makes
    the character before it wide: the warning mark)."""
    width, last = 0, 0
    for char in text:
        if char == "\ufe0f":  # emoji presentation: the character before is drawn wide
            width, last = width + 2 - last, 2
            continue
        if unicodedata.combining(char) or "\ufe00" <= char <= "\ufe0e":
            continue
        last = 2 if unicodedata.east_asian_width(char) in "WF" else 1
        width += last
    return width


def cut(word: str, room: int) -> tuple[str, str]:
    """The head of `word` that fits `room` columns (one character at least), and the rest."""
    used = 0
    for i, char in enumerate(word):
        used += columns(char)
        if used > room and i > 0:
            return word[:i], word[i:]
    return word, ""


def wrap(first: str, text: str, width: int, indent: int) -> list[str]:
    """`first` then the words of `text`, in lines of at most `width` columns; each further
    line starts with `indent` spaces (less when the text would get narrower than MIN_TEXT)."""
    pad = " " * max(0, min(indent, width - MIN_TEXT))
    lines: list[str] = []
    line, used, fresh = first, columns(first), True
    for word in filter(None, text.split(" ")):  # data is one line of single spaces (_text)
        size, space = columns(word), "" if fresh else " "
        if used + len(space) + size <= width:
            line, used, fresh = line + space + word, used + len(space) + size, False
            continue
        if not fresh:
            lines.append(line)
            line, used = pad, len(pad)
        while used + size > width:  # longer than a whole line: broken where it must be
            head, word = cut(word, width - used)
            lines.append(line + head)
            line, used, size = pad, len(pad), columns(word)
        line, used, fresh = line + word, used + size, False
    lines.append(line)
    return [one.rstrip().replace(GLUE, " ") for one in lines]


def glued(figures: str) -> str:
    """Figures with their signs kept on one line ("0.04 → 0.47 > 0.08" is never broken);
    only for the report's own figures, never for data (its signs are its own)."""
    return _SIGNED.sub(GLUE, figures)


def clip(text: str, room: int) -> str:
    """`text` cut to `room` columns at most, an ellipsis where it was cut: an answer quoted in
    what broke takes a line or two, however long it was (the page holds it whole)."""
    if columns(text) <= room:
        return text
    head, _ = cut(text, max(room - 1, 1))
    return head.rstrip() + "\u2026"
