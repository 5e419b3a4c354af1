"""`ground-gate run`: one straight path from the config to the report files:
load the job (config, rows, metrics, baseline; narrowed to a shard with `--shard`)
  -> the datasets' targets answer their rows (answering.py), a Job to a Job
  -> score every row with the judge -> the record -> the report and its review, made once
  -> evidence quoted for the rows the review shows -> the report files, responses.jsonl.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ground_gate.config.advice import advice, key_advice
from ground_gate.config.loader import load_config
from ground_gate.config.model import Config
from ground_gate.config.overrides import JudgeOverrides, with_overrides
from ground_gate.datasets.identity import file_digest
from ground_gate.datasets.shards import Shard
from ground_gate.judge.base import Judge
from ground_gate.judge.budget import SpendingLimit, spending_limit
from ground_gate.judge.factory import open_judge
from ground_gate.leaves.exit_codes import EXIT_ERROR
from ground_gate.leaves.provenance import Source, source_of
from ground_gate.leaves.results import RowResult
from ground_gate.metrics import Metric, build_metrics
from ground_gate.metrics.groundedness import Groundedness
from ground_gate.metrics.prompts import PROMPT_VERSION
from ground_gate.report.json_report import row_text
from ground_gate.report.quoted import with_quotes
from ground_gate.report.types import Report
from ground_gate.stages.answering import Answering, answer_work
from ground_gate.stages.evidence import EvidenceResult, add_evidence
from ground_gate.stages.judging_order import Settled
from ground_gate.stages.report_files import (
    Echo,
    Outcome,
    Output,
    ReportFiles,
    Reviewed,
    finish,
    read_report,
    reviewed,
)
from ground_gate.stages.reuse import ReusePlan, plan_reuse
from ground_gate.stages.runner import RunResult, rows_at_once, score_all
from ground_gate.stages.spending import budget_record, stopped_by_budget
from ground_gate.stages.stopping import reuse_record, settled_when, with_reused
from ground_gate.stages.workload import Work, select_work
from ground_gate.targets import RESPONSES_FILE, target_inputs
from ground_gate.verdict.record import (
    ConfigIdentity,
    DatasetRecord,
    RowKey,
    RunRecord,
    ShardPlace,
    costs_at,
)


@dataclass(frozen=True)
class RunOptions:
    config_path: Path
    datasets: tuple[str, ...] = ()
    limit: int | None = None
    no_cache: bool = False
    files: ReportFiles = field(default_factory=ReportFiles)
    baseline: Path | None = None
    judge_overrides: JudgeOverrides = field(default_factory=JudgeOverrides)
    shard: Shard | None = None  # score only this shard's rows (`run --shard K/N`)
    responses: Path | None = None  # what targets answered; None: beside the JSON report
    judge_all: bool = False  # judge every row, even once the decision is settled

    @property
    def responses_path(self) -> Path | None:
        if self.responses is not None or self.files.json is None:
            return self.responses
        return self.files.json.parent / RESPONSES_FILE

    @property
    def responses_output(self) -> Output | None:
        """responses.jsonl as a file the run writes (None: not written)."""
        path = self.responses_path
        if path is None:
            return None
        option = (
            "--output-responses" if self.responses else f"{RESPONSES_FILE} beside --output-json"
        )
        return Output("the targets' responses", option, path, "responses")


@dataclass(frozen=True)
class Job:
    """One `run`: what was asked and what was loaded for it."""

    options: RunOptions
    config: Config
    work: Work
    metrics: tuple[Metric, ...]
    baseline: Report | None  # an earlier JSON report (--baseline)
    digests: Mapping[str, str]  # dataset name -> its file's "sha256:<hex>"
    shard: ShardPlace | None = None  # with --shard: what the record says of it
    positions: Mapping[RowKey, int] = field(default_factory=dict)
    answering: Answering | None = None  # the datasets' targets' answers (answered first)
    source: Source | None = None  # where the run is made: its commit, branch, CI run
    reuse: ReusePlan | None = None  # the rows' keys; with a baseline, the rows it holds

    @property
    def scorable(self) -> Work:
        """The rows the judge scores: those a target failed or never reached are not, nor
        those whose verdicts the baseline holds (their key unchanged); a row whose question
        and source are unchanged holds the baseline's answerable verdict."""
        work = self.answering.scorable if self.answering is not None else self.work
        return work if self.reuse is None else self.reuse.left(work)

    def stops_when(self) -> Settled | None:
        """When judging may stop, the decision settled: only against a baseline, in an
        unsharded run, without --judge-all (stages/stopping.py)."""
        if self.baseline is None or self.shard is not None or self.options.judge_all:
            return None
        reuse = self.reuse
        reused, held = (reuse.reused.values(), reuse.held) if reuse is not None else ((), {})
        scores = {m.name: m.scores for m in self.metrics}
        return settled_when(self.config, self.work, scores, self.baseline, reused, held)

    @property
    def names(self) -> list[str]:
        return [name for name, _ in self.work]

    @property
    def evidence_policy(self) -> str | None:
        grounded = self.config.metrics.groundedness
        return grounded.evidence if grounded else None

    def narrowed(self, shard: Shard) -> Job:
        """The job of `shard`'s rows only, recording what a merge needs: each dataset's rows
        before sharding and each row's place among them."""
        baseline = self.options.baseline
        place = ShardPlace(
            index=shard.index,
            count=shard.count,
            dataset_rows={name: len(samples) for name, samples in self.work},
            baseline_digest=file_digest(baseline) if baseline else None,
        )
        positions = {(name, s.id): i for name, rows in self.work for i, s in enumerate(rows)}
        work = tuple(
            (name, tuple(s for s in rows if shard.holds(name, s.key))) for name, rows in self.work
        )
        return replace(self, work=work, shard=place, positions=positions)

    def not_run(self, result: RunResult) -> tuple[RowKey, ...]:
        """(dataset, row id) of the rows selected but not scored (nor reused, nor left once
        the decision was settled), in input order."""
        if result.settled:
            return ()
        scored = {(r.dataset, r.sample_id) for r in result.rows}
        scored |= set(self.reuse.reused) if self.reuse is not None else set()
        return tuple(
            (n, s.id) for n, samples in self.work for s in samples if (n, s.id) not in scored
        )

    def record(
        self,
        result: RunResult,
        judge: Mapping[str, Any],
        evidence: EvidenceResult | None,
        limit: SpendingLimit | None,
    ) -> RunRecord:
        """The run's record: what it scored, spent and could not finish."""
        config, usage, left = self.config, result.usage_by_metric(), self.not_run(result)
        return RunRecord(
            config=ConfigIdentity.of(self.options.config_path, config),
            judge=judge,
            datasets=tuple(
                DatasetRecord(name, len(samples), self.digests.get(name))
                for name, samples in self.work
            ),
            rows=tuple(self.rows(result)),
            scores_by_metric={m.name: m.scores for m in self.metrics},
            thresholds={
                d.name: config.thresholds_for(d) for d in config.datasets if d.name in self.names
            },
            on_error=config.on_error,
            incomplete=stopped_by_budget(limit, len(left), sum(len(r) for _, r in self.work))
            or result.incomplete,
            usage=usage,
            seconds=result.seconds,
            evidence_policy=self.evidence_policy,
            evidence_problem=evidence.problem if evidence else None,
            costs=costs_at(config.judge.pricing, usage),
            shard=self.shard,
            positions=self.positions,
            not_run=left,
            budget=None if limit is None else budget_record(limit),
            texts={
                # a row read both ways shows its response with the styled text kept
                (name, s.id): row_text(s.source_text, s.question, (s.uncertain_kept or s).response)
                for name, samples in self.work
                for s in samples
            },
            targets=self.answering.entries() if self.answering is not None else (),
            source=self.source,
            reuse=None
            if self.reuse is None
            else reuse_record(self.reuse, self.work, result.rows, result.settled),
        )

    def rows(self, result: RunResult) -> list[RowResult]:
        """The rows judged and those reused from the baseline, in input order."""
        reused = self.reuse.reused if self.reuse is not None else {}
        return with_reused(self.work, result.rows, reused) if reused else list(result.rows)


