"""Every number that enters from outside, checked once where it enters: finite, in its range,
of a sane size.

One table (`RANGES`) names each kind of number the tool reads from a judge's reply, a cache
entry or a report file, and what it may hold. The readers call `check` (or one of the named
shortcuts) with the place the value came from; a value that breaks its row raises
`NumberError` naming that place and the range, and the reader maps it to its own error: an
unusable judge reply (retried, never a score), a cache miss (asked again), a refused report
file (exit 2). Config numbers are bounded by the published schema and, for their size, by
`MAX_DIGITS` (config/yamltree.py).

Why each row matters: `nan < 0.5` is false, so a NaN score passes a `min` threshold; a
log-probability of 1000.0 overflows `math.exp`; a positive one makes a probability above 1;
a negative token count lets a run spend past its budget.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from ground_gate.leaves.errors import describe_value

# Digits an integer read from outside may have: 10^15 is beyond every count, size and limit
# the tool knows, and Python refuses to even print an integer of more than 4,300 digits.
MAX_DIGITS = 15
MAX_MAGNITUDE = 10**MAX_DIGITS


class NumberError(ValueError):
    """A number outside its range; the message names where it came from and what was expected."""

    def __init__(self, where: str, expected: str, value: object) -> None:
        super().__init__(f"{where}: expected {expected}, got {describe_value(value)}")
        self.where = where


@dataclass(frozen=True)
class Range:
    """What one kind of number may hold.

    tolerance: how far past `high` a value may be and still be read as `high` (a server's
        float rounding: a log-probability of 1e-7 is a certain token, not a probability above 1).
    """

    what: str
    low: float
    high: float
    integer: bool = False
    tolerance: float = 0.0

    @property
    def expected(self) -> str:
        kind = "an integer" if self.integer else "a finite number"
        return f"{self.what} ({kind} from {self.low:g} to {self.high:g})"


RANGES: Mapping[str, Range] = {
    # P(token), and the total of a token's alternatives, from a judge's top log-probabilities
    "probability": Range("a probability", 0.0, 1.0, tolerance=1e-2),
    # OpenAI writes -9999.0 for an alternative of no probability; below -1e6 is no model's
    "log-probability": Range("a log-probability", -1e6, 0.0, tolerance=1e-3),
    "score": Range("a score", 0.0, 1.0),
    # tokens, calls, retries: per call, per row or per run
    "count": Range("a count", 0, MAX_MAGNITUDE, integer=True),
    "seconds": Range("a duration in seconds", 0.0, 1e9),
    "dollars": Range("an amount in US dollars", 0.0, 1e9),
}


def check(kind: str, value: object, where: str) -> float:
    """`value` as RANGES[kind] allows it (an int for an integer kind, a float otherwise; a
    value within the tolerance past the top is the top); NumberError when it is not one."""
    allowed = RANGES[kind]
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise NumberError(where, allowed.expected, value)
    if allowed.integer:
        if isinstance(value, float) and not (math.isfinite(value) and value.is_integer()):
            raise NumberError(where, allowed.expected, value)
        if not allowed.low <= value <= allowed.high:
            raise NumberError(where, allowed.expected, value)
        return int(value)
    if isinstance(value, int) and abs(value) > MAX_MAGNITUDE:
        raise NumberError(where, allowed.expected, value)
    number = float(value)
    if not math.isfinite(number) or not allowed.low <= number <= allowed.high + allowed.tolerance:
        raise NumberError(where, allowed.expected, value)
    return min(number, allowed.high)


def check_probability(value: object, where: str) -> float:
    return check("probability", value, where)


def check_log_probability(value: object, where: str) -> float:
    return check("log-probability", value, where)


def check_score(value: object, where: str) -> float:
    return check("score", value, where)


def check_count(value: object, where: str) -> int:
    return int(check("count", value, where))
