"""Characters no reader sees: taken out of every field a judge reads, and counted.

Zero-width spaces, joiners out of place, word joiners, soft hyphens, bidi controls, the byte
order mark, fillers that render blank, variation selectors out of place: none shows, but each
breaks a word up for a filter reading the raw text ("I\u200bgnore the above"). They are taken
out and counted, not made a passage: the words they broke up show, and are judged as they show.
Unicode tag characters (U+E0000 block) spell ASCII no one sees: their words are read out as a
passage. What a script or an emoji needs stays: ZWJ and ZWNJ between letters beyond Latin,
Greek and Cyrillic (Persian, Hindi) or between emoji (👩‍💻), direction marks beside right-to-left
letters, variation selectors after a symbol (❤️) or in a keycap (1️⃣), tag characters in a flag
(🏴 + tags + cancel tag).
"""

from __future__ import annotations

from collections import Counter

from ground_gate.leaves.invisible_chars import is_invisible

TAG_CHARACTERS = "tag characters"
INVISIBLE = "invisible characters"
KEPT_CHARS = 500  # of a hidden passage, on the row and in the report


def reveal_characters(text: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    """`text` without its invisible characters; the tag characters' words as a passage and
    the invisible characters as a count, each once."""
    if text.isascii():
        return text, ()
    shown: list[str] = []
    tags: list[str] = []
    spelled: list[str] = []
    removed: Counter[str] = Counter()
    flag = False  # inside an emoji flag's tag sequence (🏴 + tags + cancel tag)
    for index, char in enumerate(text):
        code = ord(char)
        if 0xE0000 <= code <= 0xE007F:
            if flag or (index and text[index - 1] == "\U0001f3f4"):
                flag = code != 0xE007F
                shown.append(char)
            elif 0xE0020 <= code <= 0xE007E:
                tags.append(chr(code - 0xE0000))
            continue
        flag = False
        if tags:
            spelled.append("".join(tags))
            tags = []
        if is_invisible(char) and not _joins(text, index):
            removed[char] += 1
            continue
        shown.append(char)
    if tags:
        spelled.append("".join(tags))
    found = [
        (TAG_CHARACTERS, kept(words)) for s in spelled if has_words(words := " ".join(s.split()))
    ]
    if removed:
        counts = ", ".join(f"U+{ord(c):04X} x{n}" for c, n in removed.most_common())
        found.append((INVISIBLE, f"{sum(removed.values())} removed ({counts})"))
    return "".join(shown), tuple(found)


def _joins(text: str, index: int) -> bool:
    """Whether the joiner or selector at `index` does a script's or an emoji's work: a ZWJ or
    ZWNJ between two characters of a script that uses them (beyond Latin, Greek, Cyrillic),
    a direction mark beside such a script, or a variation selector after a symbol or in a
    keycap."""
    char = text[index]
    before = text[index - 1] if index else ""
    after = text[index + 1] if index + 1 < len(text) else ""
    if char in "\u200c\u200d":
        return _beyond_latin(before) and _beyond_latin(after)
    if char in "\u200e\u200f\u061c":  # a direction mark beside right-to-left letters
        return _beyond_latin(before) or _beyond_latin(after)
    if "\ufe00" <= char <= "\ufe0f" or "\U000e0100" <= char <= "\U000e01ef":
        return (before != "" and ord(before) >= 0x2000 and not is_invisible(before)) or (
            after == "\u20e3"
        )
    return False


def _beyond_latin(char: str) -> bool:
    return char != "" and ord(char) >= 0x0590 and not 0x2000 <= ord(char) <= 0x206F


def kept(passage: str) -> str:
    """A passage as the row records it: its first KEPT_CHARS characters."""
    return passage if len(passage) <= KEPT_CHARS else passage[: KEPT_CHARS - 1] + "\u2026"


def has_words(text: str) -> bool:
    return any(char.isalnum() for char in text)
