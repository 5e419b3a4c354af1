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
from ground_gate.review.causes import CAUSES_SHOWN, Cause, answer_words
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


def _answered(cause: Cause) -> str:
    """'now decline: “The documentation does not say.”, where the baseline answered'."""
    doing, before = answer_words(cause)
    vary = " (with other numbers from row to row)" if cause.numbers_vary else ""
    before = f", {before}" if before else ""
    return f"{doing}: {_quoted(cause.answer or '')}{vary}{before}"


def _first_answer(cause: Cause, page_url: str | None) -> list[str]:
    """The first row's whole answer, the baseline's then now: what a decline replaced."""
    row = cause.rows[0].row
    now = f"\u201c{cell(cause.answer or '', ANSWER_CHARS)}\u201d"
    if cause.answer_before is None:
        return [f"  - {row_name(row, page_url)} said {now}"]
    before = f"\u201c{cell(cause.answer_before, ANSWER_CHARS)}\u201d"
    return [f"  - {row_name(row, page_url)} said {before} \u2192 now {now}"]


def _cause_line(cause: Cause, page_url: str | None) -> list[str]:
    fails = " and ".join(ident(s) for s in cause.scores)
    verb = "fails" if len(cause.scores) == 1 else "fail"
    count = plural(len(cause.rows), "row")
    what = _answered(cause) if cause.answers else _what(cause)
    line = f"- **{count}** {what}; {fails} {verb}: {_names(cause.rows, page_url)}"
    return [line, *(_first_answer(cause, page_url) if cause.answers else [])]


def _rest(causes: Sequence[Cause], page_url: str | None) -> list[str]:
    """'- and 12 more rows in 4 other causes: on the page', past the causes shown."""
    if not causes:
        return []
    rows = sum(len(c.rows) for c in causes)
    where = f"[on the page]({page_url}#broke)" if page_url else "on the page"
    return [f"- and {plural(rows, 'more row')} in {plural(len(causes), 'other cause')}: {where}"]


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
    more = f" and {len(changes) - FIXED_SHOWN} more" if len(changes) > FIXED_SHOWN else ""
    did = "passes what it" if len(changes) == 1 else "pass what they"
    return (
        f"Fixed: {plural(len(changes), 'row')} {did} failed in the baseline: "
        f"{', '.join(listed)}{more}."
    )
