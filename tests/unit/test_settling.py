"""Stopping when the decision is settled never changes a decision: over generated row sets,
scores, thresholds, max_drops and baselines, whenever `open_checks` says no pending row can
change a check, the gate over the rows judged so far decides every check as the gate over
every row does (a row not judged is taken to be scorable: with `on_error: fail` a judge
failure on it is not foreseen; with `skip` it is a row with no value, which is)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from ground_gate.config.model import SUBSTANCE_DEFAULT, Threshold
from ground_gate.config.scores import ANSWERED_SIDES
from ground_gate.leaves.results import MetricResult, RowResult
from ground_gate.verdict.dataset_scores import row_scores, summarise
from ground_gate.verdict.gate import evaluate
from ground_gate.verdict.settling import Rules, open_checks
from tests.examples import examples

SCORES = {
    "groundedness": ("groundedness", "contradiction"),
    "answers": ("answered", "answered_anyway", "context_relevance"),
}
ANSWERS_ONLY = {"answers": SCORES["answers"]}
VALUES = st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.6, 0.75, 0.9, 1.0])


@st.composite
def grounded(draw: st.DrawFn) -> MetricResult:
    status = draw(st.sampled_from(["ok", "ok", "ok", "ok", "no_claims", "error"]))
    if status != "ok":
        return MetricResult("groundedness", status)
    return MetricResult(
        "groundedness", "ok", {"groundedness": draw(VALUES), "contradiction": draw(VALUES)}
    )


@st.composite
def answers(draw: st.DrawFn) -> MetricResult:
    status = draw(st.sampled_from(["ok", "ok", "ok", "error"]))
    if status != "ok":
        return MetricResult("answers", status)
    side = draw(st.sampled_from(["answered", "answered_anyway"]))
    scores = {side: draw(VALUES)}
    if draw(st.integers(0, 3)):  # judged, not stated by the dataset
        scores["context_relevance"] = draw(VALUES)
    return MetricResult("answers", "ok", scores)


@st.composite
def threshold(draw: st.DrawFn) -> Threshold | None:
    kind = draw(st.sampled_from(["none", "min", "max", "drop", "min_drop", "range"]))
    level = draw(VALUES)
    drop = draw(st.sampled_from([0.0, 0.02, 0.05, 0.1, 0.3]))
    empty = draw(st.booleans())
    confidence = draw(st.sampled_from([0.8, 0.95]))
    return {
        "none": None,
        "min": Threshold(min=level, allow_empty=empty),
        "max": Threshold(max=level, allow_empty=empty),
        "drop": Threshold(max_drop=drop, confidence=confidence),
        "min_drop": Threshold(min=level, max_drop=drop, confidence=confidence),
        "range": Threshold(min=level / 2, max=level, allow_empty=empty),
    }[kind]


@st.composite
def scenario(
    draw: st.DrawFn, scores: dict[str, tuple[str, ...]] = SCORES
) -> tuple[Rules, list[RowResult], list[int], int]:
    datasets = draw(st.sampled_from([("a",), ("a", "b")]))
    made = {"groundedness": grounded, "answers": answers}

    def results() -> tuple[MetricResult, ...]:
        return tuple(draw(made[metric]()) for metric in scores)

    rows = []
    for dataset in datasets:
        for i in range(draw(st.integers(1, 9))):
            rows.append(RowResult(dataset, f"r{i}", results()))
    thresholds = {}
    for dataset in datasets:
        chosen = {s: draw(threshold()) for names in scores.values() for s in names}
        chosen["substance"] = draw(st.sampled_from([SUBSTANCE_DEFAULT, None]))
        thresholds[dataset] = {s: t for s, t in chosen.items() if t is not None}
    baseline = None
    if draw(st.booleans()):
        before = [
            RowResult(r.dataset, r.sample_id, results())
            for r in rows
            if draw(st.integers(0, 5))  # most rows are in the baseline
        ]
        baseline = row_scores(before)
    # rows keeping the baseline's answerable verdict: on the side they were on there
    sides = {}
    for row in rows:
        said = row_scores([row]).get((row.dataset, row.sample_id), {})
        before_said = (baseline or {}).get((row.dataset, row.sample_id), {})
        side = next((s for s in ("answered", "answered_anyway") if s in said), None)
        if side is None or "context_relevance" not in said or not draw(st.integers(0, 3)):
            continue
        if side in before_said and "context_relevance" in before_said:
            sides[(row.dataset, row.sample_id)] = side
    on_error = draw(st.sampled_from(["fail", "skip"]))
    rules = Rules(datasets, scores, thresholds, on_error, baseline, sides)
    order = draw(st.permutations(range(len(rows))))
    return rules, rows, list(order), draw(st.integers(0, len(rows)))


def decisions(rules: Rules, rows: Sequence[RowResult]) -> dict[tuple[str, str], bool]:
    gate = evaluate(
        summarise(rows, rules.datasets, dict(rules.scores_by_metric)),
        rules.thresholds,
        rules.on_error,
        rows=rows,
        baseline=rules.baseline,
    )
    # the decision: whether each check fails (one not shown, as substance is until a row says
    # nothing, fails nothing)
    return {(v.dataset, v.score): v.passed is False for v in gate.verdicts if v.passed is False}


@settings(max_examples=examples(150))
@given(scenario())
def test_stopping_when_settled_never_changes_a_decision(
    case: tuple[Rules, list[RowResult], list[int], int],
) -> None:
    _stops_as_judging_all(*case[:3])


@settings(max_examples=examples(150))
@given(scenario(ANSWERS_ONLY))
def test_answer_scores_known_before_judging_never_change_a_decision(
    case: tuple[Rules, list[RowResult], list[int], int],
) -> None:
    """The answer scores alone, so that a run settles early often: rows keeping the
    baseline's answerable verdict (`Rules.sides`) give nothing on the other side and cannot
    regress, and no decision differs from judging every row."""
    _stops_as_judging_all(*case[:3])


def _stops_as_judging_all(rules: Rules, rows: list[RowResult], order: list[int]) -> None:
    every = decisions(rules, rows)
    for judged in range(len(order) + 1):
        done = [rows[i] for i in sorted(order[:judged])]
        pending = [(rows[i].dataset, rows[i].sample_id) for i in order[judged:]]
        if not open_checks(rules, done, pending):
            if rules.on_error == "fail" and any(_failed(rows[i]) for i in order[judged:]):
                break  # a row not judged is taken to be scorable: its judge failure is unknown
            assert decisions(rules, done) == every, (judged, pending)
            break


def _failed(row: RowResult) -> bool:
    return any(m.status == "error" for m in row.metrics)


@settings(max_examples=examples(60))
@given(scenario())
def test_every_row_judged_is_settled(case: tuple[Rules, list[RowResult], list[int], int]) -> None:
    rules, rows, _, _ = case
    assert open_checks(rules, rows, []) == []


def _row(dataset: str, row_id: str, value: float) -> RowResult:
    return RowResult(
        dataset,
        row_id,
        (MetricResult("groundedness", "ok", {"groundedness": value, "contradiction": 0.0}),),
    )


GROUNDED_ONLY = {"groundedness": ("groundedness", "contradiction")}


def test_a_mean_far_inside_its_bound_settles_before_every_row() -> None:
    """Nine rows at 1.0 and one pending: the mean stays >= 0.9, above min 0.5."""
    rules = Rules(("a",), GROUNDED_ONLY, {"a": {"groundedness": Threshold(min=0.5)}}, "fail")
    rows = [_row("a", f"r{i}", 1.0) for i in range(9)]
    assert open_checks(rules, rows, [("a", "r9")]) == []


def test_a_mean_near_its_bound_stays_open() -> None:
    """One pending row at 0 takes the mean of 0.6 0.6 to 0.4, below min 0.5."""
    rules = Rules(("a",), GROUNDED_ONLY, {"a": {"groundedness": Threshold(min=0.5)}}, "fail")
    rows = [_row("a", "r0", 0.6), _row("a", "r1", 0.6)]
    assert open_checks(rules, rows, [("a", "r2")]) == [("a", "groundedness")]


def test_a_drop_past_max_drop_that_the_bound_may_show_keeps_the_check_open() -> None:
    """Twenty rows unchanged at 1.0, all thirty were 1.0 in the baseline. One pending row
    judged 0 would be a drop of 1/21 > max_drop 0.01 that the bound does not show beyond it:
    it passes either way, settled. Ten pending rows judged 0 would be a drop of 1/3 that it
    shows: open."""
    before = row_scores([_row("a", f"r{i}", 1.0) for i in range(30)])
    threshold = {"a": {"groundedness": Threshold(max_drop=0.01)}}
    rules = Rules(("a",), GROUNDED_ONLY, threshold, "fail", before)
    rows = [_row("a", f"r{i}", 1.0) for i in range(20)]
    assert open_checks(rules, rows, [("a", "r20")]) == []
    ten = [("a", f"r{i}") for i in range(20, 30)]
    assert open_checks(rules, rows, ten) == [("a", "groundedness")]


def _answered(dataset: str, row_id: str, side: str, value: float) -> RowResult:
    scores = {side: value, "context_relevance": 0.9 if side == "answered" else 0.1}
    return RowResult(dataset, row_id, (MetricResult("answers", "ok", scores),))


def test_a_row_keeping_the_baseline_s_answerable_verdict_cannot_regress_its_context() -> None:
    """Ten rows answered in the baseline, nine judged alike now. The tenth, judged, could
    lose its answer (a context regression): open. Keeping the baseline's verdict, it is on
    the answered side whatever it says: the context check is settled."""
    before = row_scores([_answered("a", f"r{i}", "answered", 1.0) for i in range(10)])
    thresholds = {"a": {"answered": Threshold(min=0.5)}}
    rows = [_answered("a", f"r{i}", "answered", 1.0) for i in range(9)]
    unknown = Rules(("a",), ANSWERS_ONLY, thresholds, "fail", before)
    assert open_checks(unknown, rows, [("a", "r9")]) == [("a", "context_relevance")]
    kept = replace(unknown, sides={("a", "r9"): "answered"})
    assert open_checks(kept, rows, [("a", "r9")]) == []


def test_a_row_keeping_its_side_still_counts_on_that_side_and_on_no_other() -> None:
    """One row judged answered at 1.0 and one pending, min 0.6 on both sides: on the answered
    side, its 0 would take `answered` to 0.5 (open), and `answered_anyway` has no row to
    reach (settled as it is); on the other side, the reverse."""
    thresholds = {"a": {s: Threshold(min=0.6, allow_empty=True) for s in ANSWERED_SIDES}}
    rules = Rules(("a",), ANSWERS_ONLY, thresholds, "skip")
    rows = [_answered("a", "r0", "answered", 1.0), _answered("a", "r1", "answered_anyway", 1.0)]
    on = {side: replace(rules, sides={("a", "r2"): side}) for side in ANSWERED_SIDES}
    assert open_checks(on["answered"], rows, [("a", "r2")]) == [("a", "answered")]
    assert open_checks(on["answered_anyway"], rows, [("a", "r2")]) == [("a", "answered_anyway")]
    assert open_checks(rules, rows, [("a", "r2")]) == [("a", "answered"), ("a", "answered_anyway")]


def test_a_side_no_row_left_can_give_is_settled_as_it_is() -> None:
    """Every row answerable: `answered_anyway` has no row and allows none. A pending row kept
    on the answered side cannot give one, so that check is settled (judged, it would still
    give none); unknown, it could."""
    thresholds = {"a": {"answered_anyway": Threshold(max=0.4, allow_empty=True)}}
    rules = Rules(("a",), ANSWERS_ONLY, thresholds, "fail")
    rows = [_answered("a", "r0", "answered", 1.0)]
    assert open_checks(rules, rows, [("a", "r1")]) == [("a", "answered_anyway")]
    kept = replace(rules, sides={("a", "r1"): "answered"})
    assert open_checks(kept, rows, [("a", "r1")]) == []
