"""The page's "What this pull request broke", first on a page compared with a baseline: the
rows that newly fail (report/changes.py's `broke`) grouped by cause as the comment groups them
(report/causes.py: the same sentences now said, numbers aside, failing the same scores), each
cause said once with its rows (the first few listed, the rest folded), the group of the worst
row first; each row a link to its row below, with its scores before and now; a row alone
with the sentences it changed; rows that now decline alike (or answer what their sources
cannot, or say nothing) under their answer, with the first row's answer old and new; the
first CAUSES_SHOWN causes open, as the comment lists them; then the rows fixed. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ground_gate.render.anchors import row_link
from ground_gate.render.escape import shown_id
from ground_gate.render.html_page import esc
from ground_gate.report.types import ChangedUnit, Report, RowEntry, ThresholdBounds
from ground_gate.review.baseline_rows import changed_sentences
from ground_gate.review.causes import CAUSES_SHOWN, Cause, answer_words
from ground_gate.review.changes import RowChange, ScoreChange, moved_text
from ground_gate.review.evidence_words import verdict_class
from ground_gate.review.figures import changed, missed_text, row_thresholds
from ground_gate.review.review import Review
from ground_gate.review.words import plural

SHOWN = CAUSES_SHOWN  # causes shown before the rest is folded (the comment's count)
MEMBERS_SHOWN = 5  # of a cause's rows, listed before the rest is folded
FIXED_SHOWN = 20


def _unit(unit: ChangedUnit) -> str:
    verdict = f'<span class="v-{verdict_class(unit["verdict"])}">{esc(unit["verdict"])}</span>'
    return f"\u201c{esc(unit['text'])}\u201d {verdict}"


def _score_change(change: ScoreChange, threshold: ThresholdBounds | None) -> str:
    """'groundedness 0.92 → 0.63 < 0.75', as the row's own cell spells its values."""
    name = esc(change.score)
    if change.now is None and change.instead is not None:
        return f"{name} {esc(moved_text(change, threshold))}"
    if change.now is None:
        return f"{name} could not be scored"
    shown = changed(change.now, change.before, threshold) + missed_text(change.now, threshold)
    return f"{name} {esc(shown)}"


def _link(row: RowEntry) -> str:
    name = f"{row['dataset']} / {shown_id(row['id'])}"
    return f'<a href="{esc(row_link("", row))}">{esc(name)}</a>'


def _scores(change: RowChange, thresholds: Mapping[str, ThresholdBounds | None]) -> str:
    return ", ".join(_score_change(s, thresholds.get(s.score)) for s in change.scores)


def _row_line(change: RowChange, thresholds: Mapping[str, ThresholdBounds | None]) -> str:
    new = ' <span class="muted">(not in the baseline)</span>' if change.new_row else ""
    return f"{_link(change.row)}{new}: {_scores(change, thresholds)}"


def _changes(row: RowEntry) -> list[str]:
    """The sentences the pull request changed in the row's response, old and new."""
    return changed_sentences(row, _unit)


def _quoted(text: str) -> str:
    return f"\u201c{esc(text)}\u201d"


def _answer(cause: Cause) -> str:
    """The first row's whole answer, the baseline's then now, as the comment shows it (named
    in a group; a row alone is named on its line)."""
    who = f"{_link(cause.rows[0].row)} " if len(cause.rows) > 1 else ""
    now = _quoted(cause.answer or "")
    if cause.answer_before is not None:
        now = f"{_quoted(cause.answer_before)} \u2192 now {now}"
    return f'<br><span class="said">{who}said {now}</span>'


