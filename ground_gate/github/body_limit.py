"""Fit a markdown report under a size limit without losing the part people read first.

GitHub rejects an issue comment over 65,536 characters and a step summary over 1 MiB. The
report is a table, then per-row details inside `<details>` blocks, then usage. We trim the
details first: the biggest block first (the per-row details, not the few lines of usage),
each from its end, so the worst rows listed first survive; then,
only if that is not enough, the tail of the whole text, and add a note saying where the
full report is. Text is cut on line boundaries and an open code fence is closed, so the
trimmed part can never swallow the note or what follows it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

COMMENT_LIMIT_CHARS = 65_536

_DETAILS_OPEN = re.compile(r"\s*<details[\s>]", re.IGNORECASE)
_DETAILS_CLOSE = re.compile(r"\s*</details>", re.IGNORECASE)
_SUMMARY_LINE = re.compile(r"\s*<summary[\s>].*</summary>", re.IGNORECASE)
_FENCE = re.compile(r"\s{0,3}(```|~~~)")
_CLOSE_FENCE = "```\n"

Measure = Callable[[str], int]


@dataclass
class _Block:
    """Lines [first, last) of one top-level details block's trimmable content."""

    first: int
    last: int


def fit_body(text: str, limit: int, *, note: str, measure: Measure = len) -> str:
    """Return `text` unchanged if it fits in `limit`, else a trimmed copy ending with `note`."""
    if measure(text) <= limit:
        return text
    note_block = f"\n{note.strip()}\n"
    room = limit - measure(note_block)  # for the report itself
    # One fence may have to be closed after a cut: keep room for it.
    target = room - measure(_CLOSE_FENCE)
    if target <= 0:
        return _cut_chars(note_block.lstrip("\n"), limit, measure)
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    sizes = [measure(line) for line in lines]
    keep = [True] * len(lines)
    total = sum(sizes)
    blocks = _details_blocks(lines)
    blocks.sort(key=lambda b: sum(sizes[b.first : b.last]), reverse=True)
    for block in blocks:
        for i in range(block.last - 1, block.first - 1, -1):
            if total <= target:
                break
            keep[i] = False
            total -= sizes[i]
    kept = [line for line, k in zip(lines, keep, strict=True) if k]
    if total > target:
        kept = _cut_tail(kept, target, measure)
    return "".join(_close_fences(kept)) + note_block


def _details_blocks(lines: list[str]) -> list[_Block]:
    """Top-level `<details>` blocks, each as the range of lines between its summary and close."""
    blocks: list[_Block] = []
    depth = 0
    start = 0
    for i, line in enumerate(lines):
        if _DETAILS_OPEN.match(line):
            if depth == 0:
                start = i + 1
                if "</summary>" in line.lower():
                    pass  # `<details><summary>..</summary>` on one line: content starts next
                elif start < len(lines) and _SUMMARY_LINE.match(lines[start]):
                    start += 1
            depth += 1
        elif _DETAILS_CLOSE.match(line) and depth > 0:
            depth -= 1
            if depth == 0:
                blocks.append(_Block(first=start, last=i))
    return blocks


def _close_fences(lines: list[str]) -> list[str]:
    """Close a code fence left open by trimming, inside the block where it was opened."""
    out: list[str] = []
    open_fence = False
    for line in lines:
        if _DETAILS_CLOSE.match(line) and open_fence:
            out.append(_CLOSE_FENCE)
            open_fence = False
        if _FENCE.match(line):
            open_fence = not open_fence
        out.append(line)
    if open_fence:
        out.append(_CLOSE_FENCE)
    return out


def _cut_tail(lines: list[str], target: int, measure: Measure) -> list[str]:
    """Drop whole lines from the end until the rest fits; cut inside a line only if one is left."""
    total = sum(measure(line) for line in lines)
    while len(lines) > 1 and total > target:
        total -= measure(lines.pop())
    if total > target:
        return [_cut_chars(lines[0], target - 1, measure) + "\n"]
    return lines


def _cut_chars(text: str, limit: int, measure: Measure) -> str:
    """The longest prefix of `text` that fits (binary search: measure may count bytes)."""
    lo, hi = 0, len(text)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if measure(text[:mid]) <= limit:
            lo = mid
        else:
            hi = mid - 1
    return text[:lo]
