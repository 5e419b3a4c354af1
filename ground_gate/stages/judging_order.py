"""The order a run judges its rows in: as given, or seeded when the run may stop once the
decision is settled (stages/stopping.py), and whether the rows judged so far settle it."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ground_gate.datasets import Sample
from ground_gate.leaves.results import RowResult

# Whether the rows scored so far settle the run: given them and the (dataset, row id) of the
# rows not scored yet, True when no value those could take changes any check's decision
Settled = Callable[[Sequence[RowResult], Sequence[tuple[str, str]]], bool]
ORDER_SEED = 45  # the seeded order rows are judged in when a run may stop settled


@dataclass
class JudgingOrder:
    """The rows in the order they are judged (seeded when the run may stop settled), and
    whether the rows judged so far settle the run."""

    schedule: list[tuple[str, Sample]]
    settled: Settled | None
    finished: set[tuple[str, str]] = field(default_factory=set)

    @classmethod
    def of(cls, pairs: list[tuple[str, Sample]], settled: Settled | None) -> JudgingOrder:
        if settled is None:
            return cls(pairs, None)
        return cls(random.Random(ORDER_SEED).sample(pairs, len(pairs)), settled)

    def settles(self, rows: Sequence[RowResult]) -> bool:
        if self.settled is None:
            return False
        left = [(n, s.id) for n, s in self.schedule if (n, s.id) not in self.finished]
        return bool(left) and self.settled(rows, left)
