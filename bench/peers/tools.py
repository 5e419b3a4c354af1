"""One adapter per peer tool: build its metric on an OpenAI-compatible judge, score one row.

Each adapter returns `score(row) -> (score, note)` and raises on any failure; the runner
records the exception per row. A score the tool returns but that is not a number in [0, 1]
(NaN, TruLens' -1 "unparsable" sentinel) is raised as `ToolFailure` so it is counted too.
Imports happen inside the builders: one run loads one tool (TruLens instruments the openai
SDK globally, which must not leak into the other tools' figures).
"""

from __future__ import annotations

import asyncio
import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

Row = dict[str, Any]
Scorer = Callable[[Row], tuple[float, str | None]]

# RAGAS' statement prompt and DeepEval's test case need a question; summaries have none.
NO_QUESTION = "Summarize the source text."
API_KEY = "none"  # the local server ignores it; the SDKs refuse to start without one


class ToolFailure(Exception):
    """The tool returned no usable score (NaN, sentinel, out of range)."""


def checked(value: Any, tool: str) -> float:
    try:
        score = float(value)
    except (TypeError, ValueError) as exc:
        raise ToolFailure(f"{tool} returned a non-number: {value!r}") from exc
    if math.isnan(score):
        raise ToolFailure(f"{tool} returned NaN")
    if not 0.0 <= score <= 1.0:
        raise ToolFailure(f"{tool} returned {score!r}, outside [0, 1]")
    return score


def question_of(row: Row) -> str:
    return row.get("question") or NO_QUESTION


def build_ragas(base_url: str, model: str, timeout: float) -> Scorer:
    os.environ.setdefault("RAGAS_DO_NOT_TRACK", "true")
    from langchain_openai import ChatOpenAI
    from ragas.dataset_schema import SingleTurnSample
    from ragas.llms import LangchainLLMWrapper
    from ragas.metrics import Faithfulness

    chat = ChatOpenAI(
        model=model, base_url=base_url, api_key=API_KEY, temperature=0, timeout=timeout
    )
    # bypass_temperature keeps temperature 0 (ragas would otherwise set 0.01 per call).
    metric = Faithfulness(llm=LangchainLLMWrapper(chat, bypass_temperature=True))

    def score(row: Row) -> tuple[float, str | None]:
        sample = SingleTurnSample(
            user_input=question_of(row),
            response=row["response"],
            retrieved_contexts=[row["source"]],
        )
        value = asyncio.run(metric.single_turn_ascore(sample))
        if isinstance(value, float) and math.isnan(value):
            raise ToolFailure("ragas returned NaN (no statements generated, or none judged)")
        return checked(value, "ragas"), None

    return score


def build_trulens(base_url: str, model: str, timeout: float, nltk_dir: Path) -> Scorer:
    from bench.peers.punkt_data import install_offline_punkt

    install_offline_punkt(nltk_dir)
    from trulens.core.utils.constants import UNPARSABLE_SCORE
    from trulens.providers.openai import OpenAI

    provider = OpenAI(model_engine=model, base_url=base_url, api_key=API_KEY, timeout=timeout)
    # llama.cpp serves no Responses API; without this every call first gets a 404 and retries.
    provider._set_capabilities({"responses_api": False, "structured_outputs": False, "cfg": False})

    def score(row: Row) -> tuple[float, str | None]:
        value, details = provider.groundedness_measure_with_cot_reasons(
            source=row["source"], statement=row["response"]
        )
        if value == UNPARSABLE_SCORE:
            raise ToolFailure("trulens: no sentence verdict could be parsed (UNPARSABLE_SCORE)")
        note = None
        reasons = details.get("reasons") if isinstance(details, dict) else None
        if isinstance(details, dict) and "reason" in details and not reasons:
            note = str(details["reason"])  # e.g. "No non-trivial statements to evaluate" -> 0.0
        elif isinstance(reasons, list):
            bad = sum(1 for r in reasons if r.get("score") == UNPARSABLE_SCORE)
            note = f"{len(reasons)} sentences" + (f", {bad} unparsable" if bad else "")
        return checked(value, "trulens"), note

    return score


def build_deepeval(base_url: str, model: str, timeout: float, cache_dir: Path) -> Scorer:
    os.environ.setdefault("DEEPEVAL_TELEMETRY_OPT_OUT", "1")
    os.environ.setdefault("DEEPEVAL_DISABLE_DOTENV", "1")
    # Its key/cache folder (created on import) defaults to ./.deepeval in the working tree.
    os.environ.setdefault("DEEPEVAL_CACHE_FOLDER", str(cache_dir / "deepeval"))
    # Its default budget (180 s per test case, split across retries) is sized for hosted APIs;
    # on a CPU one long generation exceeds it. Give each attempt the same HTTP timeout.
    os.environ.setdefault("DEEPEVAL_PER_ATTEMPT_TIMEOUT_SECONDS_OVERRIDE", str(timeout))
    from deepeval.metrics import FaithfulnessMetric
    from deepeval.models import LocalModel
    from deepeval.test_case import LLMTestCase

    judge = LocalModel(
        model=model, base_url=base_url, api_key=API_KEY, temperature=0, timeout=timeout
    )

    def score(row: Row) -> tuple[float, str | None]:
        # A fresh metric per row: the metric object keeps the last row's claims and verdicts.
        # include_reason=False: the reason is a further call that does not change the score.
        metric = FaithfulnessMetric(model=judge, include_reason=False, async_mode=False)
        case = LLMTestCase(
            input=question_of(row),
            actual_output=row["response"],
            retrieval_context=[row["source"]],
        )
        value = metric.measure(case, _show_indicator=False)
        note = f"{len(metric.claims or [])} claims, {len(metric.truths or [])} truths"
        return checked(value, "deepeval"), note

    return score


TOOLS = ("ragas", "trulens", "deepeval")


def build(tool: str, base_url: str, model: str, timeout: float, work_dir: Path) -> Scorer:
    """`work_dir` holds what a tool writes besides results (NLTK data, DeepEval's folder)."""
    if tool == "ragas":
        return build_ragas(base_url, model, timeout)
    if tool == "trulens":
        return build_trulens(base_url, model, timeout, work_dir / "nltk_data")
    if tool == "deepeval":
        return build_deepeval(base_url, model, timeout, work_dir)
    raise ValueError(f"unknown tool {tool!r}; expected one of {', '.join(TOOLS)}")
