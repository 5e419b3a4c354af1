"""`ground-gate calibrate`: the configured metrics over human-labelled rows, their agreement
with the labels, and suggested thresholds; reports in calibrate's own shape."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ground_gate.config.loader import load_config
from ground_gate.config.model import Config
from ground_gate.config.scores import ANSWER_SCORES
from ground_gate.judge.budget import spending_limit
from ground_gate.judge.factory import open_judge
from ground_gate.leaves.exit_codes import EXIT_ERROR, EXIT_PASSED
from ground_gate.leaves.results import RowResult
from ground_gate.metrics import Metric, build_metrics
from ground_gate.metrics.prompts import PROMPT_VERSION
from ground_gate.render import calibration as calibration_report
from ground_gate.report.calibration_types import CalibrationReport, LabelledRow
from ground_gate.report.json_report import usage_counts
from ground_gate.stages.labels import LabelledSample, read_labelled
from ground_gate.stages.report_files import (
    CalibrationOutcome,
    Echo,
    ReportFiles,
    report_text,
)
from ground_gate.stages.runner import score_all
from ground_gate.stages.workload import as_judged
from ground_gate.verdict.agreement import Agreement, Labelled, agreement, good_label


@dataclass(frozen=True)
class CalibrateOptions:
    config_path: Path
    labels: Path
    limit: int | None = None  # rows per label group
    no_cache: bool = False
    files: ReportFiles = field(default_factory=ReportFiles)  # json, markdown, html


def _agreements(
    config: Config,
    metrics: Sequence[Metric],
    selection: Sequence[LabelledSample],
    rows: Mapping[tuple[str, str], RowResult],
) -> list[Agreement]:
    out = []
    for metric in metrics:
        for score in metric.scores:
            scored: list[Labelled] = []
            missing = 0
            for item in selection:
                good = good_label(item.labels, score)
                if good is None:  # not labelled for this score
                    continue
                row = rows.get((item.group, item.sample.id))
                found = [m for m in row.metrics if m.metric == metric.name] if row else []
                if found and found[0].status == "ok" and score in found[0].scores:
                    scored.append(Labelled(found[0].scores[score], good, item.types))
                elif not found or found[0].status != "ok" or score not in ANSWER_SCORES:
                    missing += 1  # an answers row on the other side is not missing
            out.append(agreement(score, scored, missing, config.thresholds.get(score)))
    return out


def _labelled_row(item: LabelledSample, row: RowResult | None) -> LabelledRow:
    """One labelled row's scores, for side-by-side comparisons with other tools."""
    metrics = {m.metric: m for m in row.metrics} if row else {}
    return {
        "group": item.group,
        "id": item.sample.id,
        "label": item.label,
        "labels": dict(item.labels),
        "seconds": row.seconds if row else None,
        "status": {name: m.status for name, m in metrics.items()},
        "scores": {k: v for m in metrics.values() for k, v in m.scores.items()},
        "usage": {name: usage_counts(m.usage) for name, m in metrics.items()},
        "cost": {name: usage_counts(m.cost) for name, m in metrics.items()},
        "units": {
            name: [
                {"score": u.score, "verdict": u.verdict, "detail": dict(u.detail)} for u in m.units
            ]
            for name, m in metrics.items()
        },
    }


def calibrate(options: CalibrateOptions, env: Mapping[str, str], echo: Echo) -> CalibrationOutcome:
    """Run the configured metrics over labelled rows and measure agreement with the labels."""
    config = load_config(options.config_path, env)
    options.files.check_apart([("the config", options.config_path), ("the labels", options.labels)])
    labelled = read_labelled(options.labels, options.limit)
    groups = list(dict.fromkeys(item.group for item in labelled))
    work = [
        (g, as_judged(config.judge, [i.sample for i in labelled if i.group == g])) for g in groups
    ]
    metrics = build_metrics(config.metrics)
    with open_judge(
        config.judge,
        env,
        prompt_version=PROMPT_VERSION,
        no_cache=options.no_cache,
        echo=echo,
        limit=spending_limit(config.judge),  # stops it like an unavailable judge (exit 2)
    ) as (judge, info):
        result, _ = score_all(config.judge, work, metrics, judge)
    rows = {(r.dataset, r.sample_id): r for r in result.rows}
    by_group = {
        g: _agreements(config, metrics, [i for i in labelled if i.group == g], rows) for g in groups
    }
    if len(groups) > 1:
        by_group["all"] = _agreements(config, metrics, labelled, rows)
    usage, cost = result.usage_by_metric(), result.cost_by_metric()
    markdown = calibration_report.render(
        by_group, cost, usage, len(result.rows), result.seconds, info["model"]
    )
    scored = [_labelled_row(item, rows.get((item.group, item.sample.id))) for item in labelled]
    report = calibration_report.as_json(
        by_group, cost, usage, len(result.rows), result.seconds,
        judge=info, incomplete=result.incomplete, rows_scored=scored,
    )  # fmt: skip
    return _written(options.files, report, markdown, result.incomplete, echo)


def _written(
    files: ReportFiles,
    report: CalibrationReport,
    markdown: str,
    incomplete: str | None,
    echo: Echo,
) -> CalibrationOutcome:
    """The calibration's files written; exit 2 when it did not finish or a file could not be."""
    outputs = files.outputs()
    written = files.write(
        [
            (outputs.get("json"), lambda: report_text(report)),
            (outputs.get("markdown"), lambda: markdown),
            (outputs.get("html"), lambda: calibration_report.render_html(report)),
        ],
        echo,
    )
    code = EXIT_ERROR if incomplete or not written else EXIT_PASSED
    return CalibrationOutcome(report, markdown, code)
