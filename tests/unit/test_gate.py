import pytest

from ground_gate.config.model import Threshold
from ground_gate.leaves.results import MetricResult, RowResult
from ground_gate.leaves.stats import balanced_accuracy, bootstrap_ci, f1, roc_auc
from ground_gate.verdict.dataset_scores import ScoreSummary, summarise
from ground_gate.verdict.gate import evaluate, failing_rows, judge_summary


def row(i: str, value: float | None, status: str = "ok", dataset: str = "d") -> RowResult:
    scores = {"groundedness": value} if value is not None and status == "ok" else {}
    return RowResult(dataset, i, (MetricResult("groundedness", status, scores),))


def summary(mean: float | None, n_error: int = 0, n: int = 3, n_no_claims: int = 0) -> ScoreSummary:
    return ScoreSummary("d", "groundedness", mean, n, n_error, n_no_claims, None)


def test_summarise__counts_errors_and_no_claims_apart_from_scores():
    rows = [row("a", 1.0), row("b", 0.5), row("c", None, "no_claims"), row("e", None, "error")]
    [s, said] = summarise(rows, ["d"], {"groundedness": ("groundedness",)})
    assert (s.mean, s.n, s.n_error, s.n_no_claims) == (0.75, 2, 1, 1)
    assert s.ci95 == (0.5, 1.0)
    # the row with nothing to judge left the mean, and counts in substance: 2 of 3 said some
    assert (said.score, said.mean, said.n, said.n_error) == ("substance", 0.6667, 3, 1)


def test_summarise__substance_only_where_a_row_says_nothing():
    rows = [row("a", 1.0), row("b", 0.5)]
    assert [s.score for s in summarise(rows, ["d"], {"groundedness": ("groundedness",)})] == [
        "groundedness"
    ]


def test_judge_summary__threshold_met_and_missed():
    t = Threshold(min=0.8)
    assert judge_summary(summary(0.85), t, "fail").passed is True
    missed = judge_summary(summary(0.79), t, "fail")
    assert (missed.passed, missed.reason) == (False, "0.79 < min 0.80")
    assert judge_summary(summary(0.2), Threshold(max=0.1), "fail").reason == "0.20 > max 0.10"


def test_judge_summary__errors_fail_unless_skipped():
    t = Threshold(min=0.5)
    assert (
        judge_summary(summary(0.9, n_error=1), t, "fail").reason == "1 row(s) could not be scored"
    )
    assert judge_summary(summary(0.9, n_error=1), t, "skip").passed is True


def test_judge_summary__a_missing_score_never_passes():
    verdict = judge_summary(summary(None, n=0), Threshold(min=0.1), "skip")
    assert (verdict.passed, verdict.reason) == (
        False,
        "not checked: no row gave this score; a check that measured nothing fails",
    )


def test_judge_summary__a_check_whose_rows_all_had_nothing_to_judge_fails():
    verdict = judge_summary(summary(None, n=0, n_no_claims=8), Threshold(min=0.1), "fail")
    assert (verdict.passed, verdict.reason) == (
        False,
        "not checked: each of its 8 rows had nothing to judge; a check that measured nothing fails",
    )


def test_judge_summary__allow_empty_leaves_an_empty_check_unchecked_not_passed():
    allowed = Threshold(max=0.3, allow_empty=True)
    verdict = judge_summary(summary(None, n=0, n_no_claims=2), allowed, "fail")
    assert (verdict.passed, verdict.reason) == (
        None,
        "not checked: each of its 2 rows had nothing to judge (allow_empty)",
    )
    # a check with rows is checked as ever, allowed to be empty or not
    assert judge_summary(summary(0.5), allowed, "fail").passed is False


def test_judge_summary__no_threshold_is_informational():
    assert judge_summary(summary(0.1), None, "fail").passed is None


def test_evaluate__incomplete_run_never_passes():
    thresholds = {"d": {"groundedness": Threshold(min=0.0)}}
    assert evaluate([summary(1.0)], thresholds, "fail").passed is True
    gate = evaluate([summary(1.0)], thresholds, "fail", incomplete="interrupted")
    assert (gate.passed, gate.incomplete) == (False, "interrupted")


def test_failing_rows__below_threshold_and_errors():
    rows = [row("a", 0.9), row("b", 0.3), row("c", None, "error")]
    failing = failing_rows(rows, {"d": {"groundedness": Threshold(min=0.5)}})
    assert failing == {("d", "b", "groundedness"), ("d", "c", "groundedness")}


def test_stats__auc_balanced_accuracy_f1():
    assert roc_auc([0.9, 0.8, 0.3, 0.1], [1, 1, 0, 0]) == 1.0
    assert roc_auc([0.5, 0.5], [1, 0]) == 0.5
    assert roc_auc([0.2, 0.9, 0.4], [1, 0, 0]) == 0.0
    assert roc_auc([1.0], [1]) is None
    assert balanced_accuracy([1, 0, 0, 0], [1, 1, 0, 0]) == 0.75
    assert f1([0, 0, 1], [0, 1, 1], positive=0) == pytest.approx(2 / 3)


def test_bootstrap_ci__seeded_and_brackets_the_mean():
    values = [0.1, 0.4, 0.5, 0.9, 1.0]
    lo, hi = bootstrap_ci(values)
    assert lo < sum(values) / 5 < hi
    assert bootstrap_ci(values) == (lo, hi)


def test_judge_summary__errors_fail_even_a_score_without_threshold():
    verdict = judge_summary(summary(0.9, n_error=2), None, "fail")
    assert (verdict.passed, verdict.reason) == (False, "2 row(s) could not be scored")
    assert judge_summary(summary(0.9, n_error=2), None, "skip").passed is None
