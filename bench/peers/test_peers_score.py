"""Checks of score.py (run: .venv/bin/pytest bench/peers)."""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path

from bench.peers import score


def _pairwise_auc(pairs: list[tuple[float, int]]) -> float:
    pos = [s for s, y in pairs if y == 1]
    neg = [s for s, y in pairs if y == 0]
    wins = sum(1.0 if p > n else 0.5 if p == n else 0.0 for p, n in itertools.product(pos, neg))
    return wins / (len(pos) * len(neg))


def test_roc_auc__matches_pairwise_count_with_ties() -> None:
    rng = random.Random(7)
    for _ in range(50):
        pairs = [
            (rng.choice([0.0, 0.25, 0.5, 1.0, score.WORST]), rng.randint(0, 1)) for _ in range(15)
        ]
        if len({y for _, y in pairs}) < 2:
            continue
        assert score.roc_auc(pairs) == _pairwise_auc(pairs)


def test_roc_auc__one_class_is_none() -> None:
    assert score.roc_auc([(0.1, 1), (0.9, 1)]) is None


def test_balanced_accuracy__counts_each_class_equally() -> None:
    pairs = [(0.9, 1), (0.2, 1), (0.1, 0), (0.3, 0), (0.4, 0), (0.8, 0)]
    # grounded: 1 of 2 recalled; not grounded: 3 of 4 rejected
    assert score.balanced_accuracy(pairs, 0.5) == (0.5 + 0.75) / 2
    # "not grounded" class: tn=3, fp=1, fn=1 -> 2*3 / (6 + 1 + 1)
    assert score.f1_not_grounded(pairs, 0.5) == 0.75


def test_best_threshold__lowest_threshold_with_the_best_value() -> None:
    pairs = [(0.2, 0), (0.4, 0), (0.6, 1), (0.8, 1)]
    assert score.best_threshold(pairs) == (1.0, 0.6)


def test_best_threshold__rejecting_everything_is_a_candidate() -> None:
    # a failed grounded row can never be accepted; accepting the 0.0 row is worse than none
    pairs = [(0.0, 0), (score.WORST, 1)]
    assert score.best_threshold(pairs) == (0.5, float("inf"))


def test_summarize__failures_count_as_worst_score(tmp_path: Path) -> None:
    records = [
        {"id": "a", "label": 1, "score": 1.0, "error": None, "seconds": 2, "calls": 3},
        {"id": "b", "label": 1, "score": None, "error": "ValueError: x", "seconds": 4, "calls": 1},
        {"id": "c", "label": 0, "score": 0.5, "error": None, "seconds": 6, "calls": 2},
        {"id": "d", "label": 0, "score": float("nan"), "error": None, "seconds": 0, "calls": 2},
    ]
    path = tmp_path / "tool.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    summary = score.summarize("tool", score.read_rows(path))
    assert summary.n == 4
    assert summary.failures == 2
    # b (grounded, failed) ranks below c and ties with d: 0 + 0.5 of 2; a beats both: 2 of 2
    assert summary.auc == 0.625
    assert summary.auc_ok == 1.0
    # @0.5: a grounded ok, b rejected (failure), c accepted (0.5 >= 0.5), d rejected
    assert summary.bacc_05 == 0.5
    assert summary.seconds == 3.0
    assert summary.calls == 2.0


def test_markdown__renders_full_table() -> None:
    s = score.Summary(
        "ragas", "m", 2, 1, 0.5, 0.75, 0.25, 0.5, None, 0.6667, 3.0, 100.0, 20.0, 5.25
    )
    assert score.markdown([s]) == (
        score.HEADER + "\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n"
        "| ragas | m | 2 | 1 | 0.500 | 0.750 (0.25) | 0.500 | n/a | 0.667 | 3.0 | 100 | 20 | 5.2 |"
    )


def test_summarize__rows_without_a_recorded_cost_stay_out_of_cost_means(tmp_path: Path) -> None:
    path = tmp_path / "tool.jsonl"
    lines = [
        {"id": "a", "label": 1, "score": 0.9, "calls": 4, "seconds": 10.0, "prompt_tokens": 100},
        {"id": "b", "label": 0, "score": 0.1, "calls": 2, "seconds": 6.0, "prompt_tokens": 50},
        {"id": "c", "label": 0, "score": 0.2, "calls": 0, "seconds": 0.0, "cost_recorded": False},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    summary = score.summarize("tool", score.read_rows(path))
    assert summary.n == 3 and summary.auc == 1.0  # every row counts for agreement
    assert (summary.calls, summary.seconds, summary.prompt_tokens) == (3.0, 8.0, 75.0)
