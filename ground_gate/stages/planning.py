"""`ground-gate plan`: what a run would ask of the judge, found without asking it.

The metrics themselves run, through the runner, against a `PlanningJudge` that makes no
call: it answers a request from the judge cache when the cache holds it, and otherwise as a
judge plausibly would, so the metrics build every later request just as a run does (the
same prompts, chunks of long sources, cut passages, shared extraction). What it cannot know
is estimated, and said to be:

- statements and claims are the response's sentences (split_sentences), one per sentence;
- summary_accuracy generates exactly questions_per_sentence questions per sentence (at most
  n_questions a row);
- every response holds information (the informs check says Yes) and answers its question,
  every source holds the answer, and every verdict is Yes (so no sentence not in the source
  is asked whether it only declines);
- `evidence: shown` quotes one unit of each of the report's 10 worst rows (the run quotes
  the units it shows as not supported, at most 3 a row); `evidence: unsupported` is counted
  as no quote;
- no retry and no repair of unusable JSON;
- a request repeated within the run is counted once, as the run's cache answers it (rows
  judged at once may both ask it before either is cached).

A request is *exact* when none of its text comes from a made-up answer: its cache key is
then the run's, and the cache is asked for exactly that key (per-sentence verdicts, the
extraction and question-generation calls, the rating, every call of a row whose earlier
answers are cached). Text made up for an answer carries MARK, so a request built from it is
known to be estimated. Tokens are estimated from the prompts' length (judge.budget's
estimator); cost is priced at judge.prices. The local judge's time is estimated from its
model's throughput measured on 2 CPU cores (local/registry.py): per call to make, its own
cost, the prompt tokens its server reads after the prefix it keeps from the previous
request, and the tokens it generates.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from tabulate import tabulate

from ground_gate.config.model import Budget, Config, Prices
from ground_gate.datasets import Sample
from ground_gate.judge.factory import local_throughput, reuses_prefix
from ground_gate.leaves.results import without_judge
from ground_gate.metrics import Metric
from ground_gate.metrics.groundedness import Groundedness
from ground_gate.review.selection import DEFAULT_WORST_ROWS, UNITS_PER_METRIC
from ground_gate.stages.evidence import add_evidence
from ground_gate.stages.planning_judge import PlanningJudge, Tally
from ground_gate.stages.runner import RunResult, score_row
from ground_gate.targets.planning import TargetPlan

__all__ = ["Plan", "PlanningJudge", "Tally", "make_plan", "plan_json", "plan_text"]


class Rates(Protocol):
    """A local model's measured throughput (local/registry.py's Throughput)."""

    @property
    def read_tokens_per_s(self) -> float: ...

    @property
    def generated_tokens_per_s(self) -> float: ...

    @property
    def call_s(self) -> float: ...


ASSUMPTIONS = (
    "statements and claims: one per sentence of the response",
    "summary_accuracy: questions_per_sentence questions per sentence, n_questions a row at most",
    "every response states facts and answers its question, every source holds the answer, "
    "every verdict is Yes (no quote for evidence: unsupported; no sentence asked whether it "
    "only declines)",
    f"evidence: shown: one quote for each of the report's {DEFAULT_WORST_ROWS} worst rows "
    f"(at most {UNITS_PER_METRIC} each)",
    "no retry, no repair of unusable JSON",
    "a target's answer not in a cache: one sentence (the judge's calls for it are estimated)",
)


@dataclass(frozen=True)
class ReuseSaving:
    """With a baseline: the rows whose verdicts it holds, and the judge calls that saves."""

    rows: int  # reused
    total: int  # selected
    calls: int  # calls to make saved
    none_because: str | None
    unknown: int = 0  # rows whose target's answer is not cached: unknown before it answers
    held: int = 0  # rows judged whose answerable verdict is reused (question, source unchanged)

    def text(self) -> str:
        unknown = (
            f"; {self.unknown} row(s) a target answers have no cached answer, so whether "
            "they changed is not known before it runs: planned as judged"
            if self.unknown
            else ""
        )
        held = (
            f"; {self.held} of the rows judged keep the baseline's answerable verdict (their "
            "question and source unchanged): no call for it"
            if self.held
            else ""
        )
        if not self.rows:
            why = self.none_because if not self.unknown else "no row's answer is known"
            return f"baseline: no verdict reused ({why}); every row is judged{held}{unknown}"
        left = self.total - self.rows
        return (
            f"baseline: {self.rows} of {self.total} rows unchanged since it, their verdicts "
            f"reused{held}: {self.calls} judge call(s) saved. The figures are for the {left} "
            "row(s) left to judge, and `run --baseline` stops judging them once no row left can "
            "change a check's decision (`--judge-all`: every one); how many it judges depends "
            f"on their verdicts{unknown}"
        )

    def as_json(self) -> dict[str, Any]:
        return {
            "rows_reused": self.rows,
            "rows": self.total,
            "calls_saved": self.calls,
            "none_because": self.none_because,
            "rows_answer_unknown": self.unknown,
            "rows_answerable_reused": self.held,
            "stops_when_settled": True,
        }


@dataclass
class Plan:
    datasets: list[tuple[str, int]]  # (name, rows)
    steps: dict[str, Tally]  # by purpose, "metric.step"
    prices: Prices | None
    metrics: tuple[str, ...] = ()  # the metrics' names, in the order they run
    budget: Budget | None = None
    throughput: Rates | None = None  # the local model's, measured; None: no time estimate
    targets: list[TargetPlan] = field(default_factory=list)  # datasets' targets, asked first
    reuse: ReuseSaving | None = None  # with a baseline: what reusing its verdicts saves

    def by_metric(self) -> dict[str, Tally]:
        metrics: dict[str, Tally] = {name: Tally() for name in self.metrics}
        for purpose, tally in self.steps.items():
            metrics.setdefault(purpose.partition(".")[0], Tally()).add(tally)
        return metrics

    def over_budget(self) -> list[str]:
        """The judge.budget limits this run would reach, by the plan's figures."""
        if self.budget is None:
            return []
        total, over = self.total(), []
        if self.budget.max_calls is not None and total.to_call > self.budget.max_calls:
            over.append(f"max_calls {self.budget.max_calls} (calls to make: {total.to_call})")
        tokens = total.prompt_tokens_to_spend + total.completion_tokens
        if self.budget.max_tokens is not None and tokens > self.budget.max_tokens:
            over.append(f"max_tokens {self.budget.max_tokens:,} (about {tokens:,})")
        cost = self.cost(total)
        if self.budget.max_usd is not None and cost is not None and cost > self.budget.max_usd:
            over.append(f"max_usd {self.budget.max_usd:g} (about ${cost:.4f})")
        return over

    def total(self) -> Tally:
        total = Tally()
        for tally in self.steps.values():
            total.add(tally)
        return total

    def seconds(self, tally: Tally) -> float | None:
        """The local judge's time for the calls to make, at the model's measured throughput."""
        rates = self.throughput
        if rates is None:
            return None
        return round(
            tally.to_call * rates.call_s
            + tally.prompt_tokens_to_read / rates.read_tokens_per_s
            + tally.completion_tokens_to_make / rates.generated_tokens_per_s,
            1,
        )

    def cost(self, tally: Tally) -> float | None:
        if self.prices is None:
            return None
        return round(self.prices.cost(tally.prompt_tokens, tally.completion_tokens), 6)


