from __future__ import annotations

from typing import Any

from ground_gate.github.verdicts import (
    Check,
    failures,
    incomplete_reason,
    scores_by_dataset,
    summary_line,
)


def score(
    dataset: str, name: str, mean: float | None, passed: bool | None, reason: str
) -> dict[str, Any]:
    return {
        "dataset": dataset,
        "score": name,
        "mean": mean,
        "n": 10,
        "n_error": 0,
        "n_no_claims": 0,
        "ci95": None,
        "threshold": {"min": 0.8} if passed is not None else None,
        "passed": passed,
        "reason": reason,
    }


REPORT: dict[str, Any] = {
    "schema_version": 1,
    "status": "failed",
    "passed": False,
    "incomplete": None,
    "scores": [
        score("support", "groundedness", 0.71, False, "0.71 is not >= 0.8"),
        score("support", "hallucination", 0.0, True, "0.00 is <= 0.1"),
        score("news", "groundedness", 0.93, True, "0.93 is >= 0.8"),
        score("news", "rating", None, None, "no threshold"),
    ],
}


def test_failures__only_scores_that_missed_a_threshold() -> None:
    assert failures(REPORT) == [Check("support", "groundedness", 0.71, False, "0.71 is not >= 0.8")]


def test_scores_by_dataset__means_in_report_order() -> None:
    assert scores_by_dataset(REPORT) == {
        "support": {"groundedness": 0.71, "hallucination": 0.0},
        "news": {"groundedness": 0.93, "rating": None},
    }


def test_summary_line__failed() -> None:
    assert summary_line(REPORT, passed=False) == (
        "ground-gate: failed: 1 of 3 checks failed (support groundedness: 0.71 is not >= 0.8)"
    )


def test_summary_line__passed() -> None:
    report = {"passed": True, "incomplete": None, "scores": REPORT["scores"][1:]}
    assert summary_line(report, passed=True) == ("ground-gate: passed: 2 of 2 checks passed")


def test_summary_line__more_than_three_failures_are_counted() -> None:
    scores = [score(f"d{i}", "groundedness", 0.1, False, "0.10 is not >= 0.8") for i in range(5)]
    assert summary_line({"incomplete": None, "scores": scores}, passed=False) == (
        "ground-gate: failed: 5 of 5 checks failed (d0 groundedness: 0.10 is "
        "not >= 0.8; d1 groundedness: 0.10 is not >= 0.8; d2 groundedness: 0.10 is not >= 0.8; "
        "and 2 more)"
    )


def test_summary_line__incomplete_run() -> None:
    report = {"passed": False, "incomplete": "judge unreachable", "scores": []}
    assert incomplete_reason(report) == "judge unreachable"
    assert summary_line(report, passed=False) == "ground-gate: incomplete run (judge unreachable)"


def test_summary_line__a_shard_says_its_verdict_covers_its_rows_only() -> None:
    report = {**REPORT, "shard": {"index": 2, "count": 4}}
    assert summary_line(report, passed=False) == (
        "ground-gate: shard 2/4, its rows only: failed: 1 of 3 checks failed "
        "(support groundedness: 0.71 is not >= 0.8)"
    )
