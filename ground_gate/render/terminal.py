"""The run in a terminal, for the person who typed the command: a compact summary sized to
the terminal, the verdict last (the markdown is for pull requests: `<details>` tags and
200-character table lines, its verdict scrolled away at the top).

What it says: the run in one line; each dataset's declines in words (the answers metric);
each dataset's checks, passing or not, each with its status (report/check_status.py) and
its score against its threshold (figures.py's one spelling of each number), a failing
check's reason beneath it, the same reason of several checks said once; what the pull
request broke against a baseline (the worst rows first); the worst rows with the unit that
explains each; where the reports were written; the verdict, with the cause of a run that did
not finish, whole.

Nothing is cut: a line longer than the width is wrapped at its words, its continuation
indented under its text (a word longer than the line is broken), so a quoted sentence or a
threshold is read whole. Widths are counted as a terminal shows them (an emoji mark takes two
columns). Text from the data has its control characters (terminal escape sequences
included) made visible. Plain text; pure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ground_gate.render.anchors import row_key
from ground_gate.render.escape import visible
from ground_gate.render.terminal_text import GLUE, MIN_TEXT, clip, columns, glued, wrap
from ground_gate.report.types import Report, ScoreEntry, ThresholdBounds, UnitEntry
from ground_gate.review import words
from ground_gate.review.causes import Cause
from ground_gate.review.changes import moved_text
from ground_gate.review.check_status import ORDER, CheckStatus
from ground_gate.review.figures import (
    FAIL,
    WARN,
    before_now,
    bounds_of,
    bounds_threshold,
    missed,
    missed_text,
    row_thresholds,
    score_cell,
    threshold_text,
)
from ground_gate.review.review import Review
from ground_gate.review.selection import carriers
from ground_gate.review.words import answer_parts
from ground_gate.verdict.gate import describe

ROWS_SHOWN = 5
MIN_WIDTH = 40
VERDICT = {"passed": "PASSED", "failed": "FAILED", "incomplete": "INCOMPLETE"}


def _text(value: Any) -> str:
    """Data as inert terminal text on one line: control characters shown as U+FFFD."""
    return visible(" ".join(str(value).split()))


def _head(report: Report, review: Review) -> list[tuple[str, str, int]]:
    """The run in a line: its rows, its judge, and the baseline it was compared with, named as
    the comment names it (baseline_name.py), with a warning when another judge scored it."""
    rows = sum(d["scored"] for d in report["datasets"])
    model = _text(report["judge"].get("model", "?"))
    said = words.RUN_HEAD.format(
        rows=words.plural(rows, "row"),
        datasets=words.plural(len(report["datasets"]), "dataset"),
        model=model,
    )
    name = review.baseline if review.compared else None
    if name is None:
        return [("", said, 2)]
    where = f"{GLUE}@{GLUE}".join(_text(part) for part in (name.branch, name.commit) if part)
    said += words.AGAINST.format(
        where=words.BASELINE_FROM.format(where=where) if where else "",
        when=name.age or f"on {_text(words.moment(report['baseline']['created_at']))}",
        rows=words.plural(name.rows, "row"),
        status=_text(name.status),
    )
    out = [("", said, 2), *_judging(review)]
    if name.run_url:
        out.append((f"  {words.ITS_RUN}", _text(name.run_url), 4))
    if name.other_judge is not None:
        warned = words.OTHER_JUDGE.format(baseline=_text(name.other_judge), model=model)
        out.append((f"{WARN} ", warned, 3))
    return out


def _judging(review: Review) -> list[tuple[str, str, int]]:
    """The rows reused from the baseline, and those judging stopped before, a line each."""
    if review.judging is None:
        return []
    lines = review.judging.lines(lambda d, i: f"{_text(d)}/{_text(i)}", _text, code=str)
    return [("  ", line, 2) for line in lines]


def _answers(review: Review) -> list[tuple[str, str, int]]:
    """Per dataset with the answers metric, its declines in words, a line each."""
    lines = []
    for counts in review.answers:
        lines += [(f"{_text(counts.dataset)}: ", _text(p), 2) for _, p in answer_parts(counts)]
    return lines


def _why(entry: ScoreEntry, status: CheckStatus) -> str:
    """Why a check failed beyond what its line says: the gate's reason less the level it
    missed (the line says it: '0.05 < 0.50'); '' when that was all. For a pass past max_drop
    within noise, the baseline's reason (how much worse, and why that still passes)."""
    change = entry.get("baseline")
    if status.kind == "noise" and change is not None:
        return change["reason"]
    if entry["passed"] is None:
        return entry["reason"] if entry["threshold"] else ""
    if entry["passed"]:
        return ""
    reason = entry["reason"]
    mean, bounds = entry["mean"], bounds_of(entry["threshold"])
    if mean is not None and bounds:
        level = describe(mean, bounds_threshold(entry["threshold"]))
        if reason == level:
            return ""
        reason = reason.removeprefix(f"{level}; ")
    return reason


