"""Small, dependency-free statistics: bootstrap intervals and classification agreement."""

from __future__ import annotations

import random
import threading
from collections.abc import Callable, Sequence
from operator import itemgetter

BOOTSTRAP_SEED = 20261122
BOOTSTRAP_RESAMPLES = 2000
# Index references the bootstrap's draws may keep (about 8 bytes each: 32 MB): a bootstrap of
# n values keeps resamples x n of them; sizes drawn once the budget is spent are drawn anew
# at each call, giving the same resamples
DRAWS_KEPT = 4_000_000

_Draw = Callable[[Sequence[float]], tuple[float, ...]]
_draws: dict[tuple[int, int, int], tuple[_Draw, ...]] = {}
_draws_lock = threading.Lock()


def mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


def bootstrap_ci(
    values: Sequence[float],
    *,
    level: float = 0.95,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean; seeded, so reports are reproducible."""
    return bootstrap_bounds(values, tail=(1 - level) / 2, resamples=resamples, seed=seed)


def bootstrap_bounds(
    values: Sequence[float],
    *,
    tail: float,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> tuple[float, float]:
    """The `tail` and `1 - tail` percentiles of the bootstrap means of `values`: each end is a
    one-sided bound on the mean at confidence `1 - tail`. Seeded, so reports are reproducible.

    Given paired differences (now - before, one per row), this is the paired bootstrap of the
    mean difference: rows are resampled with their pairing kept.

    The values are sorted first, so each bound is a function of the values alone (not of
    their order) and never falls when a value rises: verdict/settling.py relies on both to
    find the reach of a bound over the values rows not judged yet may take.
    """
    if len(values) == 1:
        return (values[0], values[0])
    values = sorted(values)
    n = len(values)
    draws = _resamples(n, resamples, seed)
    if draws is None:  # too many to keep: the same resamples, drawn as they are used
        rng = random.Random(seed)
        means = sorted(sum(rng.choices(values, k=n)) / n for _ in range(resamples))
    else:
        means = sorted(sum(draw(values)) / n for draw in draws)
    lo = means[int(tail * (resamples - 1))]
    hi = means[int((1 - tail) * (resamples - 1))]
    return (lo, hi)


def _resamples(n: int, resamples: int, seed: int) -> tuple[_Draw, ...] | None:
    """The bootstrap's resamples of n values (n >= 2), each a function taking them from a
    sequence: the indices `random.Random(seed).choices(values, k=n)` draws (`floor(random() *
    n)`), so a resample's values, and the order they are summed in, are exactly that call's.
    They depend on n alone, and the stopping rule (verdict/settling.py) asks the same sizes
    after every row judged: kept within DRAWS_KEPT; None past it."""
    key = (n, resamples, seed)
    with _draws_lock:
        if key in _draws or not _fits(n * resamples):
            return _draws.get(key)
    rng = random.Random(seed)
    pool = list(range(n))  # each index one int object, however often it is drawn
    made = tuple(
        itemgetter(*[pool[int(rng.random() * n)] for _ in range(n)]) for _ in range(resamples)
    )
    with _draws_lock:
        if key not in _draws and _fits(n * resamples):
            _draws[key] = made
    return made


def _fits(references: int) -> bool:
    return sum(n * resamples for n, resamples, _ in _draws) + references <= DRAWS_KEPT


def roc_auc(scores: Sequence[float], labels: Sequence[int]) -> float | None:
    """P(score of a random positive > score of a random negative), ties count half."""
    pairs = sorted(zip(scores, labels, strict=True))
    n_pos = sum(labels)
    n_neg = len(labels) - n_pos
    if n_pos == 0 or n_neg == 0:
        return None
    rank_sum = 0.0
    i = 0
    while i < len(pairs):
        j = i
        while j < len(pairs) and pairs[j][0] == pairs[i][0]:
            j += 1
        average_rank = (i + j + 1) / 2  # ranks are 1-based
        rank_sum += average_rank * sum(label for _, label in pairs[i:j])
        i = j
    return (rank_sum - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)


def balanced_accuracy(predicted: Sequence[int], labels: Sequence[int]) -> float | None:
    pos = [p for p, y in zip(predicted, labels, strict=True) if y == 1]
    neg = [p for p, y in zip(predicted, labels, strict=True) if y == 0]
    if not pos or not neg:
        return None
    tpr = sum(pos) / len(pos)
    tnr = sum(1 - p for p in neg) / len(neg)
    return (tpr + tnr) / 2


def f1(predicted: Sequence[int], labels: Sequence[int], positive: int) -> float | None:
    tp = sum(1 for p, y in zip(predicted, labels, strict=True) if p == positive and y == positive)
    fp = sum(1 for p, y in zip(predicted, labels, strict=True) if p == positive and y != positive)
    fn = sum(1 for p, y in zip(predicted, labels, strict=True) if p != positive and y == positive)
    if tp + fp + fn == 0:
        return None
    return 2 * tp / (2 * tp + fp + fn)
