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
from ground_gate.review import words
from ground_gate.review.baseline_rows import changes_of, response_before, scores_before
from ground_gate.review.changes import row_scores, standing
from ground_gate.review.evidence_words import has_evidence, verdict_class
from ground_gate.review.figures import FAIL, bounds_of, changed, row_thresholds, row_values
from ground_gate.review.review import Review
from ground_gate.review.selection import carriers, ranked_rows
from ground_gate.review.words import (
    CLOSEST,
    EVIDENCE,
    NO_PASSAGE,
    PROBABILITIES,
    QUOTED_CLOSEST,
    is_nothing_found,
    not_judged,
    probabilities,
    uncertain_readings,
    unit_verdict,
)

Row = RowEntry
OPEN_ROWS = 5  # the worst rows start open: the page opens on what failed
PROBABILITY_KEYS = ("p_supported", "p_contradicted", "p_absent")
PROBABILITY_LABELS = tuple(dict(PROBABILITIES)[k] for k in PROBABILITY_KEYS)
SIGN = {"min": "\u2265", "max": "\u2264"}
DATASET, ROW, VERDICT = words.ROW_HEADS


def _probability_cells(unit: UnitEntry, columns: bool) -> str:
    if not_judged(unit):  # no judge read it: no figure of one
        return '<td class="num"></td>' * (len(PROBABILITY_KEYS) if columns else 1)
    if not columns:
        score = "" if unit["score"] is None else f"{unit['score']:.2f}"
        return f'<td class="num" data-label="{words.UNIT_SCORE}">{score}</td>'
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
        note = note or NO_PASSAGE
        quote = None
    if quote and not note:  # no source to find it in: the quote still says what it is
        note = EVIDENCE if has_evidence(unit) else f"{CLOSEST}, {QUOTED_CLOSEST}"
    shown = f"\u201c{esc(quote)}\u201d" if quote else ""
    said = f'<span class="muted">{esc(note)}{":" if shown else ""}</span> ' if note else ""
    cell = f"{said}{shown}".strip()
    return f'<td data-label="{words.IN_SOURCE}">{cell}</td>' if cell else "<td></td>"


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
    metric_, judged, verdict = words.UNIT_HEADS
    heads = "".join(
        f"<th>{h}</th>"
        for h in (
            *words.UNIT_HEADS,
            *(PROBABILITY_LABELS if columns else (words.UNIT_SCORE,)),
            words.IN_SOURCE,
        )
    )
    out = [
        '<div class="scroll"><table class="units cards"><thead><tr><th></th>'
        f"{heads}</tr></thead><tbody>"
    ]
    width = 6 + (2 if columns else 0)
    for name, metric in row["metrics"].items():
        if metric["status"] == "error":
            out.append(
                f'<tr><td></td><td>{esc(name)}</td><td colspan="{width - 2}" class="v-bad">'
                f"{words.UNIT_ERROR.format(error=esc(metric['error'] or ''))}</td></tr>"
            )
            continue
        for i, unit in enumerate(metric["units"]):
            cls = verdict_class(unit["verdict"])
            note = not_judged(unit) or _note(unit, notes.get((name, i), ""), columns)
            fails = ", ".join(carried.get(id(unit), ()))
            why = words.WHY_FAILS.format(scores=esc(fails))
            why = f' <span class="muted">{why}</span>' if fails else ""
            out.append(
                f'<tr><td data-label="{words.TAG}">{tag(name, i)}</td>'
                f'<td data-label="{metric_}">{esc(name)}</td>'
                f'<td data-label="{judged}">{esc(unit["text"])}</td>'
                f'<td class="v-{cls}" data-label="{verdict}">{esc(unit_verdict(unit))}{why}</td>'
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
        f"<h4>{words.CHANGED_SINCE}</h4>",
        f'<div class="scroll"><table class="diff"><thead><tr><th>{words.BASELINE_SAID}</th>'
        f"<th>{words.THIS_RUN_SAYS}</th></tr></thead><tbody>",
    ]
    for change in changes:
        out.append(
            f'<tr><td class="was">{_side(change["before"], words.ADDED)}</td>'
            f"<td>{_side(change['after'], words.REMOVED)}</td></tr>"
        )
    out.append("</tbody></table></div>")
    return out