def _against(entry: ScoreEntry) -> str:
    """The score against its threshold: '0.77 (≥ 0.50)', '0.05 < 0.50' (the bound it
    misses said by the score: figures.score_cell), '0.908 → 0.854 (≥ 0.75, drop ≤ 0.02)'."""
    cell = score_cell(entry)
    mean = entry["mean"]
    if mean is not None and missed(mean, entry["threshold"]) and entry["passed"] is False:
        return cell
    return cell + threshold_text(entry["threshold"])


def _unscored(checks: Sequence[ScoreEntry], review: Review) -> dict[str, list[str]]:
    """A reason shared by failing checks that have no score, and its checks: said once."""
    shared: dict[str, list[str]] = {}
    for e in checks:
        if e["mean"] is None and e["passed"] is False:
            shared.setdefault(_why(e, review.status(e)), []).append(e["score"])
    return {reason: scores for reason, scores in shared.items() if len(scores) > 1}


def _checks_of(entries: Sequence[ScoreEntry], review: Review) -> list[tuple[str, str, int]]:
    """One dataset's checks, failing first: mark, score, status, score against threshold, and
    why beneath; the scores with no threshold on one line."""
    kinds = {id(e): review.status(e) for e in entries}
    checks = sorted(
        (e for e in entries if kinds[id(e)].mark), key=lambda e: ORDER[kinds[id(e)].kind]
    )
    folded = _unscored(checks, review)
    said_once = {score for scores in folded.values() for score in scores}
    lined = [e for e in checks if not (e["score"] in said_once and e["mean"] is None)]
    pad = max((len(e["score"]) for e in lined), default=0)
    out = []
    for e in lined:
        status = kinds[id(e)]
        first = f"  {status.mark} {e['score']:<{pad}}  "
        out.append((first, f"{status.word}: {glued(_text(_against(e)))}", columns(first)))
        if why := _why(e, status):
            out.append((" " * columns(first), _text(why), columns(first)))
    for reason, scores in folded.items():
        them = reason.replace("this score", "them") if "this score" in reason else reason
        said = f"{words.plural(len(scores), 'score')} fail: {_text(them)} ({', '.join(scores)})"
        out.append((f"  {FAIL} ", said, 5))
    return out


def _checks(report: Report, review: Review) -> list[tuple[str, str, int]]:
    """Each dataset's checks, a line each; the scores with no threshold on one line."""
    out: list[tuple[str, str, int]] = []
    for dataset in report["datasets"]:
        name = dataset["name"]
        entries = [e for e in report["scores"] if e["dataset"] == name]
        checked = [e for e in entries if e["passed"] is not None]
        rows = words.plural(dataset["rows"], "row")
        if dataset["scored"] != dataset["rows"]:
            rows = f"{dataset['scored']} of {rows} scored"
        said = review.checks_of[name] if checked else "no check"
        out += [("", "", 0), ("", f"{_text(name)} ({rows}): {said}", 2)]
        out += _checks_of(entries, review)
    return out


def _score_changes(change: Any, thresholds: Mapping[str, ThresholdBounds | None]) -> str:
    parts = []
    for s in change.scores:
        limit = thresholds.get(s.score)
        if s.now is None and s.instead is not None:
            parts.append(f"{s.score} {glued(moved_text(s, limit))}")
            continue
        if s.now is None:
            parts.append(words.COULD_NOT_SCORE.format(score=s.score))
            continue
        figures = f"{before_now(s.now, s.before, limit)}{missed_text(s.now, limit)}"
        parts.append(f"{s.score} {glued(figures)}")
    return ", ".join(parts)


def _answer_line(cause: Cause, width: int) -> tuple[str, str, int]:
    """The first row's whole answer, the baseline's then now, each cut to about a line."""
    room = max(width - 12, MIN_TEXT)
    now = f"\u201c{clip(_text(cause.answer or ''), room)}\u201d"
    who = f"{_text(row_key(cause.rows[0].row))} " if len(cause.rows) > 1 else ""
    if cause.answer_before is None:
        return ("    ", f"{who}said {now}", 6)
    before = f"\u201c{clip(_text(cause.answer_before), room)}\u201d"
    return ("    ", f"{who}said {before} \u2192 now {now}", 6)


