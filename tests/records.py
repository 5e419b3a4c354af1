"""Run records for tests that build a report without running anything: the fields a test
does not care about get the values the report tests were written against."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ground_gate.config.model import Threshold
from ground_gate.leaves.results import MetricResult, RowResult, UnitResult
from ground_gate.leaves.usage import Usage
from ground_gate.verdict.record import ConfigIdentity, DatasetRecord, RunRecord

JUDGE = {"provider": "openai", "model": "gpt-4o-mini", "prompt_version": "1"}


def run_record(
    rows: Sequence[RowResult],
    *,
    datasets: Sequence[tuple[str, int]] = (("support", 2),),
    scores_by_metric: Mapping[str, tuple[str, ...]] | None = None,
    thresholds: Mapping[str, Mapping[str, Threshold]] | None = None,
    usage: Mapping[str, Usage] | None = None,
    seconds: float = 1.0,
    judge: Mapping[str, Any] = JUDGE,
    incomplete: str | None = None,
    **fields: Any,
) -> RunRecord:
    return RunRecord(
        config=ConfigIdentity("gg.yml", "sha256:abc"),
        judge=dict(judge),
        datasets=tuple(DatasetRecord(name, count) for name, count in datasets),
        rows=tuple(rows),
        scores_by_metric=dict(scores_by_metric or {}),
        thresholds=dict(thresholds or {}),
        on_error="fail",
        incomplete=incomplete,
        usage=dict(usage or {}),
        seconds=seconds,
        **fields,
    )


def answers_result(
    response: str, p_answered: float, p_answerable: float, no_words: bool = False
) -> MetricResult:
    """The answers metric's result for one row, as metrics/answers.py words it: the row on the
    side its source's answerability puts it, its verdict by both probabilities."""
    side = "answered" if p_answerable >= 0.5 else "answered_anyway"
    verdict = {
        (True, True): "answered",
        (True, False): "answered anyway",
        (False, True): "declined",
        (False, False): "declined, as it should",
    }[(p_answered >= 0.5, p_answerable >= 0.5)]
    holds = "source answers it" if p_answerable >= 0.5 else "source cannot answer it"
    detail: dict[str, Any] = {"p_answered": p_answered}
    if no_words:
        detail["no_words"], verdict = True, "declined: no words"
    return MetricResult(
        "answers",
        "ok",
        {side: p_answered, "context_relevance": p_answerable},
        (
            UnitResult(response, p_answered, verdict, detail=detail),
            UnitResult("q", p_answerable, holds, detail={"p_answerable": p_answerable}),
        ),
    )