async def _plan_rows(
    work: Sequence[tuple[str, Sequence[Sample]]],
    metrics: Sequence[Metric],
    judge: PlanningJudge,
    evidence: str | None,
) -> None:
    result = RunResult()
    for dataset, samples in work:
        for sample in samples:
            result.rows.append(await score_row(dataset, sample, metrics, judge))
    grounded = next((m for m in metrics if isinstance(m, Groundedness)), None)
    if evidence == "shown" and grounded is not None:
        samples_by_key = {(name, s.id): s for name, rows in work for s in rows}
        wanted = _shown_estimate(result, grounded.name)
        await add_evidence(result, samples_by_key, wanted, grounded, judge, row_concurrency=1)


def _shown_estimate(result: RunResult, metric: str) -> dict[tuple[str, str], list[int]]:
    """The units the report's Worst rows will quote, guessed: the first judged unit of each of
    DEFAULT_WORST_ROWS rows (a row is shown for at least one unit not supported, and up to
    UNITS_PER_METRIC of them are quoted; which rows and units depends on the verdicts)."""
    wanted: dict[tuple[str, str], list[int]] = {}
    for row in result.rows:
        for found in row.metrics:
            if found.metric == metric and found.status == "ok":
                judged = [i for i, u in enumerate(found.units) if not without_judge(u.detail)]
                if judged and len(wanted) < DEFAULT_WORST_ROWS:
                    wanted[(row.dataset, row.sample_id)] = judged[:1]
    return wanted