def _cause_line(cause: Cause) -> str:
    """'240 rows now decline: “...”, where the baseline answered; answered fails: a, b and 238
    more' (a group: the first ROWS_SHOWN rows named), in the comment's words."""
    names = ", ".join(_text(row_key(c.row)) for c in cause.rows[:ROWS_SHOWN])
    more = len(cause.rows) - ROWS_SHOWN
    names += words.AND_MORE.format(count=more) if more > 0 else ""
    what = words.cause_what(cause, lambda t: f"\u201c{clip(_text(t), 80)}\u201d", _text)
    scores = [_text(s) for s in cause.scores]
    return words.cause_line(words.plural(len(cause.rows), "row"), what, scores, names)


def _broke(report: Report, review: Review, width: int) -> list[tuple[str, str, int]]:
    """What broke, cause by cause (review/causes.py, the comment's groups): a row alone with
    its scores, a group with its count and rows; a decline (or the like) with the first row's
    answer, old and new; the first ROWS_SHOWN causes, the rest counted."""
    if not review.compared:
        return []
    changes, mended = review.broke, review.fixed
    said = f"{words.WHAT_BROKE}: {words.newly_fail(len(changes))}"
    out = [("", "", 0), ("", said, 2)]
    for cause in review.causes[:ROWS_SHOWN]:
        if len(cause.rows) == 1:
            change = cause.rows[0]
            limits = row_thresholds(report, change.row["dataset"])
            line = f"{_text(row_key(change.row))}: {_score_changes(change, limits)}"
        else:
            line = _cause_line(cause)
        out.append(("  ", line, 4))
        if cause.answers:
            out.append(_answer_line(cause, width))
    rest = review.causes[ROWS_SHOWN:]
    if rest:
        rows = sum(len(c.rows) for c in rest)
        more = words.MORE_CAUSES.format(
            rows=words.plural(rows, "more row"), causes=words.plural(len(rest), "other cause")
        )
        out.append(("  ", f"... {more}", 4))
    if mended:
        out.append(("", words.fixed_said(len(mended)), 2))
    return out


def _worst(review: Review) -> list[tuple[str, str, int]]:
    # the rows the change broke are said above, under "what this change broke"
    failing = [s for s in review.others[:ROWS_SHOWN] if s.row["failing"]]
    if not failing:
        return []
    compared = review.compared
    what = (words.FAILED_BEFORE_TOO if compared else words.WORST_ROWS) + ":"
    out = [("", "", 0), ("", what, 2)]
    for s in failing:
        row = s.row
        scores = ", ".join(_text(f) for f in row["failing"])
        out.append((f"  {FAIL} ", words.FAILS.format(row=_text(row_key(row)), scores=scores), 5))
        by_unit: dict[int, tuple[list[str], UnitEntry]] = {}
        for score, unit in carriers(row, row["failing"]):
            by_unit.setdefault(id(unit), ([], unit))[0].append(score)
        for scores_of, unit in list(by_unit.values())[:2]:
            said = f"{', '.join(scores_of)}: {_text(unit['verdict'])}"
            out.append(("      ", f"{said}: \u201c{_text(unit['text'])}\u201d", 8))
        errors = [n for n, m in row["metrics"].items() if m["status"] == "error"]
        for n in errors:
            out.append(("      ", f"{n}: error: {_text(row['metrics'][n]['error'] or '')}", 8))
    return out


def _written(paths: Sequence[tuple[str, str]]) -> list[tuple[str, str, int]]:
    if not paths:
        return []
    listed = ", ".join(f"{kind} {_text(path)}" for kind, path in paths)
    return [("", "", 0), ("Reports: ", listed, 2)]


def verdict_line(report: Report, review: Review, exit_code: int) -> str:
    """'FAILED (exit 1): 2 of 6 checks failed', 'PASSED (exit 0): 6 of 6 checks passed' (the
    count the verdict rests on, as the comment says it); a run that did not finish says why,
    whole, at the end (the last line read)."""
    said = f"{VERDICT.get(report['status'], report['status'])} (exit {exit_code}): "
    said += review.checks
    if report["incomplete"]:
        said += "; " + words.NOT_FINISHED.format(reason=_text(report["incomplete"]))
    return said


def render_terminal(
    report: Report,
    review: Review,
    *,
    width: int,
    exit_code: int,
    written: Sequence[tuple[str, str]] = (),
) -> str:
    """The summary, each line at most `width` columns (wrapped, never cut); the verdict last.
    written: (kind, path) of the reports written, e.g. ("page", "out/report.html")."""
    width = max(width, MIN_WIDTH)
    parts = [*_head(report, review), *_answers(review), *_checks(report, review)]
    parts += [*_broke(report, review, width), *_worst(review), *_written(written), ("", "", 0)]
    parts.append(("", verdict_line(report, review, exit_code), 2))
    return "".join(line + "\n" for p in parts for line in wrap(p[0], p[1], width, p[2]))
