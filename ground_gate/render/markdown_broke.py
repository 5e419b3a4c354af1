"""The comment's "What this pull request broke": the rows that newly fail grouped by cause
(review/causes.py), each cause said once with the rows it broke (a row alone: with its
scores and changed sentences; rows that now decline alike: their answer, and the first row's
answer old and new), the first CAUSES_SHOWN causes, the rest counted with a link to the page
(the page shows as many first); then the rows fixed. Each row's scores are in the Rows table
and on the page, a link away. Markdown; every string from the data escaped.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ground_gate.render.anchors import row_link
from ground_gate.render.escape import cell, id_cell, ident
from ground_gate.render.markdown_rows import (
    ANSWER_CHARS,
    broke_entry,
    row_name,
    row_thresholds_by_dataset,
    score_change,
)
from ground_gate.report.types import Report, ThresholdBounds
from ground_gate.review import words
from ground_gate.review.causes import CAUSES_SHOWN, Cause
from ground_gate.review.changes import RowChange
from ground_gate.review.review import Review
from ground_gate.review.words import plural

ROWS_NAMED = 10  # of a cause's rows, named in its line; the rest counted
FIXED_SHOWN = 20


def _names(rows: Sequence[RowChange], page_url: str | None) -> str:
    named = []
    for change in rows[:ROWS_NAMED]:
        row = change.row
        name = f"{cell(row['dataset'], 60)} / {id_cell(row['id'])}"
        named.append(f"[{name}]({row_link(page_url, row)})" if page_url else name)
    more = words.AND_MORE.format(count=len(rows) - ROWS_NAMED) if len(rows) > ROWS_NAMED else ""
    return ", ".join(named) + more


def _quoted(text: str) -> str:
    return f"\u201c{cell(text, 160)}\u201d"


def _what(cause: Cause) -> str:
    """What the rows now do, in words.cause_what's wording."""
    return words.cause_what(cause, _quoted, lambda verdict: f"*{cell(verdict, 40)}*")


def _first_answer(cause: Cause, page_url: str | None) -> list[str]:
    """The first row's whole answer, the baseline's then now: what a decline replaced."""
    row = cause.rows[0].row
    now = f"\u201c{cell(cause.answer or '', ANSWER_CHARS)}\u201d"
    if cause.answer_before is None:
        return [f"  - {row_name(row, page_url)} " + words.SAID.format(now=now)]
    before = f"\u201c{cell(cause.answer_before, ANSWER_CHARS)}\u201d"
    said = words.SAID_BEFORE_NOW.format(before=before, now=now)
    return [f"  - {row_name(row, page_url)} {said}"]


def _cause_line(cause: Cause, page_url: str | None) -> list[str]:
    count = f"**{plural(len(cause.rows), 'row')}**"
    scores = [ident(s) for s in cause.scores]
    line = "- " + words.cause_line(count, _what(cause), scores, _names(cause.rows, page_url))
    return [line, *(_first_answer(cause, page_url) if cause.answers else [])]


def _rest(causes: Sequence[Cause], page_url: str | None) -> list[str]:
    """'- and 12 more rows in 4 other causes: on the page', past the causes shown."""
    if not causes:
        return []
    rows = sum(len(c.rows) for c in causes)
    where = f"[{words.ON_THE_PAGE}]({page_url}#broke)" if page_url else words.ON_THE_PAGE
    more = words.MORE_CAUSES.format(
        rows=plural(rows, "more row"), causes=plural(len(causes), "other cause")
    )
    return [f"- {more}: {where}"]


def what_broke(report: Report, review: Review, page_url: str | None = None) -> list[str]:
    """The rows that newly fail, by cause (worst first), each row's scores folded below, and
    the rows fixed; one line when no row changed verdict; nothing without a baseline."""
    if not review.compared:
        return []
    changes, mended = review.broke, review.fixed
    if not changes and not mended:
        return [words.NO_ROW_CHANGED]
    thresholds = row_thresholds_by_dataset(report)
    out = [f"### {words.WHAT_BROKE}: {words.newly_fail(len(changes))}", ""]
    for cause in review.causes[:CAUSES_SHOWN]:
        if len(cause.rows) == 1:  # a row alone: its scores and sentences, as they changed
            (change,) = cause.rows
            out += broke_entry(change, thresholds[change.row["dataset"]], page_url)
        else:
            out += _cause_line(cause, page_url)
    out += _rest(review.causes[CAUSES_SHOWN:], page_url)
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
    more = (
        words.AND_MORE.format(count=len(changes) - FIXED_SHOWN)
        if len(changes) > FIXED_SHOWN
        else ""
    )
    return f"{words.fixed_said(len(changes))}: {', '.join(listed)}{more}."
