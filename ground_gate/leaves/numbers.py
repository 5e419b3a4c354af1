"""Numbers that tell the truth beside a threshold: as many decimals as the comparison needs.

A hallucination mean of 0.1008 against `max: 0.10` printed to two decimals reads "0.10",
which looks like a pass; printed as "0.101 > 0.10" it reads as what the gate decided. Every
figure compared with a bound (a mean, a row's score, a drop against max_drop) is printed with
the fewest decimals, two at least, at which its rounded value stands on the same side of every
bound as the value itself (and equal only when it is equal), and a bound is printed as it was
written (0.1 -> "0.10", 0.075 -> "0.075"). Pure; the gate's reasons and every renderer use it.
"""

from __future__ import annotations

from collections.abc import Iterable

LEAST = 2  # decimals of a figure that no comparison needs more of
MOST = 12  # past this a float's noise shows: the value is then printed in full (repr)

# How a relation reads, by (the kind of bound, whether it holds)
_MIN = {True: "\u2265", False: "<"}
_MAX = {True: "\u2264", False: ">"}


def _sign(x: float) -> int:
    return (x > 0) - (x < 0)


def decimals(value: float, bounds: Iterable[float] = (), least: int = LEAST) -> int:
    """The fewest decimals (at least `least`, and at least as many as any bound is written
    with: 0.8723 against 0.8724 is "0.8723", never "0.87") at which `value`, rounded, compares
    with every bound as `value` does; MOST + 1 when none up to MOST does."""
    bounds = tuple(bounds)
    least = max([least, *(_written(b) for b in bounds)])
    for places in range(least, MOST + 1):
        shown = round(value, places)
        if all(_sign(shown - b) == _sign(value - b) for b in bounds):
            return places
    return MOST + 1


def figure(value: float, bounds: Iterable[float] = (), least: int = LEAST) -> str:
    """`value` with as many decimals as its comparisons with `bounds` need: 0.1008 against
    0.10 -> "0.101"; 0.0992 against 0.10 -> "0.099"; 0.084 against 0.08 -> "0.084"."""
    places = decimals(value, bounds, least)
    return repr(value) if places > MOST else f"{value:.{places}f}"


def _written(value: float) -> int:
    """The decimals `bound` prints `value` with (at most MOST)."""
    for places in range(LEAST, MOST + 1):
        if round(value, places) == value:
            return places
    return MOST


def bound(value: float) -> str:
    """A threshold as it was written, with two decimals at least: 0.1 -> "0.10"."""
    for places in range(LEAST, MOST + 1):
        if round(value, places) == value:
            return f"{value:.{places}f}"
    return repr(value)


def holds(value: float, kind: str, limit: float) -> bool:
    """Whether `value` meets a `kind` ("min" or "max") bound of `limit`."""
    return value >= limit if kind == "min" else value <= limit


def relation(value: float, kind: str, limit: float) -> str:
    """The sign between a value and a min or max bound that reads true: "≥", "<", "≤", ">"."""
    return (_MIN if kind == "min" else _MAX)[holds(value, kind, limit)]


def compared(value: float, kind: str, limit: float, *, least: int = LEAST) -> str:
    """ "0.101 > 0.10": the value, the sign that holds, the bound."""
    return f"{figure(value, (limit,), least)} {relation(value, kind, limit)} {bound(limit)}"
