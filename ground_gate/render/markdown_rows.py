"""The comment's rows: what the pull request broke (one line per row, worst first, with the
sentences it changed), what it fixed, the worst rows with the units that explain them, and
every row's scores. Markdown, from the JSON report; every string from the data escaped.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tabulate import tabulate

from ground_gate.config.scores import ANSWERED_SIDES, SCORE_NAMES, SUBSTANCE
from ground_gate.render.anchors import row_link
from ground_gate.render.escape import cell, id_cell, ident
from ground_gate.report.types import ChangedUnit, Report, RowEntry, ThresholdBounds, UnitEntry
from ground_gate.review import words
from ground_gate.review.baseline_rows import (
    changed_sentences,
    changes_of,
    response_before,
    scores_before,
)
from ground_gate.review.changes import RowChange, ScoreChange, moved_text
from ground_gate.review.evidence_words import evidence_said
from ground_gate.review.figures import (
    before_now,
    changed,
    missed_text,
    row_thresholds,
    row_values,
)
from ground_gate.review.review import Review
from ground_gate.review.selection import ShownRow, carriers
from ground_gate.review.words import probabilities, unit_verdict

Row = RowEntry
OPEN_ROWS = 5  # rows of "what broke" shown before the rest is collapsed
ANSWER_CHARS = 200  # of an answer quoted in "what broke", old and new
# of a unit's verdict in words: long enough for the facts a source states otherwise ("says 20
# minutes; the source says 60 minutes; says 100 W; the source says 65 W")
VERDICT_CHARS = 160
ROWS_SHOWN = 20  # the rest are on the page (the failing ones shown first)


def row_name(row: Row, page_url: str | None) -> str:
    """'**news / row-7**', a link to the row on the page when there is one."""
    name = f"{cell(row['dataset'], 60)} / {id_cell(row['id'])}"
    return f"**[{name}]({row_link(page_url, row)})**" if page_url else f"**{name}**"


def score_change(change: ScoreChange, threshold: ThresholdBounds | None) -> str:
    if change.now is None and change.instead is not None:
        return f"{ident(change.score)} {moved_text(change, threshold)}"
    if change.now is None:
        return words.COULD_NOT_SCORE.format(score=ident(change.score))
    text = f"{ident(change.score)} {before_now(change.now, change.before, threshold)}"
    return text + missed_text(change.now, threshold)


def _said(text: str, verdict: str) -> str:
    return f"\u201c{cell(text, 160)}\u201d *{cell(verdict, VERDICT_CHARS)}*"


def _unit_said(unit: UnitEntry) -> str:
    return _said(unit["text"], unit_verdict(unit))


def _changed_said(unit: ChangedUnit) -> str:
    return _said(unit["text"], unit["verdict"])


def change_lines(row: Row, indent: str = "  ") -> list[str]:
    """The sentences the pull request changed in the row's response: the baseline's, then
    what replaced it, each with its verdict."""
    return [f"{indent}- {line}" for line in changed_sentences(row, _changed_said)]


def carrier_lines(
    row: Row, scores: Sequence[str], indent: str = "  ", changes_shown: bool = True
) -> list[str]:
    """For each failing score, the unit that carries it when the changed sentences do not
    show it already (`changes_shown`: they are shown beside it): a row failing contradiction
    with every sentence "supported" still says which sentence holds its P(contradicted)."""
    changes = changes_of(row) if changes_shown else []
    shown = {u["text"] for c in changes for u in c["after"]}
    by_unit: dict[int, tuple[list[str], UnitEntry]] = {}  # one line a unit
    for score, unit in carriers(row, scores):
        if unit["text"] not in shown:
            by_unit.setdefault(id(unit), ([], unit))[0].append(ident(score))
    lines = []
    for named, unit in by_unit.values():
        said = probabilities(unit)
        said = f", {said}" if said else ""
        behind = words.SENTENCE_BEHIND.format(scores=" and ".join(named))
        lines.append(f"{indent}- {behind}: {_unit_said(unit)}{said}")
    return lines


def answer_line(row: Row, indent: str = "  ") -> list[str]:
    """The row's answer now, and the baseline's when it differs: what a decline replaced."""
    text = row.get("text")
    if not text:
        return []
    now = f"\u201c{cell(text['response'], ANSWER_CHARS)}\u201d"
    before = response_before(row)
    if before is None:
        return [f"{indent}- " + words.SAID.format(now=now)]
    was = f"\u201c{cell(before, ANSWER_CHARS)}\u201d"
    return [f"{indent}- " + words.SAID_BEFORE_NOW.format(before=was, now=now)]


def broke_entry(
    change: RowChange, thresholds: Mapping[str, ThresholdBounds | None], page_url: str | None
) -> list[str]:
    row = change.row
    said = ", ".join(score_change(s, thresholds.get(s.score)) for s in change.scores)
    new = f" {words.NOT_IN_BASELINE}" if change.new_row else ""
    scores = [s.score for s in change.scores]
    answers = [s for s in scores if s in ANSWERED_SIDES]
    others = [s for s in scores if s not in ANSWERED_SIDES]
    if answers:  # the whole answer, old and new; for other scores, the sentence carrying each
        return [
            f"- {row_name(row, page_url)}{new}: {said}",
            *answer_line(row),
            *carrier_lines(row, others, changes_shown=False),
        ]
    return [
        f"- {row_name(row, page_url)}{new}: {said}",
        *change_lines(row),
        *carrier_lines(row, others),
    ]


def row_thresholds_by_dataset(report: Report) -> dict[str, dict[str, ThresholdBounds | None]]:
    return {d["name"]: row_thresholds(report, d["name"]) for d in report["datasets"]}


def _evidence(unit: UnitEntry) -> str:
    """'; the judge's evidence: “...”' (a supported or contradicted sentence's), '; closest
    source sentence (supports nothing): “...”', or that the source says nothing about it."""
    said = evidence_said(unit)
    if said is None:
        return ""
    what, quote = said
    return f"; {what}: \u201c{cell(quote)}\u201d" if quote else f"; {what}"


