"""`ground-gate plan`: what `run` with the same options would ask of the judge, found by the
metrics running on a judge that makes no call (planning.py); no server is started."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ground_gate.config.loader import load_config
from ground_gate.config.model import Config
from ground_gate.judge.cache import CompletionCache
from ground_gate.judge.factory import context_tokens, describe, judge_cache
from ground_gate.metrics import build_metrics
from ground_gate.metrics.prompts import PROMPT_VERSION
from ground_gate.stages.answering import MADE_UP_ANSWER, plan_work
from ground_gate.stages.planning import (
    Plan,
    PlanningJudge,
    ReuseSaving,
    make_plan,
    plan_json,
    plan_text,
)
from ground_gate.stages.report_files import read_report
from ground_gate.stages.reuse import plan_reuse
from ground_gate.stages.workload import select_work


@dataclass(frozen=True)
class PlanOptions:
    config_path: Path
    datasets: tuple[str, ...] = ()
    limit: int | None = None
    no_cache: bool = False
    baseline: Path | None = None  # the baseline `run --baseline` will be given


def plan(options: PlanOptions, env: Mapping[str, str]) -> tuple[Plan, dict[str, Any]]:
    """The plan, and what the report would say of the judge. With a baseline, the plan is of
    the rows it does not hold, and says what reusing the others saves (`Plan.reuse`)."""
    config = load_config(options.config_path, env)
    work = select_work(config, options.datasets, options.limit)
    work, targets = plan_work(config, work, env, no_cache=options.no_cache)
    baseline = (
        read_report(options.baseline, name=f"baseline {options.baseline}")
        if options.baseline
        else None
    )
    metrics = build_metrics(config.metrics)
    found = make_plan(config, work, metrics, _judge(config, options))
    if baseline is not None:
        reused = plan_reuse(config, work, baseline, PROMPT_VERSION)
        every = found.total()
        if reused.reused or reused.held:  # the rows left planned again: the difference saved
            found = make_plan(config, reused.left(work), metrics, _judge(config, options))
        found.reuse = ReuseSaving(
            rows=len(reused.reused),
            total=sum(len(rows) for _, rows in work),
            calls=every.to_call - found.total().to_call,
            none_because=reused.reuse.none_because if reused.reuse else None,
            unknown=sum(1 for _, rows in work for s in rows if s.response == MADE_UP_ANSWER),
            held=len(reused.held),
        )
    found.targets = targets
    return found, describe(config.judge, PROMPT_VERSION)


def _judge(config: Config, options: PlanOptions) -> PlanningJudge:
    summary = config.metrics.summary_accuracy
    return PlanningJudge(
        model=config.judge.model,
        temperature=config.judge.temperature,
        prompt_version=PROMPT_VERSION,
        context_tokens=context_tokens(config.judge),
        cache=CompletionCache(judge_cache(config.judge, options.no_cache)),
        questions_per_sentence=summary.per_sentence if summary else 0,
    )


def plan_document(options: PlanOptions, env: Mapping[str, str], output_format: str) -> str:
    """`ground-gate plan`'s output: a table for people ("text") or JSON ("json")."""
    found, judge = plan(options, env)
    path = str(options.config_path)
    if output_format == "json":
        return json.dumps(plan_json(found, path, judge), indent=2, ensure_ascii=False) + "\n"
    return plan_text(found, path, judge)
