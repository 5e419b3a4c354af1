"""The step before scoring, for datasets with a target: ask it for every selected row's
response, hand the runner the rows it answered (as the judge will see them), and turn what it
could not answer into the run's error rows, its stop and the record's `targets`.

targets/ asks, the runner scores; this joins the two for a run (commands/run.py) and for a
plan (commands/plan.py).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ground_gate.config.model import Config
from ground_gate.datasets import Sample
from ground_gate.leaves.results import MetricResult, RowResult
from ground_gate.stages.planning_judge import MARK
from ground_gate.stages.runner import RunResult
from ground_gate.stages.target_record import target_entry
from ground_gate.stages.workload import Work, as_judged
from ground_gate.targets import (
    TARGET_ERROR_PREFIX,
    Answered,
    Prepared,
    answer_all,
    answered_sample,
    prepare_target,
    responses_text,
)
from ground_gate.targets.planning import TargetPlan, plan_target

# A target's answer the plan cannot know: one sentence, marked as made up (planning_judge.MARK).
MADE_UP_ANSWER = MARK + "An answer of one sentence."


@dataclass(frozen=True)
class Answering:
    """What the targets answered, and what the run makes of it.

    work: every selected row, with its answer when it got one (the report's rows and texts);
    scorable: the rows answered, for the runner.
    """

    answered: tuple[Answered, ...]
    work: Work
    scorable: Work

    @property
    def interrupted(self) -> bool:
        return any(outcome.interrupted for outcome in self.answered)

    @property
    def stopped(self) -> str | None:
        """Why the run cannot be complete: a target stopped, or answered no row at all."""
        for outcome in self.answered:
            if outcome.stopped:
                return f"the target of dataset '{outcome.dataset}' stopped: {outcome.stopped}"
            if outcome.order and not any(a.ok for a in outcome.answers.values()):
                first = outcome.failed[0].error if outcome.failed else "no answer"
                return f"the target of dataset '{outcome.dataset}' answered no row: {first}"
        return None

    def error_rows(self, metrics: Sequence[str]) -> list[RowResult]:
        """A row the target failed is an error for every metric: on_error decides."""
        rows = []
        for outcome in self.answered:
            for answer in outcome.failed:
                error = TARGET_ERROR_PREFIX + (answer.error or "")
                results = tuple(MetricResult(m, "error", error=error) for m in metrics)
                rows.append(RowResult(outcome.dataset, answer.id, results, answer.seconds))
        return rows

    def add_to(self, result: RunResult, metrics: Sequence[str]) -> None:
        """The target's error rows into the run's rows (in input order), and its stop."""
        result.rows.extend(self.error_rows(metrics))
        pairs = [(name, sample.id) for name, samples in self.work for sample in samples]
        place = {key: i for i, key in enumerate(pairs)}
        result.rows.sort(key=lambda r: place.get((r.dataset, r.sample_id), len(place)))
        result.incomplete = self.stopped or result.incomplete

    def entries(self) -> tuple[dict[str, Any], ...]:
        """The record's `targets`: one entry per dataset with a target."""
        return tuple(target_entry(outcome) for outcome in self.answered)

    def responses(self) -> str:
        return responses_text(self.answered)


def _prepared(config: Config, work: Work, env: Mapping[str, str]) -> list[Prepared]:
    """The selected datasets' targets, made ready (ConfigError before any call)."""
    datasets = {d.name: (i, d) for i, d in enumerate(config.datasets)}
    found: list[Prepared] = []
    file = str(config.path) if config.path else "config"
    for name, samples in work:
        index, dataset = datasets[name]
        if dataset.target is not None:
            found.append(prepare_target(dataset, index, samples, file, env, config.limits))
    return found


def answer_work(
    config: Config,
    work: Work,
    env: Mapping[str, str],
    *,
    no_cache: bool,
    echo: Callable[[str], None],
) -> Answering | None:
    """Every selected row of a dataset with a target answered by it; None when no selected
    dataset has one. Problems that would fail every row (a placeholder no column fills) are
    ConfigErrors before any call."""
    prepared = _prepared(config, work, env)
    if not prepared:
        return None
    answered = tuple(answer_all(prepared, env, no_cache=no_cache, echo=echo))
    if any(outcome.interrupted for outcome in answered):
        return Answering(answered, work, ())  # nothing is scored: the run stops here
    by_name = {outcome.dataset: outcome for outcome in answered}
    full: list[tuple[str, tuple[Sample, ...]]] = []
    scorable: list[tuple[str, tuple[Sample, ...]]] = []
    for name, samples in work:
        outcome = by_name.get(name)
        if outcome is None:
            full.append((name, samples))
            scorable.append((name, samples))
            continue
        answers = outcome.answers
        rows = as_judged(
            config.judge,
            [answered_sample(s, answers[s.id]) if s.id in answers else s for s in samples],
        )
        full.append((name, rows))
        scorable.append((name, tuple(s for s in rows if s.id in answers and answers[s.id].ok)))
    return Answering(answered, tuple(full), tuple(scorable))


def plan_work(
    config: Config, work: Work, env: Mapping[str, str], *, no_cache: bool
) -> tuple[Work, list[TargetPlan]]:
    """For `ground-gate plan`: the targets' calls, and the rows as the judge would see them,
    with the answers the caches hold, else a made-up one-sentence answer (estimated)."""
    plans = {p.dataset: plan_target(p, no_cache) for p in _prepared(config, work, env)}
    rows: list[tuple[str, tuple[Sample, ...]]] = []
    for name, samples in work:
        plan = plans.get(name)
        if plan is None:
            rows.append((name, samples))
            continue
        # a cached answer as the run's judge will read it: its contexts, when the target
        # retrieved some, are the row's source
        known = plan.known
        screened = as_judged(
            config.judge,
            [
                answered_sample(s, known[s.id]) if s.id in known else replace(s, response="")
                for s in samples
            ],
        )
        # the made-up answer is the plan's own text, set after the screen: its mark is an
        # invisible character the screen would take out
        made_up = (s if s.id in known else replace(s, response=MADE_UP_ANSWER) for s in screened)
        rows.append((name, tuple(made_up)))
    return tuple(rows), list(plans.values())
