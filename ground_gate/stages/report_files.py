"""A run's report files: the one place they are written, and the one reader of a report file.

`finish` turns a run's (or a merge's) record into its verdicts, its JSON report, markdown,
JUnit and HTML page, writes the files asked for and says how the run ends (`Outcome`).
`ReportFiles` replaces no file it did not write: an output path holding anything but an
earlier ground-gate output of its kind (own_files.py) is refused before the command runs,
and again as the file is written (a target may have made it since), unless `--force`.
`read_report` reads a report file back wherever one enters (`--baseline`, `merge`'s shards,
`report`, the fork-safe workflow_run artifact): a regular file under a size cap, strict JSON
(no NaN, Infinity, out-of-range floats or duplicate keys) and the published schema (types and
ranges), raising the caller's error type. Everything after it may trust the report.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from ground_gate.leaves.errors import ConfigError, GroundGateError
from ground_gate.leaves.exit_codes import EXIT_ERROR, exit_code
from ground_gate.leaves.file_reader import Unreadable, problem, read_capped
from ground_gate.leaves.json_keys import unique_keys
from ground_gate.leaves.masking import mask
from ground_gate.leaves.own_files import Kind, replaces
from ground_gate.render.html import render_html
from ground_gate.render.junit import render_junit
from ground_gate.render.markdown import render_markdown
from ground_gate.report.calibration_types import CalibrationReport
from ground_gate.report.json_report import build_report
from ground_gate.report.readback import baseline_scores
from ground_gate.report.schema import calibration_mismatch, inconsistency, schema_mismatch
from ground_gate.report.types import Report
from ground_gate.review.baseline_rows import compare_rows
from ground_gate.review.review import Review, review_of
from ground_gate.verdict.record import RunRecord, verdicts

MAX_REPORT_BYTES = 512 * 1024 * 1024  # a report ground-gate writes stays far below
# A pull request's artifact read by the privileged workflow_run job: it does not read a pull
# request's gigabytes (json_report keeps the texts a report carries under 24 MiB).
ARTIFACT_MAX_BYTES = 64 * 1024 * 1024

Echo = Callable[[str], None]


# How the command line names each report file (`ground-gate report` names two of them
# --md and --html; the action its own files).
FLAGS = ("--output-json", "--output-md", "--output-junit", "--output-html")
_KINDS: tuple[Kind, Kind, Kind, Kind] = ("json", "markdown", "junit", "html")
_NAMES = ("the JSON report", "the markdown report", "the JUnit XML", "the HTML page")


@dataclass(frozen=True)
class Output:
    """A file a command writes: what it is ("the JSON report"), how the command line names
    it ("--output-json"), where, and its kind (what may be replaced there: own_files.py)."""

    name: str
    option: str
    path: Path
    kind: Kind


@dataclass(frozen=True)
class ReportFiles:
    """Where a command writes its report files; None: not asked for. An existing file is
    replaced only when it is an earlier ground-gate output of the same kind, or with `force`."""

    json: Path | None = None
    markdown: Path | None = None
    junit: Path | None = None
    html: Path | None = None
    force: bool = False  # --force: replace whatever is there
    flags: tuple[str, str, str, str] = FLAGS
    hint: str = "--force overwrites it"  # how a refused file can be written anyway

    def outputs(self) -> dict[Kind, Output]:
        """Each report file asked for, by its kind."""
        paths = (self.json, self.markdown, self.junit, self.html)
        return {
            kind: Output(name, flag, path, kind)
            for kind, name, flag, path in zip(_KINDS, _NAMES, self.flags, paths, strict=True)
            if path is not None
        }

    def check_apart(
        self, inputs: Sequence[tuple[str, Path]], others: Sequence[Output] = ()
    ) -> None:
        """ConfigError, before anything is run, when two files the command writes are one file
        or one of them is one of the command's inputs ((what it is, path) pairs): one would
        silently overwrite the other; or when one would replace a file ground-gate did not
        write (`refusal`). `others`: what it writes besides the report files (run's
        responses.jsonl)."""
        written = [*self.outputs().values(), *others]
        seen: list[tuple[str, Path]] = []
        for output in written:
            for other, earlier in [*seen, *inputs]:
                if _same_file(output.path, earlier):
                    path = output.path
                    both = str(path) if str(path) == str(earlier) else f"{path} and {earlier}"
                    raise ConfigError(
                        f"{output.name} and {other} are one file ({both}): give each file "
                        "written a path of its own, apart from the files the command reads"
                    )
            seen.append((output.name, output.path))
        refused = [problem for output in written if (problem := self.refusal(output))]
        if refused:
            raise ConfigError("; ".join(refused))

    def refusal(self, output: Output) -> str | None:
        """Why `output` may not be written: a directory is there, or (without `force`) a file
        that is not an earlier ground-gate output of its kind; None: it may."""
        path = output.path
        if path.is_dir():
            return f"{output.option} {path}: is a directory, expected a file to write"
        if self.force:
            return None
        replaced = replaces(path, output.kind)
        return None if replaced is None else f"{output.option} {path}: {replaced}; {self.hint}"

    def write(self, files: Sequence[tuple[Output | None, Callable[[], str]]], echo: Echo) -> bool:
        """Write the files asked for ((output or None, its text made on demand) pairs), every
        secret masked (masking.py: a row or a judge's message may quote a key). Each is checked
        again as it is written (a target may have made a file there since the run began); a
        file refused or that cannot be written is named (exit 2), and the others are still
        written."""
        written = True
        for output, text in files:
            if output is None:
                continue
            refused = self.refusal(output)
            if refused is not None:
                echo(f"ground-gate: error: {refused}")
                written = False
                continue
            try:
                output.path.parent.mkdir(parents=True, exist_ok=True)
                output.path.write_text(mask(text()), encoding="utf-8")
            except OSError as exc:
                echo(f"ground-gate: error: cannot write {output.path}: {exc.strerror or exc}")
                written = False
        return written


@dataclass(frozen=True)
class Outcome:
    """How a run (or a merge) ended: its JSON report, the markdown shown to people, and the
    exit code."""

    report: Report
    review: Review
    markdown: str
    exit_code: int


@dataclass(frozen=True)
class CalibrationOutcome:
    """How `calibrate` ended: its own report, its markdown, and the exit code."""

    report: CalibrationReport
    markdown: str
    exit_code: int


@dataclass(frozen=True)
class Reviewed:
    """A finished report and its review, each made once: every renderer reads both."""

    report: Report
    review: Review


def reviewed(record: RunRecord, baseline: Report | None) -> Reviewed:
    """The record's report (`judged`) and the review of it, the one pair a run renders."""
    report = judged(record, baseline)
    return Reviewed(report, review_of(report))


def finish(made: Reviewed, files: ReportFiles, echo: Echo) -> Outcome:
    """A finished report's files written, and how the run ends. A shard's own verdict covers
    its rows only: it exits 0 once complete, and the merge gates."""
    report, review = made.report, made.review
    markdown = render_markdown(report, review)
    outputs = files.outputs()
    texts: list[tuple[Output | None, Callable[[], str]]] = [
        (outputs.get("json"), lambda: report_text(report)),
        (outputs.get("markdown"), lambda: markdown),
        (outputs.get("junit"), lambda: render_junit(report, review)),
        (outputs.get("html"), lambda: render_html(report, review)),
    ]
    written = files.write(texts, echo)
    code = exit_code(
        passed=report["passed"],
        incomplete=bool(report["incomplete"]),
        fail_on_threshold="shard" not in report,
    )
    return Outcome(report, review, markdown, code if written else EXIT_ERROR)


def judged(record: RunRecord, baseline: Report | None) -> Report:
    """The JSON report of `record` with its verdicts, against the baseline's rows if given;
    then each row beside itself in the baseline (report/baseline_rows.py), so the JSON report
    carries what the pull request broke for every renderer."""
    report = build_report(
        record, verdicts(record, None if baseline is None else baseline_scores(baseline))
    )
    return report if baseline is None else compare_rows(report, baseline)


def report_text(report: Report | CalibrationReport) -> str:
    """The JSON report as written to a file or stdout."""
    return json.dumps(report, indent=2, ensure_ascii=False) + "\n"


def read_report(
    path: Path,
    *,
    name: str | None = None,
    error: type[GroundGateError] = ConfigError,
    max_bytes: int = MAX_REPORT_BYTES,
) -> Report:
    """The JSON report at `path`, checked: `error` naming the file and the problem otherwise.
    name: what messages call it (default: the path; e.g. "baseline <path>")."""
    document = read_json(path, name=name, error=error, max_bytes=max_bytes)
    return checked_report(document, name or str(path), error)


def checked_report(
    document: object, name: str, error: type[GroundGateError] = ConfigError
) -> Report:
    """A JSON document as a run's report once it holds to the published schema and holds
    each row once; `error` naming it (`name`) and the problem otherwise."""
    problem = schema_mismatch(document) or inconsistency(cast(Report, document))
    if problem is not None:
        raise error(f"{name}: {problem}")
    return cast(Report, document)


def checked_calibration(document: object, name: str) -> CalibrationReport:
    """A JSON document as a calibration's report once it holds to its published schema;
    ConfigError naming it (`name`) and the problem otherwise."""
    problem = calibration_mismatch(document)
    if problem is not None:
        raise ConfigError(f"{name}: {problem}")
    return cast(CalibrationReport, document)


def read_json(
    path: Path,
    *,
    name: str | None = None,
    error: type[GroundGateError] = ConfigError,
    max_bytes: int = MAX_REPORT_BYTES,
) -> Any:
    """The strict JSON document at `path` (a regular file of at most `max_bytes`)."""
    name = name or str(path)
    text = _read_text(path, name, error, max_bytes)
    try:
        return json.loads(
            text,
            parse_constant=_no_constant,
            parse_float=_finite,
            object_pairs_hook=unique_keys,
        )
    except json.JSONDecodeError as exc:
        raise error(
            f"{name}: not JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None
    except ValueError as exc:
        raise error(f"{name}: not JSON ({exc})") from None
    except RecursionError:
        raise error(f"{name}: JSON nested too deeply to be a report") from None


def _read_text(path: Path, name: str, error: type[GroundGateError], max_bytes: int) -> str:
    try:
        raw = read_capped(path, max_bytes)
    except Unreadable as exc:
        too_large = f"larger than {max_bytes >> 20} MiB, not a report ground-gate writes"
        raise error(f"{name}: {problem(exc, 'a JSON report', too_large)}") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"{name}: not UTF-8 (byte {exc.start})") from None


def _same_file(a: Path, b: Path) -> bool:
    """Whether writing `a` would overwrite `b`: one regular file (or one path not yet made). A
    pipe or a terminal (/dev/stdout and /dev/stderr after `2>&1`) may take two documents."""
    try:
        if a.exists() and b.exists():
            return a.is_file() and b.is_file() and a.samefile(b)
        return a.resolve() == b.resolve()
    except (OSError, RuntimeError, ValueError):  # a loop of links, a NUL in a path
        return str(a) == str(b)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text[:40]} is out of range for a number")
    return value
