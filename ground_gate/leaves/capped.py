"""Bounded reading of an HTTP body: at most a byte cap once decompressed (files: file_reader).

A 10 MB gzip body can inflate to gigabytes. Every HTTP body the tool reads (the judge's, the
GitHub API's) is decoded here 64 KiB at a time, so the worst case is a one-line error, never a
killed process.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Iterator

# Content-Encoding values a body may carry; anything else was not asked for and is refused.
_ZLIB_WINDOW = {"gzip": 16 + zlib.MAX_WBITS, "x-gzip": 16 + zlib.MAX_WBITS, "deflate": 0}
ACCEPT_ENCODING = "gzip, deflate"
_STEP = 64 * 1024  # decompress at most this much at a time


class TooLarge(ValueError):
    """What was read is over its cap."""


class UndecodableBody(ValueError):
    """An HTTP body that cannot be decoded safely: an encoding not asked for, or damaged data
    (a file that cannot be read is file_reader.Unreadable)."""


def size_text(size: int) -> str:
    """2**20 -> '1 MiB', 64 * 2**20 -> '64 MiB', 1000 -> '1,000 bytes'."""
    if size >= 2**20 and size % 2**20 == 0:
        return f"{size // 2**20:,} MiB"
    return f"{size:,} bytes"


class Inflater:
    """Decodes a body's Content-Encoding step by step, refusing it past `max_bytes` decoded.

    Each piece fed is inflated at most 64 KiB at a time, so a gzip bomb costs memory of the
    order of the cap, not of its inflated size.
    """

    def __init__(self, content_encoding: str | None, max_bytes: int) -> None:
        codings = [c.strip().lower() for c in (content_encoding or "").split(",") if c.strip()]
        codings = [c for c in codings if c != "identity"]
        unknown = [c for c in codings if c not in _ZLIB_WINDOW]
        if unknown:
            encoded = ", ".join(unknown)
            raise UndecodableBody(f"the body is encoded as {encoded}, which was not asked for")
        # the last coding applied is the first to undo
        self._decoders = [
            zlib.decompressobj(_ZLIB_WINDOW[c] or zlib.MAX_WBITS) for c in reversed(codings)
        ]
        self._raw_deflate = [c == "deflate" for c in reversed(codings)]
        self._max = max_bytes
        self.size = 0

    def feed(self, chunk: bytes) -> bytes:
        """The decoded bytes of `chunk`; TooLarge once the body is over the cap."""
        pieces = [chunk]
        for index in range(len(self._decoders)):
            pieces = [out for piece in pieces for out in self._inflate(index, piece)]
        data = b"".join(pieces)
        self.size += len(data)
        if self.size > self._max:
            raise TooLarge(f"the body is larger than {size_text(self._max)} once decoded")
        return data

    def _inflate(self, index: int, data: bytes) -> Iterator[bytes]:
        """`data` through decoder `index`, 64 KiB of output at a time, within the cap."""
        produced = 0
        while data and not self._decoders[index].eof:
            decoder = self._decoders[index]
            try:
                out = decoder.decompress(data, _STEP)
            except zlib.error:
                if not self._raw_deflate[index]:
                    raise UndecodableBody("the body's compressed data is damaged") from None
                # `deflate` is sometimes sent without its zlib header: raw DEFLATE
                self._decoders[index] = zlib.decompressobj(-zlib.MAX_WBITS)
                self._raw_deflate[index] = False
                continue
            self._raw_deflate[index] = False  # the header was fine
            produced += len(out)
            if self.size + produced > self._max:
                raise TooLarge(f"the body is larger than {size_text(self._max)} once decoded")
            yield out
            data = decoder.unconsumed_tail


def inflate_all(chunks: Iterable[bytes], content_encoding: str | None, max_bytes: int) -> bytes:
    """A whole body, decoded and capped (see Inflater)."""
    inflater = Inflater(content_encoding, max_bytes)
    return b"".join(inflater.feed(chunk) for chunk in chunks)
