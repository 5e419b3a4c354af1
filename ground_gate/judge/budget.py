"""What one run may spend on the judge (judge.budget), enforced before every HTTP request.

The judge asks `reserve` right before a request leaves (a cache hit asks nothing) and
`settle` once it is over, failed or not. A request does not start when the requests made
plus those in flight would exceed max_calls; tokens and dollars are checked before with an
estimate (the prompt's length, plus max_tokens for the completion) and counted after with the
figures the judge reported, so a run overshoots a token or dollar limit by at most what the
requests already in flight spend beyond their estimates. Once a limit is reached every later
request is refused too: the run stops, and what was spent stays readable for the message.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ground_gate.config.model import Budget, JudgeConfig, Prices
from ground_gate.judge.base import ChatMessage
from ground_gate.leaves.errors import JudgeUnavailableError

# Characters per token of English text, and the chat template's tokens around each message.
# 4.4: the local judge's tokenizer on the demo's prompts; on news articles it counts about 8%
# fewer tokens than this estimates (bench/RESULTS.md, "plan against a cold run").
CHARS_PER_TOKEN = 4.4
TOKENS_PER_MESSAGE = 5
TOKENS_PER_REPLY = 3  # the assistant turn's opening


def estimate_prompt_tokens(messages: Sequence[ChatMessage]) -> int:
    """The prompt tokens a chat request costs, from its length: no tokenizer is loaded."""
    chars = sum(len(m.content) for m in messages)
    return round(chars / CHARS_PER_TOKEN) + TOKENS_PER_MESSAGE * len(messages) + TOKENS_PER_REPLY


class BudgetExceededError(JudgeUnavailableError):
    """A judge.budget limit is reached: no further request may start in this run."""


@dataclass
class Spent:
    """What the run's requests spent, by the judge's own count."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    usd: float | None = None  # None: no prices, so unknown

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


@dataclass(frozen=True)
class Ticket:
    """One request's reservation: its estimated tokens and dollars."""

    tokens: int
    usd: float
    prompt_tokens: int = 0  # of `tokens`, the prompt's estimate


class SpendingLimit:
    """judge.budget for one run. Not thread-safe: the judge calls it from one event loop."""

    def __init__(self, budget: Budget, prices: Prices | None, spender: str = "judge") -> None:
        """spender: whose budget it is, in messages (a target has one too)."""
        if budget.max_usd is not None and prices is None:
            raise ValueError("a dollar budget needs prices")
        self.spender = spender
        self.budget = budget
        self._prices = prices
        self.spent = Spent(usd=0.0 if prices is not None else None)
        self._in_flight: list[Ticket] = []
        self.exceeded: str | None = None  # which limit stopped the run

    def reserve(self, messages: Sequence[ChatMessage], max_tokens: int) -> Ticket:
        """Count one request as in flight, or raise BudgetExceededError if it may not start."""
        prompt = estimate_prompt_tokens(messages)
        ticket = Ticket(prompt + max_tokens, self._cost(prompt, max_tokens), prompt)
        if self.exceeded is None:
            self.exceeded = self._refusal(ticket)
        if self.exceeded is not None:
            raise BudgetExceededError(f"the {self.spender} budget is spent: {self.exceeded}")
        self._in_flight.append(ticket)
        return ticket

    def settle(
        self, ticket: Ticket, prompt_tokens: int, completion_tokens: int, answered: bool = False
    ) -> None:
        """The request is over (answered or failed): count what the judge reported. An answer
        that reports no usage (some compatible servers and proxies) is counted at the
        reservation's estimate, so max_tokens and max_usd still hold."""
        self._in_flight.remove(ticket)
        if answered and prompt_tokens == 0 and completion_tokens == 0:
            prompt_tokens = ticket.prompt_tokens
            completion_tokens = ticket.tokens - ticket.prompt_tokens
        self.spent.calls += 1
        self.spent.prompt_tokens += prompt_tokens
        self.spent.completion_tokens += completion_tokens
        if self.spent.usd is not None:
            self.spent.usd += self._cost(prompt_tokens, completion_tokens)

    def _refusal(self, ticket: Ticket) -> str | None:
        """Why a request with this reservation may not start now; None when it may."""
        budget, spent, flying = self.budget, self.spent, self._in_flight
        if budget.max_calls is not None and spent.calls + len(flying) + 1 > budget.max_calls:
            return f"max_calls {budget.max_calls} reached"
        if budget.max_tokens is not None:
            tokens = spent.tokens + sum(t.tokens for t in flying) + ticket.tokens
            if tokens > budget.max_tokens:
                return f"max_tokens {budget.max_tokens:,} reached"
        if budget.max_usd is not None:
            usd = (spent.usd or 0.0) + sum(t.usd for t in flying) + ticket.usd
            if usd > budget.max_usd:
                return f"max_usd {budget.max_usd:g} reached"
        return None

    def _cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return self._prices.cost(prompt_tokens, completion_tokens) if self._prices else 0.0

    def left(self) -> str:
        """What remains of each limit, in words."""
        budget, spent = self.budget, self.spent
        parts = []
        if budget.max_calls is not None:
            parts.append(f"{max(budget.max_calls - spent.calls, 0)} of {budget.max_calls} calls")
        if budget.max_tokens is not None:
            remaining = max(budget.max_tokens - spent.tokens, 0)
            parts.append(f"{remaining:,} of {budget.max_tokens:,} tokens")
        if budget.max_usd is not None:
            remaining_usd = max(budget.max_usd - (spent.usd or 0.0), 0.0)
            parts.append(f"${remaining_usd:.4f} of ${budget.max_usd:g}")
        return ", ".join(parts)

    def spent_text(self) -> str:
        spent = self.spent
        text = (
            f"{spent.calls} {self.spender} call(s), {spent.tokens:,} tokens "
            f"({spent.prompt_tokens:,} prompt, {spent.completion_tokens:,} completion)"
        )
        return text + (f", ${spent.usd:.4f}" if spent.usd is not None else "")


def spending_limit(config: JudgeConfig) -> SpendingLimit | None:
    """judge.budget for one run, priced at the judge's prices; None when the config sets none."""
    return None if config.budget is None else SpendingLimit(config.budget, config.pricing)
