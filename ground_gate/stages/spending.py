"""judge.budget at the end of a run: what the record keeps of it, and the run's one message
when it stopped the run."""

from __future__ import annotations

from ground_gate.judge.budget import SpendingLimit
from ground_gate.verdict.record import BudgetRecord


def budget_record(limit: SpendingLimit) -> BudgetRecord:
    """judge.budget and what the run spent of it, as the record keeps them."""
    budget, spent = limit.budget, limit.spent
    return BudgetRecord(
        max_calls=budget.max_calls,
        max_tokens=budget.max_tokens,
        max_usd=budget.max_usd,
        calls=spent.calls,
        prompt_tokens=spent.prompt_tokens,
        completion_tokens=spent.completion_tokens,
        usd=spent.usd,
        exceeded=limit.exceeded,
    )


def stopped_by_budget(limit: SpendingLimit | None, not_run: int, total: int) -> str | None:
    """The run's one message when judge.budget stopped it (`not_run` of `total` rows left):
    what was spent and what was left; None when it did not. A budget reached only while
    quoting evidence, after every row was scored, is an evidence problem (a warning), not a
    lost verdict."""
    if limit is None or limit.exceeded is None or not not_run:
        return None
    return (
        f"the judge budget is spent ({limit.exceeded}): spent {limit.spent_text()}; "
        f"left {limit.left()}; {not_run} of {total} row(s) not run"
    )