def _no_texts() -> str:
    return f'<p class="muted">{words.no_texts(TEXT_BUDGET_BYTES >> 20)}</p>'


def _row_detail(row: Row, opened: bool) -> list[str]:
    text = row.get("text")
    out = [f"<details{' open' if opened else ''}><summary>{words.ROW_DETAIL}</summary>",
           *_changes(row)]  # fmt: skip
    marks = SourceMarks([], {})
    if text:
        marks = source_marks(row, text["source"])
        if text["question"]:
            question = esc(text["question"], True)
            out.append(f'<h4>{words.QUESTION}</h4><div class="text">{question}</div>')
        before = response_before(row)
        if before is not None:  # what the row answered before the pull request
            was = esc(before, True)
            out.append(f'<h4>{words.BASELINE_RESPONSE}</h4><div class="text was">{was}</div>')
        response = marked(text["response"], response_spans(row, text["response"]))
        out.append(f'<h4>{words.RESPONSE}</h4><div class="text response">{response}</div>')
    else:
        out.append(_no_texts())
    out += _units_table(row, marks.notes)
    for addressed in row.get("addressed_to_judge") or []:
        said = words.ROW_ADDRESSED.format(
            field=esc(addressed["field"]), text=esc(addressed["text"])
        )
        out.append(f'<p class="warn">{said}</p>')
    for hidden in row.get("hidden_text") or []:
        if hidden["kind"] == UNCERTAIN:
            said = words.ROW_MAY_NOT_SEE.format(
                field=esc(hidden["field"]),
                text=esc(hidden["text"]),
                how=esc(uncertain_readings(row)),
            )
            out.append(f'<p class="warn">{said}</p>')
            continue
        said = words.ROW_HIDDEN.format(
            field=esc(hidden["field"]), kind=esc(hidden["kind"]), text=esc(hidden["text"])
        )
        out.append(f'<p class="warn">{said}</p>')
    if text:
        cut = words.CUT_AT.format(fields=", ".join(text["cut"])) if text["cut"] else ""
        out.append(
            f'<h4>{words.SOURCE} <span class="muted">({esc(marks.label())}{esc(cut)})</span></h4>'
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
        return f'<td class="passed" data-label="{VERDICT}">{words.PASS}</td>'
    said = standing(row, compared)
    note = f' <span class="muted">({words.STANDING[said]})</span>' if said else ""
    fails = words.VERDICT_FAILS.format(scores=esc(", ".join(row["failing"])))
    return f'<td class="failed" data-label="{VERDICT}">{fails}{note}</td>'


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
        f'<tr><td data-label="{DATASET}">{esc(row["dataset"])}</td>'
        f'<td class="id" data-label="{ROW}">{esc(shown_id(row["id"]))}</td>'
        f"{_verdict_cell(row, compared)}"
        f"{values}</tr>",
        f'<tr class="detail"><td colspan="{3 + len(scores)}">',
        *_row_detail(row, opened),
        "</td></tr></tbody>",
    ]


LEGEND = (
    f'<p class="legend">{words.LEGEND_RESPONSE} '
    + "".join(
        f'<mark class="{cls}">{said}</mark>'
        for cls, said in zip(("u-good", "u-bad", "u-contra"), words.LEGEND_VERDICTS, strict=True)
    )
    + f' {words.LEGEND_SOURCE} <mark class="ev">{words.LEGEND_CONTRADICTED}</mark>'
    f'<mark class="ev-good">{words.LEGEND_SUPPORTED}</mark>'
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
        f'<section id="rows"><h2>{words.ROWS.format(count=len(rows))}</h2>',
        LEGEND,
        *filters(report, review, scores),
        '<div class="scroll"><table id="row-table"><thead><tr>'
        + "".join(f"<th>{h}</th>" for h in words.ROW_HEADS),
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
        said = words.NOT_RUN.format(count=len(not_run), rows=listed, more="")
        out.append(f'<p class="warn">{said}</p>')
    out.append("</section>")
    return out
