"""The baseline gate on synthetic runs of 100 rows: rows paired by (dataset, id), a paired
bootstrap of the mean change, and a failure only for a drop larger than max_drop and
significantly so (gate.judge_change)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from ground_gate.config.loader import load_config
from ground_gate.config.model import Threshold
from ground_gate.leaves.results import MetricResult, RowResult
from ground_gate.leaves.stats import bootstrap_bounds, bootstrap_ci
from ground_gate.verdict.dataset_scores import PairedChange, paired_change, row_scores, summarise
from ground_gate.verdict.gate import GateResult, evaluate, judge_change

SCORES = {"groundedness": ("groundedness",), "summary_accuracy": ("hallucination",)}


def baseline_value(i: int) -> float:
    """A spread of scores in [0.5, 1), the same for every test."""
    return 0.5 + 0.5 * ((i * 37) % 100) / 100


def run(
    values: Mapping[str, float | None], dataset: str = "d", score: str = "groundedness"
) -> list[RowResult]:
    """One row per id with `score`; None: the metric errored on that row."""
    metric = "groundedness" if score == "groundedness" else "summary_accuracy"
    return [
        RowResult(
            dataset,
            row_id,
            (
                MetricResult(metric, "error", error="judge down")
                if value is None
                else MetricResult(metric, "ok", {score: value}),
            ),
        )
        for row_id, value in values.items()
    ]


BASELINE = {f"r{i:03d}": baseline_value(i) for i in range(100)}


def changed(change: Mapping[int, float]) -> dict[str, float | None]:
    """BASELINE with the rows at these indices moved by these amounts."""
    return {k: v + change.get(i, 0.0) for i, (k, v) in enumerate(BASELINE.items())}


def gate(
    now: Sequence[RowResult],
    before: Sequence[RowResult],
    thresholds: Mapping[str, Mapping[str, Threshold]],
    datasets: Sequence[str] = ("d",),
) -> GateResult:
    return evaluate(
        summarise(now, datasets, SCORES),
        thresholds,
        "fail",
        rows=now,
        baseline=row_scores(before),
    )


def only(result: GateResult, dataset: str = "d", score: str = "groundedness"):
    [verdict] = [v for v in result.verdicts if (v.dataset, v.score) == (dataset, score)]
    return verdict


# --- the statistics ----------------------------------------------------------------------------


def test_bootstrap_bounds__each_end_is_a_one_sided_bound_and_the_ci_is_unchanged():
    values = [0.1, 0.4, 0.5, 0.9, 1.0]
    assert bootstrap_ci(values, level=0.9) == bootstrap_bounds(values, tail=0.05)
    lo, hi = bootstrap_bounds(values, tail=0.05)
    wider = bootstrap_bounds(values, tail=0.01)
    assert wider[0] < lo < sum(values) / 5 < hi < wider[1]
    assert bootstrap_bounds([0.3], tail=0.05) == (0.3, 0.3)


def test_paired_change__pairs_by_dataset_and_id_and_sorts_them():
    now = row_scores(run({"a": 0.5, "b": 0.9, "new": 0.0}) + run({"a": 0.0}, dataset="other"))
    before = row_scores(run({"b": 1.0, "a": 0.7, "gone": 1.0}))
    change = paired_change("d", "groundedness", now, before, 0.95)
    assert change == PairedChange(
        paired=2, in_baseline=3, before=0.85, delta=-0.15, interval=(-0.2, -0.1), confidence=0.95
    )
    # the row order of either run does not move the interval
    reordered = row_scores(run({"new": 0.0, "b": 0.9, "a": 0.5}))
    assert paired_change("d", "groundedness", reordered, before, 0.95) == change


# --- the rule on 100 rows ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("max_drop", "why"),
    [
        (0.05, "within max_drop 0.05"),  # too small to matter
        (0.0, "more than max_drop 0.00, but not shown beyond noise: at 95% confidence it may be no worse "
         "at all, so it passes"),  # and even with no margin, within noise
    ],
)  # fmt: skip
def test_baseline_gate__a_one_row_change_in_100_rows_does_not_fail(max_drop, why):
    now = run(changed({7: -0.79}))  # one row falls from 0.795 to 0.005
    verdict = only(gate(now, run(BASELINE), {"d": {"groundedness": Threshold(max_drop=max_drop)}}))
    assert verdict.passed is True
    assert verdict.baseline is not None
    change = verdict.baseline.change
    assert (change.paired, change.before, change.delta) == (100, 0.7475, -0.0079)
    assert change.interval == (-0.0237, 0.0)  # includes 0: within noise
    assert verdict.baseline.direction == "noise"
    assert verdict.reason == f"0.008 worse than the baseline over the 100 rows in both runs: {why}"


def test_baseline_gate__a_ten_point_drop_on_100_rows_fails():
    now = run(changed({i: -0.5 for i in range(0, 100, 5)}))  # 20 rows lose 0.5: mean -0.10
    result = gate(now, run(BASELINE), {"d": {"groundedness": Threshold(min=0.5, max_drop=0.05)}})
    verdict = only(result)
    assert (result.passed, verdict.passed) == (False, False)
    assert verdict.summary.mean == 0.6475  # still above min 0.5: the baseline alone fails it
    change = verdict.baseline.change
    assert (change.delta, change.interval) == (-0.1, (-0.135, -0.07))
    assert verdict.baseline.direction == "worse"
    assert verdict.reason == (
        "0.100 worse than the baseline over the 100 rows in both runs: more than max_drop 0.05, and at least "
        "0.070 worse at 95% confidence"
    )


def test_baseline_gate__a_stricter_confidence_widens_the_interval():
    now = run(changed({i: -0.5 for i in range(0, 100, 5)}))
    loose = only(gate(now, run(BASELINE), {"d": {"groundedness": Threshold(max_drop=0.07)}}))
    strict = only(
        gate(now, run(BASELINE), {"d": {"groundedness": Threshold(max_drop=0.07, confidence=0.99)}})
    )
    assert loose.baseline.change.interval == (-0.135, -0.07)
    assert strict.baseline.change.interval == (-0.15, -0.055)
    assert (loose.passed, strict.passed) == (True, True)  # -0.07 is not beyond 0.07 either
    stricter_margin = only(
        gate(now, run(BASELINE), {"d": {"groundedness": Threshold(max_drop=0.06)}})
    )
    assert stricter_margin.passed is False
    strict_at_006 = only(
        gate(now, run(BASELINE), {"d": {"groundedness": Threshold(max_drop=0.06, confidence=0.99)}})
    )
    assert strict_at_006.passed is True
    assert strict_at_006.reason == (
        "0.100 worse than the baseline over the 100 rows in both runs: more than max_drop 0.06, but not "
        "surely: at 99% confidence it may be only 0.055 worse, within it, so it passes"
    )


@pytest.mark.parametrize(
    "change",
    [
        {i: -0.04 for i in range(100)},  # every row a little: a certain drop, inside the margin
        {i: -0.5 for i in range(0, 100, 12)},  # 9 rows a lot: mean -0.045
        {i: -0.05 for i in range(100)},  # exactly the margin
    ],
    ids=["every-row", "some-rows", "exactly-the-margin"],
)
def test_baseline_gate__a_drop_within_the_margin_never_fails(change):
    verdict = only(
        gate(run(changed(change)), run(BASELINE), {"d": {"groundedness": Threshold(max_drop=0.05)}})
    )
    assert verdict.passed is True
    assert verdict.baseline.change.delta >= -0.05
    assert verdict.reason.endswith(": within max_drop 0.05")


def test_baseline_gate__a_drop_over_the_margin_that_is_not_significant_passes():
    now = run(changed({i: -baseline_value(i) for i in (3, 40, 50, 77)}))  # 4 rows fall to 0
    verdict = only(gate(now, run(BASELINE), {"d": {"groundedness": Threshold(max_drop=0.02)}}))
    change = verdict.baseline.change
    assert change.delta == -0.0295  # worse than the margin, and significantly worse than 0...
    assert change.interval == (-0.0549, -0.0075)  # ...but it may be only 0.0075 worse
    assert (verdict.passed, verdict.baseline.direction) == (True, "worse")
    assert verdict.reason == (
        "0.029 worse than the baseline over the 100 rows in both runs: more than max_drop 0.02, but not "
        "surely: at 95% confidence it may be only 0.007 worse, within it, so it passes"
    )


def test_baseline_gate__an_improvement_passes_and_is_named():
    now = run(changed({i: 0.1 for i in range(0, 100, 2) if BASELINE[f"r{i:03d}"] < 0.9}))
    verdict = only(gate(now, run(BASELINE), {"d": {"groundedness": Threshold(max_drop=0.0)}}))
    assert (verdict.passed, verdict.baseline.direction) == (True, "better")
    assert (verdict.baseline.change.delta, verdict.baseline.change.interval) == (
        0.04,
        (0.032, 0.048),
    )
    assert (
        verdict.reason
        == "0.040 better than the baseline over the 100 rows in both runs: within max_drop 0.00"
    )


# --- lower is better ---------------------------------------------------------------------------


def test_baseline_gate__for_hallucination_a_rise_is_the_drop():
    before = {k: round(1 - v, 4) for k, v in BASELINE.items()}  # 0.005 to 0.5
    risen = {k: v + (0.5 if i % 5 == 0 else 0) for i, (k, v) in enumerate(before.items())}
    fallen = {k: v / 2 for k, v in before.items()}  # every row halves
    thresholds = {"d": {"hallucination": Threshold(max=0.9, max_drop=0.05)}}

    def verdict(now):
        base = run(before, score="hallucination")
        return only(gate(run(now, score="hallucination"), base, thresholds), score="hallucination")

    worse, better = verdict(risen), verdict(fallen)
    assert (worse.passed, worse.baseline.direction) == (False, "worse")
    assert worse.baseline.change.interval == (0.07, 0.135)  # up is worse
    assert worse.reason == (
        "0.100 worse than the baseline over the 100 rows in both runs: more than max_drop 0.05, and at least "
        "0.070 worse at 95% confidence"
    )
    assert (better.passed, better.baseline.direction) == (True, "better")
    assert better.baseline.change.interval == (-0.1377, -0.1133)  # down is better
    assert better.reason == "0.13 \u2264 max 0.90"  # passed: in the bounds' words
    assert better.baseline.reason == (
        "0.126 better than the baseline over the 100 rows in both runs: within max_drop 0.05"
    )


# --- which rows count --------------------------------------------------------------------------


def test_baseline_gate__unpaired_and_errored_rows_are_ignored():
    now = changed({})
    now.update({f"new-{i}": 0.0 for i in range(50)})  # only in this run: terrible, not compared
    for i in range(0, 100, 10):
        now[f"r{i:03d}"] = None  # errored here: not compared (on_error decides about them)
    before = dict(BASELINE)
    before.update({f"gone-{i}": 1.0 for i in range(20)})  # only in the baseline
    verdict = only(
        evaluate(
            summarise(run(now), ["d"], SCORES),
            {"d": {"groundedness": Threshold(max_drop=0.0)}},
            "skip",
            rows=run(now),
            baseline=row_scores(run(before)),
        )
    )
    change = verdict.baseline.change
    assert (change.paired, change.in_baseline, change.delta, change.interval) == (
        90,
        120,
        0.0,
        (0.0, 0.0),
    )
    assert verdict.baseline.passed is True
    assert verdict.summary.mean == 0.4821  # the mean still counts the new rows


def test_baseline_gate__per_dataset_thresholds(tmp_path: Path):
    config = tmp_path / "gate.yml"
    config.write_text(
        "version: 1\njudge: {provider: openai}\n"
        "datasets:\n"
        "  - {name: lax, path: rows.jsonl}\n"
        "  - name: strict\n    path: rows.jsonl\n"
        "    thresholds: {groundedness: {max_drop: 0.05}}\n"
        "metrics: {groundedness: {}}\n"
        "thresholds: {groundedness: {min: 0.5, max_drop: 0.2}}\n",
        encoding="utf-8",
    )
    (tmp_path / "rows.jsonl").write_text("", encoding="utf-8")
    loaded = load_config(config, {})
    thresholds = {d.name: loaded.thresholds_for(d) for d in loaded.datasets}
    drop = changed({i: -0.5 for i in range(0, 100, 5)})
    now = run(drop, dataset="lax") + run(drop, dataset="strict")
    before = run(BASELINE, dataset="lax") + run(BASELINE, dataset="strict")
    result = gate(now, before, thresholds, datasets=("lax", "strict"))
    lax, strict = only(result, "lax"), only(result, "strict")
    assert lax.baseline.change == strict.baseline.change  # the same drop in both...
    assert (lax.passed, strict.passed, result.passed) == (True, False, False)  # ...two margins
    assert lax.reason == "0.65 \u2265 min 0.50"
    assert strict.reason.endswith("at least 0.070 worse at 95% confidence")


# --- too little to compare: shown, never silent ------------------------------------------------


@pytest.mark.parametrize(
    ("before", "reason"),
    [
        ({"r000": 0.9}, "only 1 row in both runs, fewer than the 2 a comparison needs"),
        ({"old-1": 0.9, "old-2": 0.8}, "no row id in common with the baseline's 2 scored row(s)"),
        ({}, "the baseline has no scored row of this score"),
    ],
)
def test_baseline_gate__too_few_paired_rows_is_said_and_does_not_fail(before, reason):
    now = run(changed({i: -0.5 for i in range(100)}))
    thresholds = {"d": {"groundedness": Threshold(min=0.1, max_drop=0.05)}}
    verdict = only(gate(now, run(before), thresholds))
    assert verdict.passed is True  # the bounds decide; the baseline cannot
    assert verdict.reason == "0.25 \u2265 min 0.10"
    assert verdict.baseline.passed is None
    assert verdict.baseline.direction is None
    assert verdict.baseline.change.interval is None
    assert verdict.baseline.reason == f"{reason}: max_drop 0.05 is not checked"


def test_baseline_gate__a_score_the_baseline_lacks_is_shown_even_without_max_drop():
    now = run(changed({}))
    before = run(BASELINE, score="hallucination")  # an older config without groundedness
    verdict = only(gate(now, before, {}))
    assert (verdict.passed, verdict.reason) == (None, "no threshold")
    assert verdict.baseline.change.paired == 0
    assert verdict.baseline.reason == "the baseline has no scored row of this score"


def test_baseline_gate__max_drop_alone_is_decided_by_the_baseline():
    threshold = {"d": {"groundedness": Threshold(max_drop=0.05)}}
    summaries = summarise(run(BASELINE), ["d"], SCORES)
    without = only(evaluate(summaries, threshold, "fail"))
    assert (without.passed, without.reason, without.baseline) == (
        None,
        "no baseline given: max_drop is not checked",
        None,
    )
    same = only(gate(run(BASELINE), run(BASELINE), threshold))
    assert (same.passed, same.reason) == (
        True,
        "unchanged from the baseline over the 100 rows in both runs: within max_drop 0.05",
    )
    too_few = only(gate(run(BASELINE), run({"r001": 0.9}), threshold))
    assert (too_few.passed, too_few.reason) == (
        None,
        "only 1 row in both runs, fewer than the 2 a comparison needs: max_drop 0.05 is not checked",
    )


def test_baseline_gate__bounds_and_baseline_failures_are_both_said():
    now = run(changed({i: -0.5 for i in range(0, 100, 5)}))
    verdict = only(
        gate(now, run(BASELINE), {"d": {"groundedness": Threshold(min=0.7, max_drop=0.05)}})
    )
    assert verdict.reason == (
        "0.65 < min 0.70; 0.100 worse than the baseline over the 100 rows in both runs: more than "
        "max_drop 0.05, and at least 0.070 worse at 95% confidence"
    )


def test_judge_change__without_max_drop_it_only_describes():
    change = PairedChange(10, 10, 0.8, -0.2, (-0.3, -0.1), 0.95)
    verdict = judge_change("groundedness", change, None)
    assert (verdict.passed, verdict.direction, verdict.max_drop) == (None, "worse", None)
    assert verdict.reason == "0.200 worse than the baseline over the 10 rows in both runs"
