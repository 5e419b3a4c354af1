"""The characters no reader sees, defined once: format controls (zero-width space, joiners,
bidi controls, soft hyphen, word joiner, the byte order mark, tag characters), fillers that
render blank, variation selectors and the combining grapheme joiner.

The metrics take them out of what the judge reads (metrics/invisible.py, which keeps those a
script or an emoji needs), masking looks through them (a secret with a zero-width space
between its letters is still the secret), and the report shows an id holding one as it is.
"""

from __future__ import annotations

import functools
import unicodedata

# Format controls that do show: the prepended concatenation marks (Arabic number sign...)
_SHOWN_FORMAT = frozenset(
    (0x0600, 0x0601, 0x0602, 0x0603, 0x0604, 0x0605, 0x06DD, 0x070F, 0x0890, 0x0891, 0x08E2,
     0x110BD, 0x110CD)
)  # fmt: skip
_BLANK_FILLERS = frozenset((0x034F, 0x115F, 0x1160, 0x3164, 0xFFA0))


def is_invisible(char: str) -> bool:
    """Whether `char` shows nothing: a format control but the prepended concatenation marks,
    a filler that renders blank, a variation selector or the combining grapheme joiner."""
    code = ord(char)
    if unicodedata.category(char) == "Cf":
        return code not in _SHOWN_FORMAT
    return code in _BLANK_FILLERS or 0xFE00 <= code <= 0xFE0F or 0xE0100 <= code <= 0xE01EF


@functools.cache
def invisible_ranges() -> tuple[tuple[int, int], ...]:
    """Every invisible character as (first, last) code point ranges, for a regular
    expression's character class; computed once, on first use, over the planes that hold
    any (tests/unit/test_invisible_chars.py checks every plane)."""
    ranges: list[tuple[int, int]] = []
    for code in (*range(0x20000), *range(0xE0000, 0xF0000)):
        if not is_invisible(chr(code)):
            continue
        if ranges and ranges[-1][1] == code - 1:
            ranges[-1] = (ranges[-1][0], code)
        else:
            ranges.append((code, code))
    return tuple(ranges)
