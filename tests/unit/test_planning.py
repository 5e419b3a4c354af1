"""The plan's judge: it makes no call, answers from the cache when it can, makes up the rest,
and knows which requests are exact (their cache key is the run's) and which estimated."""

from __future__ import annotations

import asyncio
from pathlib import Path

from ground_gate.config.model import FaithfulnessConfig, Prices
from ground_gate.datasets import Sample
from ground_gate.judge.base import JudgeRequest
from ground_gate.judge.cache import CompletionCache, JudgeCache, request_key
from ground_gate.metrics import prompts
from ground_gate.metrics.faithfulness import Faithfulness
from ground_gate.planning import MARK, Plan, PlanningJudge, Tally, plan_json
from ground_gate.runner import score_row

SAMPLE = Sample(
    "r1", ("Refunds take 5 days. Shipping is free.",), "Refunds take 5 days. It ships free."
)


def judge(cache: JudgeCache | None = None) -> PlanningJudge:
    return PlanningJudge(
        model="m",
        temperature=0.0,
        prompt_version="v",
        context_tokens=None,
        cache=CompletionCache(cache),
        sample=SAMPLE,
    )


def test_planning_judge__statements_are_the_sentences_and_their_verdicts_estimated() -> None:
    planner = judge()
    asyncio.run(score_row("d", SAMPLE, [Faithfulness(FaithfulnessConfig())], planner))
    steps = planner.steps
    assert {k: (t.judge_calls, t.exact, t.cached) for k, t in steps.items()} == {
        "faithfulness.states_facts": (1, 1, 0),
        "faithfulness.statements": (1, 1, 0),
        "faithfulness.verdict": (2, 0, 0),  # one per sentence, built from made-up statements
    }
    assert steps["faithfulness.verdict"].prompt_tokens > 0


def test_planning_judge__a_cached_answer_is_used_and_what_follows_is_exact(tmp_path: Path) -> None:
    cache = JudgeCache(tmp_path)
    extraction = JudgeRequest(
        prompts.extract_statements(None, SAMPLE.response),
        "faithfulness.statements",
        max_tokens=512,
        json_schema=prompts.STATEMENTS_SCHEMA,
    )
    key = request_key(extraction, model="m", temperature=0.0, prompt_version="v")
    stored = {"statements": ["Refunds take 5 days.", "Shipping costs nothing.", "It is fast."]}
    cache.put(
        key, {"text": "", "top_logprobs": [], "data": stored, "usage": {"completion_tokens": 30}}
    )
    planner = judge(cache)
    asyncio.run(score_row("d", SAMPLE, [Faithfulness(FaithfulnessConfig())], planner))
    verdicts = planner.steps["faithfulness.verdict"]
    assert (verdicts.judge_calls, verdicts.exact, verdicts.cached) == (3, 3, 0)
    assert planner.steps["faithfulness.statements"].cached == 1
    assert planner.steps["faithfulness.statements"].completion_tokens == 30


def test_planning_judge__makes_up_marked_text_only() -> None:
    planner = judge()
    planner.n_questions = 3
    request = JudgeRequest(
        prompts.generate_questions(SAMPLE.response, 3),
        "summary_accuracy.questions",
        json_schema=prompts.QUESTIONS_SCHEMA,
    )
    answer = asyncio.run(planner.complete(request))
    assert len(answer.data["questions"]) == 3
    assert all(q.startswith(MARK) for q in answer.data["questions"])


def test_plan_json__keys_tools_read() -> None:
    tally = Tally(judge_calls=10, cached=4, exact=6, prompt_tokens=1000, completion_tokens=10)
    tally.prompt_tokens_to_spend = 600
    found = Plan([("d", 2)], {"rating.rate": tally}, Prices(1.0, 2.0))
    data = plan_json(found, "gate.yml", {"provider": "openai", "model": "m", "prompt_version": "v"})
    assert data["judge_calls"] == 10
    assert data["prompt_tokens"] == 1000
    assert (data["cached"], data["to_call"], data["exact_calls"], data["estimated_calls"]) == (
        4,
        6,
        6,
        4,
    )
    assert data["cost_usd"] == 0.00102
    assert data["metrics"]["rating"]["steps"]["rate"]["judge_calls"] == 10
    assert data["datasets"] == [{"name": "d", "rows": 2}]
