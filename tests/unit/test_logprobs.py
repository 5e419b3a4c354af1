import math

import pytest

from ground_gate.errors import JudgeError
from ground_gate.judge.base import Completion
from ground_gate.metrics.logprobs import choice_distribution, expected_rating, yes_probability
from tests.fakes import said


def test_yes_probability__sums_token_variants_and_renormalises():
    completion = said("Yes", **{"Yes": 0.6, " yes": 0.1, "No": 0.2, "Maybe": 0.1})
    assert yes_probability(completion) == pytest.approx(0.7 / 0.9)


def test_choice_distribution__word_prefix_tokens_count_for_their_word():
    completion = said("Un", **{"Un": 0.5, "Unknown": 0.2, "Yes": 0.2, "No": 0.1})
    dist = choice_distribution(completion, ("yes", "no", "unknown"))
    assert dist == pytest.approx({"yes": 0.2, "no": 0.1, "unknown": 0.7})


def test_choice_distribution__falls_back_to_the_text_without_logprobs():
    completion = Completion(text="No, it does not.")
    assert choice_distribution(completion, ("yes", "no")) == {"yes": 0.0, "no": 1.0}


def test_choice_distribution__unusable_answer_raises_judge_error():
    with pytest.raises(JudgeError, match="not one of"):
        choice_distribution(Completion(text="Perhaps"), ("yes", "no"))


def test_expected_rating__weights_digits_by_probability():
    completion = said("5", **{"5": 0.5, "4": 0.25, "2": 0.25})
    assert expected_rating(completion, 1, 5) == pytest.approx(4.0)


def test_expected_rating__ignores_digits_outside_the_scale():
    completion = said("5", **{"5": 0.5, "7": 0.5})
    assert expected_rating(completion, 1, 5) == pytest.approx(5.0)


def test_expected_rating__splits_one_into_ten_by_the_second_token():
    completion = Completion(
        text="10",
        top_logprobs=(
            {"1": math.log(0.8), "8": math.log(0.2)},
            {"0": math.log(0.75), "<eos>": math.log(0.25)},
        ),
    )
    # 0.8 * 0.75 on 10, 0.8 * 0.25 on 1, 0.2 on 8
    assert expected_rating(completion, 0, 10) == pytest.approx(6 + 0.2 + 1.6)


def test_expected_rating__text_fallback_and_error():
    assert expected_rating(Completion(text="Score: 7"), 0, 10) == 7.0
    with pytest.raises(JudgeError, match="not a rating 1-5"):
        expected_rating(Completion(text="excellent"), 1, 5)