def load_job(options: RunOptions, env: Mapping[str, str]) -> Job:
    """The config, rows, metrics and baseline of a run; every file is read and checked here,
    before any judge call."""
    config = load_config(options.config_path, env)
    responses = options.responses_output
    options.files.check_apart(
        [
            ("the config", options.config_path),
            *[(f"dataset {d.name}'s file", d.path) for d in config.datasets],
            *([("the baseline", options.baseline)] if options.baseline else []),
            *[
                item
                for d in config.datasets
                if d.target
                for item in target_inputs(d.name, d.target)
            ],
        ],
        [responses] if responses is not None and _answered(config, options) else [],
    )
    config = with_overrides(config, options.judge_overrides)
    work = select_work(config, options.datasets, options.limit)
    baseline = (
        read_report(options.baseline, name=f"baseline {options.baseline}")
        if options.baseline
        else None
    )
    names = {name for name, _ in work}
    digests = {d.name: file_digest(d.path) for d in config.datasets if d.name in names}
    metrics = tuple(build_metrics(config.metrics))
    source = source_of(env, options.config_path.parent)
    job = Job(options, config, work, metrics, baseline, digests, source=source)
    return job.narrowed(options.shard) if options.shard is not None else job


def _answered(config: Config, options: RunOptions) -> bool:
    """Whether a dataset the run selects has a target (whose answers responses.jsonl holds)."""
    chosen = set(options.datasets)
    return any(d.target for d in config.datasets if not chosen or d.name in chosen)


