"""The page's rows: every row, failing first, each with its anchor (`#news/row-7`), its values
against the baseline's, and its detail: the sentences the pull request changed (old and new,
each with its verdict), the response with its units marked, every unit with the judge's
probabilities and where its evidence is, the question, and the source with the evidence
highlighted. The filters' form and the data the page's script reads are here too.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from ground_gate.config.scores import SCORE_NAMES, SUBSTANCE
from ground_gate.leaves.numbers import bound
from ground_gate.metrics.styles import UNCERTAIN
from ground_gate.render.anchors import row_key
from ground_gate.render.escape import shown_id
from ground_gate.render.html_evidence import (
    NOTHING_SAID,
    QUOTED_CLOSEST,
    SourceMarks,
    marked,
    response_spans,
    source_marks,
    tag,
)
from ground_gate.render.html_filters import filters, start_status
from ground_gate.render.html_page import esc
from ground_gate.report.json_report import TEXT_BUDGET_BYTES
from ground_gate.report.types import ChangedUnit, Report, RowEntry, ThresholdBounds, UnitEntry
from ground_gate.review.baseline_rows import changes_of, response_before, scores_before
from ground_gate.review.changes import row_scores, standing
from ground_gate.review.evidence_words import has_evidence, verdict_class
from ground_gate.review.figures import FAIL, bounds_of, changed, row_thresholds, row_values
from ground_gate.review.review import Review
from ground_gate.review.selection import carriers, ranked_rows
from ground_gate.review.words import (
    CLOSEST,
    EVIDENCE,
    is_nothing_found,
    not_judged,
    plural,
    probabilities,
    uncertain_readings,
    unit_verdict,
)

Row = RowEntry
OPEN_ROWS = 5  # the worst rows start open: the page opens on what failed
PROBABILITY_KEYS = ("p_supported", "p_contradicted", "p_absent")
PROBABILITY_LABELS = ("P(supported)", "P(contradicted)", "P(not in source)")
STANDING = {"new": "new since the baseline", "before": "failing in the baseline too"}
SIGN = {"min": "\u2265", "max": "\u2264"}


def _probability_cells(unit: UnitEntry, columns: bool) -> str:
    if not_judged(unit):  # no judge read it: no figure of one
        return '<td class="num"></td>' * (len(PROBABILITY_KEYS) if columns else 1)
    if not columns:
        score = "" if unit["score"] is None else f"{unit['score']:.2f}"
        return f'<td class="num" data-label="score">{score}</td>'
    detail = unit["detail"]
    return "".join(
        f'<td class="num" data-label="{label}">{detail[k]:.2f}</td>' if k in detail else "<td></td>"
        for k, label in zip(PROBABILITY_KEYS, PROBABILITY_LABELS, strict=True)
    )


def _evidence_cell(unit: UnitEntry, note: str) -> str:
    """What the source holds for the unit, said first: the judge's evidence, the closest source
    sentence (which supports nothing), or that the source says nothing about it."""
    quote = unit.get("evidence")
    if is_nothing_found(quote):
        note = note or NOTHING_SAID
        quote = None
    if quote and not note:  # no source to find it in: the quote still says what it is
        note = EVIDENCE if has_evidence(unit) else f"{CLOSEST}, {QUOTED_CLOSEST}"
    shown = f"\u201c{esc(quote)}\u201d" if quote else ""
    said = f'<span class="muted">{esc(note)}{":" if shown else ""}</span> ' if note else ""
    cell = f"{said}{shown}".strip()
    return f'<td data-label="in the source">{cell}</td>' if cell else "<td></td>"


def _note(unit: UnitEntry, note: str, columns: bool) -> str:
    """The unit's note, and where the table's number columns hold none of its numbers (an
    answers verdict beside judged sentences, a decline with no score), the probabilities it
    has."""
    if columns:
        numbers_shown = any(k in unit["detail"] for k in PROBABILITY_KEYS)
    else:
        numbers_shown = unit["score"] is not None
    if numbers_shown:
        return note
    return "; ".join(part for part in (probabilities(unit), note) if part)


def _carried(row: Row) -> dict[int, list[str]]:
    """id(unit) -> the failing scores it carries (selection.carrier)."""
    carried: dict[int, list[str]] = {}
    for score, unit in carriers(row, row["failing"]):
        carried.setdefault(id(unit), []).append(score)
    return carried


def _units_table(row: Row, notes: Mapping[tuple[str, int], str]) -> list[str]:
    units = [u for m in row["metrics"].values() for u in m["units"]]
    carried = _carried(row)
    columns = any(k in u["detail"] for u in units for k in PROBABILITY_KEYS)
    heads = (
        "<th>P(supported)</th><th>P(contradicted)</th><th>P(not in source)</th>"
        if columns
        else "<th>score</th>"
    )
    out = [
        '<div class="scroll"><table class="units cards"><thead><tr><th></th><th>metric</th>'
        f"<th>judged</th><th>verdict</th>{heads}<th>in the source</th></tr></thead><tbody>"
    ]
    width = 6 + (2 if columns else 0)
    for name, metric in row["metrics"].items():
        if metric["status"] == "error":
            out.append(
                f'<tr><td></td><td>{esc(name)}</td><td colspan="{width - 2}" class="v-bad">'
                f"error: {esc(metric['error'] or '')}</td></tr>"
            )
            continue
        for i, unit in enumerate(metric["units"]):
            cls = verdict_class(unit["verdict"])
            note = not_judged(unit) or _note(unit, notes.get((name, i), ""), columns)
            fails = ", ".join(carried.get(id(unit), ()))
            why = f' <span class="muted">(why the row fails {esc(fails)})</span>' if fails else ""
            out.append(
                f'<tr><td data-label="tag">{tag(name, i)}</td><td data-label="metric">'
                f'{esc(name)}</td><td data-label="judged">{esc(unit["text"])}</td>'
                f'<td class="v-{cls}" data-label="verdict">{esc(unit_verdict(unit))}{why}</td>'
                f"{_probability_cells(unit, columns)}{_evidence_cell(unit, note)}</tr>"
            )
    out.append("</tbody></table></div>")
    return out


def _side(units: Sequence[ChangedUnit], empty: str) -> str:
    if not units:
        return f'<span class="muted">{empty}</span>'
    return "<br>".join(
        f'\u201c{esc(u["text"])}\u201d <span class="v-{verdict_class(u["verdict"])}">'
        f"{esc(u['verdict'])}</span>"
        for u in units
    )


def _changes(row: Row) -> list[str]:
    changes = changes_of(row)
    if not changes:
        return []
    out = [
        "<h4>Changed since the baseline</h4>",
        '<div class="scroll"><table class="diff"><thead><tr><th>the baseline said</th>'
        "<th>this run says</th></tr></thead><tbody>",
    ]
    for change in changes:
        out.append(
            f'<tr><td class="was">{_side(change["before"], "(nothing: added)")}</td>'
            f"<td>{_side(change['after'], '(nothing: removed)')}</td></tr>"
        )
    out.append("</tbody></table></div>")
    return out


def _no_texts() -> str:
    return (
        '<p class="muted">This report does not carry the row\'s texts: a report keeps '
        f"at most {TEXT_BUDGET_BYTES >> 20} MiB of them, failing rows first (reports "
        "written before rows carried their texts have none).</p>"
    )


def _row_detail(row: Row, opened: bool) -> list[str]:
    text = row.get("text")
    out = [f"<details{' open' if opened else ''}><summary>the response sentence by sentence, "
           "the question and the source</summary>", *_changes(row)]  # fmt: skip
    marks = SourceMarks([], {})
    if text:
        marks = source_marks(row, text["source"])
        if text["question"]:
            out.append(f'<h4>Question</h4><div class="text">{esc(text["question"], True)}</div>')
        before = response_before(row)
        if before is not None:  # what the row answered before the pull request
            out.append(
                f'<h4>The baseline\'s response</h4><div class="text was">{esc(before, True)}</div>'
            )
        response = marked(text["response"], response_spans(row, text["response"]))
        out.append(f'<h4>Response</h4><div class="text response">{response}</div>')
    else:
        out.append(_no_texts())
    out += _units_table(row, marks.notes)
    for addressed in row.get("addressed_to_judge") or []:
        out.append(
            f'<p class="warn">Addressed to the judge, cut before judging ({esc(addressed["field"])}'
            f"): {esc(addressed['text'])}</p>"
        )
    for hidden in row.get("hidden_text") or []:
        if hidden["kind"] == UNCERTAIN:
            out.append(
                f'<p class="warn">Styled so that a reader may not see it ({esc(hidden["field"])}'
                f"): {esc(hidden['text'])} ({esc(uncertain_readings(row))})</p>"
            )
            continue
        out.append(
            f'<p class="warn">No reader sees it, taken out before judging ({esc(hidden["field"])}'
            f", {esc(hidden['kind'])}): {esc(hidden['text'])}</p>"
        )
    if text:
        cut = f" (cut at the report's limit: {', '.join(text['cut'])})" if text["cut"] else ""
        out.append(
            f'<h4>Source <span class="muted">({esc(marks.label())}{esc(cut)})</span></h4>'
            f'<div class="text source">{marked(text["source"], marks.spans)}</div>'
        )
    out.append("</details>")
    return out


def _value_cell(value: str, label: str, shown: str, threshold: ThresholdBounds | None) -> str:
    """A row's value (figures.row_values; `shown` with its baseline's beside it), its
    failure mark as a class and a plain-font cross (an emoji needs a font a browser may not
    have), and above it the score's name and bounds, shown on a row that is open or opened
    at its anchor: the table's header is then far above it."""
    failing = value.startswith(FAIL)
    text = shown or value.removeprefix(FAIL).strip()
    mark = "\u2718 " if failing else ""
    cls = "num failed" if failing else "num"
    name = " ".join([label, *(f"{SIGN[k]} {bound(v)}" for k, v in bounds_of(threshold))])
    return (
        f'<td class="{cls}" data-label="{esc(name)}"><span class="sn">{esc(name)}</span>'
        f"{mark}{esc(text)}</td>"
    )


