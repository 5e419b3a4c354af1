"""The one way a user's file is opened: regular files under a cap, in bounded reads."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ground_gate.leaves.file_reader import Unreadable, read_capped


def kind_of(path: Path, max_bytes: int = 100) -> tuple[str, int | None]:
    with pytest.raises(Unreadable) as caught:
        read_capped(path, max_bytes)
    return caught.value.kind, caught.value.size


def test_read_capped__a_regular_file_within_the_cap_is_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    path.write_bytes(b"x" * 100)
    assert read_capped(path, 100) == b"x" * 100


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (lambda p: None, ("missing", None)),
        (lambda p: p.mkdir(), ("directory", None)),
        (lambda p: os.mkfifo(p), ("special", None)),  # would block a reader forever
        (lambda p: p.write_bytes(b"x" * 101), ("too_large", 101)),
    ],
)
def test_read_capped__what_is_no_regular_file_under_the_cap_is_refused_unread(
    tmp_path: Path, make, expected
) -> None:
    path = tmp_path / "a.json"
    make(path)
    assert kind_of(path) == expected


def test_read_capped__a_device_is_refused_before_a_byte_is_read() -> None:
    assert kind_of(Path("/dev/zero")) == ("special", None)  # it would never end


def test_read_capped__a_nul_in_the_path_is_unreadable_not_a_crash() -> None:
    with pytest.raises(Unreadable) as caught:
        read_capped(Path("a\0b.json"), 100)
    assert caught.value.kind == "unreadable"
    assert "null" in caught.value.reason
