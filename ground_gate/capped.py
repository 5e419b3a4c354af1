"""Bounded reading: a file that must be a regular file under a size cap, and an HTTP body that
must stay under a byte cap once decompressed.

A FIFO blocks a reader forever and /dev/zero never ends; a 10 MB gzip body can inflate to
gigabytes. Every reader of what comes from outside goes through one of these, so the worst
case is a one-line error, never a hang or a killed process.
"""

from __future__ import annotations

import stat
import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path

# Content-Encoding values a body may carry; anything else was not asked for and is refused.
_ZLIB_WINDOW = {"gzip": 16 + zlib.MAX_WBITS, "x-gzip": 16 + zlib.MAX_WBITS, "deflate": 0}
ACCEPT_ENCODING = "gzip, deflate"
_STEP = 64 * 1024  # decompress at most this much at a time


class TooLarge(ValueError):
    """What was read is over its cap."""


class Unreadable(ValueError):
    """Not something that can be read safely: not a regular file, or an encoding not asked for."""


def read_file(path: Path, max_bytes: int) -> bytes:
    """The bytes of the regular file at `path`. Raises Unreadable for a directory, a FIFO or a
    device (unopened), TooLarge past `max_bytes` (read no further than that), and OSError
    (FileNotFoundError...) as open() does."""
    info = path.stat()
    if stat.S_ISDIR(info.st_mode):
        raise Unreadable("is a directory")
    if not stat.S_ISREG(info.st_mode):
        raise Unreadable("not a regular file (a pipe or a device?)")
    if info.st_size > max_bytes:
        raise TooLarge(f"larger than {size_text(max_bytes)}")
    with path.open("rb") as handle:  # it may have grown since stat
        raw = handle.read(max_bytes + 1)
    if len(raw) > max_bytes:
        raise TooLarge(f"larger than {size_text(max_bytes)}")
    return raw


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
            raise Unreadable(f"the body is encoded as {encoded}, which was not asked for")
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
                    raise Unreadable("the body's compressed data is damaged") from None
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
