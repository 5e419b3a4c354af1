"""Run records for tests that build a report without running anything: the fields a test
does not care about get the values the report tests were written against."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ground_gate.config.model import Threshold
from ground_gate.leaves.results import RowResult
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
