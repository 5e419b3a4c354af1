"""The step before scoring, for datasets with a target: ask it for every selected row's
response, hand the runner the rows it answered (as the judge will see them), and turn what it
could not answer into the run's error rows, its stop and the report's `targets` record.

Wiring only: targets/ asks, the runner scores, and this joins the two for a run.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, cast

from ground_gate.config.model import Config
from ground_gate.datasets import Sample
from ground_gate.errors import MergeError
from ground_gate.plan import MARK
from ground_gate.report.types import TargetEntry
from ground_gate.results import MetricResult, RowResult
from ground_gate.runner import RunResult
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

Work = list[tuple[str, list[Sample]]]
# A target's answer the plan cannot know: one sentence, marked as made up (plan.MARK).
MADE_UP_ANSWER = MARK + "An answer of one sentence."
Judged = Callable[[Sequence[Sample]], list[Sample]]  # rows as the judge sees them


@dataclass
class TargetStep:
    """What the targets answered, and what the run makes of it."""

    answered: list[Answered] = field(default_factory=list)
    scorable: Work = field(default_factory=list)  # the rows answered, for the runner

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

    def add_to(self, result: RunResult, metrics: Sequence[str], order: Work) -> None:
        """The target's error rows into the run's rows (in input order), and its stop."""
        result.rows.extend(self.error_rows(metrics))
        place = {(name, s.id): i for i, (name, s) in enumerate(_pairs(order))}
        result.rows.sort(key=lambda r: place.get((r.dataset, r.sample_id), len(place)))
        result.incomplete = self.stopped or result.incomplete

    def record(self) -> list[TargetEntry]:
        """The report's `targets`: per dataset, what defines its target, what it spent, and
        the rows it failed (counted apart from the judge's errors)."""
        entries: list[dict[str, Any]] = [
            {
                "dataset": outcome.dataset,
                **outcome.definition,
                "usage": outcome.usage.as_dict(),
                "seconds": outcome.seconds,
                "rows": len(outcome.order),
                "answered": sum(1 for a in outcome.answers.values() if a.ok),
                "errors": len(outcome.failed),
                "failed": [{"id": a.id, "error": a.error} for a in outcome.failed],
                "stopped": outcome.stopped,
            }
            for outcome in self.answered
        ]
        return cast(list[TargetEntry], entries)

    def responses(self) -> str:
        return responses_text(self.answered)


# A target entry's fields that describe what ran (the rest say what it did).
_DONE = ("usage", "seconds", "rows", "answered", "errors", "failed", "stopped")


def merged_record(shards: Sequence[tuple[str, Sequence[Mapping[str, Any]]]]) -> list[TargetEntry]:
    """The `targets` of a merged report from its shards' ((name, entries) pairs): per dataset,
    the counts and usage summed, the failed rows joined, the first stop kept. Shards whose
    targets were defined differently (another prompt file's digest, URL, argv) are refused."""
    merged: dict[str, dict[str, Any]] = {}
    for name, entries in shards:
        for entry in entries:
            definition = {k: v for k, v in entry.items() if k not in _DONE}
            found = merged.get(entry["dataset"])
            if found is None:
                merged[entry["dataset"]] = {**copy.deepcopy(dict(entry))}
                continue
            if {k: v for k, v in found.items() if k not in _DONE} != definition:
                raise MergeError(
                    f"{name}: the target of dataset '{entry['dataset']}' is not the other "
                    "shards' (its prompt file, model, URL or command differs)"
                )
            for key in ("rows", "answered", "errors"):
                found[key] += entry[key]
            for key, value in entry["usage"].items():
                found["usage"][key] = round(found["usage"][key] + value, 3)
            found["failed"] += entry["failed"]
            found["seconds"] = max(found["seconds"], entry["seconds"])
            found["stopped"] = found["stopped"] or entry["stopped"]
    return cast(list[TargetEntry], list(merged.values()))


def _pairs(work: Work) -> list[tuple[str, Sample]]:
    return [(name, sample) for name, samples in work for sample in samples]


def _prepared(config: Config, work: Work, env: Mapping[str, str]) -> list[Prepared]:
    """The selected datasets' targets, made ready (ConfigError before any call)."""
    datasets = {d.name: (i, d) for i, d in enumerate(config.datasets)}
    found: list[Prepared] = []
    file = str(config.path) if config.path else "config"
    for name, samples in work:
        index, dataset = datasets[name]
        if dataset.target is not None:
            found.append(prepare_target(dataset, index, samples, file, env))
    return found


def plan_rows(
    config: Config, work: Work, env: Mapping[str, str], *, judged: Judged, no_cache: bool
) -> tuple[Work, list[TargetPlan]]:
    """For `ground-gate plan`: the targets' calls, and the rows as the judge would see them,
    with the answers the caches hold, else a made-up one-sentence answer (estimated)."""
    plans = {p.dataset: plan_target(p, no_cache) for p in _prepared(config, work, env)}
    rows: Work = []
    for name, samples in work:
        plan = plans.get(name)
        if plan is None:
            rows.append((name, samples))
            continue
        answers = [replace(s, response=plan.known.get(s.id, MADE_UP_ANSWER)) for s in samples]
        rows.append((name, judged(answers)))
    return rows, list(plans.values())


def answer_rows(
    config: Config,
    work: Work,
    env: Mapping[str, str],
    *,
    judged: Judged,
    no_cache: bool,
    echo: Callable[[str], None],
) -> tuple[Work, TargetStep | None]:
    """The work with every answered row's response (its rows as the judge sees them), and the
    step; (work, None) when no selected dataset has a target. Problems that would fail every
    row (a placeholder no column fills) are ConfigErrors before any call."""
    prepared = _prepared(config, work, env)
    if not prepared:
        return work, None
    step = TargetStep(answer_all(prepared, env, no_cache=no_cache, echo=echo))
    if any(outcome.interrupted for outcome in step.answered):
        return work, step  # nothing is scored: the run stops with what it has
    by_name = {outcome.dataset: outcome for outcome in step.answered}
    full: Work = []
    for name, samples in work:
        outcome = by_name.get(name)
        if outcome is None:
            full.append((name, samples))
            step.scorable.append((name, samples))
            continue
        answers = outcome.answers
        rows = judged(
            [answered_sample(s, answers[s.id]) if s.id in answers else s for s in samples]
        )
        full.append((name, rows))
        step.scorable.append((name, [s for s in rows if s.id in answers and answers[s.id].ok]))
    return full, step
