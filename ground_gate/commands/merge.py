"""`ground-gate merge`: the reports of `run --shard K/N` joined into the report of the run.

Each shard report is read by the one report reader and read back into its record; the records
are joined (shard_merge.py) and the joined record goes through the run's own verdicts and
report files (report_files.finish), so the merge's report, comment and exit code are the
unsharded run's. The GitHub Action's merge mode is this same code.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ground_gate.datasets.identity import bytes_digest, file_digest
from ground_gate.leaves.errors import MergeError
from ground_gate.leaves.file_reader import Unreadable, problem, read_capped
from ground_gate.report.readback import record_of
from ground_gate.report.types import Report
from ground_gate.stages.report_files import (
    MAX_REPORT_BYTES,
    Echo,
    Outcome,
    ReportFiles,
    finish,
    read_report,
    reviewed,
)
from ground_gate.stages.shard_merge import merge_records
from ground_gate.verdict.record import RunRecord

# The baseline a shard was compared with, copied beside its report by the action's shard
# mode, so that the merge (and the fork-safe workflow_run merge, which checks nothing out)
# can compare with the same file without being given it.
BASELINE_COPY = "baseline.json"


@dataclass(frozen=True)
class MergeOptions:
    reports: tuple[Path, ...]
    baseline: Path | None = None
    files: ReportFiles = field(default_factory=ReportFiles)
    # the action's artifacts: without `baseline`, use the copy a shard left (BASELINE_COPY)
    baseline_copies: bool = False
    max_report_bytes: int = MAX_REPORT_BYTES  # per file read (shards and the baseline)


@dataclass(frozen=True)
class Merged:
    record: RunRecord
    baseline: Report | None  # the report the merge compares with


def merge(options: MergeOptions, echo: Echo) -> Outcome:
    """`ground-gate merge`: read the shard reports, join them, write the report files asked
    for; the exit code is the unsharded run's."""
    merged = read_merged(options)
    return finish(reviewed(merged.record, merged.baseline), options.files, echo)


def read_merged(options: MergeOptions) -> Merged:
    """The joined record of `options.reports` and the baseline it is compared with; nothing
    is written. Without `options.baseline`, shards compared with a baseline are joined with
    the copy one of them left beside its report (BASELINE_COPY), checked by its digest."""
    options.files.check_apart(
        [
            *[("a shard report", path) for path in options.reports],
            *([("the baseline", options.baseline)] if options.baseline else []),
        ]
    )
    reports = [
        (path, read_report(path, error=MergeError, max_bytes=options.max_report_bytes))
        for path in options.reports
    ]
    baseline_path = options.baseline
    if baseline_path is None and options.baseline_copies:
        baseline_path = _left_baseline(reports, options.max_report_bytes)
    baseline = None
    if baseline_path is not None:
        baseline = read_report(
            baseline_path,
            name=f"baseline {baseline_path}",
            error=MergeError,
            max_bytes=options.max_report_bytes,
        )
    digest = file_digest(baseline_path) if baseline_path else None
    return merged_reports([(str(path), report) for path, report in reports], baseline, digest)


def merged_reports(
    reports: Sequence[tuple[str, Report]],
    baseline: Report | None = None,
    baseline_digest: str | None = None,
) -> Merged:
    """The joined record of shard reports already read and checked ((name, report) pairs;
    the name is what messages call it, e.g. its file), compared with `baseline`, whose
    file's "sha256:<hex>" is `baseline_digest`."""
    records = [(name, _record(name, report)) for name, report in reports]
    return Merged(merge_records(records, baseline_digest), baseline)


def _record(name: str, report: Report) -> RunRecord:
    try:
        return record_of(report)
    except ValueError as exc:
        raise MergeError(f"{name}: the report does not hold together ({exc})") from None


def _left_baseline(reports: Sequence[tuple[Path, Report]], max_bytes: int) -> Path | None:
    """The baseline copy a shard compared with one left beside its report (the action's
    shard mode leaves it in its artifact), checked by its digest, its size checked first
    (a pull request's artifact is never hashed past the cap); None if none left one."""
    for path, report in reports:
        shard = report.get("shard")
        recorded = shard["baseline_digest"] if shard else None
        copy = path.parent / BASELINE_COPY
        if recorded and copy.is_file():
            try:
                digest = bytes_digest(read_capped(copy, max_bytes))
            except Unreadable as exc:
                problem_text = problem(exc, "a JSON report", f"larger than {max_bytes >> 20} MiB")
                raise MergeError(f"{copy}: {problem_text}") from None
            if digest != recorded:
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