def _verdict_cell(row: Row, compared: bool) -> str:
    if not row["failing"]:
        return '<td class="passed" data-label="verdict">pass</td>'
    said = standing(row, compared)
    note = f' <span class="muted">({STANDING[said]})</span>' if said else ""
    return (
        f'<td class="failed" data-label="verdict">fails {esc(", ".join(row["failing"]))}{note}</td>'
    )


def _row(
    report: Report,
    review: Review,
    row: Row,
    scores: Sequence[str],
    opened: bool,
    fixed_keys: set[str],
) -> list[str]:
    compared = review.compared
    thresholds = row_thresholds(report, row["dataset"])
    now, before = row_scores(row), scores_before(row)
    values = "".join(
        _value_cell(
            v,
            s,
            changed(now[s], before.get(s), thresholds.get(s)) if s in now else "",
            thresholds.get(s),
        )
        for v, s in zip(row_values(row, scores, thresholds), scores, strict=True)
    )
    key = row_key(row)
    return [
        f'<tbody class="row" id="{esc(key)}" data-dataset="{esc(row["dataset"])}" '
        f'data-status="{"fail" if row["failing"] else "pass"}" '
        f'data-values="{esc(json.dumps(now, sort_keys=True))}" '
        f'data-failing="{esc(json.dumps(row["failing"]))}" '
        f'data-standing="{standing(row, compared) or ""}" '
        f'data-fixed="{"1" if key in fixed_keys else "0"}">',
        f'<tr><td data-label="dataset">{esc(row["dataset"])}</td>'
        f'<td class="id" data-label="row">{esc(shown_id(row["id"]))}</td>'
        f"{_verdict_cell(row, compared)}"
        f"{values}</tr>",
        f'<tr class="detail"><td colspan="{3 + len(scores)}">',
        *_row_detail(row, opened),
        "</td></tr></tbody>",
    ]


