"""`ground-gate merge`: the reports of `run --shard K/N` joined into the report of the run.

The shards' rows are put back in the unsharded order (each row's `position`) and go through
the same summaries, bootstrap intervals (seeded), gate and builders as a run's, so the merged
report has the same rows, scores, intervals, verdict and exit code as one unsharded run (its
timestamps, durations and usage are the shards'). Shards are refused, naming the file and the
problem, when one is missing or repeated or when they were made from different configs,
datasets, prompt versions or baselines: a merge never gates on rows it does not have.

`merge_reports` is the entry point for code (the GitHub Action's merge job): report dicts in,
the merged report out, MergeError on bad input. `read_report` reads and checks one file.
"""

from __future__ import annotations

import json
import math
import stat
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ground_gate.config.model import METRIC_OF_SCORE
from ground_gate.dataset_scores import summarise
from ground_gate.datasets.identity import file_digest
from ground_gate.errors import MergeError
from ground_gate.gate import evaluate
from ground_gate.judge.base import Usage
from ground_gate.pipeline import Outcome, finish, read_baseline
from ground_gate.report import readback
from ground_gate.report.json_report import (
    baseline_scores,
    build_report,
    loads_strict,
    schema_mismatch,
)
from ground_gate.report.types import Report
from ground_gate.target_step import merged_record

MAX_REPORT_BYTES = 512 * 1024 * 1024
# The baseline a shard was compared with, copied beside its report by the action's shard
# mode, so that the merge (and the fork-safe workflow_run merge, which checks nothing out)
# can compare with the same file without being given it.
BASELINE_COPY = "baseline.json"
MISSING_LISTED = 10  # missing shards named in the message; the rest are counted


@dataclass(frozen=True)
class ShardReport:
    """One shard's report and the name it is called by in messages (its file)."""

    name: str
    report: Mapping[str, Any]

    @property
    def index(self) -> int:
        return int(self.report["shard"]["index"])

    @property
    def count(self) -> int:
        return int(self.report["shard"]["count"])

    @property
    def label(self) -> str:
        return f"{self.name} (shard {self.index}/{self.count})"