def answered(job: Job, env: Mapping[str, str], echo: Echo) -> Job:
    """The job with its targets' answers: every row of a dataset with a target answered by
    the pull request's own system (ConfigError before any call for a template no row fills)."""
    answering = answer_work(job.config, job.work, env, no_cache=job.options.no_cache, echo=echo)
    if answering is None:
        return job
    return replace(job, work=answering.work, answering=answering)


def reviewed_run(
    job: Job,
    result: RunResult,
    info: Mapping[str, Any],
    limit: SpendingLimit | None,
) -> Reviewed:
    """The run's report and its review, made once: the rows its targets could not answer
    added as error rows first."""
    if job.answering is not None:
        job.answering.add_to(result, [m.name for m in job.metrics])
    return reviewed(job.record(result, info, None, limit), job.baseline)


def evidence_step(
    job: Job, judge: Judge, info: Mapping[str, Any], limit: SpendingLimit | None
) -> Callable[[RunResult], Awaitable[tuple[Reviewed, EvidenceResult]]] | None:
    """With `evidence: shown`: once every row is scored, the report and its review made, and
    evidence quoted for the groundedness units the review shows (`Review.shown`: the rows
    every renderer shows), then written into that report (report/quoted.py)."""
    grounded = next((m for m in job.metrics if isinstance(m, Groundedness)), None)
    if job.evidence_policy != "shown" or grounded is None:
        return None
    samples = {(name, s.id): s for name, rows in job.work for s in rows}

    async def quote_shown(result: RunResult) -> tuple[Reviewed, EvidenceResult]:
        made = reviewed_run(job, result, info, limit)
        shown = made.review.shown
        judged = {(r.dataset, r.sample_id) for r in result.rows}  # a reused row: the baseline's
        wanted = {
            s.key: s.units[grounded.name]
            for s in shown
            if s.units.get(grounded.name) and s.key in judged
        }
        evidence = await add_evidence(
            result,
            samples,
            wanted,
            grounded,
            judge,
            row_concurrency=rows_at_once(job.config.judge),
        )
        with_quotes(made.report, job.record(result, info, evidence, limit))
        return made, evidence

    return quote_shown


def warn_of_advice(job: Job, env: Mapping[str, str], echo: Echo) -> None:
    """`validate`'s warnings (a config that may gate the wrong thing), a judge key not set."""
    asked = {name: any(s.question for s in samples) for name, samples in job.work}
    key = key_advice(job.config, env)
    for line in [*advice(job.config, asked), *([key] if key else [])]:
        echo(f"ground-gate: warning: {job.options.config_path}: {line}")


def execute(options: RunOptions, env: Mapping[str, str], echo: Echo) -> Outcome:
    job = answered(load_job(options, env), env, echo)
    job = replace(job, reuse=plan_reuse(job.config, job.work, job.baseline, PROMPT_VERSION))
    warn_of_advice(job, env, echo)  # before the judge's first call
    limit = spending_limit(job.config.judge)
    with open_judge(
        job.config.judge,
        env,
        prompt_version=PROMPT_VERSION,
        no_cache=options.no_cache,
        echo=echo,
        limit=limit,
    ) as (judge, info):
        then = evidence_step(job, judge, info, limit)
        result, quoted = score_all(
            job.config.judge, job.scorable, job.metrics, judge, then=then, settled=job.stops_when()
        )
    if quoted is None:  # no evidence asked for, or the run stopped before it
        made = reviewed_run(job, result, info, limit)
    else:
        made, evidence = quoted
        if evidence.problem:
            echo(
                f"ground-gate: warning: {evidence.missing} evidence quote(s) for the report are "
                f"missing ({evidence.problem}); the scores and the gate verdict do not use them"
            )
    outcome = finish(made, options.files, echo)
    if job.answering is not None:
        written = options.files.write([(options.responses_output, job.answering.responses)], echo)
        if not written:
            return replace(outcome, exit_code=EXIT_ERROR)
    return outcome
