import math

import pytest

from ground_gate.judge.base import Completion, UnusableReplyError
from ground_gate.leaves.errors import JudgeError
from ground_gate.metrics.logprobs import (
    MIN_ANSWER_MASS,
    choice_distribution,
    expected_rating,
    yes_probability,
)
from tests.fakes import said


def test_yes_probability__sums_token_variants_and_renormalises():
    completion = said("Yes", **{"Yes": 0.6, " yes": 0.1, "No": 0.2, "Maybe": 0.1})
    assert yes_probability(completion) == pytest.approx(0.7 / 0.9)


def test_choice_distribution__word_prefix_tokens_count_for_their_word():
    completion = said("Un", **{"Un": 0.5, "Unknown": 0.2, "Yes": 0.2, "No": 0.1})
    dist = choice_distribution(completion, ("yes", "no", "unknown"))
    assert dist == pytest.approx({"yes": 0.2, "no": 0.1, "unknown": 0.7})


def test_choice_distribution__reads_the_text_without_logprobs_when_it_is_the_answer():
    completion = Completion(text="No.")
    assert choice_distribution(completion, ("yes", "no")) == {"yes": 0.0, "no": 1.0}


def test_choice_distribution__unusable_answer_raises_judge_error():
    with pytest.raises(JudgeError, match="not one of yes/no"):
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


def test_expected_rating__reads_the_text_without_logprobs_when_it_is_the_rating():
    assert expected_rating(Completion(text="7"), 0, 10) == 7.0
    with pytest.raises(JudgeError, match="not a rating 1-5"):
        expected_rating(Completion(text="excellent"), 1, 5)


# The floor: the valid answer tokens must carry MIN_ANSWER_MASS before renormalisation.


def test_floor__is_one_half():
    assert MIN_ANSWER_MASS == 0.5


@pytest.mark.parametrize(("mass", "read"), [(0.49, False), (0.5, True), (0.51, True)])
def test_floor__yes_no(mass: float, read: bool):
    completion = said("Yes", Yes=mass * 0.8, No=mass * 0.2, The=1 - mass)
    if read:
        assert yes_probability(completion) == pytest.approx(0.8)
    else:
        with pytest.raises(UnusableReplyError, match=r"probability 0\.49 < 0\.5"):
            yes_probability(completion)


@pytest.mark.parametrize(("mass", "read"), [(0.49, False), (0.51, True)])
def test_floor__yes_no_unknown(mass: float, read: bool):
    completion = said("Un", Un=mass / 2, Yes=mass / 2, Based=1 - mass)
    if read:
        dist = choice_distribution(completion, ("yes", "no", "unknown"))
        assert dist == pytest.approx({"yes": 0.5, "no": 0.0, "unknown": 0.5})
    else:
        with pytest.raises(UnusableReplyError):
            choice_distribution(completion, ("yes", "no", "unknown"))


@pytest.mark.parametrize(("mass", "read"), [(0.49, False), (0.51, True)])
def test_floor__rating(mass: float, read: bool):
    completion = said("4", **{"4": mass / 2, "2": mass / 2, "The": 1 - mass})
    if read:
        assert expected_rating(completion, 1, 5) == pytest.approx(3.0)
    else:
        with pytest.raises(UnusableReplyError, match="not a rating 1-5"):
            expected_rating(completion, 1, 5)


def test_floor__a_first_token_that_is_no_answer_is_not_renormalised_into_one():
    # "The" at 0.999: renormalising the rest over Yes/No used to give P(yes) 0.88
    completion = said("The", The=0.999, Yes=0.00088, No=0.00012)
    with pytest.raises(UnusableReplyError, match="'The' is not one of yes/no"):
        yes_probability(completion)


def test_floor__with_logprobs_they_decide_not_the_text():
    completion = said("Yes", Yes=0.3, Sure=0.3, Well=0.4)
    with pytest.raises(UnusableReplyError, match=r"probability 0\.30"):
        yes_probability(completion)


def test_floor__ten_on_a_0_10_scale_counts_its_first_token_one():
    completion = Completion(
        text="10", top_logprobs=({"1": math.log(0.6), "I": math.log(0.4)}, {"0": 0.0})
    )
    assert expected_rating(completion, 0, 10) == pytest.approx(10.0)


# Text without log-probabilities: read only when the whole reply is an answer.

CHOICE_TEXTS = [
    ("Yes", "yes"),
    ("yes", "yes"),
    ("YES", "yes"),
    ("no.", "no"),
    (" No \n", "no"),
    ("**Yes**", "yes"),
    ('"No"', "no"),
    ("Unknown", "unknown"),
    ("Un", "unknown"),  # a one-token limit cut the word
    ("Yes, it is.", None),
    ("No, it does not.", None),
    ("The answer is yes.", None),
    ("I think so", None),
    ("Maybe", None),
    ("", None),
    ("yes no", None),
    ("Yesterday", None),
]


@pytest.mark.parametrize(("text", "answer"), CHOICE_TEXTS)
def test_text__a_choice_only_when_the_whole_reply_is_one(text: str, answer: str | None):
    completion = Completion(text=text)
    choices = ("yes", "no", "unknown")
    if answer is None:
        with pytest.raises(UnusableReplyError, match="not one of yes/no/unknown"):
            choice_distribution(completion, choices)
    else:
        assert choice_distribution(completion, choices)[answer] == 1.0


RATING_TEXTS = [
    ("9", 0, 10, 9.0),
    ("10", 0, 10, 10.0),
    ("0", 0, 10, 0.0),
    ("9.", 0, 10, 9.0),
    (" 7 ", 0, 10, 7.0),
    ("5", 1, 5, 5.0),
    ("The answer is maybe 9 of 10.", 0, 10, None),
    ("9 of 10", 0, 10, None),
    ("9/10", 0, 10, None),
    ("Score: 7", 0, 10, None),
    ("11", 0, 10, None),
    ("0", 1, 5, None),
    ("6", 1, 5, None),
    ("nine", 0, 10, None),
    ("7.5", 0, 10, None),
    ("", 0, 10, None),
]


@pytest.mark.parametrize(("text", "low", "high", "value"), RATING_TEXTS)
def test_text__a_rating_only_when_the_whole_reply_is_one(
    text: str, low: int, high: int, value: float | None
):
    completion = Completion(text=text)
    if value is None:
        with pytest.raises(UnusableReplyError, match=f"not a rating {low}-{high}"):
            expected_rating(completion, low, high)
    else:
        assert expected_rating(completion, low, high) == value


def test_unusable__quotes_the_start_of_the_reply_escaped():
    reply = "The answer\u202e is\n" + "maybe " * 30
    with pytest.raises(UnusableReplyError) as caught:
        expected_rating(Completion(text=reply), 0, 10)
    message = str(caught.value)
    assert message.startswith("the judge's reply 'The answer\\u202e is\\nmaybe")
    assert "\u202e" not in message and "\n" not in message
    assert "..." in message and len(message) < 200
