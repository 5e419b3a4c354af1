"""The whole job, wired: config -> datasets -> judge -> runner -> gate -> reports.

This and cli.py are the only places that read the user's files and build real clients; the
layers below receive what they need as parameters. `ground-gate run` and
`ground-gate action` both call `execute`.
"""

from __future__ import annotations

import asyncio
import functools
import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ground_gate.calibration import Agreement, Labelled, agreement
from ground_gate.config.loader import load_config
from ground_gate.config.model import Config, JudgeConfig, Threshold
from ground_gate.dataset_scores import summarise
from ground_gate.datasets import Sample, load_samples
from ground_gate.datasets.identity import file_digest
from ground_gate.datasets.shards import Shard
from ground_gate.errors import ConfigError
from ground_gate.gate import evaluate
from ground_gate.judge.base import Judge
from ground_gate.judge.budget import SpendingLimit, spending_limit
from ground_gate.judge.cache import CompletionCache
from ground_gate.judge.factory import context_tokens, describe, judge_cache, open_judge
from ground_gate.labels import LabelledSample, read_labelled
from ground_gate.metrics import Metric, build_metrics
from ground_gate.metrics.groundedness import Groundedness
from ground_gate.metrics.prompts import PROMPT_VERSION
from ground_gate.metrics.steering import screen_sample
from ground_gate.outcome import EXIT_ERROR, EXIT_PASSED, exit_code
from ground_gate.plan import Plan, PlanningJudge, make_plan, plan_json, plan_text
from ground_gate.progress import RowProgress
from ground_gate.report import calibration as calibration_report
from ground_gate.report.html import render_html
from ground_gate.report.json_report import (
    baseline_scores,
    build_report,
    loads_strict,
    row_text,
    schema_mismatch,
)
from ground_gate.report.junit import render_junit
from ground_gate.report.markdown import render_markdown
from ground_gate.report.selection import DEFAULT_WORST_ROWS, shown_rows
from ground_gate.report.types import Report, ShardEntry
from ground_gate.results import RowResult
from ground_gate.runner import EvidenceResult, RunResult, add_evidence, run
from ground_gate.target_step import TargetStep, answer_rows, plan_rows
from ground_gate.targets import RESPONSES_FILE

# Rows the markdown details; `evidence: shown` quotes evidence for exactly those rows' units.
WORST_ROWS = DEFAULT_WORST_ROWS


@dataclass(frozen=True)
class RunOptions:
    config_path: Path
    datasets: tuple[str, ...] = ()
    limit: int | None = None
    no_cache: bool = False
    output_json: Path | None = None
    output_md: Path | None = None
    baseline: Path | None = None
    judge_overrides: Mapping[str, Any] = field(default_factory=dict)
    shard: Shard | None = None  # score only this shard's rows (`run --shard K/N`)
    output_junit: Path | None = None
    output_html: Path | None = None
    output_responses: Path | None = None  # default: responses.jsonl beside output_json


@dataclass(frozen=True)
class Outcome:
    report: Mapping[str, Any]  # a report.types.Report for `run`; calibrate's own for `calibrate`
    markdown: str
    exit_code: int


def select_work(
    config: Config, names: Sequence[str], limit: int | None
) -> list[tuple[str, list[Sample]]]:
    known = [d.name for d in config.datasets]
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ConfigError(
            f"--dataset {', '.join(unknown)}: not in {config.path}; "
            f"datasets there: {', '.join(known)}"
        )
    work = []
    for dataset in config.datasets:
        if names and dataset.name not in names:
            continue
        samples = load_samples(dataset)
        if limit is not None:
            samples = samples[:limit]
        # a target's rows are screened once answered (target_step.py)
        work.append((dataset.name, samples if dataset.target else as_judged(config.judge, samples)))
    return work


def as_judged(config: JudgeConfig, samples: Sequence[Sample]) -> list[Sample]:
    """The rows as the judge will see them: with `addressed_text: cut`, every passage
    addressed to the judge cut out and recorded on the row (metrics/steering.py)."""
    if config.addressed_text == "keep":
        return list(samples)
    return [screen_sample(sample) for sample in samples]


