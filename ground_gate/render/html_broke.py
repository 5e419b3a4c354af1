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
from ground_gate.review import words
from ground_gate.review.baseline_rows import changed_sentences
from ground_gate.review.causes import CAUSES_SHOWN, Cause
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
        return words.COULD_NOT_SCORE.format(score=name)
    shown = changed(change.now, change.before, threshold) + missed_text(change.now, threshold)
    return f"{name} {esc(shown)}"


def _link(row: RowEntry) -> str:
    name = f"{row['dataset']} / {shown_id(row['id'])}"
    return f'<a href="{esc(row_link("", row))}">{esc(name)}</a>'


def _scores(change: RowChange, thresholds: Mapping[str, ThresholdBounds | None]) -> str:
    return ", ".join(_score_change(s, thresholds.get(s.score)) for s in change.scores)


def _row_line(change: RowChange, thresholds: Mapping[str, ThresholdBounds | None]) -> str:
    new = f' <span class="muted">{words.NOT_IN_BASELINE}</span>' if change.new_row else ""
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
    if cause.answer_before is None:
        said = words.SAID.format(now=now)
    else:
        said = words.SAID_BEFORE_NOW.format(before=_quoted(cause.answer_before), now=now)
    return f'<br><span class="said">{who}{said}</span>'


def _what(cause: Cause) -> str:
    """What a group's rows now do, in words.cause_what's wording (the comment's too)."""
    return words.cause_what(
        cause, _quoted, lambda v: f'<span class="v-{verdict_class(v)}">{esc(v)}</span>'
    )


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
    rows = [f"<li>{line(c)}</li>" for c in cause.rows]
    first = _answer(cause) if cause.answers else ""
    said = words.cause_line(
        f"<b>{len(cause.rows)} rows</b>", _what(cause), [esc(s) for s in cause.scores], ""
    )
    out = f'<li>{said.rstrip()}{first}<ul class="members">{"".join(rows[:MEMBERS_SHOWN])}</ul>'
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
    more = (
        words.AND_MORE.format(count=len(mended) - FIXED_SHOWN) if len(mended) > FIXED_SHOWN else ""
    )
    return [f"<p>{words.fixed_said(len(mended))}: {', '.join(listed)}{more}.</p>"]


def broke_section(report: Report, review: Review) -> list[str]:
    """The section, on a page compared with a baseline; nothing otherwise."""
    if not review.compared:
        return []
    thresholds = {d["name"]: row_thresholds(report, d["name"]) for d in report["datasets"]}
    found = review.causes
    rows = sum(len(c.rows) for c in found)
    out = [f'<section id="broke"><h2>{words.WHAT_BROKE}</h2>']
    if not found:
        out.append(f"<p>{words.NONE_NEWLY_FAILS}</p>")
    else:
        grouped = sum(len(c.rows) for c in found if len(c.rows) > 1)
        how = words.GROUPED.format(count=grouped) if grouped else ""
        intro = words.BROKE_INTRO.format(rows=plural(rows, "row"), grouped=how)
        out.append(f"<p>{intro}</p>")
        out.append('<ol class="causes">')
        out += [_cause(c, thresholds) for c in found[:SHOWN]]
        out.append("</ol>")
        rest = found[SHOWN:]
        if rest:
            more = sum(len(c.rows) for c in rest)
            out.append(
                f"<details><summary>{words.MORE_NEWLY_FAIL.format(rows=plural(more, 'more row'))}"
                "</summary>"
                f'<ol class="causes" start="{SHOWN + 1}">'
            )
            out += [_cause(c, thresholds) for c in rest]
            out.append("</ol></details>")
    out += _fixed(review, thresholds)
    out.append("</section>")
    return out


__all__: Sequence[str] = ["broke_section"]
