"""The page's scores table: per dataset and score, the check's status in the words of the rule
that decided it (report/check_status.py: pass, fail, or a drop past max_drop that passes
because it is not shown beyond noise, with its own mark), the mean (baseline → now) spelled
as the comment spells it (figures.score_cell), the bounds, the mean's 95% interval, the
change against the baseline with its interval at its true level, and the gate's reason.

The change's interval is made of two one-sided bounds at the config's `confidence` (95%):
together they are a 1 - 2 * (1 - confidence) interval (90%), and it is labelled so. The
mean's interval (dataset_scores.py's bootstrap, 2.5th to 97.5th percentile) is a true 95%.
Pure.
"""

from __future__ import annotations

from collections.abc import Sequence

from ground_gate.render.html_page import esc
from ground_gate.report.types import ScoreEntry
from ground_gate.review import words
from ground_gate.review.check_status import ORDER
from ground_gate.review.figures import mean_places, score_cell, threshold_text
from ground_gate.review.review import Review
from ground_gate.review.words import change_words, check_reason

# plain-font marks: an emoji needs a font a browser may not have
MARKS = {
    "pass": "\u2714",
    "fail": "\u2718",
    "noise": "\u25cf",
    "empty": "\u2718",
    "unchecked": "",
    "shown": "",
}
CLASSES = {
    "pass": "passed",
    "fail": "failed",
    "noise": "warn noise",
    "empty": "failed",
    "unchecked": "muted",
    "shown": "muted",
}


def _mean_cell(entry: ScoreEntry) -> str:
    """'0.062 → 0.101 > 0.10': as the comment's table says it (figures.score_cell)."""
    return score_cell(entry)


def _reasons(entry: ScoreEntry) -> str:
    """Why the check stands as it does (words.check_reason); nothing for a score with no
    threshold (its check says so)."""
    if entry["threshold"] is None and entry["passed"] is None:
        return ""
    return check_reason(entry)


def _td(text: str, cls: str, label: str) -> str:
    classes = f' class="{cls}"' if cls else ""
    return f'<td{classes} data-label="{esc(label)}">{esc(text)}</td>'


def _interval(entry: ScoreEntry) -> str:
    """The mean's 95% interval, its ends spelt as the mean is (figures.mean_places)."""
    ci, places = entry["ci95"], mean_places(entry)
    return f"{ci[0]:.{places}f} \u2013 {ci[1]:.{places}f}" if ci else words.NOT_AVAILABLE


def scores_section(entries: Sequence[ScoreEntry], review: Review) -> list[str]:
    compared = any("baseline" in e for e in entries)
    heads = words.score_heads(compared)
    out = [
        f'<section id="scores"><h2>{words.SCORES}</h2><div class="scroll"><table class="cards">',
        "<thead><tr>" + "".join(f"<th>{h}</th>" for h in heads) + "</tr></thead><tbody>",
    ]
    for e in sorted(entries, key=lambda e: ORDER[review.status(e).kind]):  # failed first
        status = review.status(e)
        mark = f"{MARKS[status.kind]} " if MARKS[status.kind] else ""
        word = status.word  # "not checked" for a threshold the run could not check
        rows = words.rows_scored(e["n"], e["n_error"])
        cells = [
            (e["dataset"], "", heads[0]),
            (e["score"], "", heads[1]),
            (mark + word, CLASSES[status.kind], heads[2]),
            (_mean_cell(e), "num", heads[3]),
            (threshold_text(e["threshold"]).strip(" ()") or words.NO_BOUNDS, "bounds", heads[4]),
            (_interval(e), "num", heads[5]),
        ]
        if compared:
            change = e.get("baseline")
            said = change_words(e["score"], change) if change else ""
            cells.append((said, "change", heads[6]))
        cells += [(rows, "", words.ROWS_HEAD), (_reasons(e), "muted why", words.WHY_HEAD)]
        out.append("<tr>" + "".join(_td(*cell) for cell in cells) + "</tr>")
    out.append("</tbody></table></div>")
    levels = sorted({e["baseline"]["confidence"] for e in entries if "baseline" in e})
    if levels:
        out.append(f'<p class="muted">{words.change_note(levels)}</p>')
    out.append("</section>")
    return out


__all__: Sequence[str] = ["change_words", "scores_section"]
