"""Asking a prepared target for every row's answer: the prompt kind through its model, the
http kind one request per row, the command kind in one process; a bounded number of rows at
once, cached answers first, and a stop (kept in `Answered.stopped`) when the target cannot go
on. Ctrl-C keeps the answers already given."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass

import httpx

from ground_gate.config.model import TargetConfig
from ground_gate.datasets import Sample
from ground_gate.judge.base import Judge
from ground_gate.judge.budget import BudgetExceededError, SpendingLimit
from ground_gate.judge.cache import JudgeCache
from ground_gate.judge.factory import open_judge
from ground_gate.leaves.errors import TargetError
from ground_gate.leaves.progress import RowProgress
from ground_gate.targets.answers import Answer, Answered
from ground_gate.targets.cache import AnswerCache
from ground_gate.targets.command import ask_command
from ground_gate.targets.http import HttpAsker
from ground_gate.targets.prepare import Prepared
from ground_gate.targets.prompt import PURPOSE, answers_version, ask_model, speaker
from ground_gate.targets.reply import checked

Ask = Callable[[Sample], Awaitable[Answer]]
Progress = Callable[[int, int], None]


@dataclass
class _Asking:
    """One target being asked: what it is asked, what it answered, and with what."""

    prepared: Prepared
    answered: Answered
    env: Mapping[str, str]
    limit: SpendingLimit | None
    progress: Progress

    @property
    def target(self) -> TargetConfig:
        return self.prepared.target


def answer_target(
    prepared: Prepared, env: Mapping[str, str], *, no_cache: bool, echo: Callable[[str], None]
) -> Answered:
    """Every row's answer from the dataset's target (what it could answer, when it stopped)."""
    target = prepared.target
    answered = Answered(prepared.dataset, dict(prepared.definition))
    answered.order = [s.id for s in prepared.samples]
    limit = None
    if target.budget is not None:
        limit = SpendingLimit(target.budget, target.prices, spender="target")
    progress = RowProgress(label=f"answering rows (target of {prepared.dataset})")
    asking = _Asking(prepared, answered, env, limit, progress)
    started = time.perf_counter()
    try:
        if target.prompt is not None:
            _answer_prompt(asking, no_cache, echo)
        else:
            store = None if no_cache or target.cache_dir is None else JudgeCache(target.cache_dir)
            asyncio.run(_answer_app(asking, AnswerCache(store, target)))
    except KeyboardInterrupt:
        answered.stopped = "interrupted (Ctrl-C or SIGTERM) while the target answered"
        answered.interrupted = True
    finally:
        progress.close()
        answered.seconds = round(time.perf_counter() - started, 3)
    _no_source(prepared, answered)
    if limit is not None and limit.exceeded is not None:
        answered.stopped = _budget_spent(limit, answered)
    return answered


def _answer_prompt(asking: _Asking, no_cache: bool, echo: Callable[[str], None]) -> None:
    prompt = asking.target.prompt
    assert prompt is not None
    with open_judge(
        prompt.model,
        asking.env,
        prompt_version=answers_version(prompt),
        no_cache=no_cache,
        echo=echo,
        limit=asking.limit,
        speaker=speaker(asking.prepared.keys),
    ) as (model, info):
        asking.answered.definition["endpoint"] = info.get("endpoint")

        async def each() -> None:
            try:
                await _each(asking, _prompt_asker(asking.prepared, model))
            finally:
                close = getattr(model, "aclose", None)
                if close is not None:
                    await close()

        try:
            asyncio.run(each())
        finally:
            usage_by_purpose = getattr(model, "usage_by_purpose", None)
            spent = usage_by_purpose().get(PURPOSE) if usage_by_purpose else None
            if spent is not None:
                asking.answered.usage = spent


def _prompt_asker(prepared: Prepared, model: Judge) -> Ask:
    target = prepared.target.prompt
    assert target is not None

    async def ask(sample: Sample) -> Answer:
        return await ask_model(model, target, sample, prepared.requests[sample.id])

    return ask


async def _answer_app(asking: _Asking, cache: AnswerCache) -> None:
    target = asking.target
    if target.command is not None:
        await _answer_command(asking, cache)
        return
    assert target.http is not None
    async with httpx.AsyncClient(timeout=target.timeout_s) as client:
        asker = HttpAsker(
            target.http,
            client,
            asking.env,
            timeout_s=target.timeout_s,
            max_retries=target.max_retries,
            usage=asking.answered.usage,
            limit=asking.limit,
        )
        requests = asking.prepared.requests

        async def ask(sample: Sample) -> Answer:
            try:
                return await asker.ask(sample, requests[sample.id])
            except BudgetExceededError as exc:
                raise TargetError(str(exc)) from None

        await _each(asking, ask, cache)


async def _each(asking: _Asking, ask: Ask, cache: AnswerCache | None = None) -> None:
    """Ask for every row, max_concurrency at a time; the first TargetError stops the rest."""
    prepared, answered = asking.prepared, asking.answered
    gate = asyncio.Semaphore(prepared.target.max_concurrency)
    total = len(prepared.samples)

    async def one(sample: Sample) -> None:
        async with gate:
            if answered.stopped is not None:
                return
            request = prepared.requests[sample.id]
            answer = cache.get(sample.id, request) if cache is not None else None
            if answer is not None:
                answered.usage.cache_hits += 1
            else:
                try:
                    answer = checked(await ask(sample), prepared.limits)
                except TargetError as exc:
                    answered.stopped = answered.stopped or str(exc)
                    return
                if cache is not None:
                    cache.put(request, answer)
            answered.answers[sample.id] = answer
            asking.progress(len(answered.answers), total)

    await asyncio.gather(*(one(sample) for sample in prepared.samples))


async def _answer_command(asking: _Asking, cache: AnswerCache) -> None:
    prepared, answered = asking.prepared, asking.answered
    command = prepared.target.command
    assert command is not None
    misses: list[Sample] = []
    for sample in prepared.samples:
        found = cache.get(sample.id, prepared.requests[sample.id])
        if found is None:
            misses.append(sample)
        else:
            answered.answers[sample.id] = found
            answered.usage.cache_hits += 1
    if misses:
        given: dict[str, Answer] = {}
        try:
            exchange = await ask_command(
                command,
                misses,
                timeout_s=prepared.target.timeout_s,
                usage=answered.usage,
                env=asking.env,
                limit=asking.limit,
                answers=given,
            )
            answered.stopped, answered.notice = exchange.stopped, exchange.notice
        finally:  # a stop signal too: the answers given before it are kept
            for sample in misses:
                answer = given.get(sample.id)
                if answer is not None:
                    answer = checked(answer, prepared.limits)
                    answered.answers[sample.id] = answer
                    cache.put(prepared.requests[sample.id], answer)
    asking.progress(len(answered.answers), len(prepared.samples))


def _no_source(prepared: Prepared, answered: Answered) -> None:
    """A row with no context whose answer brought no contexts cannot be judged: its error."""
    samples = {s.id: s for s in prepared.samples}
    for row_id, answer in answered.answers.items():
        if answer.ok and not answer.contexts and not samples[row_id].sources:
            answered.answers[row_id] = Answer(
                row_id,
                None,
                seconds=answer.seconds,
                error=(
                    f"the target gave no contexts for row '{row_id}', which has no context "
                    "column: nothing to judge its response against"
                ),
            )


def _budget_spent(limit: SpendingLimit, answered: Answered) -> str:
    left = len(answered.order) - len(answered.answers)
    return (
        f"the target budget is spent ({limit.exceeded}): spent {limit.spent_text()}; left "
        f"{limit.left()}; {left} of {len(answered.order)} row(s) not answered"
    )


def answer_all(
    prepared: Sequence[Prepared],
    env: Mapping[str, str],
    *,
    no_cache: bool,
    echo: Callable[[str], None],
) -> list[Answered]:
    """Every prepared target asked in turn (one local model at a time)."""
    outcomes = []
    for item in prepared:
        if item.notice:
            echo(f"ground-gate: notice: {item.notice}")
        outcomes.append(answer_target(item, env, no_cache=no_cache, echo=echo))
        notice = outcomes[-1].notice
        if notice:
            echo(f"ground-gate: notice: the target of dataset '{item.dataset}': {notice}")
        if outcomes[-1].interrupted:
            break
    return outcomes
