"""Numbers beside a threshold print as many decimals as it takes for the comparison to read
true; the gate's reasons say it the same way."""

import pytest

from ground_gate.config.model import Threshold
from ground_gate.leaves.numbers import bound, compared, decimals, figure, relation
from ground_gate.verdict.dataset_scores import ScoreSummary
from ground_gate.verdict.gate import judge_summary


@pytest.mark.parametrize(
    ("value", "kind", "limit", "expected"),
    [
        (0.1008, "max", 0.10, "0.101 > 0.10"),  # was "0.10", read as a pass
        (0.0992, "max", 0.10, "0.099 \u2264 0.10"),  # "0.10 <= 0.10" would be true, but not why
        (0.0992, "min", 0.10, "0.099 < 0.10"),  # "0.10 < 0.10" would be false
        (0.1008, "min", 0.10, "0.101 \u2265 0.10"),
        (0.084, "max", 0.08, "0.084 > 0.08"),  # was "0.08"
        (0.10, "max", 0.10, "0.10 \u2264 0.10"),  # equal: equal, and it holds
        (0.10, "min", 0.10, "0.10 \u2265 0.10"),
        (0.8, "min", 0.75, "0.80 \u2265 0.75"),
        (0.075, "min", 0.075, "0.075 \u2265 0.075"),  # the bound as written
        (0.0749, "min", 0.075, "0.0749 < 0.075"),  # never fewer decimals than the bound
        (0.8723, "min", 0.8724, "0.8723 < 0.8724"),  # never "0.87 < 0.8724"
        (0.91, "min", 0.8, "0.91 \u2265 0.80"),  # two decimals when they suffice
        (0.3, "max", 0.2, "0.30 > 0.20"),
    ],
)
def test_compared__reads_true_at_the_edges(value, kind, limit, expected):
    assert compared(value, kind, limit) == expected


def test_figure__a_float_just_past_its_bound_is_printed_in_full():
    noisy = sum([0.1] * 3) / 3  # 0.10000000000000002: the gate says it is above 0.1
    assert noisy > 0.1
    assert compared(noisy, "max", 0.1) == "0.10000000000000002 > 0.10"


def test_figure__against_two_bounds_and_with_a_floor_of_decimals():
    assert figure(0.7999, (0.2, 0.8)) == "0.7999"
    assert figure(0.5, (0.2, 0.8)) == "0.50"
    assert figure(0.0205, (0.02,), least=3) == "0.021"
    assert figure(0.02, (), least=3) == "0.020"
    assert decimals(0.1008, (0.1,)) == 3


def test_bound__as_written_two_decimals_at_least():
    assert [bound(b) for b in (0.1, 0.08, 0.075, 1.0, 0.0)] == [
        "0.10",
        "0.08",
        "0.075",
        "1.00",
        "0.00",
    ]


def test_relation__the_sign_that_holds():
    assert [relation(0.5, "min", 0.4), relation(0.3, "min", 0.4)] == ["\u2265", "<"]
    assert [relation(0.3, "max", 0.4), relation(0.5, "max", 0.4)] == ["\u2264", ">"]


def _summary(mean: float) -> ScoreSummary:
    return ScoreSummary("news", "hallucination", mean, 200, 0, 0, (mean - 0.01, mean + 0.01))


@pytest.mark.parametrize(
    ("mean", "passed", "reason"),
    [
        (0.1008, False, "0.101 > max 0.10"),
        (0.0992, True, "0.099 \u2264 max 0.10"),
        (0.10, True, "0.10 \u2264 max 0.10"),
    ],
)
def test_judge_summary__the_reason_reads_true(mean, passed, reason):
    verdict = judge_summary(_summary(mean), Threshold(max=0.10), "fail")
    assert (verdict.passed, verdict.reason) == (passed, reason)


def test_judge_summary__both_bounds_named_when_met_only_the_missed_one_when_not():
    both = Threshold(min=0.2, max=0.8)
    met = "0.50 \u2265 min 0.20 and 0.50 \u2264 max 0.80"
    assert judge_summary(_summary(0.5), both, "fail").reason == met
    assert judge_summary(_summary(0.8001), both, "fail").reason == "0.8001 > max 0.80"
