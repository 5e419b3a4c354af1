"""The run in a terminal, for the person who typed the command: a compact summary sized to
the terminal, the verdict on its last line (the markdown is for pull requests: `<details>`
tags and 200-character table lines, its verdict scrolled away at the top).

What it says: the run in one line; each dataset's declines in words (the answers metric);
the checks that failed and which part of each; what the pull request broke against a
baseline (the worst rows first); the worst rows with the unit that explains each; where the
reports were written; the verdict. Every line fits the width; text from the data has its
control characters (terminal escape sequences included) made visible. Plain text; pure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ground_gate.report.anchors import row_key
from ground_gate.report.answers import answer_counts, answer_parts
from ground_gate.report.baseline_rows import is_compared
from ground_gate.report.changes import broke, fixed, moved_text, standing
from ground_gate.report.escape import visible
from ground_gate.report.formatting import (
    before_now,
    failure_text,
    missed_text,
    row_thresholds,
)
from ground_gate.report.selection import carriers, shown_rows
from ground_gate.report.types import Report, ThresholdBounds, UnitEntry

ROWS_SHOWN = 5
MIN_WIDTH = 40
STANDING = {"new": "new", "before": "failing before too"}
VERDICT = {"passed": "PASSED", "failed": "FAILED", "incomplete": "INCOMPLETE"}


def _fit(line: str, width: int) -> str:
    return line if len(line) <= width else line[: width - 1] + "\u2026"


def _text(value: Any) -> str:
    """Data as one line of inert terminal text: control characters shown as U+FFFD."""
    return visible(" ".join(str(value).split()))


def _head(report: Report) -> list[str]:
    rows = sum(d["scored"] for d in report["datasets"])
    said = f"ground-gate: {rows} row(s) in {len(report['datasets'])} dataset(s), judged by "
    said += _text(report["judge"].get("model", "?"))
    if is_compared(report):
        said += f", against the baseline of {_text(report['baseline']['created_at'])}"
    return [said]


def _answers(report: Report) -> list[str]:
    """Per dataset with the answers metric, its declines in words, a line each."""
    lines = []
    for counts in answer_counts(report):
        lines += [f"{_text(counts.dataset)}: {_text(part)}" for _, part in answer_parts(counts)]
    return lines


def _checks(report: Report) -> list[str]:
    failed = [e for e in report["scores"] if e["passed"] is False]
    if not failed:
        return []
    out = ["", "Failing checks:"]
    for e in failed:
        out.append(f"  x {_text(e['dataset'])} {_text(e['score'])}: {_text(failure_text(e))}")
    return out


def _score_changes(change: Any, thresholds: Mapping[str, ThresholdBounds | None]) -> str:
    parts = []
    for s in change.scores:
        limit = thresholds.get(s.score)
        if s.now is None and s.instead is not None:
            parts.append(f"{s.score} {moved_text(s, limit)}")
            continue
        if s.now is None:
            parts.append(f"{s.score} could not be scored")
            continue
        parts.append(f"{s.score} {before_now(s.now, s.before, limit)}{missed_text(s.now, limit)}")
    return ", ".join(parts)


def _broke(report: Report) -> list[str]:
    if not is_compared(report):
        return []
    changes, mended = broke(report), fixed(report)
    out = ["", f"What this change broke: {len(changes)} row(s) newly fail"]
    for change in changes[:ROWS_SHOWN]:
        limits = row_thresholds(report, change.row["dataset"])
        out.append(f"  {_text(row_key(change.row))}: {_score_changes(change, limits)}")
    if len(changes) > ROWS_SHOWN:
        out.append(f"  ... and {len(changes) - ROWS_SHOWN} more")
    if mended:
        out.append(f"Fixed: {len(mended)} row(s) pass what they failed in the baseline")
    return out


def _worst(report: Report) -> list[str]:
    shown = shown_rows(report, ROWS_SHOWN)
    failing = [s for s in shown if s.row["failing"]]
    if not failing:
        return []
    compared = is_compared(report)
    out = ["", "Worst rows:"]
    for s in failing:
        row = s.row
        mark = standing(row, compared)
        note = f" ({STANDING[mark]})" if mark else ""
        scores = ", ".join(_text(f) for f in row["failing"])
        out.append(f"  x {_text(row_key(row))}{note}: fails {scores}")
        by_unit: dict[int, tuple[list[str], UnitEntry]] = {}
        for score, unit in carriers(row, row["failing"]):
            by_unit.setdefault(id(unit), ([], unit))[0].append(score)
        for scores_of, unit in list(by_unit.values())[:2]:
            said = f"{', '.join(scores_of)}: {_text(unit['verdict'])}"
            out.append(f"      {said}: \u201c{_text(unit['text'])}\u201d")
        errors = [n for n, m in row["metrics"].items() if m["status"] == "error"]
        out += [f"      {n}: error: {_text(row['metrics'][n]['error'] or '')}" for n in errors]
    return out


def _written(paths: Sequence[tuple[str, str]]) -> list[str]:
    if not paths:
        return []
    listed = ", ".join(f"{kind} {_text(path)}" for kind, path in paths)
    return ["", f"Reports: {listed}"]


def verdict_line(report: Report, exit_code: int) -> str:
    checked = [e for e in report["scores"] if e["passed"] is not None]
    missed = sum(1 for e in checked if e["passed"] is False)
    said = f"{VERDICT.get(report['status'], report['status'])}: {missed} of {len(checked)} "
    said += "check(s) failed"
    if report["incomplete"]:
        said += f"; the run did not finish ({_text(report['incomplete'])})"
    return f"{said} (exit {exit_code})"


def render_terminal(
    report: Report,
    *,
    width: int,
    exit_code: int,
    written: Sequence[tuple[str, str]] = (),
) -> str:
    """The summary, each line at most `width` characters; the verdict last.
    written: (kind, path) of the reports written, e.g. ("page", "out/report.html")."""
    width = max(width, MIN_WIDTH)
    lines = [*_head(report), *_answers(report), *_checks(report), *_broke(report)]
    lines += _worst(report)
    lines += [*_written(written), "", verdict_line(report, exit_code)]
    return "\n".join(_fit(line, width) for line in lines) + "\n"
