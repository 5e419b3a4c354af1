"""`ground-gate plan`: what `run` with the same options would ask of the judge, found by the
metrics running on a judge that makes no call (planning.py); no server is started."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ground_gate.config.loader import load_config
from ground_gate.judge.cache import CompletionCache
from ground_gate.judge.factory import context_tokens, describe, judge_cache
from ground_gate.metrics import build_metrics
from ground_gate.metrics.prompts import PROMPT_VERSION
from ground_gate.stages.answering import plan_work
from ground_gate.stages.planning import Plan, PlanningJudge, make_plan, plan_json, plan_text
from ground_gate.stages.workload import select_work


@dataclass(frozen=True)
class PlanOptions:
    config_path: Path
    datasets: tuple[str, ...] = ()
    limit: int | None = None
    no_cache: bool = False


def plan(options: PlanOptions, env: Mapping[str, str]) -> tuple[Plan, dict[str, Any]]:
    """The plan, and what the report would say of the judge."""
    config = load_config(options.config_path, env)
    work = select_work(config, options.datasets, options.limit)
    work, targets = plan_work(config, work, env, no_cache=options.no_cache)
    summary = config.metrics.summary_accuracy
    judge = PlanningJudge(
        model=config.judge.model,
        temperature=config.judge.temperature,
        prompt_version=PROMPT_VERSION,
        context_tokens=context_tokens(config.judge),
        cache=CompletionCache(judge_cache(config.judge, options.no_cache)),
        questions_per_sentence=summary.per_sentence if summary else 0,
    )
    found = make_plan(config, work, build_metrics(config.metrics), judge)
    found.targets = targets
    return found, describe(config.judge, PROMPT_VERSION)


def plan_document(options: PlanOptions, env: Mapping[str, str], output_format: str) -> str:
    """`ground-gate plan`'s output: a table for people ("text") or JSON ("json")."""
    found, judge = plan(options, env)
    path = str(options.config_path)
    if output_format == "json":
        return json.dumps(plan_json(found, path, judge), indent=2, ensure_ascii=False) + "\n"
    return plan_text(found, path, judge)
