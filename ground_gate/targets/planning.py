"""What a run would ask of a dataset's target, found without asking it (`ground-gate plan`).

A prompt target's requests are known exactly (its messages, rendered per row): each is looked
up in the cache by the run's own key, and its prompt tokens are estimated from its length like
the judge's; completion tokens are the cached answer's, else max_tokens (an upper bound). An
http or command target is counted in calls, one per row, less the answers its depends_on cache
holds, exactly as the run counts them (a cached answer is a cache hit, whatever it says).
The answers found in a cache are handed back whole, so the judge's part of the plan reads them
as the run's judge will (the response, and the contexts a command or http target retrieved as
the row's source); the others are not known before the run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ground_gate.config.model import Budget
from ground_gate.judge.base import JudgeRequest
from ground_gate.judge.budget import estimate_prompt_tokens
from ground_gate.judge.cache import CompletionCache, JudgeCache, request_key
from ground_gate.targets.answers import Answer
from ground_gate.targets.cache import AnswerCache
from ground_gate.targets.prepare import Prepared
from ground_gate.targets.prompt import PURPOSE, answers_version


@dataclass
class TargetPlan:
    """One dataset's target in the plan."""

    dataset: str
    kind: str
    budget: Budget | None = None  # target.budget
    calls: int = 0  # requests a run with an empty cache makes (rows sent to a command)
    cached: int = 0  # of them, answered by the cache now
    prompt_tokens: int = 0  # a prompt target's, estimated over `calls`
    completion_tokens: int = 0  # the cached answers', else max_tokens each
    known: dict[str, Answer] = field(default_factory=dict)  # row id -> the cached answer

    @property
    def to_call(self) -> int:
        return self.calls - self.cached

    def over_budget(self) -> list[str]:
        """The target.budget limits this run would reach, by the plan's figures."""
        budget = self.budget
        if budget is None:
            return []
        over = []
        if budget.max_calls is not None and self.to_call > budget.max_calls:
            over.append(f"max_calls {budget.max_calls} (calls to make: {self.to_call})")
        tokens = self.prompt_tokens + self.completion_tokens
        if budget.max_tokens is not None and tokens > budget.max_tokens:
            over.append(f"max_tokens {budget.max_tokens:,} (about {tokens:,})")
        return over

    def as_json(self) -> dict[str, Any]:
        """The target's part of `plan --format json`."""
        return {
            "dataset": self.dataset,
            "kind": self.kind,
            "calls": self.calls,
            "cached": self.cached,
            "to_call": self.to_call,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "over_budget": self.over_budget(),
        }

    def text(self) -> str:
        """The target's line in the plan for people (asked before the judge)."""
        line = (
            f"target of {self.dataset} ({self.kind}): {self.calls} call(s), {self.cached} "
            f"cached, {self.to_call} to call"
        )
        if self.kind == "prompt":
            line += (
                f", {self.prompt_tokens:,} prompt tokens, at most "
                f"{self.completion_tokens:,} completion tokens"
            )
        over = self.over_budget()
        if over:
            line += f"; target.budget: this run would stop early at {'; '.join(over)}"
        return line


def plan_target(prepared: Prepared, no_cache: bool) -> TargetPlan:
    target = prepared.target
    plan = TargetPlan(prepared.dataset, target.kind, target.budget, calls=len(prepared.samples))
    if target.prompt is None:
        _plan_app(prepared, no_cache, plan)
    else:
        _plan_prompt(prepared, no_cache, plan)
    return plan


def _plan_app(prepared: Prepared, no_cache: bool, plan: TargetPlan) -> None:
    target = prepared.target
    store = None if no_cache or target.cache_dir is None else JudgeCache(target.cache_dir)
    cache = AnswerCache(store, target)
    for sample in prepared.samples:
        found = cache.get(sample.id, prepared.requests[sample.id])
        if found is not None:  # the run takes it as it is (asking.py): a cache hit
            plan.cached += 1
            plan.known[sample.id] = found


def _plan_prompt(prepared: Prepared, no_cache: bool, plan: TargetPlan) -> None:
    prompt = prepared.target.prompt
    assert prompt is not None
    model = prompt.model
    store = None if no_cache or model.cache_dir is None else JudgeCache(model.cache_dir)
    cache = CompletionCache(store)
    for sample in prepared.samples:
        messages = prepared.requests[sample.id]
        request = JudgeRequest(messages, PURPOSE, max_tokens=prompt.max_tokens)
        key = request_key(
            request,
            model=model.model,
            temperature=model.temperature,
            prompt_version=answers_version(prompt),
        )
        completion = cache.get(key, None)
        plan.prompt_tokens += estimate_prompt_tokens(messages)
        recorded = 0
        if completion is not None and completion.text.strip():
            plan.cached += 1
            plan.known[sample.id] = Answer(sample.id, completion.text.strip(), cached=True)
            recorded = completion.cost.completion_tokens if completion.cost else 0
        plan.completion_tokens += recorded or prompt.max_tokens
