"""The plan's judge: it makes no call, answers from the cache when it can, makes up the rest,
and knows which requests are exact (their cache key is the run's) and which estimated."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

import pytest

from ground_gate.config.model import FaithfulnessConfig, Prices
from ground_gate.datasets import Sample
from ground_gate.judge.base import JudgeRequest
from ground_gate.judge.budget import estimate_prompt_tokens
from ground_gate.judge.cache import CompletionCache, JudgeCache, request_key
from ground_gate.metrics import prompts
from ground_gate.metrics.answers import Answers
from ground_gate.metrics.faithfulness import Faithfulness
from ground_gate.stages.planning import Plan, PlanningJudge, Tally, plan_json, plan_text
from ground_gate.stages.planning_judge import MARK
from ground_gate.stages.runner import score_row

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
    )


def test_planning_judge__statements_are_the_sentences_and_their_verdicts_estimated() -> None:
    planner = judge()
    asyncio.run(score_row("d", SAMPLE, [Faithfulness(FaithfulnessConfig())], planner))
    steps = planner.steps
    assert {k: (t.judge_calls, t.exact, t.cached) for k, t in steps.items()} == {
        "faithfulness.informs": (2, 2, 0),  # each sentence: does it say anything?
        "faithfulness.statements": (2, 2, 0),  # each sentence's statements, in its context
        "faithfulness.verdict": (2, 0, 0),  # one per sentence, built from made-up statements
    }
    assert steps["faithfulness.verdict"].prompt_tokens > 0


def test_planning_judge__a_cached_answer_is_used_and_what_follows_is_exact(tmp_path: Path) -> None:
    cache = JudgeCache(tmp_path)
    first = "Refunds take 5 days."  # the first sentence's extraction is cached
    extraction = JudgeRequest(
        prompts.extract_statements(None, first, first),
        "faithfulness.statements",
        max_tokens=256,
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
    # the three cached statements' verdicts are exact, the second sentence's made-up one not
    assert (verdicts.judge_calls, verdicts.exact, verdicts.cached) == (4, 3, 0)
    assert planner.steps["faithfulness.statements"].cached == 1
    assert planner.steps["faithfulness.statements"].completion_tokens > 30


def test_planning_judge__makes_up_marked_text_only() -> None:
    planner = judge()
    planner.questions_per_sentence = 3
    request = JudgeRequest(
        prompts.generate_questions(SAMPLE.response, "It ships free.", 3),
        "summary_accuracy.questions",
        json_schema=prompts.QUESTIONS_SCHEMA,
    )
    answer = asyncio.run(planner.complete(request))
    assert len(answer.data["questions"]) == 3
    assert all(q.startswith(MARK) for q in answer.data["questions"])
    assert all("It ships free." in q for q in answer.data["questions"])


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


def verdict(document: str, sentence: str) -> JudgeRequest:
    return JudgeRequest(
        prompts.judge_sentence(document, sentence), "groundedness.verdict", logprobs=True
    )


@pytest.mark.parametrize("reuses_prefix", [False, True])
def test_planning_judge__a_server_that_reuses_its_prefix_reads_what_differs(reuses_prefix):
    planner = judge()
    planner.reuses_prefix = reuses_prefix
    document = "The X200 weighs 1.2 kg and has a 14-inch display. " * 40
    for sentence in ("It weighs 1.2 kg.", "It has a 14-inch display."):
        asyncio.run(planner.complete(verdict(document, sentence)))
    tally = planner.steps["groundedness.verdict"]
    each = estimate_prompt_tokens(verdict(document, "It weighs 1.2 kg.").messages)
    if reuses_prefix:  # the second call reads its sentence and the question after it only
        assert each < tally.prompt_tokens_to_read < each + 40
    else:
        assert tally.prompt_tokens_to_read == tally.prompt_tokens_to_spend
    assert tally.prompt_tokens_to_spend == tally.prompt_tokens
    assert tally.completion_tokens_to_make == 2


@dataclass(frozen=True)
class Rates:
    read_tokens_per_s: float = 100.0
    generated_tokens_per_s: float = 20.0
    call_s: float = 0.5


def test_plan__seconds_of_the_calls_to_make_at_the_models_throughput() -> None:
    tally = Tally(
        judge_calls=10, cached=4, prompt_tokens_to_read=3000, completion_tokens_to_make=40
    )
    found = Plan([("d", 2)], {"groundedness.verdict": tally}, None, throughput=Rates())
    assert found.seconds(tally) == 6 * 0.5 + 3000 / 100 + 40 / 20
    text = plan_text(found, "gate.yml", {"provider": "local", "model": "m", "prompt_version": "v"})
    assert (
        "time: about 35 s for the calls to make, at the local model's throughput measured on "
        "2 CPU cores (more cores: less)\n"
    ) in text
    data = plan_json(found, "gate.yml", {"provider": "local", "model": "m", "prompt_version": "v"})
    assert (data["seconds"], data["prompt_tokens_to_read"]) == (35.0, 3000)
    assert data["metrics"]["groundedness"]["steps"]["verdict"]["seconds"] == 35.0


def test_plan__no_time_without_a_measured_local_model() -> None:
    tally = Tally(judge_calls=3, prompt_tokens_to_read=300)
    found = Plan([("d", 1)], {"rating.rate": tally}, None)
    assert found.seconds(tally) is None
    text = plan_text(found, "gate.yml", {"provider": "openai", "model": "m", "prompt_version": "v"})
    assert "time:" not in text
    assert (
        plan_json(found, "gate.yml", {"provider": "openai", "model": "m", "prompt_version": "v"})[
            "seconds"
        ]
        is None
    )


def test_planning_judge__counts_the_answers_metrics_calls_exactly() -> None:
    asked = Sample("r1", SAMPLE.sources, SAMPLE.response, question="How long do refunds take?")
    stated = Sample("r2", SAMPLE.sources, SAMPLE.response, question="Q?", answerable=True)
    planner = judge()
    for sample in (asked, stated):
        asyncio.run(score_row("d", sample, [Answers()], planner))
    # two views of the answer each row; whether the source holds it only where not stated
    assert {k: (t.judge_calls, t.exact) for k, t in planner.steps.items()} == {
        "answers.informs": (2, 2),
        "answers.evades": (2, 2),
        "answers.answerable": (1, 1),
    }
