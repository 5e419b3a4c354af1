"""The records of `run --shard K/N` joined into the record of the unsharded run.

The shards' rows are put back in the unsharded order (each row's position) and the joined
record goes through the same gate and writer as a run's, so the merge has the same rows,
scores, intervals (seeded), verdict and exit code as one unsharded run (its timestamps,
durations and usage are the shards'). A set of shards is refused, naming the shard and the
problem, when one is missing or repeated, when they differ in anything that changes a score
or a verdict (the judge, its model and endpoint, prompts, metrics, thresholds, data, the
baseline), or when a shard's rows do not add up to what it says it holds: a merge never gates
on rows it does not have.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

from ground_gate.leaves.errors import MergeError
from ground_gate.leaves.results import RowResult
from ground_gate.leaves.usage import Usage
from ground_gate.stages.target_record import merged_targets
from ground_gate.verdict.record import ReuseRecord, RowKey, RunRecord, ShardPlace

MISSING_LISTED = 10  # missing shards named in the message; the rest are counted


@dataclass(frozen=True)
class ShardRecord:
    """One shard's record and the name messages call it by (its file)."""

    name: str
    record: RunRecord
    place: ShardPlace

    @property
    def label(self) -> str:
        return f"{self.name} (shard {self.place.index}/{self.place.count})"


def merge_records(
    records: Sequence[tuple[str, RunRecord]], baseline_digest: str | None = None
) -> RunRecord:
    """The unsharded run's record from its N shards' ((name, record) pairs, in any order).

    baseline_digest: the "sha256:<hex>" of the baseline the merge compares with, if any; when
    the shards recorded one, it must be given and be the same.
    """
    shards = _complete(records)
    for shard in shards:
        _check_targets(shard)  # each shard's own first: the comparison below says less
    _check_alike(shards)
    _check_baseline(shards[0].place.baseline_digest, baseline_digest)
    for shard in shards:
        _check_rows_add_up(shard)
    _check_split(shards)
    first = shards[0].record
    policy, problem = _evidence(shards)
    usage = _usage(shards)
    return replace(
        first,
        judge=_judge(shards),
        datasets=tuple(
            replace(d, rows=shards[0].place.dataset_rows.get(d.name, 0)) for d in first.datasets
        ),
        rows=_rows(shards),
        incomplete=_incomplete(shards),
        usage=usage,
        seconds=max(s.record.seconds for s in shards),
        evidence_policy=policy,
        evidence_problem=problem,
        costs=_costs(shards, usage),
        shard=None,
        positions={},
        not_run=tuple(key for s in shards for key in s.record.not_run),
        budget=None,
        texts={key: text for s in shards for key, text in s.record.texts.items()},
        created_at=None,
        targets=merged_targets([(s.name, s.record.targets) for s in shards]),
        reuse=ReuseRecord.joined([s.record.reuse for s in shards]),
    )


def _complete(records: Sequence[tuple[str, RunRecord]]) -> list[ShardRecord]:
    """The shards, checked to be exactly 1..N of one split, sorted by index."""
    if not records:
        raise MergeError("no report to merge")
    shards = []
    for name, record in records:
        if record.shard is None:
            raise MergeError(
                f"{name}: not a shard's report (it has no `shard`: it was not made by "
                "`ground-gate run --shard K/N`)"
            )
        shard = ShardRecord(name, record, record.shard)
        if shard.place.index > shard.place.count:
            raise MergeError(
                f"{name}: shard {shard.place.index}/{shard.place.count}: K is larger than N"
            )
        shards.append(shard)
    first = shards[0]
    by_index: dict[int, ShardRecord] = {}
    for shard in shards:
        if shard.place.count != first.place.count:
            raise MergeError(
                f"{shard.label}: split into {shard.place.count} shards, but {first.label} into "
                f"{first.place.count}"
            )
        if shard.place.index in by_index:
            raise MergeError(
                f"{shard.name}: shard {shard.place.index}/{shard.place.count} is given twice "
                f"(also {by_index[shard.place.index].name})"
            )
        by_index[shard.place.index] = shard
    _none_missing(by_index, first.place.count, len(shards))
    return [by_index[i] for i in sorted(by_index)]


def _none_missing(by_index: Mapping[int, ShardRecord], count: int, given: int) -> None:
    missing = [i for i in range(1, count + 1) if i not in by_index]
    if missing:
        listed = ", ".join(f"{i}/{count}" for i in missing[:MISSING_LISTED])
        more = len(missing) - MISSING_LISTED
        listed += f" and {more} more" if more > 0 else ""
        raise MergeError(f"shard {listed} missing: {given} of {count} shard reports given")


