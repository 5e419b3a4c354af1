"""The comment's "What this pull request broke": the rows that newly fail grouped by cause
(report/causes.py), each cause said once with the rows it broke (a row alone: with its
scores and changed sentences); then the rows fixed. Each row's scores are in the Rows table
and on the page, a link away. Markdown; every string from the data escaped.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ground_gate.render.anchors import row_link
from ground_gate.render.escape import cell, id_cell, ident
from ground_gate.render.markdown_rows import (
    broke_entry,
    row_name,
    row_thresholds_by_dataset,
    score_change,
)
from ground_gate.report.types import Report, ThresholdBounds
from ground_gate.review.causes import Cause
from ground_gate.review.changes import RowChange
from ground_gate.review.formatting import plural
from ground_gate.review.review import Review

ROWS_NAMED = 10  # of a cause's rows, named in its line; the rest counted
FIXED_SHOWN = 20


def _names(rows: Sequence[RowChange], page_url: str | None) -> str:
    named = []
    for change in rows[:ROWS_NAMED]:
        row = change.row
        name = f"{cell(row['dataset'], 60)} / {id_cell(row['id'])}"
        named.append(f"[{name}]({row_link(page_url, row)})" if page_url else name)
    more = f" and {len(rows) - ROWS_NAMED} more" if len(rows) > ROWS_NAMED else ""
    return ", ".join(named) + more


def _quoted(text: str) -> str:
    return f"\u201c{cell(text, 160)}\u201d"


def _what(cause: Cause) -> str:
    """What the rows now say, or what changed without a new sentence."""
    one = len(cause.rows) == 1
    if cause.said:
        said = "; ".join(f"{_quoted(t)} *{cell(v, 40)}*" for t, v in cause.said)
        vary = " (with other numbers from row to row)" if cause.numbers_vary else ""
        if cause.was_varies:
            was = f", in place of sentences that differ (the first: {_quoted(cause.was[0])})"
        elif cause.was:
            like = " or the like" if not one else ""
            was = f", where the baseline said {_quoted(cause.was[0])}{like}"
        else:
            was = ", added"
        return f"now {'says' if one else 'say'} {said}{vary}{was}"
    if cause.was:
        return f"no longer {'says' if one else 'say'} {_quoted(cause.was[0])}"
    return f"{'says' if one else 'say'} what the baseline said: the verdict changed, not the answer"


def _cause_line(cause: Cause, page_url: str | None) -> list[str]:
    fails = " and ".join(ident(s) for s in cause.scores)
    verb = "fails" if len(cause.scores) == 1 else "fail"
    count = plural(len(cause.rows), "row")
    return [f"- **{count}** {_what(cause)}; {fails} {verb}: {_names(cause.rows, page_url)}"]


def what_broke(report: Report, review: Review, page_url: str | None = None) -> list[str]:
    """The rows that newly fail, by cause (worst first), each row's scores folded below, and
    the rows fixed; one line when no row changed verdict; nothing without a baseline."""
    if not review.compared:
        return []
    changes, mended = review.broke, review.fixed
    if not changes and not mended:
        return ["No row changed verdict since the baseline."]
    thresholds = row_thresholds_by_dataset(report)
    said = f"{plural(len(changes), 'row')} newly fail" if changes else "no row newly fails"
    out = [f"### What this pull request broke: {said}", ""]
    for cause in review.causes:
        if len(cause.rows) == 1:  # a row alone: its scores and sentences, as they changed
            (change,) = cause.rows
            out += broke_entry(change, thresholds[change.row["dataset"]], page_url)
        else:
            out += _cause_line(cause, page_url)
    if mended:
        out += ["", _fixed(mended, thresholds, page_url)]
    return out


def _fixed(
    changes: Sequence[RowChange],
    thresholds: Mapping[str, Mapping[str, ThresholdBounds | None]],
    page_url: str | None,
) -> str:
    listed = []
    for change in changes[:FIXED_SHOWN]:
        limits = thresholds[change.row["dataset"]]
        said = ", ".join(score_change(s, limits.get(s.score)) for s in change.scores)
        listed.append(f"{row_name(change.row, page_url)} ({said})")
    more = f" and {len(changes) - FIXED_SHOWN} more" if len(changes) > FIXED_SHOWN else ""
    did = "passes what it" if len(changes) == 1 else "pass what they"
    return (
        f"Fixed: {plural(len(changes), 'row')} {did} failed in the baseline: "
        f"{', '.join(listed)}{more}."
    )