def _what(cause: Cause) -> str:
    """What a group's rows now say, as the comment says it (markdown_broke.py)."""
    if cause.answers:
        doing, before = answer_words(cause)
        vary = " (with other numbers from row to row)" if cause.numbers_vary else ""
        before = f", {esc(before)}" if before else ""
        return f"{esc(doing)}: {_quoted(cause.answer or '')}{vary}{before}"
    if cause.said:
        said = "; ".join(
            f'{_quoted(t)} <span class="v-{verdict_class(v)}">{esc(v)}</span>'
            for t, v in cause.said
        )
        vary = " (with other numbers from row to row)" if cause.numbers_vary else ""
        was = f", where the baseline said {_quoted(cause.was[0])} or the like" if cause.was else ""
        return f"now say {said}{vary}{was}"
    if cause.was:
        return f"no longer say {_quoted(cause.was[0])}"
    return "say what the baseline said: the verdict changed, not the answer"


def _cause(cause: Cause, thresholds: Mapping[str, Mapping[str, ThresholdBounds | None]]) -> str:
    """A row alone with the sentences it changed; or a group under what its rows now say and
    fail, its rows listed with their scores (the first few; the rest folded)."""

    def line(change: RowChange) -> str:
        return _row_line(change, thresholds[change.row["dataset"]])

    if len(cause.rows) == 1:
        change = cause.rows[0]
        said = "".join(f'<br><span class="said">{c}</span>' for c in _changes(change.row))
        said = _answer(cause) + said if cause.answers else said
        return f"<li>{line(change)}{said}</li>"
    fails = " and ".join(esc(s) for s in cause.scores)
    verb = "fails" if len(cause.scores) == 1 else "fail"
    rows = [f"<li>{line(c)}</li>" for c in cause.rows]
    first = _answer(cause) if cause.answers else ""
    out = (
        f"<li><b>{len(cause.rows)} rows</b> {_what(cause)}; {fails} {verb}:{first}"
        f'<ul class="members">{"".join(rows[:MEMBERS_SHOWN])}</ul>'
    )
    if len(rows) > MEMBERS_SHOWN:
        out += (
            f"<details><summary>{plural(len(rows) - MEMBERS_SHOWN, 'more row')}</summary>"
            f'<ul class="members">{"".join(rows[MEMBERS_SHOWN:])}</ul></details>'
        )
    return out + "</li>"


def _fixed(
    review: Review, thresholds: Mapping[str, Mapping[str, ThresholdBounds | None]]
) -> list[str]:
    mended = review.fixed
    if not mended:
        return []
    listed = [
        f"{_link(c.row)} ({_scores(c, thresholds[c.row['dataset']])})" for c in mended[:FIXED_SHOWN]
    ]
    more = f" and {len(mended) - FIXED_SHOWN} more" if len(mended) > FIXED_SHOWN else ""
    return [
        f"<p>Fixed: {plural(len(mended), 'row')} pass what they failed in the baseline: "
        f"{', '.join(listed)}{more}.</p>"
    ]


def broke_section(report: Report, review: Review) -> list[str]:
    """The section, on a page compared with a baseline; nothing otherwise."""
    if not review.compared:
        return []
    thresholds = {d["name"]: row_thresholds(report, d["name"]) for d in report["datasets"]}
    found = review.causes
    rows = sum(len(c.rows) for c in found)
    out = ['<section id="broke"><h2>What this pull request broke</h2>']
    if not found:
        out.append("<p>No row newly fails since the baseline.</p>")
    else:
        grouped = sum(len(c.rows) for c in found if len(c.rows) > 1)
        how = f", {grouped} of them in groups that now say the same thing" if grouped else ""
        out.append(
            f"<p>{plural(rows, 'row')} pass in the baseline and fail now{how}; each opens below in "
            "Rows, where the filter starts at them.</p>"
        )
        out.append('<ol class="causes">')
        out += [_cause(c, thresholds) for c in found[:SHOWN]]
        out.append("</ol>")
        rest = found[SHOWN:]
        if rest:
            more = sum(len(c.rows) for c in rest)
            out.append(
                f"<details><summary>{plural(more, 'more row')} that newly fail</summary>"
                f'<ol class="causes" start="{SHOWN + 1}">'
            )
            out += [_cause(c, thresholds) for c in rest]
            out.append("</ol></details>")
    out += _fixed(review, thresholds)
    out.append("</section>")
    return out


__all__: Sequence[str] = ["broke_section"]