def _same(shards: Sequence[ShardRecord], what: str, value: Callable[[ShardRecord], Any]) -> None:
    first = shards[0]
    expected = value(first)
    for shard in shards[1:]:
        found = value(shard)
        if found != expected:
            raise MergeError(
                f"{shard.label}: {what} is not {first.label}'s ({_show(found)} against "
                f"{_show(expected)}); shards must come from one config, data and prompts"
            )


def _show(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 120 else text[:117] + "..."


def _check_alike(shards: Sequence[ShardRecord]) -> None:
    """Everything that changes a score or a verdict is the same in every shard; what does
    not (the judge cache's folder, concurrency, retries: config.loader.NOT_SCORING) may
    differ."""
    if all(s.record.config.scoring for s in shards):
        _same(shards, "the config (what can change a score)", lambda s: s.record.config.scoring)
    else:
        for shard in shards:
            if not shard.record.config.resolved:
                raise MergeError(f"{shard.label}: the report has no config.resolved_digest")
        _same(shards, "the config (resolved digest)", lambda s: s.record.config.resolved)
    _same(shards, "the prompt version", lambda s: s.record.judge.get("prompt_version"))
    _same(shards, "the judge (provider, model, endpoint)", _judge_identity)
    _same(shards, "the dataset list (name, digest, rows)", _datasets)
    _same(shards, "the baseline", lambda s: s.place.baseline_digest)
    _same(shards, "the on_error", lambda s: s.record.on_error)
    _same(shards, "the score list (dataset, score, threshold)", _score_keys)
    _same(shards, "the datasets with a target", lambda s: [t["dataset"] for t in s.record.targets])
    _same(shards, "the verdict key (judge file, prompts, method, scorer)", _key_parts)


def _key_parts(shard: ShardRecord) -> Mapping[str, str] | None:
    reuse = shard.record.reuse
    return dict(reuse.parts) if reuse is not None else None


def _judge_identity(shard: ShardRecord) -> list[Any]:
    """Who judged: the action's URL inputs override the config after its digests are taken,
    so the digests alone would let shards judged by different servers merge."""
    judge = shard.record.judge
    return [judge.get("provider"), judge.get("model"), judge.get("endpoint")]


def _datasets(shard: ShardRecord) -> list[list[Any]]:
    rows = shard.place.dataset_rows
    return [[d.name, d.digest, rows.get(d.name)] for d in shard.record.datasets]


def _score_keys(shard: ShardRecord) -> list[list[Any]]:
    record = shard.record
    return [
        [dataset, score, _bounds(record.thresholds.get(dataset, {}).get(score))]
        for dataset in record.dataset_names
        for scores in record.scores_by_metric.values()
        for score in scores
    ]


def _bounds(threshold: Any) -> dict[str, float] | None:
    return (
        None if threshold is None else {k: v for k, v in asdict(threshold).items() if v is not None}
    )


def _check_baseline(recorded: str | None, given: str | None) -> None:
    if recorded is not None and given is None:
        raise MergeError(
            f"the shards were compared with a baseline ({recorded}): give the same report "
            "with --baseline (the action: its baseline input)"
        )
    if recorded is not None and given != recorded:
        raise MergeError(f"--baseline is {given}, but the shards were compared with {recorded}")


def _check_rows_add_up(shard: ShardRecord) -> None:
    """What the shard holds is what it says it holds: per dataset, its rows and the rows it
    could not run are the rows it selected, each row placed once within the dataset's rows
    before sharding."""
    record, place = shard.record, shard.place
    for dataset in record.datasets:
        rows = [r for r in record.rows if r.dataset == dataset.name]
        not_run = [key for key in record.not_run if key[0] == dataset.name]
        if len(rows) + len(not_run) != dataset.rows:
            raise MergeError(
                f"{shard.label}: dataset {dataset.name} holds {len(rows)} row(s) and "
                f"{len(not_run)} not run, but the shard selected {dataset.rows}: rows are "
                "missing from the report"
            )
        total = place.dataset_rows.get(dataset.name, 0)
        for row in rows:
            position = record.positions.get((row.dataset, row.sample_id))
            if position is None or not 0 <= position < total:
                raise MergeError(
                    f"{shard.label}: row {row.dataset}/{row.sample_id} has no position among "
                    f"the dataset's {total} row(s)"
                )
    known = {d.name for d in record.datasets}
    stray = next((r for r in record.rows if r.dataset not in known), None)
    if stray is not None:
        raise MergeError(f"{shard.label}: row {stray.dataset}/{stray.sample_id} is in no dataset")


def _check_targets(shard: ShardRecord) -> None:
    """Each `targets` entry names a dataset the shard holds, once, and counts its rows: the
    rows it was asked are the rows the shard selected, and it answered or failed no more."""
    selected = {d.name: d.rows for d in shard.record.datasets}
    seen: set[str] = set()
    for entry in shard.record.targets:
        name = entry["dataset"]
        if name in seen:
            raise MergeError(f"{shard.label}: the target of dataset {name} is given twice")
        seen.add(name)
        if name not in selected:
            raise MergeError(f"{shard.label}: a target names dataset {name}, which is no dataset")
        rows, done = entry["rows"], entry["answered"] + entry["errors"]
        if rows != selected[name] or done > rows:
            raise MergeError(
                f"{shard.label}: the target of dataset {name} answered {entry['answered']} and "
                f"failed {entry['errors']} of {rows} row(s), but the shard selected "
                f"{selected[name]} row(s) of it"
            )


def _check_split(shards: Sequence[ShardRecord]) -> None:
    """The shards' rows of each dataset add up to the rows it had before sharding."""
    first = shards[0]
    for dataset in first.record.datasets:
        held = sum(d.rows for s in shards for d in s.record.datasets if d.name == dataset.name)
        total = first.place.dataset_rows.get(dataset.name, 0)
        if held != total:
            raise MergeError(
                f"the shards hold {held} row(s) of dataset {dataset.name}, but it had {total} "
                "before sharding: a shard's rows are missing or repeated"
            )


def _rows(shards: Sequence[ShardRecord]) -> tuple[RowResult, ...]:
    """Every shard's rows in the unsharded order; a row or a position given twice is refused."""
    order = {name: i for i, name in enumerate(shards[0].record.dataset_names)}
    seen: dict[RowKey, str] = {}
    places: dict[tuple[str, int], str] = {}
    placed: list[tuple[tuple[int, int], RowResult]] = []
    for shard in shards:
        for row in shard.record.rows:
            key = (row.dataset, row.sample_id)
            if key in seen:
                raise MergeError(
                    f"{shard.label}: row {row.dataset}/{row.sample_id} is also in {seen[key]}"
                )
            position = shard.record.positions[key]
            if (row.dataset, position) in places:
                raise MergeError(
                    f"{shard.label}: row {row.dataset}/{row.sample_id} takes position "
                    f"{position}, also taken in {places[(row.dataset, position)]}"
                )
            seen[key] = places[(row.dataset, position)] = shard.label
            placed.append(((order[row.dataset], position), row))
    placed.sort(key=lambda item: item[0])
    return tuple(row for _, row in placed)


def _incomplete(shards: Sequence[ShardRecord]) -> str | None:
    reasons = [
        f"shard {s.place.index}/{s.place.count}: {s.record.incomplete}"
        for s in shards
        if s.record.incomplete
    ]
    return "; ".join(reasons) or None


def _judge(shards: Sequence[ShardRecord]) -> dict[str, Any]:
    """The shards' judge descriptions joined (a shard served from the cache never loaded
    the local model, so only some name its file)."""
    judge: dict[str, Any] = {}
    for shard in shards:
        for key, value in shard.record.judge.items():
            judge.setdefault(key, value)
    return judge


def _usage(shards: Sequence[ShardRecord]) -> dict[str, Usage]:
    total: dict[str, Usage] = {}
    for shard in shards:
        for name, usage in shard.record.usage.items():
            total.setdefault(name, Usage()).add(usage)
    return total


def _costs(shards: Sequence[ShardRecord], usage: Mapping[str, Usage]) -> dict[str, float] | None:
    """The shards' costs at judge.prices, summed (cost is linear in tokens, so this is the
    unsharded run's), where every shard priced its usage."""
    costs = [s.record.costs for s in shards]
    if any(c is None for c in costs):
        return None
    return {n: math.fsum(c.get(n, 0.0) for c in costs if c is not None) for n in [*usage, "total"]}


def _evidence(shards: Sequence[ShardRecord]) -> tuple[str | None, str | None]:
    problems = [
        f"shard {s.place.index}/{s.place.count}: {s.record.evidence_problem}"
        for s in shards
        if s.record.evidence_problem
    ]
    return shards[0].record.evidence_policy, ("; ".join(problems) or None)
