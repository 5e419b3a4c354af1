"""Pure: how well each score agrees with human labels, and which threshold it suggests.

Labels: 1 = the score's good side, 0 = not. For the groundedness scores the label is `label`
(1 = fully grounded, 0 = contains unsupported or contradicted content); the answers metric's
are held to their own columns (LABEL_OF_SCORE). Scores where lower is better (hallucination,
contradiction, answered_anyway) are flipped so that for every score a higher value means its
good side; thresholds are reported on the score's own scale.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise

from ground_gate.config.model import Threshold
from ground_gate.config.scores import LOWER_IS_BETTER
from ground_gate.leaves.stats import BOOTSTRAP_SEED, balanced_accuracy, f1, roc_auc
from ground_gate.verdict.gate import meets

THRESHOLD_RESAMPLES = 300


@dataclass(frozen=True)
class LabelOf:
    """Which label column a score is held to, whether its 1 is the score's good side (else
    its 0 is), and that side in words."""

    column: str
    as_is: bool
    good: str


GROUNDED = LabelOf("label", True, "grounded")
# answered against `answered`; answered_anyway (lower is better) against declining, the
# 0 of `answered`; context_relevance against `answerable`; every other score against `label`
LABEL_OF_SCORE: Mapping[str, LabelOf] = {
    "answered": LabelOf("answered", True, "answered"),
    "answered_anyway": LabelOf("answered", False, "declined"),
    "context_relevance": LabelOf("answerable", True, "answerable"),
}


def label_of(score: str) -> LabelOf:
    return LABEL_OF_SCORE.get(score, GROUNDED)


def good_label(labels: Mapping[str, int], score: str) -> int | None:
    """A row's label for `score` as agreement reads it (1 = the score's good side); None when
    the row has no such label."""
    of = label_of(score)
    value = labels.get(of.column)
    return None if value is None else (value if of.as_is else 1 - value)


@dataclass(frozen=True)
class Labelled:
    score: float
    label: int  # 1 grounded, 0 not
    types: tuple[str, ...] = ()


@dataclass(frozen=True)
class Agreement:
    score: str
    n: int
    n_missing: int  # rows with a label but no score (error or nothing to judge)
    auc: float | None
    balanced_accuracy: float | None  # at the configured threshold
    f1_not_grounded: float | None  # at the configured threshold
    best_balanced_accuracy: float | None
    best_threshold: float | None
    threshold_interval: tuple[float, float] | None  # 90% bootstrap interval of best_threshold
    type_auc: dict[str, float | None]  # hallucination type -> AUC against grounded rows


def _grounded_value(score: str, value: float) -> float:
    return 1 - value if score in LOWER_IS_BETTER else value


def _predict(score: str, values: Sequence[float], cut: float) -> list[int]:
    """1 = predicted grounded, with `cut` on the score's own scale."""
    if score in LOWER_IS_BETTER:
        return [1 if v <= cut else 0 for v in values]
    return [1 if v >= cut else 0 for v in values]


def best_threshold(
    score: str, values: Sequence[float], labels: Sequence[int]
) -> tuple[float, float] | None:
    """(threshold, balanced accuracy) maximising balanced accuracy; midpoints between values."""
    distinct = sorted(set(values))
    if not distinct:
        return None
    cuts = [distinct[0]] + [(a + b) / 2 for a, b in pairwise(distinct)]
    cuts.append(distinct[-1] + 1e-9 if score not in LOWER_IS_BETTER else distinct[-1])
    best: tuple[float, float] | None = None
    for cut in cuts:
        accuracy = balanced_accuracy(_predict(score, values, cut), labels)
        if accuracy is not None and (best is None or accuracy > best[1]):
            best = (round(cut, 4), accuracy)
    return best


def _threshold_interval(
    score: str, rows: Sequence[Labelled], resamples: int
) -> tuple[float, float] | None:
    rng = random.Random(BOOTSTRAP_SEED)
    found = []
    for _ in range(resamples):
        sample = rng.choices(rows, k=len(rows))
        best = best_threshold(score, [r.score for r in sample], [r.label for r in sample])
        if best is not None:
            found.append(best[0])
    if len(found) < resamples // 2:
        return None
    found.sort()
    return (found[int(0.05 * (len(found) - 1))], found[int(0.95 * (len(found) - 1))])


def agreement(
    score: str,
    rows: Sequence[Labelled],
    n_missing: int,
    threshold: Threshold | None,
    *,
    resamples: int = THRESHOLD_RESAMPLES,
) -> Agreement:
    values = [r.score for r in rows]
    labels = [r.label for r in rows]
    grounded_values = [_grounded_value(score, v) for v in values]
    at_threshold = None
    f1_value = None
    if threshold is not None and rows:
        predicted = [1 if meets(v, threshold) else 0 for v in values]
        at_threshold = balanced_accuracy(predicted, labels)
        f1_value = f1(predicted, labels, positive=0)
    best = best_threshold(score, values, labels)
    type_auc: dict[str, float | None] = {}
    for kind in sorted({t for r in rows for t in r.types}):
        subset = [r for r in rows if r.label == 1 or kind in r.types]
        type_auc[kind] = roc_auc(
            [_grounded_value(score, r.score) for r in subset], [r.label for r in subset]
        )
    return Agreement(
        score=score,
        n=len(rows),
        n_missing=n_missing,
        auc=roc_auc(grounded_values, labels) if rows else None,
        balanced_accuracy=at_threshold,
        f1_not_grounded=f1_value,
        best_balanced_accuracy=best[1] if best else None,
        best_threshold=best[0] if best else None,
        threshold_interval=_threshold_interval(score, rows, resamples) if best else None,
        type_auc=type_auc,
    )
