"""The characters no reader sees, defined once (ground_gate/leaves/invisible_chars.py)."""

from __future__ import annotations

from ground_gate.leaves.invisible_chars import invisible_ranges, is_invisible


def test_invisible_ranges__every_plane_scanned_holds_no_other() -> None:
    """The ranges are computed over planes 0, 1 and 14 only: no other plane holds one."""
    listed = {code for first, last in invisible_ranges() for code in range(first, last + 1)}
    every = {code for code in range(0x110000) if is_invisible(chr(code))}
    assert listed == every
    assert {0x200B, 0x00AD, 0xFEFF, 0x2060, 0xE0001, 0xFE0F, 0x3164} <= listed


def test_is_invisible__the_prepended_marks_and_letters_show() -> None:
    assert not any(is_invisible(ch) for ch in "a\u0600\u06dd\U000110bd \ufffd")
