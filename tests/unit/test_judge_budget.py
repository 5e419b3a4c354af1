"""judge.budget's arithmetic: what may start, what is counted, what the message says."""

from __future__ import annotations

import pytest

from ground_gate.config.model import Budget, Prices
from ground_gate.judge.base import ChatMessage
from ground_gate.judge.budget import (
    BudgetExceededError,
    SpendingLimit,
    estimate_prompt_tokens,
)
from ground_gate.leaves.errors import JudgeUnavailableError

PROMPT = (ChatMessage("system", "s" * 40), ChatMessage("user", "u" * 400))  # 100 tokens of text


def test_estimate_prompt_tokens__chars_over_4_4_plus_the_template() -> None:
    assert estimate_prompt_tokens(PROMPT) == 100 + 2 * 5 + 3


def test_spending_limit__no_call_starts_past_max_calls_counting_those_in_flight() -> None:
    limit = SpendingLimit(Budget(max_calls=3), None)
    first, second = limit.reserve(PROMPT, 1), limit.reserve(PROMPT, 1)
    limit.settle(first, 10, 1)
    limit.reserve(PROMPT, 1)  # 1 made + 1 in flight + this one = 3
    with pytest.raises(BudgetExceededError, match="max_calls 3 reached"):
        limit.reserve(PROMPT, 1)
    limit.settle(second, 0, 0)  # a failed request counts as made
    assert limit.spent.calls == 2
    assert limit.exceeded == "max_calls 3 reached"


def test_spending_limit__once_exceeded_every_later_request_is_refused() -> None:
    limit = SpendingLimit(Budget(max_tokens=200), None)
    with pytest.raises(BudgetExceededError):
        limit.reserve(PROMPT * 3, 1)  # about 340 tokens: more than the whole budget
    with pytest.raises(BudgetExceededError, match="the judge budget is spent: max_tokens 200"):
        limit.reserve((ChatMessage("user", "hi"),), 1)  # would fit, but the run has stopped


def test_spending_limit__tokens_are_estimated_before_and_counted_after() -> None:
    limit = SpendingLimit(Budget(max_tokens=300), None)
    ticket = limit.reserve(PROMPT, 1)  # 114 estimated
    with pytest.raises(BudgetExceededError):
        limit.reserve(PROMPT, 100)  # 114 in flight + 213 > 300
    limit.settle(ticket, 250, 1)  # the judge reported more than estimated: 251 spent
    assert limit.spent.tokens == 251
    with pytest.raises(BudgetExceededError, match="max_tokens 300 reached"):
        limit.reserve(PROMPT, 1)  # 251 + 114 > 300


def test_spending_limit__dollars_from_prices() -> None:
    limit = SpendingLimit(Budget(max_usd=0.001), Prices(prompt_per_1m=5.0, completion_per_1m=15.0))
    ticket = limit.reserve(PROMPT, 1)  # 113 * 5e-6 + 15e-6 = $0.00058
    limit.settle(ticket, 113, 1)
    assert limit.spent.usd == pytest.approx(0.00058)
    with pytest.raises(BudgetExceededError, match=r"max_usd 0\.001 reached"):
        limit.reserve(PROMPT, 1)
    assert limit.spent_text() == ("1 judge call(s), 114 tokens (113 prompt, 1 completion), $0.0006")
    assert limit.left() == "$0.0004 of $0.001"


def test_spending_limit__words_for_what_is_left() -> None:
    limit = SpendingLimit(Budget(max_calls=20, max_tokens=5000), None)
    limit.settle(limit.reserve(PROMPT, 1), 1200, 3)
    assert limit.left() == "19 of 20 calls, 3,797 of 5,000 tokens"
    assert limit.spent_text() == "1 judge call(s), 1,203 tokens (1,200 prompt, 3 completion)"


def test_spending_limit__a_dollar_budget_without_prices_is_a_bug() -> None:
    with pytest.raises(ValueError):
        SpendingLimit(Budget(max_usd=1.0), None)


def test_budget_exceeded_error__stops_the_run_like_an_unavailable_judge() -> None:
    assert issubclass(BudgetExceededError, JudgeUnavailableError)
