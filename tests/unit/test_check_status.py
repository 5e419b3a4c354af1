"""Each check's status in the words of the rule that decided it (report/check_status.py)."""

from typing import Any

from ground_gate.review.check_status import (
    FAIL,
    NOISE,
    PASS,
    check_status,
    checks_said,
    past_max_drop,
)


def entry(passed: bool | None, delta: float | None = None, **change: Any) -> Any:
    made: dict[str, Any] = {"score": "groundedness", "passed": passed, "threshold": None}
    if delta is not None:
        made["baseline"] = {"delta": delta, "max_drop": 0.03, "direction": "noise", **change}
    return made


def test_check_status__a_drop_past_max_drop_that_passed_never_reads_as_a_pass():
    status = check_status(entry(True, delta=-0.097))  # groundedness fell 0.097 > 0.03
    assert (status.kind, status.mark) == ("noise", NOISE)
    assert status.mark != PASS
    assert (
        status.word
        == "passes: dropped more than max_drop, but not surely (its interval reaches within it)"
    )


def test_check_status__pass_fail_and_shown():
    assert check_status(entry(True, delta=-0.01)).mark == PASS  # within max_drop
    assert check_status(entry(True)).mark == PASS  # no baseline
    assert check_status(entry(False, delta=-0.2)).mark == FAIL
    assert check_status(entry(None)).kind == "shown"


def test_past_max_drop__lower_is_better_scores_and_uncompared_ones():
    rising = {"score": "hallucination", "passed": True}
    rising["baseline"] = {"delta": 0.05, "max_drop": 0.03, "direction": "noise"}
    assert past_max_drop(rising)  # hallucination up 0.05: worse by 0.05
    assert not past_max_drop(entry(True, delta=-0.2, direction=None))  # too few pairs
    assert not past_max_drop(entry(True, delta=0.2))  # better


def test_check_status__a_threshold_the_run_could_not_check_is_not_a_score_shown_only():
    unchecked = {"score": "groundedness", "passed": None, "threshold": {"max_drop": 0.05}}
    assert (check_status(unchecked).kind, check_status(unchecked).word) == (
        "unchecked",
        "not checked",
    )
    shown = {"score": "groundedness", "passed": None, "threshold": None}
    assert check_status(shown).word == "no threshold: shown only"


def test_check_status__a_check_that_measured_nothing_is_not_checked_and_fails():
    empty = {"score": "answered", "passed": False, "threshold": {"min": 0.8}}
    empty |= {"mean": None, "n_error": 0}
    status = check_status(empty)
    assert (status.kind, status.mark) == ("empty", FAIL)
    assert status.word.startswith("not checked")
    allowed = {**empty, "passed": None, "threshold": {"min": 0.8, "allow_empty": True}}
    assert (check_status(allowed).kind, check_status(allowed).word) == ("unchecked", "not checked")
    errored = {**empty, "n_error": 3}  # its rows failed: a failure, said by its reason
    assert check_status(errored).kind == "fail"


def test_checks_said__an_empty_check_counts_among_the_failures_never_the_passes():
    passing = {"score": "groundedness", "passed": True, "threshold": {"min": 0.5}, "mean": 0.9}
    empty = {"score": "answered", "passed": False, "threshold": {"min": 0.8}, "mean": None}
    allowed = {**empty, "passed": None, "threshold": {"min": 0.8, "allow_empty": True}}
    entries = [passing | {"n_error": 0}, empty | {"n_error": 0}]
    assert checks_said(entries) == "1 of 2 checks failed (1 of them with no row to measure)"
    assert checks_said([passing | {"n_error": 0}, allowed | {"n_error": 0}]) == (
        "1 of 1 check passed"
    )