def read_report(path: Path) -> dict[str, Any]:
    """A JSON report from `path`, checked against the published schema; MergeError naming
    the file and the problem otherwise."""
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):
            raise MergeError(f"{path}: not a regular file, expected a JSON report")
        if info.st_size > MAX_REPORT_BYTES:
            raise MergeError(f"{path}: larger than {MAX_REPORT_BYTES >> 20} MB, not a report")
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise MergeError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise MergeError(f"{path}: cannot read it ({exc})") from None
    try:
        report = loads_strict(text)
    except json.JSONDecodeError as exc:
        raise MergeError(
            f"{path}: not JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None
    except ValueError as exc:
        raise MergeError(f"{path}: not JSON ({exc})") from None
    except RecursionError:
        raise MergeError(f"{path}: JSON nested too deeply to be a report") from None
    check_report(str(path), report)
    assert isinstance(report, dict)
    return report


def check_report(name: str, report: Any) -> None:
    """MergeError unless `report` is a ground-gate report of this schema version."""
    problem = schema_mismatch(report)
    if problem is not None:
        raise MergeError(f"{name}: {problem}")
    unknown = sorted({e["score"] for e in report["scores"]} - set(METRIC_OF_SCORE))
    if unknown:
        raise MergeError(f"{name}: unknown score(s) {', '.join(unknown)}")


def _shards(reports: Sequence[tuple[str, Mapping[str, Any]]]) -> list[ShardReport]:
    """The shards, checked to be exactly 1..N of one split, sorted by index."""
    if not reports:
        raise MergeError("no report to merge")
    shards = []
    for name, report in reports:
        check_report(name, report)
        if "shard" not in report:
            raise MergeError(
                f"{name}: not a shard's report (it has no `shard`: it was not made by "
                "`ground-gate run --shard K/N`)"
            )
        shard = ShardReport(name, report)
        if shard.index > shard.count:
            raise MergeError(f"{name}: shard {shard.index}/{shard.count}: K is larger than N")
        shards.append(shard)
    first = shards[0]
    by_index: dict[int, ShardReport] = {}
    for shard in shards:
        if shard.count != first.count:
            raise MergeError(
                f"{shard.label}: split into {shard.count} shards, but {first.label} into "
                f"{first.count}"
            )
        if shard.index in by_index:
            raise MergeError(
                f"{shard.name}: shard {shard.index}/{shard.count} is given twice (also "
                f"{by_index[shard.index].name})"
            )
        by_index[shard.index] = shard
    missing = [i for i in range(1, first.count + 1) if i not in by_index]
    if missing:
        listed = ", ".join(f"{i}/{first.count}" for i in missing[:MISSING_LISTED])
        listed += (
            f" and {len(missing) - MISSING_LISTED} more" if len(missing) > MISSING_LISTED else ""
        )
        raise MergeError(
            f"shard {listed} missing: {len(shards)} of {first.count} shard reports given"
        )
    return [by_index[i] for i in sorted(by_index)]


def _same(
    shards: Sequence[ShardReport], what: str, value: Callable[[Mapping[str, Any]], Any]
) -> None:
    first = shards[0]
    expected = value(first.report)
    for shard in shards[1:]:
        found = value(shard.report)
        if found != expected:
            raise MergeError(
                f"{shard.label}: {what} is not {first.label}'s ({_show(found)} against "
                f"{_show(expected)}); shards must come from one config, data and prompts"
            )


def _show(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 120 else text[:117] + "..."


def _datasets(report: Mapping[str, Any]) -> list[tuple[str, str | None, int | None]]:
    rows = report["shard"]["dataset_rows"]
    return [(d["name"], d.get("digest"), rows.get(d["name"])) for d in report["datasets"]]


def _check_alike(shards: Sequence[ShardReport]) -> None:
    for shard in shards:
        if "resolved_digest" not in shard.report["config"]:
            raise MergeError(f"{shard.label}: the report has no config.resolved_digest")
    _same(shards, "the config (resolved digest)", lambda r: r["config"]["resolved_digest"])
    _same(shards, "the prompt version", lambda r: r["judge"]["prompt_version"])
    _same(shards, "the judge (provider, model, endpoint)", _judge_identity)
    _same(shards, "the dataset list (name, digest, rows)", _datasets)
    _same(shards, "the baseline", lambda r: r["shard"]["baseline_digest"])
    _same(shards, "the on_error", lambda r: r["on_error"])
    _same(shards, "the score list (dataset, score, threshold)", _score_keys)


def _judge_identity(report: Mapping[str, Any]) -> list[Any]:
    """Who judged: the action's URL inputs override the config after its digest is taken,
    so the digest alone would let shards judged by different servers merge."""
    judge = report["judge"]
    return [judge.get("provider"), judge.get("model"), judge.get("endpoint")]


def _score_keys(report: Mapping[str, Any]) -> list[tuple[str, str, Any]]:
    return [(e["dataset"], e["score"], e["threshold"]) for e in report["scores"]]


def _rows(shards: Sequence[ShardReport]) -> list[dict[str, Any]]:
    """Every shard's rows in the unsharded order; a row given twice, or one outside its
    dataset, is refused."""
    order = {name: i for i, (name, _, _) in enumerate(_datasets(shards[0].report))}
    seen: dict[tuple[str, str], str] = {}
    placed: list[tuple[tuple[int, int], dict[str, Any]]] = []
    for shard in shards:
        for row in shard.report["rows"]:
            key = (row["dataset"], row["id"])
            if key in seen:
                raise MergeError(
                    f"{shard.label}: row {row['dataset']}/{row['id']} is also in {seen[key]}"
                )
            if row["dataset"] not in order or "position" not in row:
                raise MergeError(
                    f"{shard.label}: row {row['dataset']}/{row['id']} has no dataset or "
                    "position in the shard"
                )
            seen[key] = shard.label
            placed.append(((order[row["dataset"]], row["position"]), row))
    placed.sort(key=lambda item: item[0])
    return [row for _, row in placed]


def _incomplete(shards: Sequence[ShardReport]) -> str | None:
    reasons = [
        f"shard {s.index}/{s.count}: {s.report['incomplete']}"
        for s in shards
        if s.report["incomplete"]
    ]
    return "; ".join(reasons) or None


def _judge(shards: Sequence[ShardReport]) -> dict[str, Any]:
    """The shards' judge descriptions joined (a shard served from the cache never loaded
    the local model, so only some name its file)."""
    judge: dict[str, Any] = {}
    for shard in shards:
        for key, value in shard.report["judge"].items():
            judge.setdefault(key, value)
    return judge


def _usage(shards: Sequence[ShardReport]) -> dict[str, Usage]:
    total: dict[str, Usage] = {}
    for shard in shards:
        for name, usage in readback.usage_by_metric(shard.report).items():
            total.setdefault(name, Usage()).add(usage)
    return total


def _evidence(shards: Sequence[ShardReport]) -> tuple[str | None, str | None]:
    first = shards[0].report.get("evidence")
    problems = [
        f"shard {s.index}/{s.count}: {s.report['evidence']['problem']}"
        for s in shards
        if s.report.get("evidence", {}).get("problem")
    ]
    return (first["policy"] if first else None), ("; ".join(problems) or None)


def merge_reports(
    reports: Sequence[tuple[str, Mapping[str, Any]]],
    baseline: Mapping[str, Any] | None = None,
    baseline_digest: str | None = None,
) -> Report:
    """The report of the unsharded run, from its N shard reports ((name, report) pairs; the
    name is what messages call it, e.g. its file).

    baseline: the report the shards were compared with (`run --baseline`), whose file's
    "sha256:<hex>" is `baseline_digest`; required when the shards recorded one, and then it
    must be the same file. Given to shards that had none, the merge compares with it.
    Raises MergeError naming the report and the problem.
    """
    try:
        return _merge(reports, baseline, baseline_digest)
    except (KeyError, TypeError, ValueError, IndexError, RecursionError) as exc:
        # schema-valid but inconsistent (a score missing for an `ok` metric, ...)
        raise MergeError(
            f"the shard reports do not fit together ({type(exc).__name__}: {exc})"
        ) from None


def _merge(
    reports: Sequence[tuple[str, Mapping[str, Any]]],
    baseline: Mapping[str, Any] | None,
    baseline_digest: str | None,
) -> Report:
    shards = _shards(reports)
    _check_alike(shards)
    recorded = shards[0].report["shard"]["baseline_digest"]
    if recorded is not None and baseline is None:
        raise MergeError(
            f"the shards were compared with a baseline ({recorded}): give the same report "
            "with --baseline (the action: its baseline input)"
        )
    if recorded is not None and baseline_digest is not None and baseline_digest != recorded:
        raise MergeError(
            f"--baseline is {baseline_digest}, but the shards were compared with {recorded}"
        )
    first = shards[0].report
    placed = _rows(shards)
    rows = [readback.row_result(r) for r in placed]
    names = [d["name"] for d in first["datasets"]]
    thresholds = readback.thresholds(first)
    incomplete = _incomplete(shards)
    gate = evaluate(
        summarise(rows, names, readback.scores_by_metric(first)),
        thresholds,
        first["on_error"],
        incomplete,
        rows=rows,
        baseline=None if baseline is None else baseline_scores(baseline),
    )
    policy, problem = _evidence(shards)
    merged = build_report(
        config_path=first["config"]["path"],
        config_digest=first["config"]["digest"].removeprefix("sha256:"),
        judge=_judge(shards),
        datasets=[(name, count or 0) for name, _, count in _datasets(first)],
        rows=rows,
        gate=gate,
        thresholds=thresholds,
        usage_by_metric=_usage(shards),
        seconds=max(s.report["seconds"] for s in shards),
        on_error=first["on_error"],
        evidence_policy=policy,
        evidence_problem=problem,
        resolved_digest=first["config"]["resolved_digest"].removeprefix("sha256:"),
        dataset_digests={name: d for name, d, _ in _datasets(first) if d is not None},
        not_run=[(n["dataset"], n["id"]) for s in shards for n in s.report.get("not_run", [])],
        texts={(r["dataset"], r["id"]): r["text"] for r in placed if "text" in r},
    )
    _add_costs(merged, shards)
    targets = [(s.name, s.report["targets"]) for s in shards if "targets" in s.report]
    if targets:
        merged["targets"] = merged_record(targets)
    return merged


def _add_costs(merged: Report, shards: Sequence[ShardReport]) -> None:
    """The shards' costs at judge.prices, summed (cost is linear in tokens, so this is the
    unsharded run's), where every shard priced its usage."""
    usage: Any = merged["usage"]
    for name, entry in [("total", usage["total"]), *usage["by_metric"].items()]:
        costs: list[float] = []
        for shard in shards:
            cost = _usage_entry(shard.report, name).get("cost_usd")
            if not isinstance(cost, int | float):
                break
            costs.append(float(cost))
        else:
            entry["cost_usd"] = round(math.fsum(costs), 6)


def _usage_entry(report: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    usage = report["usage"]
    entry: Mapping[str, Any] = (
        usage["total"] if name == "total" else usage["by_metric"].get(name, {})
    )
    return entry


@dataclass(frozen=True)
class MergeOptions:
    reports: tuple[Path, ...]
    baseline: Path | None = None
    output_json: Path | None = None
    output_md: Path | None = None
    output_junit: Path | None = None
    output_html: Path | None = None
    # the action's artifacts: without `baseline`, use the copy a shard left (BASELINE_COPY)
    baseline_copies: bool = False


def merge(options: MergeOptions, echo: Callable[[str], None]) -> Outcome:
    """`ground-gate merge`: read the shard reports, merge them, write the outputs asked
    for; the exit code is the unsharded run's."""
    report, baseline = read_merged(options)
    return finish(
        report,
        baseline,
        options.output_json,
        options.output_md,
        options.output_junit,
        echo,
        html_path=options.output_html,
    )


def read_merged(options: MergeOptions) -> tuple[Report, dict[str, Any] | None]:
    """The merged report of `options.reports` and the baseline it was compared with; nothing
    is written (the action's workflow_run mode renders it itself). Without
    `options.baseline`, shards compared with a baseline are merged with the copy one of them
    left beside its report (BASELINE_COPY), which merge_reports checks by its digest."""
    reports = [(str(path), read_report(path)) for path in options.reports]
    path = options.baseline
    if path is None and options.baseline_copies:
        path = _left_baseline(options.reports, [r for _, r in reports])
    baseline = read_baseline(path) if path else None
    digest = file_digest(path) if path else None
    return merge_reports(reports, baseline, digest), baseline


def _left_baseline(paths: Sequence[Path], reports: Sequence[Mapping[str, Any]]) -> Path | None:
    """The baseline copy a shard compared with one left beside its report (the action's
    shard mode leaves it in its artifact), checked by its digest; None if none left one."""
    for path, report in zip(paths, reports, strict=True):
        recorded = (report.get("shard") or {}).get("baseline_digest")
        copy = path.parent / BASELINE_COPY
        if recorded and copy.is_file():
            if file_digest(copy) != recorded:
                raise MergeError(
                    f"{copy}: not the baseline the shards were compared with ({recorded})"
                )
            return copy
    return None


def matching_reports(directory: Path, pattern: str) -> tuple[Path, ...]:
    """The files a glob relative to `directory` matches (`**` for any depth), sorted and
    relative to it, e.g. `ground-gate-shards/*/report.json` after the workflow downloaded
    each shard's artifact into its own folder; MergeError when nothing matches."""
    found = tuple(sorted(path.relative_to(directory) for path in directory.glob(pattern)))
    if not found:
        raise MergeError(
            f"no shard report matches '{pattern}' in the working directory: download the shard "
            "jobs' artifacts there first"
        )
    return found
