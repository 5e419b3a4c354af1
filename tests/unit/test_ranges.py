"""The table of numbers and their ranges (ground_gate/leaves/ranges.py), row by row: what each kind
takes, what it is read as, and what it refuses with the place named."""

from __future__ import annotations

import math

import pytest

from ground_gate.leaves.errors import digit_count
from ground_gate.leaves.ranges import RANGES, NumberError, check

HUGE = 10**400
NAN, INF = math.nan, math.inf

# (kind, value, read as); every kind refuses NaN, infinities, booleans, text, None and lists
TAKEN = [
    ("probability", 0, 0.0),
    ("probability", 1, 1.0),
    ("probability", 0.25, 0.25),
    ("probability", 1.004, 1.0),  # a server's float rounding: read as 1
    ("log-probability", 0, 0.0),
    ("log-probability", -0.5, -0.5),
    ("log-probability", 0.0009, 0.0),
    ("log-probability", -9999.0, -9999.0),
    ("log-probability", -1e6, -1e6),
    ("score", 0.0, 0.0),
    ("score", 1.0, 1.0),
    ("score", 0.5, 0.5),
    ("count", 0, 0),
    ("count", 12, 12),
    ("count", 12.0, 12),
    ("count", 10**15, 10**15),
    ("seconds", 0, 0.0),
    ("seconds", 2.5, 2.5),
    ("dollars", 0.0004, 0.0004),
]
REFUSED = [
    ("probability", -0.001, "-0.001"),
    ("probability", 1.02, "1.02"),
    ("log-probability", 0.5, "0.5"),
    ("log-probability", 1000.0, "1000.0"),
    ("log-probability", -1e300, "-1e+300"),
    ("log-probability", -HUGE, "an integer of 401 digits"),
    ("score", 1.0001, "1.0001"),
    ("score", -0.1, "-0.1"),
    ("count", -1, "-1"),
    ("count", -5000, "-5000"),
    ("count", 1.5, "1.5"),
    ("count", 10**15 + 1, "1000000000000001"),
    ("count", HUGE, "an integer of 401 digits"),
    ("count", 10**5000, "an integer of 5,001 digits"),
    ("seconds", -0.5, "-0.5"),
    ("seconds", 1e10, "10000000000.0"),
    ("dollars", -1.0, "-1.0"),
]
EVERY_KIND_REFUSES = [(NAN, "nan"), (INF, "inf"), (-INF, "-inf"), (True, "true"),
                      (False, "false"), ("0.5", "'0.5'"), (None, "null"), ([0.5], "a list")]  # fmt: skip


def test_ranges__every_kind_has_rows_here() -> None:
    assert {kind for kind, _, _ in TAKEN} == set(RANGES)
    assert {kind for kind, _, _ in REFUSED} == set(RANGES)


def name(value: object) -> str:
    """A test id: pytest would print a 5,000-digit integer, which Python refuses."""
    if isinstance(value, int) and abs(value) > 10**20:
        return f"{digit_count(value)}-digit"
    return repr(value)[:40]


@pytest.mark.parametrize(("kind", "value", "read"), TAKEN, ids=name)
def test_check__takes_values_in_range(kind: str, value: object, read: float) -> None:
    result = check(kind, value, "here")
    assert result == read
    assert type(result) is (int if RANGES[kind].integer else float)


@pytest.mark.parametrize(("kind", "value", "shown"), REFUSED, ids=name)
def test_check__refuses_values_out_of_range_naming_place_and_range(
    kind: str, value: object, shown: str
) -> None:
    with pytest.raises(NumberError) as caught:
        check(kind, value, "usage.prompt_tokens")
    assert str(caught.value) == (
        f"usage.prompt_tokens: expected {RANGES[kind].expected}, got {shown}"
    )
    assert caught.value.where == "usage.prompt_tokens"


@pytest.mark.parametrize("kind", sorted(RANGES))
@pytest.mark.parametrize(("value", "shown"), EVERY_KIND_REFUSES, ids=name)
def test_check__refuses_what_is_not_a_finite_number(kind: str, value: object, shown: str) -> None:
    with pytest.raises(NumberError, match=f"got {shown}$"):
        check(kind, value, "x")


def test_range__expected_wording() -> None:
    assert RANGES["probability"].expected == "a probability (a finite number from 0 to 1)"
    assert RANGES["count"].expected == "a count (an integer from 0 to 1e+15)"