def _unit_lines(shown: ShownRow) -> list[str]:
    """One line a unit the report shows: a list, readable on a phone as on a desktop."""
    lines = []
    for name, metric in shown.row["metrics"].items():
        if metric["status"] == "error":
            lines.append(f"- {ident(name)}: error: {cell(metric['error'] or '')}")
            continue
        for index in shown.units.get(name, ()):
            unit = metric["units"][index]
            judged = probabilities(unit)
            judged = f" ({judged})" if judged else ""
            lines.append(f"- {ident(name)}: {_unit_said(unit)}{judged}{_evidence(unit)}")
    return lines


def _scores_text(row: Row, thresholds: Mapping[str, ThresholdBounds | None]) -> str:
    parts = []
    before = scores_before(row)
    for name, metric in row["metrics"].items():
        if metric["status"] != "ok":
            parts.append(f"{ident(name)} {metric['status'].replace('_', ' ')}")
        for score, value in metric["scores"].items():
            limit = thresholds.get(score)
            parts.append(f"{ident(score)} {changed(value, before.get(score), limit)}")
    return ", ".join(parts)


def worst_rows(report: Report, review: Review, page_url: str | None = None) -> list[str]:
    """The worst rows with the sentences that explain them. Against a baseline, only the
    rows that failed there too: the rows this pull request broke are said above, once."""
    ranked = review.others
    if not ranked:
        return []
    compared = review.compared
    what = words.FAILED_BEFORE_TOO if compared else words.WORST_ROWS
    out = [f"<details><summary>{what} ({len(ranked)})</summary>", ""]
    thresholds = row_thresholds_by_dataset(report)
    for shown in ranked:
        row = shown.row
        failing = ", ".join(ident(s) for s in row["failing"])
        failing = f" \u2014 fails {failing}" if failing else ""
        scores = _scores_text(row, thresholds[row["dataset"]])
        out += [f"{row_name(row, page_url)}{failing}: {scores}", "", *_unit_lines(shown)]
        if change_lines(row):
            out += ["", f"{words.CHANGED_SINCE}:", *change_lines(row, "")]
        out.append("")
    out.append("</details>")
    return out


def rows_table(report: Report, limit: int = ROWS_SHOWN) -> list[str]:
    """Every row's scores (the failing ones first when there are too many to show), then the
    rows not run."""
    rows = list(report["rows"])
    not_run = list(report.get("not_run") or [])
    if not rows and not not_run:
        return []
    if len(rows) > limit:
        rows = sorted(rows, key=lambda r: not r["failing"])[:limit]
    # substance is a row's as a whole, said by its failing list: no column of its own
    scores = [
        s for s in SCORE_NAMES if s != SUBSTANCE and any(e["score"] == s for e in report["scores"])
    ]
    thresholds = row_thresholds_by_dataset(report)
    body = [
        [
            cell(r["dataset"], 40),
            id_cell(r["id"]),
            *row_values(r, scores, thresholds[r["dataset"]]),
        ]
        for r in rows
    ]
    body += [
        [cell(r["dataset"], 40), id_cell(r["id"]), *(["not run"] * len(scores))]
        for r in not_run[: max(limit - len(rows), 0)]
    ]
    table = tabulate(
        body, headers=["dataset", "row", *scores], tablefmt="github", disable_numparse=True
    )
    total = len(report["rows"]) + len(not_run)
    shown = f"{len(body)} of {total}" if len(body) < total else str(len(body))
    return [f"<details><summary>Rows ({shown})</summary>", "", table, "", "</details>"]


__all__: Sequence[str] = ["broke_entry", "rows_table", "worst_rows"]
