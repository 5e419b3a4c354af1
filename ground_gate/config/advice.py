"""What a valid config may still get wrong: advice `validate` prints, never a refusal.

- A dataset gated on the 1-5 `rating` alone, read whole (`rating: {unit: answer}`). Read at
  once, the answer's sentences about itself ("checked against the source", a grader's note
  the cut of metrics/addressed.py misses) raise it (bench/RESULTS.md, issues 25 and 32); read
  one sentence at a time (the default), and by the per-sentence scores, such a sentence is
  judged on its own.
- A dataset whose rows ask questions, with no gate on whether they are answered. Every other
  score judges only what a response says: a response that declines, or says nothing at all,
  is in none of their means (issue 30), so an app that stops answering passes them.
- A target that may return the contexts it retrieved, with no gate on them
  (context_relevance): a retrieval change that loses the answer then shows only as declines.
"""

from __future__ import annotations

from collections.abc import Mapping

from ground_gate.config.model import Config, DatasetConfig, Threshold
from ground_gate.config.providers import judge_defaults
from ground_gate.config.scores import ANSWER_SCORES, ANSWERED_SIDES, SUBSTANCE

RATING = "rating"


def advice(config: Config, asked: Mapping[str, bool] | None = None) -> list[str]:
    """One line per thing worth a second look. asked: dataset name -> whether any of its
    rows has a question (validate reads the rows; without it, nothing is said of answers)."""
    lines = []
    for dataset in config.datasets:
        gated = {name for name, t in config.thresholds_for(dataset).items() if _gates(t)}
        rating = config.metrics.rating
        whole = rating is not None and rating.unit == "answer"
        if whole and gated - {*ANSWER_SCORES, SUBSTANCE} == {
            RATING
        }:  # answers scores judge no claim
            lines.append(
                f"dataset '{dataset.name}' is gated on `rating` alone, read whole (unit: "
                'answer): a sentence about the answer itself ("checked against the source") '
                "can raise it; set a threshold on groundedness (or faithfulness) too, or rate "
                "one sentence at a time (unit: sentence, the default)"
            )
        if asked and asked.get(dataset.name):
            lines += _answers(config, dataset, gated)
    return lines


def _answers(config: Config, dataset: DatasetConfig, gated: set[str]) -> list[str]:
    name = dataset.name
    if config.metrics.answers is None:
        return [
            f"dataset '{name}' asks questions but the answers metric is off: a response that "
            "declines, or says nothing at all (emoji, punctuation, []), is in no score's mean "
            "and counts only in `substance`, against a baseline; add `answers: {}` under "
            "metrics and thresholds on answered and answered_anyway"
        ]
    lines = []
    if not gated & set(ANSWERED_SIDES):
        lines.append(
            f"dataset '{name}' gates neither answered nor answered_anyway: its declines are "
            "counted and shown, but never fail the check"
        )
    target = dataset.target
    if target is not None and target.gives_contexts and "context_relevance" not in gated:
        lines.append(
            f"dataset '{name}': its {target.kind} target may return the contexts it retrieved, "
            "and context_relevance has no threshold: a retrieval change that loses the answer "
            "shows only as declines"
        )
    return lines


def _gates(threshold: Threshold) -> bool:
    return any(bound is not None for bound in (threshold.min, threshold.max, threshold.max_drop))


def key_advice(config: Config, env: Mapping[str, str]) -> str | None:
    """judge.api_key_env named a variable that is not set, for a server a key may be sent to:
    said before the run starts (the judge's first call would otherwise answer 401, or go out
    with no key, after the targets were asked). The default variable (OPENAI_API_KEY) unset
    beside a base_url is a keyless server's ordinary case and says nothing."""
    judge = config.judge
    name = judge.api_key_env
    if judge.provider == "local" or not name or env.get(name):
        return None
    if (
        judge.provider == "openai"
        and judge.base_url
        and name == judge_defaults("openai").api_key_env
    ):
        return None
    return (
        f"judge.api_key_env: the environment variable {name} is not set, so the judge is "
        "called with no key"
    )
