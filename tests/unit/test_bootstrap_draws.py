"""The bootstrap's resamples are kept per size (leaves/stats.py) for the stopping rule, which
asks the same sizes after every row: kept or drawn anew, the bounds must be exactly those of
the seeded `random.Random(seed).choices` resamples every report so far was made with."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ground_gate.leaves import stats
from tests.examples import examples

VALUES = st.lists(
    st.floats(min_value=-1.0, max_value=1.0, allow_nan=False), min_size=1, max_size=40
)


def choices_bounds(values: list[float], tail: float, resamples: int) -> tuple[float, float]:
    """The bootstrap as it was first written: seeded `choices`, n values a resample."""
    if len(values) == 1:
        return (values[0], values[0])
    values = sorted(values)
    rng = random.Random(stats.BOOTSTRAP_SEED)
    n = len(values)
    means = sorted(sum(rng.choices(values, k=n)) / n for _ in range(resamples))
    return means[int(tail * (resamples - 1))], means[int((1 - tail) * (resamples - 1))]


@settings(max_examples=examples(60), deadline=None)
@given(
    values=VALUES,
    tail=st.sampled_from([0.01, 0.025, 0.05, 0.2]),
    resamples=st.sampled_from([50, 333]),
    kept=st.booleans(),
)
def test_bootstrap__kept_or_drawn_anew_the_bounds_of_the_seeded_choices(
    values: list[float], tail: float, resamples: int, kept: bool
) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(stats, "_draws", {})
        patch.setattr(stats, "DRAWS_KEPT", 10**6 if kept else 0)
        want = choices_bounds(values, tail, resamples)
        first = stats.bootstrap_bounds(values, tail=tail, resamples=resamples)
        again = stats.bootstrap_bounds(values, tail=tail, resamples=resamples)  # from the kept
        assert first == again == want
        assert bool(stats._draws) == (kept and len(values) > 1)


def test_bootstrap__keeps_no_more_draws_than_its_budget() -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(stats, "_draws", {})
        patch.setattr(stats, "DRAWS_KEPT", 100 * 30)
        for n in range(2, 40):
            stats.bootstrap_bounds([i / n for i in range(n)], tail=0.05, resamples=100)
        kept = sum(n * resamples for n, resamples, _ in stats._draws)
        assert 0 < kept <= 100 * 30
        assert set(stats._draws) == {(n, 100, stats.BOOTSTRAP_SEED) for n in range(2, 8)}
