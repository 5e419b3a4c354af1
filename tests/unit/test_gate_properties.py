"""The gate's fail-closed rules as properties over generated rows (issue 43): a threshold whose
score no row gave never passes unless it allows being empty; a row that says nothing is
counted in substance and fails it; a row moved off the answered side since the baseline
fails context_relevance."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from ground_gate.config.model import SUBSTANCE_DEFAULT, Threshold
from ground_gate.config.scores import SUBSTANCE
from ground_gate.leaves.results import MetricResult, RowResult
from ground_gate.verdict.dataset_scores import row_scores, said_something, summarise
from ground_gate.verdict.gate import evaluate, failing_rows

SCORES = {"groundedness": ("groundedness",)}
statuses = st.sampled_from(["ok", "no_claims", "error"])
values = st.floats(min_value=0, max_value=1, allow_nan=False)


@st.composite
def rows(draw: st.DrawFn) -> list[RowResult]:
    out = []
    for i, status in enumerate(draw(st.lists(statuses, min_size=1, max_size=12))):
        scores = {"groundedness": draw(values)} if status == "ok" else {}
        out.append(RowResult("d", f"r{i}", (MetricResult("groundedness", status, scores),)))
    return out


@st.composite
def thresholds(draw: st.DrawFn) -> Threshold:
    low = draw(st.none() | values)
    return Threshold(min=low, max_drop=draw(st.none() | values), allow_empty=draw(st.booleans()))


@given(rows(), thresholds(), st.sampled_from(["fail", "skip"]))
def test_a_check_with_no_row_never_passes_and_fails_unless_allowed_empty(got, threshold, on_error):
    gate = evaluate(
        summarise(got, ["d"], SCORES), {"d": {"groundedness": threshold}}, on_error, rows=got
    )
    (verdict,) = [v for v in gate.verdicts if v.score == "groundedness"]
    if verdict.summary.n_error and on_error == "fail":  # its errors fail it, and say so
        assert verdict.passed is False and "could not be scored" in verdict.reason
    elif verdict.summary.mean is None:
        assert verdict.passed is (None if threshold.allow_empty else False)
        assert verdict.reason.startswith("not checked")


@given(rows())
def test_a_row_that_says_nothing_counts_in_substance_and_fails_it(got):
    said = {r.sample_id: said_something(r) for r in got}
    silent = {i for i, v in said.items() if v == 0.0}
    summaries = {s.score: s for s in summarise(got, ["d"], SCORES)}
    assert (SUBSTANCE in summaries) is bool(silent)  # shown where a row says nothing
    failing = {i for _, i, s in failing_rows(got, {"d": {SUBSTANCE: SUBSTANCE_DEFAULT}})}
    assert failing == silent
    # every row with nothing to judge, and only those, says nothing
    assert silent == {r.sample_id for r in got if r.metrics[0].status == "no_claims"}


@given(st.lists(st.booleans(), min_size=2, max_size=12), st.lists(st.booleans(), max_size=12))
def test_a_row_moved_off_the_answered_side_since_the_baseline_fails_context_relevance(
    answerable_before, moved
):
    before = {("d", f"r{i}"): {"answered": 1.0} for i, a in enumerate(answerable_before) if a}
    now = []
    for i, _ in enumerate(answerable_before):
        lost = i < len(moved) and moved[i]
        side = {"answered_anyway": 0.0} if lost else {"answered": 1.0}
        scores = {**side, "context_relevance": 0.1 if lost else 0.9}
        now.append(RowResult("d", f"r{i}", (MetricResult("answers", "ok", scores),)))
    answer_scores = {"answers": ("answered", "answered_anyway", "context_relevance")}
    gate = evaluate(
        summarise(now, ["d"], answer_scores), {"d": {}}, "fail", rows=now, baseline=before
    )
    (relevance,) = [v for v in gate.verdicts if v.score == "context_relevance"]
    regressed = [k for k, v in row_scores(now).items() if "answered_anyway" in v and k in before]
    assert (relevance.passed is False) is bool(regressed)
    assert not regressed or relevance.reason.startswith("context regression")
