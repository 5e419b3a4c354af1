"""Asserted rows as a ground-gate record, held to thresholds by the gate `ground-gate run` uses
(verdict/gate.py, through `reviewed`), and one assertion's failure in the comment's words.

One assertion is a run of one row held to its thresholds: each threshold it misses is said by
the rule that decided it (`failure_text`), then each unit of a failing metric the judge found
not in the source, unsupported or contradicted, with its verdict (and why: the fact the
source states otherwise) and the source's words (the judge's evidence, else the closest
source sentence, which supports nothing). Text from the answer or the source is made inert
for a terminal.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ground_gate.config.model import Config, MetricsConfig, Threshold
from ground_gate.config.scores import METRIC_OF_SCORE
from ground_gate.datasets import Sample
from ground_gate.leaves.inert import inert
from ground_gate.leaves.results import RowResult
from ground_gate.metrics import build_metrics
from ground_gate.report.json_report import row_text
from ground_gate.report.types import RowEntry
from ground_gate.review import words
from ground_gate.review.evidence_words import evidence_said
from ground_gate.review.figures import FAIL
from ground_gate.review.selection import BAD_VERDICTS
from ground_gate.stages.report_files import Reviewed, reviewed
from ground_gate.stages.runner import RunResult
from ground_gate.verdict.record import ConfigIdentity, DatasetRecord, RunRecord, costs_at

UNITS_SAID = 12  # a failure lists at most this many units, the rest counted
QUOTE_CHARS = 300


@dataclass(frozen=True)
class Asserted:
    """One row an assertion judged (or replayed), with the sample it was read from."""

    row: RowResult
    sample: Sample


def record(
    config: Config,
    rows: Sequence[Asserted],
    thresholds: Mapping[str, Threshold],
    judge: Mapping[str, object],
    metrics: MetricsConfig | None = None,
    dataset: str = "pytest",
) -> RunRecord:
    """The rows as one dataset's run, held to `thresholds` (score -> threshold)."""
    usage = RunResult(rows=[a.row for a in rows]).usage_by_metric()
    grounded = config.metrics.groundedness
    return RunRecord(
        config=ConfigIdentity.of(Path(config.path or ""), config),
        judge=dict(judge),
        datasets=(DatasetRecord(dataset, len(rows)),),
        rows=tuple(a.row for a in rows),
        scores_by_metric={m.name: m.scores for m in build_metrics(metrics or config.metrics)},
        thresholds={dataset: dict(thresholds)},
        on_error=config.on_error,
        incomplete=None,
        usage=usage,
        seconds=round(sum(a.row.seconds for a in rows), 3),
        evidence_policy=grounded.evidence if grounded else None,
        costs=costs_at(config.judge.pricing, usage),
        texts={
            (a.row.dataset, a.row.sample_id): row_text(
                a.sample.source_text, a.sample.question, a.sample.response
            )
            for a in rows
        },
    )


def one_row(
    config: Config,
    asserted: Asserted,
    thresholds: Mapping[str, Threshold],
    judge: Mapping[str, object],
    metrics: MetricsConfig,
) -> Reviewed:
    """One assertion's row, held to its thresholds: its report and review."""
    dataset = asserted.row.dataset
    return reviewed(record(config, [asserted], thresholds, judge, metrics, dataset), None)


def failed(made: Reviewed) -> bool:
    """Whether the row misses a threshold (an error or no score included: it fails closed)."""
    return made.report["passed"] is False or bool(made.report["incomplete"])


def failure_message(made: Reviewed, test: str) -> str:
    """Why the assertion failed: each check it misses, then the units behind them."""
    report = made.report
    lines = [f"ground-gate: the answer is not grounded enough ({inert(test)})"]
    failing = [e for e in report["scores"] if e["passed"] is False]
    for entry in failing:
        lines.append(f"  {FAIL} {entry['score']}: {inert(words.failure_text(entry))}")
    if report["incomplete"]:
        lines.append(f"  {words.NOT_COMPLETE.format(reason=inert(report['incomplete']))}")
    row = report["rows"][0]
    metrics = {METRIC_OF_SCORE.get(e["score"], "") for e in failing}
    lines += _units(row, metrics)
    return "\n".join(lines)


def _units(row: RowEntry, metrics: set[str]) -> list[str]:
    said: list[str] = []
    left = 0
    for name, metric in row["metrics"].items():
        if metric["status"] == "error":
            said.append(f"  {name}: error: {inert(metric['error'] or words.NO_MESSAGE)}")
            continue
        if name not in metrics:
            continue
        bad = [u for u in metric["units"] if u["verdict"] in BAD_VERDICTS]
        if not bad and metric["units"]:  # a score short of its bound with every unit good
            low = min(metric["units"], key=lambda u: 1.0 if u["score"] is None else u["score"])
            figures = words.probabilities(low)
            said.append(
                f"  {name}: lowest, {inert(words.unit_verdict(low))}"
                + (f" ({figures})" if figures else "")
                + f": {_quoted(low['text'])}"
            )
        for unit in bad:
            if len(said) >= UNITS_SAID:
                left += 1
                continue
            text = _quoted(unit["text"])
            said.append(f"  {name}: {inert(words.unit_verdict(unit))}: {text}")
            if quote := evidence_said(unit):
                what, passage = quote
                said.append(f"      {what}" + (f": {_quoted(passage)}" if passage else ""))
    if left:
        said.append(f"  ... and {words.plural(left, 'more unit')}")
    return said


def _quoted(text: str) -> str:
    flat = " ".join(text.split())
    cut = flat if len(flat) <= QUOTE_CHARS else flat[: QUOTE_CHARS - 1] + "\u2026"
    return f"\u201c{inert(cut)}\u201d"