LEGEND = (
    '<p class="legend">Response sentences: <mark class="u-good">supported</mark>'
    '<mark class="u-bad">unsupported</mark><mark class="u-contra">contradicted</mark>'
    f' Source: <mark class="ev">{EVIDENCE} that a sentence is contradicted</mark>'
    f'<mark class="ev-good">{EVIDENCE} for a supported sentence</mark>'
    f'<mark class="near">{CLOSEST}</mark></p>'
)


def rows_section(report: Report, review: Review) -> list[str]:
    rows = ranked_rows(report)
    # substance is a row's as a whole, said by its failing list: no column of its own
    scores = [
        s for s in SCORE_NAMES if s != SUBSTANCE and any(e["score"] == s for e in report["scores"])
    ]
    fixed_keys = {row_key(c.row) for c in review.fixed}
    out = [
        f'<section id="rows"><h2>Rows ({len(rows)})</h2>',
        LEGEND,
        *filters(report, review, scores),
        '<div class="scroll"><table id="row-table"><thead><tr><th>dataset</th><th>row</th>'
        "<th>verdict</th>",
        *[f"<th>{esc(s)}</th>" for s in scores],
        "</tr></thead>",
    ]
    # the worst rows of the view the filter starts at are open
    starting = [r for r in rows if r["failing"]]
    if start_status(review) == "new":
        starting = [r for r in starting if standing(r, True) == "new"]
    opened = {id(r) for r in starting[:OPEN_ROWS]}
    for row in rows:
        out += _row(report, review, row, scores, id(row) in opened, fixed_keys)
    out.append("</table></div>")
    not_run = report.get("not_run") or []
    if not_run:
        listed = ", ".join(f"{esc(r['dataset'])}/{esc(shown_id(r['id']))}" for r in not_run)
        out.append(f'<p class="warn">{plural(len(not_run), "row")} not run: {listed}</p>')
    out.append("</section>")
    return out