def make_plan(
    config: Config,
    work: Sequence[tuple[str, Sequence[Sample]]],
    metrics: Sequence[Metric],
    judge: PlanningJudge,
) -> Plan:
    """Plan `work` (the rows a run would score, as the judge would see them)."""
    judge.reuses_prefix = reuses_prefix(config.judge)  # the run's prompts depend on it
    grounded = config.metrics.groundedness
    asyncio.run(_plan_rows(work, metrics, judge, grounded.evidence if grounded else None))
    datasets = [(name, len(samples)) for name, samples in work]
    names = tuple(m.name for m in metrics)
    return Plan(
        datasets,
        judge.steps,
        config.judge.pricing,
        names,
        config.judge.budget,
        local_throughput(config.judge),
    )


def _entry(plan: Plan, tally: Tally) -> dict[str, Any]:
    return {
        "judge_calls": tally.judge_calls,
        "cached": tally.cached,
        "to_call": tally.to_call,
        "exact_calls": tally.exact,
        "estimated_calls": tally.judge_calls - tally.exact,
        "prompt_tokens": tally.prompt_tokens,
        "completion_tokens": tally.completion_tokens,
        "prompt_tokens_to_spend": tally.prompt_tokens_to_spend,
        "prompt_tokens_to_read": tally.prompt_tokens_to_read,
        "cost_usd": plan.cost(tally),
        "seconds": plan.seconds(tally),
    }


def plan_json(plan: Plan, config_path: str, judge: Mapping[str, Any]) -> dict[str, Any]:
    """The plan as `ground-gate plan --format json` writes it."""
    total = plan.total()
    metrics = {
        name: {**_entry(plan, tally), "steps": {}} for name, tally in plan.by_metric().items()
    }
    for purpose, tally in plan.steps.items():
        name, _, step = purpose.partition(".")
        metrics[name]["steps"][step] = _entry(plan, tally)
    return {
        "config": config_path,
        "judge": dict(judge),
        "datasets": [{"name": name, "rows": rows} for name, rows in plan.datasets],
        **_entry(plan, total),
        "metrics": metrics,
        "over_budget": plan.over_budget(),
        "targets": [target.as_json() for target in plan.targets],
        "estimated": list(ASSUMPTIONS),
        **({"reuse": plan.reuse.as_json()} if plan.reuse is not None else {}),
    }


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def _money(value: float | None) -> str:
    return "unknown" if value is None else f"${value:.4f}"


def plan_text(plan: Plan, config_path: str, judge: Mapping[str, Any]) -> str:
    """The plan for people: one line per metric, then what is exact and what estimated."""
    rows = ", ".join(f"{name} {count} row(s)" for name, count in plan.datasets)
    head = [
        f"plan for {config_path}: {rows}; judge {judge['provider']} {judge['model']}, "
        f"prompts {judge['prompt_version']}; no judge call made",
        "",
    ]
    body = []
    for name, tally in [*plan.by_metric().items(), ("total", plan.total())]:
        body.append(
            [
                name,
                tally.judge_calls,
                tally.cached,
                tally.to_call,
                f"{tally.exact} / {tally.judge_calls - tally.exact}",
                f"{tally.prompt_tokens:,}",
                f"{tally.completion_tokens:,}",
                _money(plan.cost(tally)),
            ]
        )
    headers = [
        "metric",
        "judge calls",
        "cached",
        "to call",
        "exact / estimated",
        "prompt tokens",
        "completion tokens",
        "cost",
    ]
    table = tabulate(body, headers=headers, tablefmt="simple", disable_numparse=True)
    notes = _notes(plan)
    targets = ["", *(target.text() for target in plan.targets)] if plan.targets else []
    return "\n".join([*head, table, *notes, *targets]) + "\n"


def _notes(plan: Plan) -> list[str]:
    """What the plan's figures mean, its time for the local judge and its budget."""
    notes = [
        "",
        "judge calls, tokens and cost: a run with an empty cache; to call: this run, now.",
        "exact: the request is known without any judge answer, and looked up in the cache "
        "by its key; estimated, as:",
        *(f"  - {line}" for line in ASSUMPTIONS),
        "tokens: estimated from the prompts' length; cost: at judge.prices"
        + ("" if plan.prices is not None else " (not set: unknown)"),
    ]
    seconds = plan.seconds(plan.total())
    if seconds is not None:
        notes.append(
            f"time: about {_duration(seconds)} for the calls to make, at the local model's "
            "throughput measured on 2 CPU cores (more cores: less)"
        )
    over = plan.over_budget()
    if over:
        notes.append(f"judge.budget: this run would stop early at {'; '.join(over)}")
    if plan.reuse is not None:
        notes.append(plan.reuse.text())
    return notes
