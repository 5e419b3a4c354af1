"""Text made writable where it enters: every code point UTF-8 cannot encode becomes U+FFFD.

JSON may carry `"\\ud800"`, a lone UTF-16 surrogate: Python reads it into a string that no
UTF-8 file, pipe or HTTP body can hold, so the first writer to meet it raises
UnicodeEncodeError, after every judge call was made. The code points UTF-8 cannot encode
are exactly the surrogates (U+D800 to U+DFFF); each one, paired or not, becomes U+FFFD at the
reader (a dataset row, a judge reply, a cache entry), and the reader says so once.
"""

from __future__ import annotations

import logging
import re
from typing import Any

REPLACEMENT = "\ufffd"
_UNENCODABLE = re.compile("[\ud800-\udfff]")


def writable(text: str) -> tuple[str, int]:
    """`text` with every code point UTF-8 cannot encode replaced by U+FFFD, and how many were."""
    if text.isascii():
        return text, 0
    return _UNENCODABLE.subn(REPLACEMENT, text)


def writable_value(value: Any) -> tuple[Any, int]:
    """`writable` over every string of a JSON value (object keys included), and the count."""
    if isinstance(value, str):
        return writable(value)
    if isinstance(value, list):
        items = [writable_value(item) for item in value]
        return [item for item, _ in items], sum(count for _, count in items)
    if isinstance(value, dict):
        replaced = 0
        result = {}
        for key, item in value.items():
            fixed_key, in_key = writable(key) if isinstance(key, str) else (key, 0)
            result[fixed_key], in_item = writable_value(item)
            replaced += in_key + in_item
        return result, replaced
    return value, 0


class Notice:
    """Says once, as a warning, that text from one source held code points that were replaced.

    source: what the text came from, as the message says it ("the judge's replies").
    """

    def __init__(self, logger: logging.Logger, source: str) -> None:
        self._logger = logger
        self._source = source
        self._said = False

    def count(self, replaced: int) -> None:
        if replaced and not self._said:
            self._said = True
            self._logger.warning(
                "%s held code points no UTF-8 file can hold (lone surrogates); each is shown as "
                "U+FFFD (said once)",
                self._source,
            )