def read_baseline(path: Path) -> dict[str, Any]:
    return read_run_report(path, "baseline")


def _read_json(path: Path, what: str) -> Any:
    try:
        return loads_strict(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{what} {path}: no such file") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:  # JSONDecodeError, NaN
        raise ConfigError(f"{what} {path}: not a readable JSON report ({exc})") from None
    except RecursionError:
        raise ConfigError(f"{what} {path}: JSON nested too deeply to be a report") from None


def read_run_report(path: Path, what: str = "report") -> dict[str, Any]:
    """A run's (or a merge's) JSON report, checked against the published schema."""
    report = _read_json(path, what)
    _check_run_report(report, path, what)
    return report  # type: ignore[no-any-return]


def _check_run_report(report: Any, path: Path, what: str) -> None:
    problem = schema_mismatch(report)
    if problem is not None:
        raise ConfigError(f"{what} {path}: {problem}")


@dataclass(frozen=True)
class RenderOptions:
    """`ground-gate report REPORT.json`: render a saved report again."""

    report: Path
    output_md: Path | None = None
    output_html: Path | None = None


def render_saved(options: RenderOptions, echo: Callable[[str], None]) -> tuple[str, int]:
    """The markdown of a saved report (a run's, a merge's or a calibration's), with the files
    asked for written by the same renderers `run`, `merge` and `calibrate` use; and the exit
    code (2 when a file could not be written)."""
    raw = _read_json(options.report, "report")
    if isinstance(raw, dict) and "groups" in raw and "rows_scored" in raw:
        try:
            markdown = calibration_report.render_saved(raw)
            page = calibration_report.render_html(raw) if options.output_html else ""
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
            raise ConfigError(
                f"report {options.report}: not a calibration report `calibrate --output-json` "
                f"writes ({type(exc).__name__}: {exc})"
            ) from None
    else:
        _check_run_report(raw, options.report, "report")
        markdown = render_markdown(raw, worst_rows=WORST_ROWS)
        page = render_html(raw) if options.output_html else ""
    written = _write_outputs([(options.output_md, markdown), (options.output_html, page)], echo)
    return markdown, EXIT_PASSED if written else EXIT_ERROR


def _rows_at_once(config: JudgeConfig) -> int:
    # llama.cpp answers one request at a time: one row at a time keeps its prefix cache warm
    return 1 if config.provider == "local" else config.max_concurrency


def score_all(
    config: JudgeConfig,
    work: Sequence[tuple[str, Sequence[Sample]]],
    metrics: Sequence[Metric],
    judge: Judge,
    then: Callable[[RunResult], Awaitable[None]] | None = None,
) -> RunResult:
    """Run every row with a progress display; Ctrl-C keeps the rows already scored.

    then: a step run after every row was scored, with the same judge before it is closed
    (the evidence for the rows the report shows); skipped when the run is incomplete.
    """
    result = RunResult()
    reporter = RowProgress()

    async def scored() -> None:
        try:
            await run(
                work,
                metrics,
                judge,
                row_concurrency=_rows_at_once(config),
                result=result,
                progress=reporter,
            )
            reporter.close()
            if then is not None and result.incomplete is None:
                await then(result)
        finally:
            close = getattr(judge, "aclose", None)
            if close is not None:
                await close()

    try:
        asyncio.run(scored())
    except KeyboardInterrupt:
        result.incomplete = (
            "interrupted (Ctrl-C or SIGTERM); the rows scored before are kept and a re-run resumes "
            "from the judge cache"
        )
    finally:
        reporter.close()
    return result


def _thresholds(config: Config, names: Sequence[str]) -> dict[str, dict[str, Threshold]]:
    return {d.name: config.thresholds_for(d) for d in config.datasets if d.name in names}


@dataclass
class _Job:
    """One `run`: what was asked, what was loaded, and the evidence pass's outcome."""

    options: RunOptions
    config: Config
    work: list[tuple[str, list[Sample]]]
    metrics: list[Metric]
    baseline: Mapping[str, Any] | None = None  # an earlier JSON report (--baseline)
    evidence: EvidenceResult = field(default_factory=EvidenceResult)
    digests: Mapping[str, str] = field(default_factory=dict)  # dataset name -> file digest
    shard: ShardEntry | None = None  # with --shard: what the report says of it
    positions: Mapping[tuple[str, str], int] = field(default_factory=dict)
    limit: SpendingLimit | None = None  # judge.budget, and what the run spent of it

    @property
    def names(self) -> list[str]:
        return [name for name, _ in self.work]

    @property
    def evidence_policy(self) -> str | None:
        grounded = self.config.metrics.groundedness
        return grounded.evidence if grounded else None

    def not_run(self, result: RunResult) -> list[tuple[str, str]]:
        """(dataset, row id) of the rows selected but not scored, in input order."""
        scored = {(r.dataset, r.sample_id) for r in result.rows}
        return [(n, s.id) for n, samples in self.work for s in samples if (n, s.id) not in scored]

    def stopped_by_budget(self, result: RunResult) -> str | None:
        """The run's one message when judge.budget stopped it: what was spent and what was
        left; None when it did not. A budget reached only while quoting evidence, after
        every row was scored, is an evidence problem (a warning), not a lost verdict."""
        if self.limit is None or self.limit.exceeded is None or not self.not_run(result):
            return None
        total = sum(len(samples) for _, samples in self.work)
        return (
            f"the judge budget is spent ({self.limit.exceeded}): spent {self.limit.spent_text()}; "
            f"left {self.limit.left()}; {len(self.not_run(result))} of {total} row(s) not run"
        )

    def report(self, result: RunResult, judge_info: Mapping[str, Any]) -> Report:
        thresholds = _thresholds(self.config, self.names)
        scores = {m.name: m.scores for m in self.metrics}
        gate = evaluate(
            summarise(result.rows, self.names, scores),
            thresholds,
            self.config.on_error,
            result.incomplete,
            rows=result.rows,
            baseline=None if self.baseline is None else baseline_scores(self.baseline),
        )
        return build_report(
            config_path=str(self.options.config_path),
            config_digest=self.config.digest,
            judge=judge_info,
            datasets=[(name, len(samples)) for name, samples in self.work],
            rows=result.rows,
            gate=gate,
            thresholds=thresholds,
            usage_by_metric=result.usage_by_metric(),
            seconds=result.seconds,
            on_error=self.config.on_error,
            evidence_policy=self.evidence_policy,
            evidence_problem=self.evidence.problem,
            resolved_digest=self.config.resolved_digest,
            dataset_digests=self.digests,
            shard=self.shard,
            positions=self.positions,
            not_run=self.not_run(result),
            prices=self.config.judge.pricing,
            limit=self.limit,
            texts={
                (name, s.id): row_text(s.source_text, s.question, s.response)
                for name, samples in self.work
                for s in samples
            },
        )

    def evidence_step(
        self, judge: Judge, judge_info: Mapping[str, Any]
    ) -> Callable[[RunResult], Awaitable[None]] | None:
        """With `evidence: shown`: once every row is scored, gate and rank them as the report
        will, then quote evidence for the groundedness units its Worst rows show
        (report.selection decides both, so they cannot disagree)."""
        grounded = next((m for m in self.metrics if isinstance(m, Groundedness)), None)
        if self.evidence_policy != "shown" or grounded is None:
            return None
        samples = {(name, s.id): s for name, rows in self.work for s in rows}

        async def quote_shown(result: RunResult) -> None:
            shown = shown_rows(self.report(result, judge_info), WORST_ROWS)
            wanted = {s.key: s.units[grounded.name] for s in shown if s.units.get(grounded.name)}
            self.evidence = await add_evidence(
                result,
                samples,
                wanted,
                grounded,
                judge,
                row_concurrency=_rows_at_once(self.config.judge),
            )

        return quote_shown


def _job(options: RunOptions, env: Mapping[str, str]) -> _Job:
    config = load_config(options.config_path, env)
    if options.judge_overrides:
        config = replace(config, judge=replace(config.judge, **options.judge_overrides))
    work = select_work(config, options.datasets, options.limit)
    baseline = read_baseline(options.baseline) if options.baseline else None
    names = {name for name, _ in work}
    digests = {d.name: file_digest(d.path) for d in config.datasets if d.name in names}
    metrics = build_metrics(config.metrics)
    limit = spending_limit(config.judge)
    job = _Job(options, config, work, metrics, baseline, digests=digests, limit=limit)
    if options.shard is not None:
        _keep_shard(job, options.shard)
    return job


def _keep_shard(job: _Job, shard: Shard) -> None:
    """Keep the rows of `shard` only, recording what a merge needs: each dataset's rows
    before sharding and each row's place among them."""
    baseline = job.options.baseline
    job.shard = {
        "index": shard.index,
        "count": shard.count,
        "dataset_rows": {name: len(samples) for name, samples in job.work},
        "baseline_digest": file_digest(baseline) if baseline else None,
    }
    job.positions = {(name, s.id): i for name, rows in job.work for i, s in enumerate(rows)}
    job.work = [(name, [s for s in rows if shard.holds(name, s.key)]) for name, rows in job.work]


def execute(options: RunOptions, env: Mapping[str, str], echo: Callable[[str], None]) -> Outcome:
    job = _job(options, env)
    judged = functools.partial(as_judged, job.config.judge)
    job.work, step = answer_rows(
        job.config, job.work, env, judged=judged, no_cache=options.no_cache, echo=echo
    )
    with open_judge(
        job.config.judge,
        env,
        prompt_version=PROMPT_VERSION,
        no_cache=options.no_cache,
        echo=echo,
        limit=job.limit,
    ) as (judge, info):
        then = job.evidence_step(judge, info)
        scorable = step.scorable if step else job.work
        result = score_all(job.config.judge, scorable, job.metrics, judge, then=then)
    if step:
        step.add_to(result, [m.name for m in job.metrics], job.work)
    result.incomplete = job.stopped_by_budget(result) or result.incomplete
    if job.evidence.problem:
        echo(
            f"ground-gate: warning: {job.evidence.missing} evidence quote(s) for the report are "
            f"missing ({job.evidence.problem}); the scores and the gate verdict do not use them"
        )
    report = job.report(result, info)
    if step:
        report["targets"] = step.record()
        _write_responses(step, options, echo)
    return finish(
        report,
        job.baseline,
        options.output_json,
        options.output_md,
        options.output_junit,
        echo,
        html_path=options.output_html,
    )


def _write_responses(step: TargetStep, options: RunOptions, echo: Callable[[str], None]) -> None:
    """responses.jsonl, where asked or beside the JSON report."""
    path = options.output_responses
    if path is None and options.output_json is not None:
        path = options.output_json.parent / RESPONSES_FILE
    _write_outputs([(path, step.responses())], echo)


def finish(
    report: Report,
    baseline: Mapping[str, Any] | None,
    json_path: Path | None,
    md_path: Path | None,
    junit_path: Path | None,
    echo: Callable[[str], None],
    html_path: Path | None = None,
) -> Outcome:
    """Render the report, write the outputs asked for, and say how the run ends. A shard's
    own verdict covers its rows only: it exits 0 once complete, and the merge gates."""
    markdown = render_markdown(report, baseline=baseline, worst_rows=WORST_ROWS)
    outputs = [(json_path, report_text(report)), (md_path, markdown)]
    if junit_path is not None:
        outputs.append((junit_path, render_junit(report)))
    if html_path is not None:
        outputs.append((html_path, render_html(report)))
    written = _write_outputs(outputs, echo)
    code = exit_code(
        passed=report["passed"],
        incomplete=bool(report["incomplete"]),
        fail_on_threshold="shard" not in report,
    )
    return Outcome(report, markdown, code if written else EXIT_ERROR)


def report_text(report: Mapping[str, Any]) -> str:
    """The JSON report as written to a file or stdout."""
    return json.dumps(report, indent=2, ensure_ascii=False) + "\n"


def _write_outputs(outputs: Sequence[tuple[Path | None, str]], echo: Callable[[str], None]) -> bool:
    """Write the reports asked for ((path or None, text) pairs); a file that cannot be
    written is named (exit 2), and the others are still written and the markdown printed."""
    written = True
    for path, text in outputs:
        if path is None:
            continue
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        except OSError as exc:
            echo(f"ground-gate: error: cannot write {path}: {exc.strerror or exc}")
            written = False
    return written


@dataclass(frozen=True)
class PlanOptions:
    config_path: Path
    datasets: tuple[str, ...] = ()
    limit: int | None = None
    no_cache: bool = False


def plan(options: PlanOptions, env: Mapping[str, str]) -> tuple[Plan, dict[str, Any]]:
    """What `run` with the same options would ask of the judge, and what the report would say
    of the judge; no judge call is made and no server started."""
    config = load_config(options.config_path, env)
    work = select_work(config, options.datasets, options.limit)
    judged = functools.partial(as_judged, config.judge)
    work, targets = plan_rows(config, work, env, judged=judged, no_cache=options.no_cache)
    summary = config.metrics.summary_accuracy
    judge = PlanningJudge(
        model=config.judge.model,
        temperature=config.judge.temperature,
        prompt_version=PROMPT_VERSION,
        context_tokens=context_tokens(config.judge),
        cache=CompletionCache(judge_cache(config.judge, options.no_cache)),
        n_questions=summary.n_questions if summary else 0,
    )
    found = make_plan(config, work, build_metrics(config.metrics), judge)
    found.targets = targets
    found.target_budgets = {d.name: d.target.budget for d in config.datasets if d.target}
    return found, describe(config.judge, PROMPT_VERSION)


def plan_document(options: PlanOptions, env: Mapping[str, str], output_format: str) -> str:
    """`ground-gate plan`'s output: a table for people ("text") or JSON ("json")."""
    found, judge = plan(options, env)
    path = str(options.config_path)
    if output_format == "json":
        return json.dumps(plan_json(found, path, judge), indent=2, ensure_ascii=False) + "\n"
    return plan_text(found, path, judge)


@dataclass(frozen=True)
class CalibrateOptions:
    config_path: Path
    labels: Path
    limit: int | None = None  # rows per label group
    no_cache: bool = False
    output_json: Path | None = None
    output_md: Path | None = None
    output_html: Path | None = None


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
                row = rows.get((item.group, item.sample.id))
                found = [m for m in row.metrics if m.metric == metric.name] if row else []
                if found and found[0].status == "ok":
                    scored.append(Labelled(found[0].scores[score], item.label, item.types))
                else:
                    missing += 1
            out.append(agreement(score, scored, missing, config.thresholds.get(score)))
    return out


def _labelled_row(item: LabelledSample, row: RowResult | None) -> dict[str, Any]:
    """One labelled row's scores, for side-by-side comparisons with other tools."""
    metrics = {m.metric: m for m in row.metrics} if row else {}
    return {
        "group": item.group,
        "id": item.sample.id,
        "label": item.label,
        "seconds": row.seconds if row else None,
        "status": {name: m.status for name, m in metrics.items()},
        "scores": {k: v for m in metrics.values() for k, v in m.scores.items()},
        "usage": {name: m.usage.as_dict() for name, m in metrics.items()},
        "cost": {name: m.cost.as_dict() for name, m in metrics.items()},
        "units": {
            name: [
                {"score": u.score, "verdict": u.verdict, "detail": dict(u.detail)} for u in m.units
            ]
            for name, m in metrics.items()
        },
    }


def calibrate(
    options: CalibrateOptions, env: Mapping[str, str], echo: Callable[[str], None]
) -> Outcome:
    """Run the configured metrics over labelled rows and measure agreement with the labels."""
    config = load_config(options.config_path, env)
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
        result = score_all(config.judge, work, metrics, judge)
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
    report = calibration_report.as_json(by_group, cost, usage, len(result.rows), result.seconds)
    report["judge"] = info
    report["incomplete"] = result.incomplete
    report["rows_scored"] = [
        _labelled_row(item, rows.get((item.group, item.sample.id))) for item in labelled
    ]
    outputs = [(options.output_json, report_text(report)), (options.output_md, markdown)]
    if options.output_html is not None:
        outputs.append((options.output_html, calibration_report.render_html(report)))
    written = _write_outputs(outputs, echo)
    code = EXIT_ERROR if result.incomplete or not written else EXIT_PASSED
    return Outcome(report, markdown, code)
