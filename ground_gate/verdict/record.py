"""One record of a run: everything a finished run (or a merge of shards) knows, frozen.

A run fills it from what it scored (commands/run.py), a merge from its shards' reports read
back (report/readback.py, then shard_merge.py); both then go through the same gate
(`verdicts`) and the same writer (report/json_report.build_report). Nothing here does I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from ground_gate.config.model import Config, Prices, Threshold
from ground_gate.leaves.provenance import Source
from ground_gate.leaves.results import RowResult
from ground_gate.leaves.usage import Usage
from ground_gate.verdict.dataset_scores import RowScores, summarise
from ground_gate.verdict.gate import GateResult, OnError, evaluate

RowKey = tuple[str, str]  # (dataset, row id)


@dataclass(frozen=True)
class ConfigIdentity:
    """Which config the run used: its file, and digests of what it said ("sha256:<hex>").

    resolved: the whole config as it applied (after `${VAR}` and merge keys);
    scoring: only what can change a score or a verdict (config.loader.scoring_digest), which
    shards must share to merge; None in reports older than it."""

    path: str
    digest: str
    resolved: str | None = None
    scoring: str | None = None

    @classmethod
    def of(cls, path: Path, config: Config) -> ConfigIdentity:
        """`config`'s identity, read from `path`."""
        return cls(
            path=str(path),
            digest=f"sha256:{config.digest}",
            resolved=f"sha256:{config.resolved_digest}" if config.resolved_digest else None,
            scoring=f"sha256:{config.scoring_digest}" if config.scoring_digest else None,
        )


@dataclass(frozen=True)
class DatasetRecord:
    name: str
    rows: int  # rows selected (in a shard's record: this shard's)
    digest: str | None = None  # "sha256:<hex>" of the file's bytes


@dataclass(frozen=True)
class ShardPlace:
    """What a `run --shard K/N` record says of its place, for the merge."""

    index: int
    count: int
    dataset_rows: Mapping[str, int]  # dataset -> rows selected before sharding
    baseline_digest: str | None  # the --baseline report's "sha256:<hex>", if one was given


@dataclass(frozen=True)
class RowTexts:
    """What a row said, as the report keeps it (each field cut to its limit, named in `cut`)."""

    source: str
    question: str | None
    response: str
    cut: tuple[str, ...] = ()


@dataclass(frozen=True)
class BudgetRecord:
    """judge.budget: its limits, what the run's requests spent, and which limit stopped it."""

    max_calls: int | None
    max_tokens: int | None
    max_usd: float | None
    calls: int
    prompt_tokens: int
    completion_tokens: int
    usd: float | None  # None: the prices are unknown
    exceeded: str | None


@dataclass(frozen=True)
class ReuseRecord:
    """What a run's verdicts depend on, and what it took from its baseline (stages/reuse.py).

    parts: the run's parts of every key (judge, prompts, method, scorer); keys: each row's;
    reused: the rows whose verdicts came from the baseline; asked: a baseline was given;
    none_because: why none was reused; not_judged: the rows judging stopped before, the
    decision settled (verdict/settling.py); judged: the rows judged in this run;
    context_keys: each row's answerable verdict's key (with the `answers` metric on)."""

    parts: Mapping[str, str]
    keys: Mapping[RowKey, str]
    reused: frozenset[RowKey] = frozenset()
    asked: bool = False
    none_because: str | None = None
    not_judged: tuple[RowKey, ...] = ()
    judged: int = 0
    context_keys: Mapping[RowKey, str] = field(default_factory=dict)

    @classmethod
    def joined(cls, records: Sequence[ReuseRecord | None]) -> ReuseRecord | None:
        """Shards' records as the merged run's: their keys and reused rows together (a shard
        never stops early, the decision being the merged run's). None when a shard was
        written before keys were (the merge lets none or all of them through)."""
        found = [r for r in records if r is not None]
        if not found or len(found) != len(records):
            return None
        return replace(
            found[0],
            keys={key: value for r in found for key, value in r.keys.items()},
            context_keys={key: value for r in found for key, value in r.context_keys.items()},
            reused=frozenset().union(*(r.reused for r in found)),
            none_because=next((r.none_because for r in found if r.none_because), None),
            not_judged=tuple(key for r in found for key in r.not_judged),
            judged=sum(r.judged for r in found),
        )


@dataclass(frozen=True)
class RunRecord:
    """A run, as its reports tell it. `rows` are in the report's order; `positions` (a
    shard's) place each row among its dataset's rows before sharding; `costs` are US dollars
    at judge.prices by metric and "total" (None: prices unknown); `texts` are the rows' texts
    for the page (rows without one are written without)."""

    config: ConfigIdentity
    judge: Mapping[str, Any]
    datasets: tuple[DatasetRecord, ...]
    rows: tuple[RowResult, ...]
    scores_by_metric: Mapping[str, tuple[str, ...]]  # metric -> its scores, in report order
    thresholds: Mapping[str, Mapping[str, Threshold]]  # dataset -> score -> threshold
    on_error: OnError
    incomplete: str | None
    usage: Mapping[str, Usage]  # metric -> what it spent
    seconds: float
    evidence_policy: str | None = None  # groundedness's `evidence`; None: groundedness is off
    evidence_problem: str | None = None
    costs: Mapping[str, float] | None = None
    shard: ShardPlace | None = None
    positions: Mapping[RowKey, int] = field(default_factory=dict)
    not_run: tuple[RowKey, ...] = ()
    budget: BudgetRecord | None = None
    texts: Mapping[RowKey, RowTexts] = field(default_factory=dict)
    created_at: datetime | None = None  # None: now, when the report is built
    # the datasets' targets (the report's `targets` entries): what defined each, what it
    # spent and the rows it failed, apart from the judge's; empty when none has a target
    targets: tuple[Mapping[str, Any], ...] = ()
    source: Source | None = None  # where the run was made (a merge: its first shard's)
    reuse: ReuseRecord | None = None  # None: a report from before verdict keys were kept

    @property
    def dataset_names(self) -> list[str]:
        return [d.name for d in self.datasets]


def verdicts(record: RunRecord, baseline: RowScores | None = None) -> GateResult:
    """The gate over a record: every score summarised, held to its threshold and, with a
    baseline's row scores, compared with them. A run's and a merge's verdicts come from here."""
    return evaluate(
        summarise(record.rows, record.dataset_names, dict(record.scores_by_metric)),
        record.thresholds,
        record.on_error,
        record.incomplete,
        rows=record.rows,
        baseline=baseline,
    )


def costs_at(prices: Prices | None, usage: Mapping[str, Usage]) -> dict[str, float] | None:
    """US dollars per metric and in "total" for `usage` at `prices`; None when unknown."""
    if prices is None:
        return None
    total = Usage()
    for spent in usage.values():
        total.add(spent)
    costs = {name: prices.cost(u.prompt_tokens, u.completion_tokens) for name, u in usage.items()}
    costs["total"] = prices.cost(total.prompt_tokens, total.completion_tokens)
    return costs
